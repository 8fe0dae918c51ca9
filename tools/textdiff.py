"""Differences between a demo's output and its expected.txt, made visible.

A byte-for-byte comparison fails on differences a reader cannot see in a
diff: a missing final newline, CRLF line endings, trailing whitespace, bytes
that are not text. :func:`unified_diff` adds a ``note:`` line for each;
:func:`utf8_problem` and :func:`first_difference` describe output that can
never be accepted (tools/demo.py refuses it when syncing).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator


def _diff_lines(data: bytes) -> list[str]:
    """Lines split on LF only, each keeping its LF; a final line may lack one."""
    parts = data.decode("utf-8", errors="replace").split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _mark_unterminated(diff: Iterator[str]) -> Iterator[str]:
    """Give every diff line its newline, marking a file's unterminated last line as git does."""
    for line in diff:
        yield line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"


def _difference_notes(expected: bytes, actual: bytes, diff_is_empty: bool) -> list[str]:
    """Notes on differences a text diff shows poorly: final newline, CRLF, undecodable bytes."""
    notes = []
    if expected and actual and expected.endswith(b"\n") != actual.endswith(b"\n"):
        if expected.endswith(b"\n"):
            notes.append("note: expected.txt ends with a newline and the demo output does not")
        else:
            notes.append("note: the demo output ends with a newline and expected.txt does not")
    if (b"\r\n" in expected) != (b"\r\n" in actual):
        which = "expected.txt" if b"\r\n" in expected else "the demo output"
        notes.append(f"note: the line endings differ: {which} has CRLF (\\r\\n) line endings")
    expected_lines = expected.decode("utf-8", errors="replace").split("\n")
    actual_lines = actual.decode("utf-8", errors="replace").split("\n")
    whitespace_only = [
        (number, before, after)
        for number, (before, after) in enumerate(zip(expected_lines, actual_lines), start=1)
        if before.rstrip() == after.rstrip() and before.rstrip("\r") != after.rstrip("\r")
    ]
    for number, before, after in whitespace_only[:3]:
        notes.append(
            f"note: line {number} differs only in trailing whitespace: "
            f"expected.txt has {before!r}, the demo output has {after!r}"
        )
    for name, data in (("expected.txt", expected), ("the demo output", actual)):
        problem = utf8_problem(data)
        if problem is not None:
            notes.append(f"note: {name} is not valid UTF-8: {problem}")
    if diff_is_empty:
        offset = next(
            (i for i, (a, b) in enumerate(zip(expected, actual)) if a != b),
            min(len(expected), len(actual)),
        )
        notes.append(
            f"note: the files differ in bytes that do not show as text, first at byte {offset}"
        )
    return notes


def unified_diff(expected: bytes, actual: bytes, fromfile: str, tofile: str) -> str:
    """A unified diff from ``expected`` to ``actual``, with notes for invisible differences.

    Returns "" when the bytes are equal.
    """
    if expected == actual:
        return ""
    diff = "".join(
        _mark_unterminated(
            difflib.unified_diff(_diff_lines(expected), _diff_lines(actual), fromfile, tofile)
        )
    )
    notes = _difference_notes(expected, actual, diff_is_empty=not diff)
    return diff + "".join(note + "\n" for note in notes)


#: The longest line a message quotes in full.
_QUOTE_LIMIT = 120


def utf8_problem(data: bytes) -> str | None:
    """Where ``data`` stops being UTF-8: ``byte 0xff at byte offset 12 (line 2)``; None if it is UTF-8."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        return f"byte 0x{data[error.start]:02x} at byte offset {error.start} (line {line})"
    return None


def _quote(line: bytes) -> str:
    """A line of output quoted for a message, shortened when long."""
    text = line.decode("utf-8", errors="replace")
    if len(text) > _QUOTE_LIMIT:
        text = text[:_QUOTE_LIMIT] + "..."
    return repr(text)


def first_difference(first: bytes, second: bytes) -> str | None:
    """The first line where two outputs differ, quoted from both; None if they are equal.

    Lines are split on LF, as the demos print them.
    """
    if first == second:
        return None
    first_lines, second_lines = first.split(b"\n"), second.split(b"\n")
    for number, (one, two) in enumerate(zip(first_lines, second_lines), start=1):
        if one != two:
            return f"line {number}: the first run printed {_quote(one)}, the second {_quote(two)}"
    number = min(len(first_lines), len(second_lines))
    longer, lines = ("first", first_lines) if len(first_lines) > len(second_lines) else ("second", second_lines)
    if len(lines) == number + 1 and lines[-1] == b"":
        return f"line {number}: only the {longer} run ends it with a newline"
    return f"line {number + 1}: only the {longer} run printed it: {_quote(lines[number])}"
