"""Tests of book/_ext/llm_cite.py's entry style: every address of a reference
is written once, for each entry of book/references.bib."""

from __future__ import annotations

import sys
from pathlib import Path

from pybtex.database import parse_file, parse_string
from pybtex.plugin import find_plugin

BOOK = Path(__file__).resolve().parents[2] / "book"
sys.path.insert(0, str(BOOK / "_ext"))

import llm_cite  # noqa: E402,F401  (registers the styles)


def rendered(entries: object) -> dict[str, str]:
    """Each entry's text under the book's entry style, by key."""
    style = find_plugin("pybtex.style.formatting", "llm_book")()
    backend = find_plugin("pybtex.backends", "text")()
    return {entry.key: entry.text.render(backend) for entry in style.format_entries(entries.values())}


def test_an_arxiv_or_doi_address_is_written_once_as_its_identifier() -> None:
    entries = parse_string("""
@misc{paper, author = {Doe, Jane}, title = {A Paper}, year = {2020},
  eprint = {2001.08361}, archiveprefix = {arXiv}, url = {https://arxiv.org/abs/2001.08361v2/}}
@misc{standard, author = {{Some Body}}, title = {A Standard}, year = {2019},
  doi = {10.1109/X.1}, url = {http://dx.doi.org/10.1109/X.1}}
@misc{elsewhere, author = {Doe, Jane}, title = {Code}, year = {2021},
  eprint = {2104.09864}, url = {https://github.com/example/code}}
""", "bibtex").entries
    text = rendered(entries)
    assert text["paper"] == "Jane Doe. A paper. 2020. arXiv:2001.08361."
    assert text["standard"] == "Some Body. A standard. 2019. doi:10.1109/X.1."
    # A url that is another page keeps both links.
    assert text["elsewhere"] == "Jane Doe. Code. 2021. URL: https://github.com/example/code, arXiv:2104.09864."


def test_no_entry_of_the_book_repeats_its_arxiv_identifier_or_doi() -> None:
    entries = parse_file(str(BOOK / "references.bib")).entries
    text = rendered(entries)
    assert "arXiv:2001.08361." in text["kaplan2020"] and "URL:" not in text["kaplan2020"]
    for key, entry in entries.items():
        for identifier in (entry.fields.get("eprint"), entry.fields.get("doi")):
            if identifier:
                assert text[key].count(identifier) == 1, text[key]
