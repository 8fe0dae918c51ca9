"""Sphinx extension: the book's citation style (sphinxcontrib-bibtex, Debian's
python3-sphinxcontrib.bibtex).

A chapter cites by key in its history section, ``{cite:t}`bengio2003``` ->
"Bengio et al. (2003)", and lists what it cites in a ``{bibliography}`` block
(docs/authoring.md, "References"). tools/links.py prefixes each chapter's keys
(``ch13-bengio2003``) and gives its block ``:keyprefix: ch13-``, so the same
paper can be listed by every chapter that cites it; the numbered labels then
repeat across chapters by design, which sphinxcontrib-bibtex would report as
a ``bibtex.duplicate_label`` warning (book/conf.py suppresses that one kind).

This module registers two styles:

* the reference style ``author_year_round``: author-year citations in round
  brackets, as papers in the field write them;
* the entry style ``llm_book``: pybtex's ``plain``, except that an entry whose
  ``url`` is the address its ``eprint`` (arXiv) or ``doi`` already links shows
  that identifier once ("arXiv:2001.08361", a link), not the address a second
  time before it ("URL: https://arxiv.org/abs/2001.08361. arXiv:2001.08361.").
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pybtex.plugin
import sphinxcontrib.bibtex.plugin
from pybtex.richtext import Text
from pybtex.style.formatting.plain import Style as PlainStyle
from pybtex.style.template import optional, sentence
from sphinx.application import Sphinx
from sphinxcontrib.bibtex.style.referencing import BracketStyle
from sphinxcontrib.bibtex.style.referencing.author_year import AuthorYearReferenceStyle


def _round() -> BracketStyle:
    return BracketStyle(left="(", right=")")


@dataclasses.dataclass
class RoundAuthorYearStyle(AuthorYearReferenceStyle):
    """Author-year citations in round brackets: "Bengio et al. (2003)", "(Vaswani et al., 2017)"."""

    bracket_parenthetical: BracketStyle = dataclasses.field(default_factory=_round)
    bracket_textual: BracketStyle = dataclasses.field(default_factory=_round)
    bracket_author: BracketStyle = dataclasses.field(default_factory=_round)
    bracket_label: BracketStyle = dataclasses.field(default_factory=_round)
    bracket_year: BracketStyle = dataclasses.field(default_factory=_round)


sphinxcontrib.bibtex.plugin.register_plugin(
    "sphinxcontrib.bibtex.style.referencing", "author_year_round", RoundAuthorYearStyle
)


def _address(url: str) -> str:
    """``url`` without its scheme, ``www.``/``dx.``, a trailing slash or an
    arXiv version: the form two links to the same page share."""
    address = re.sub(r"^https?://(www\.|dx\.)?", "", url.strip(), flags=re.IGNORECASE)
    address = address.rstrip("/")
    return re.sub(r"^(arxiv\.org/abs/.+?)v[0-9]+$", r"\1", address, flags=re.IGNORECASE).lower()


def identifier_addresses(fields: Any) -> set[str]:
    """The addresses an entry's ``eprint`` and ``doi`` fields link to, as :func:`_address` writes them."""
    addresses = set()
    if fields.get("eprint"):
        addresses.add(_address(f"https://arxiv.org/abs/{fields['eprint']}"))
    if fields.get("doi"):
        addresses.add(_address(f"https://doi.org/{fields['doi']}"))
    return addresses


class BookStyle(PlainStyle):
    """pybtex's ``plain`` entries, each address written once (see the module's docstring)."""

    def format_web_refs(self, e: Any) -> Text:
        url = e.fields.get("url")
        if url and _address(url) in identifier_addresses(e.fields):
            return sentence[optional[self.format_eprint(e)], optional[self.format_pubmed(e)],
                            optional[self.format_doi(e)]]
        return super().format_web_refs(e)


pybtex.plugin.register_plugin("pybtex.style.formatting", "llm_book", BookStyle)


def setup(app: Sphinx) -> dict[str, Any]:
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
