"""Region markers in the text of one source file: parsing, validation, listings.

This is the parser behind tools/regions.py, which documents the syntax, reads
files, resolves chapter references and checks the tree; import the names
from there. Parsing uses string operations and no backtracking pattern, so it
takes time linear in the text's length whatever the text holds.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

#: Width of a tab stop when measuring indentation.
TAB_WIDTH = 8
_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
#: Line breaks as C and C++ compilers count them: CRLF, LF, or a lone CR.
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
#: The longest name an error message quotes in full.
_QUOTE_LIMIT = 60


class RegionError(Exception):
    """A defect in a region marker or a region reference, located at a file and line.

    Attributes:
        path: the file at fault, relative to the repository root (posix form).
        line: the 1-based line at fault, or None when the whole file is meant.
        message: what is wrong, as a sentence without the location.
    """

    def __init__(self, path: str, line: int | None, message: str) -> None:
        self.path = path
        self.line = line
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.line is None:
            return f"{self.path}: {self.message}"
        return f"{self.path}:{self.line}: {self.message}"


@dataclass(frozen=True)
class Region:
    """One tagged region and its listing.

    Attributes:
        path: the source file, relative to the repository root (posix form).
        name: the region's kebab-case name.
        start_line: 1-based line number of the ``// region:`` marker.
        end_line: 1-based line number of the ``// endregion:`` marker.
        lines: the listing, tab-expanded, dedented, without inner markers,
            trailing whitespace stripped; never empty.
        line_numbers: the original 1-based line number of each listing line.
    """

    path: str
    name: str
    start_line: int
    end_line: int
    lines: tuple[str, ...]
    line_numbers: tuple[int, ...]

    @property
    def reference(self) -> str:
        """The reference a chapter uses for this region: ``path#name``."""
        return f"{self.path}#{self.name}"

    @property
    def text(self) -> str:
        """The listing as one string, each line ending in a newline."""
        return "".join(line + "\n" for line in self.lines)


# --- Parsing one file -------------------------------------------------------


def parse_regions(path_label: str, text: str) -> dict[str, Region]:
    """Find and validate every region of one source file.

    Args:
        path_label: the file's path as errors and regions report it
            (relative to the repository root, posix form).
        text: the file's content.

    Returns:
        The file's regions by name, in the order of their start markers.

    Raises:
        RegionError: for the first defect in the file: a malformed marker, a
            duplicate name (citing both lines), an end marker without an open
            region, an end marker naming another region than the innermost
            open one (naming both), an unclosed region (at its start line),
            or an empty region (at its start line).
    """
    lines = _split_lines(text)
    open_regions: list[tuple[str, int]] = []
    first_seen: dict[str, int] = {}
    marker_lines: set[int] = set()
    regions: list[Region] = []
    for number, line in enumerate(lines, start=1):
        marker = _read_marker(path_label, number, line)
        if marker is None:
            continue
        kind, name = marker
        marker_lines.add(number)
        if kind == "region":
            _check_unique(path_label, number, name, first_seen)
            first_seen[name] = number
            open_regions.append((name, number))
        else:
            start = _close(path_label, number, name, open_regions)
            regions.append(_build_region(path_label, name, start, number, lines, marker_lines))
    if open_regions:
        name, start = open_regions[-1]
        raise RegionError(
            path_label,
            start,
            f"region '{name}' is never closed: expected '// endregion: {name}' "
            f"before the end of the file (line {len(lines)})",
        )
    regions.sort(key=lambda region: region.start_line)
    return {region.name: region for region in regions}


def _split_lines(text: str) -> list[str]:
    """Split at CRLF, LF or a lone CR, as compilers and editors number lines."""
    lines = _LINE_BREAK.split(text.removeprefix("\ufeff"))
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _quote(text: str) -> str:
    """``text`` quoted for an error message, shortened when it is long."""
    if len(text) > _QUOTE_LIMIT:
        text = text[:_QUOTE_LIMIT] + f"... ({len(text)} characters)"
    return f"'{text}'"


