"""The chapter standard of docs/authoring.md that a machine can check.

tools/render.py runs these checks on ``chapter.md`` before it renders the page:

* :func:`check_sections` -- the nine sections, each labelled ``(chNN-<kind>)=``,
  in the order of :data:`SECTION_KINDS`;
* :func:`check_standard` -- one ``{key-ideas}`` box of three to five points in
  the hand-off section, at least two ``{try-it}`` edits in the exercises
  section, and glossary terms (``{term}`adjoint```) that name entries of
  book/glossary.md (:func:`glossary_terms`).

Each failure is a :class:`tools.sandbox.RenderError` naming the chapter.md line.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

from tools.sandbox import RenderError


#: The sections every chapter has, in this order (docs/authoring.md, "Sections").
#: Each level-2 heading is preceded by a MyST label ``(chNN-<kind>)=``.
SECTION_KINDS = (
    "prediction",
    "formula",
    "history",
    "implementation",
    "run",
    "figures",
    "exercises",
    "answers",
    "handoff",
)


def check_sections(text: str, number: str, label: str) -> None:
    """Checks that the chapter labels its nine sections ``(chNN-<kind>)=`` in order.

    Raises RenderError naming the line of the first label out of order, or the
    first missing section.
    """
    found: list[tuple[str, int]] = []
    for line_number, line in enumerate(text.splitlines(), start=1):
        match = re.fullmatch(rf"\(ch{number}-([a-z]+)\)=\s*", line)
        if match and match.group(1) not in SECTION_KINDS:
            close = difflib.get_close_matches(match.group(1), SECTION_KINDS, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise RenderError(
                f"{label}:{line_number}: unknown section '{match.group(1)}'{hint}; the sections are, "
                f"in order: {', '.join(SECTION_KINDS)}"
            )
        if match:
            found.append((match.group(1), line_number))
    previous = -1
    for kind, line_number in found:
        position = SECTION_KINDS.index(kind)
        if position <= previous:
            raise RenderError(
                f"{label}:{line_number}: section '{kind}' is out of order; the sections are, in order: "
                f"{', '.join(SECTION_KINDS)}"
            )
        previous = position
    kinds = [kind for kind, _ in found]
    missing = [kind for kind in SECTION_KINDS if kind not in kinds]
    if missing:
        raise RenderError(
            f"{label}:1: missing section '{missing[0]}': every chapter labels its sections "
            f"(ch{number}-<kind>)= in this order: {', '.join(SECTION_KINDS)}"
        )


#: The opening line of a MyST directive fence: ```{name} or ~~~{name}.
DIRECTIVE_FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})\{(?P<name>[a-z-]+)\}(?P<argument>.*)$")

#: A glossary role in MyST: {term}`adjoint` or {term}`adjoints <adjoint>`.
TERM_ROLE = re.compile(r"\{term\}`([^`]+)`")


def directive_blocks(text: str, name: str) -> list[tuple[int, list[str]]]:
    """Every ``{name}`` directive fence in ``text``: (first line number, body lines).

    A fence closes at the first line that repeats its opening fence characters
    (three or more backticks or tildes, at least as many as it opened with).
    """
    blocks: list[tuple[int, list[str]]] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        match = DIRECTIVE_FENCE.match(lines[index])
        if match is None or match.group("name") != name:
            index += 1
            continue
        fence = match.group("fence")
        closing = re.compile(rf"^{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        body: list[str] = []
        start = index + 1
        index += 1
        while index < len(lines) and not closing.match(lines[index]):
            body.append(lines[index])
            index += 1
        blocks.append((start, body))
        index += 1
    return blocks


def _section_lines(text: str, number: str) -> dict[str, int]:
    """The line of each section label ``(chNN-<kind>)=``."""
    found: dict[str, int] = {}
    for line_number, line in enumerate(text.splitlines(), start=1):
        match = re.fullmatch(rf"\(ch{number}-([a-z]+)\)=\s*", line)
        if match:
            found[match.group(1)] = line_number
    return found


def glossary_terms(glossary: Path) -> set[str]:
    """The terms book/glossary.md defines, lower-cased (Sphinx matches terms without case).

    In a ``{glossary}`` block a term is a line that starts in the first column;
    its definition follows, indented.
    """
    terms: set[str] = set()
    for _, body in directive_blocks(glossary.read_text(encoding="utf-8"), "glossary"):
        for line in body:
            if line and not line[0].isspace() and not line.startswith(":"):
                terms.add(line.strip().lower())
    return terms


def term_target(text: str) -> str:
    """The glossary entry a role names: ``adjoints <adjoint>`` -> ``adjoint``."""
    match = re.fullmatch(r".*<([^<>]+)>\s*", text, re.S)
    return (match.group(1) if match else text).strip().lower()


def check_standard(text: str, number: str, label: str, terms: set[str] | None) -> None:
    """Checks the chapter standard of docs/authoring.md that a machine can check.

    * one ``{key-ideas}`` box, in the hand-off section, of three to five points
      (lines starting with ``- ``);
    * at least two ``{try-it}`` edits, in the exercises section;
    * at least one glossary term, and every ``{term}`` role names an entry of
      the glossary (``terms``; skipped when None).

    Every chapter meets it (chapters 13-16 were brought up to it by the
    teaching pass). Raises RenderError naming the chapter.md line.
    """
    if terms is not None:
        for line_number, line in enumerate(text.splitlines(), start=1):
            for match in TERM_ROLE.finditer(line):
                target = term_target(match.group(1))
                if target not in terms:
                    close = difflib.get_close_matches(target, terms, n=3, cutoff=0.75)
                    hint = f" (did you mean {', '.join(close)}?)" if close else ""
                    raise RenderError(
                        f"{label}:{line_number}: {{term}}`{match.group(1)}` is not in the glossary "
                        f"(book/glossary.md){hint}"
                    )
    sections = _section_lines(text, number)
    handoff = sections.get("handoff", 1)
    boxes = directive_blocks(text, "key-ideas")
    if len(boxes) != 1:
        where = boxes[1][0] if boxes else handoff
        raise RenderError(
            f"{label}:{where}: a chapter has exactly one {{key-ideas}} box (found {len(boxes)}), "
            "at the end of its hand-off section"
        )
    start, body = boxes[0]
    if start < handoff:
        raise RenderError(f"{label}:{start}: the {{key-ideas}} box belongs in the hand-off section (line {handoff})")
    points = sum(1 for line in body if line.startswith("- "))
    if not 3 <= points <= 5:
        raise RenderError(f"{label}:{start}: the {{key-ideas}} box has {points} points; write three to five (lines starting with '- ')")
    edits = directive_blocks(text, "try-it")
    exercises, answers = sections.get("exercises", 1), sections.get("answers", 1)
    if len(edits) < 2:
        raise RenderError(
            f"{label}:{exercises}: the exercises section needs at least two {{try-it}} edits (found {len(edits)})"
        )
    for edit_line, _ in edits:
        if not exercises < edit_line < answers:
            raise RenderError(f"{label}:{edit_line}: a {{try-it}} edit belongs in the exercises section (lines {exercises}-{answers})")
    if not TERM_ROLE.search(text):
        raise RenderError(f"{label}:1: the chapter links no glossary term; use {{term}}`...` for the field's terms it teaches or uses")
