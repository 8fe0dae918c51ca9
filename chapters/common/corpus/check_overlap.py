#!/usr/bin/env python3
"""Check that the book's corpus shares no run of words with another corpus.

The book's corpus (corpus.json beside this script) was written for this
book. This check compares it with another corpus file in the same JSON
format, by default the earlier Rust edition's
``rust/data/tiny-bilingual-corpus.json``, and lists every run of ``--words``
consecutive words (10 by default) that a document of ours shares with any
document of theirs. Words are maximal runs of Unicode letters and digits,
compared in lower case, so punctuation and case changes cannot hide a copy.

Usage::

    python3 chapters/common/corpus/check_overlap.py OTHER.json [--words 10]

Exit status 0 when no run is shared, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def words(text: str) -> list[str]:
    """The text's words in order, lower-cased: ``"Ferry, pier."`` -> ``["ferry", "pier"]``."""
    return re.findall(r"\w+", text.lower())


def runs(text: str, length: int) -> set[tuple[str, ...]]:
    """Every run of ``length`` consecutive words of ``text``."""
    w = words(text)
    return {tuple(w[i : i + length]) for i in range(len(w) - length + 1)}


def shared_runs(ours: list[dict[str, str]], theirs: list[dict[str, str]], length: int) -> list[tuple[str, str]]:
    """(document id, run) for each run of ours that occurs in any document of theirs."""
    other: set[tuple[str, ...]] = set()
    for document in theirs:
        other |= runs(document["text"], length)
    return [
        (document["id"], " ".join(run))
        for document in ours
        for run in sorted(runs(document["text"], length) & other)
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", type=Path, help="the corpus JSON to compare with")
    parser.add_argument("--ours", type=Path, default=HERE / "corpus.json", help="our corpus JSON")
    parser.add_argument("--words", type=int, default=10, help="run length in words (default 10)")
    arguments = parser.parse_args(argv)
    ours = json.loads(arguments.ours.read_text(encoding="utf-8"))
    theirs = json.loads(arguments.other.read_text(encoding="utf-8"))
    found = shared_runs(ours, theirs, arguments.words)
    for document_id, run in found:
        print(f"{document_id}: {run}")
    print(f"{len(found)} shared runs of {arguments.words} words between {arguments.ours.name} "
          f"({len(ours)} documents) and {arguments.other.name} ({len(theirs)} documents)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