def _read_marker(path_label: str, number: int, line: str) -> tuple[str, str] | None:
    """Return ``(kind, name)`` if the line is a marker, None if it is code.

    Plain string operations, no backtracking pattern, so the time is linear in
    the line's length whatever it holds.

    Raises:
        RegionError: if the line looks like a marker but its name is missing
            or not kebab-case, or the colon after ``region``/``endregion`` is
            missing.
    """
    stripped = line.lstrip()
    if not stripped.startswith("//"):
        return None
    comment = stripped[2:].lstrip()
    kind = next((word for word in ("endregion", "region") if comment.startswith(word)), None)
    if kind is None:
        return None
    after = comment[len(kind) :]
    if not after.startswith(":"):
        words = after.split()
        if after and not after[0].isspace() or len(words) > 1:
            return None  # "// regions ..." or prose such as "// region of memory ..."
        # "// region NAME": almost certainly a marker with a typo, never silently code.
        name = words[0] if words else "NAME"
        raise RegionError(
            path_label,
            number,
            f"malformed {kind} marker: a colon must follow '{kind}' (// {kind}: {name})",
        )
    name = after[1:].strip()
    if not name:
        raise RegionError(
            path_label, number, f"malformed {kind} marker: no region name after '{kind}:'"
        )
    if not _NAME.fullmatch(name):
        raise RegionError(
            path_label,
            number,
            f"malformed {kind} marker: region name {_quote(name)} is not kebab-case "
            "(lowercase letters and digits joined by single hyphens, e.g. 'scalar-reverse-pass')",
        )
    return kind, name


def _character_name(character: str) -> str:
    """``a no-break space (U+00A0)``: a white-space character as an error names it."""
    names = {"\f": "a form feed", "\v": "a vertical tab", "\u00a0": "a no-break space"}
    name = names.get(character) or f"the character {unicodedata.name(character, 'without a name').lower()}"
    return f"{name} (U+{ord(character):04X})"


def _check_unique(path_label: str, number: int, name: str, first_seen: dict[str, int]) -> None:
    """Raise if a region of this name was already opened in the file."""
    if name in first_seen:
        raise RegionError(
            path_label,
            number,
            f"duplicate region name '{name}': already opened at line {first_seen[name]}",
        )


def _close(path_label: str, number: int, name: str, open_regions: list[tuple[str, int]]) -> int:
    """Pop the innermost open region, which must be ``name``; return its start line."""
    if not open_regions:
        raise RegionError(
            path_label, number, f"end marker for '{name}' without a matching '// region: {name}'"
        )
    open_name, start = open_regions[-1]
    if open_name != name:
        raise RegionError(
            path_label,
            number,
            f"end marker names '{name}' but the innermost open region is "
            f"'{open_name}' (opened at line {start})",
        )
    open_regions.pop()
    return start


def _build_region(
    path_label: str, name: str, start: int, end: int, lines: Sequence[str], marker_lines: set[int]
) -> Region:
    """Cut the listing of one closed region out of the file's lines."""
    raw = [
        (number, lines[number - 1].rstrip())
        for number in range(start + 1, end)
        if number not in marker_lines
    ]
    while raw and not raw[0][1]:
        raw.pop(0)
    while raw and not raw[-1][1]:
        raw.pop()
    if not raw:
        raise RegionError(
            path_label,
            start,
            f"region '{name}' is empty: no code between its markers at lines {start} and {end}",
        )
    _check_indentation(path_label, name, raw)
    numbered = [(number, text.expandtabs(TAB_WIDTH)) for number, text in raw]
    indent = min(len(text) - len(text.lstrip(" ")) for _, text in numbered if text)
    return Region(
        path=path_label,
        name=name,
        start_line=start,
        end_line=end,
        lines=tuple(text[indent:] for _, text in numbered),
        line_numbers=tuple(number for number, _ in numbered),
    )


def _check_indentation(path_label: str, name: str, numbered: Sequence[tuple[int, str]]) -> None:
    """Raise unless the region indents with spaces only or with tabs only.

    A mixture would make the listing's indentation depend on the reader's tab
    width, so it is reported at the first line that mixes, naming the line of
    the other kind when two lines disagree. Any other white space in the
    indentation (a no-break space, a form feed, a vertical tab) has no column
    width a listing could dedent by, and is reported at its line, by name.
    """
    first_of_kind: dict[str, int] = {}
    for number, text in numbered:
        other = text[len(text) - len(text.lstrip(" \t")) :][:1]
        if other.isspace() and text.strip():
            raise RegionError(
                path_label,
                number,
                f"region '{name}': this line's indentation holds {_character_name(other)}, which is not "
                "a space or a tab, so the listing could not be dedented; indent with spaces",
            )
        indentation = text[: len(text) - len(text.lstrip(" \t"))]
        if not indentation or not text.strip():
            continue
        if " " in indentation and "\t" in indentation:
            raise RegionError(
                path_label,
                number,
                f"region '{name}': this line's indentation mixes tabs and spaces, so its width "
                "depends on the tab size; indent with spaces",
            )
        kind = "tabs" if indentation[0] == "\t" else "spaces"
        other = "spaces" if kind == "tabs" else "tabs"
        if other in first_of_kind:
            raise RegionError(
                path_label,
                number,
                f"region '{name}': this line indents with {kind} but line "
                f"{first_of_kind[other]} with {other}, so the listing would shift with the "
                "tab size; indent with spaces",
            )
        first_of_kind.setdefault(kind, number)
