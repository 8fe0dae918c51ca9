"""The course's chapters and parts: which chapter numbers exist in the course,
which are written in this repository, and the part each belongs to.

The course has chapters 00 to 39 in six parts (DESIGN.md), and Part VII, one
chapter (40) that trains the same decoder at scale (issue 21). A chapter is
*written* when its folder ``chapters/NN-slug/`` holds a ``chapter.md``.
tools/render.py uses this to turn ``{{ chapter_ref(15) }}`` into a link, and
the book's Sphinx extension (book/_ext/llm_book.py) to build the table of
contents part by part.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

#: The first and last chapter numbers of the course.
FIRST_CHAPTER = 0
LAST_CHAPTER = 40


@dataclass(frozen=True)
class Part:
    """One part of the book: chapters ``first`` to ``last`` inclusive."""

    numeral: str
    title: str
    first: int
    last: int

    @property
    def caption(self) -> str:
        """The heading of the part in the table of contents: ``Part II · Tensors``."""
        return f"Part {self.numeral} · {self.title}"

    def contains(self, number: int) -> bool:
        """Whether chapter ``number`` belongs to this part."""
        return self.first <= number <= self.last


PARTS = (
    Part("I", "Text and tokens", 0, 7),
    Part("II", "Tensors", 8, 12),
    Part("III", "Derivatives", 13, 16),
    Part("IV", "Layers and training", 17, 22),
    Part("V", "Attention and the decoder", 23, 32),
    Part("VI", "Training, evaluation and generation", 33, 39),
    Part("VII", "Scale", 40, 40),
)

#: A chapter folder name: two digits, a dash, a kebab-case slug.
SLUG = re.compile(r"(\d\d)-[a-z0-9]+(?:-[a-z0-9]+)*")


def part_of(number: int) -> Part:
    """The part chapter ``number`` belongs to.

    Raises:
        ValueError: if ``number`` is outside the course (00-40).
    """
    for part in PARTS:
        if part.contains(number):
            return part
    raise ValueError(f"chapter {number} is not in the course (chapters {FIRST_CHAPTER:02d}-{LAST_CHAPTER:02d})")


def written_chapters(root: Path) -> dict[int, str]:
    """The chapters written in the repository at ``root``: number -> folder name.

    A folder counts when its name is ``NN-slug`` and it holds ``chapter.md``.

    Raises:
        ValueError: if two folders claim the same chapter number.
    """
    found: dict[int, str] = {}
    chapters = root / "chapters"
    if not chapters.is_dir():
        return found
    for folder in sorted(chapters.iterdir()):
        match = SLUG.fullmatch(folder.name)
        if match is None or not (folder / "chapter.md").is_file():
            continue
        number = int(match.group(1))
        if number in found:
            raise ValueError(f"chapters/{found[number]} and chapters/{folder.name} are both chapter {number}")
        found[number] = folder.name
    return found
