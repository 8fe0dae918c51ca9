"""Sphinx extension: the book's citation style (sphinxcontrib-bibtex, Debian's
python3-sphinxcontrib.bibtex).

A chapter cites by key in its history section, ``{cite:t}`bengio2003``` ->
"Bengio et al. (2003)", and lists what it cites in a ``{bibliography}`` block
(docs/authoring.md, "References"). tools/links.py prefixes each chapter's keys
(``ch13-bengio2003``) and gives its block ``:keyprefix: ch13-``, so the same
paper can be listed by every chapter that cites it; the numbered labels then
repeat across chapters by design, which sphinxcontrib-bibtex would report as
a ``bibtex.duplicate_label`` warning (book/conf.py suppresses that one kind).

This module registers the reference style ``author_year_round``: author-year
citations in round brackets, as papers in the field write them.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import sphinxcontrib.bibtex.plugin
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


def setup(app: Sphinx) -> dict[str, Any]:
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
