"""Figure macros of chapter 1: the same inputs as bytes, scalars and IDs.

Every value comes from the demo's trace (``chapters/01-text-units/demo.cpp``,
``trace_json``): the vocabulary and, per example, each scalar's text, UTF-8
bytes, label and vocabulary ID. Every traced example is checked against
Python's own UTF-8 codec before it is drawn, so a decoder bug in the library
stops the page instead of drawing wrong scalars.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from tools.figures import graphviz, html_text, table

Trace = Mapping[str, Any]

KNOWN_FILL = "#eaf2fb"
UNKNOWN_FILL = "#fbe9e7"
HEADER_FILL = "#f4f4f4"


def checked(entry: Trace) -> Trace:
    """``entry`` after checking its scalars against Python's UTF-8 codec, an
    implementation independent of the library's decoder.

    Raises:
        ValueError: when the traced bytes, scalar labels or byte groups differ
            from what Python finds in the same input.
    """
    text = entry["input"]
    expected_labels = [f"U+{ord(char):04X}" for char in text]
    labels = [scalar["label"] for scalar in entry["scalars"]]
    if labels != expected_labels:
        raise ValueError(f"input {text!r}: the trace decodes scalars {labels}, Python {expected_labels}")
    for char, scalar in zip(text, entry["scalars"]):
        if bytes(scalar["bytes"]) != char.encode("utf-8"):
            raise ValueError(f"input {text!r}: {scalar['label']} is traced as bytes {scalar['bytes']}, "
                             f"Python encodes {list(char.encode('utf-8'))}")
    if entry["byte_count"] != len(text.encode("utf-8")) or entry["scalar_count"] != len(text):
        raise ValueError(f"input {text!r}: traced counts {entry['byte_count']}/{entry['scalar_count']} are wrong")
    return entry


def example(trace: Trace, text: str) -> Trace:
    """The traced example whose input is ``text``, checked by :func:`checked`."""
    for entry in trace["examples"]:
        if entry["input"] == text:
            return checked(entry)
    raise KeyError(f"the chapter 1 trace has no example {text!r}")


# The rows of the UTF-8 table: scalar range, byte count, bit pattern.
UTF8_ROWS = (
    ("U+0000 – U+007F", 1, "`0xxxxxxx`"),
    ("U+0080 – U+07FF", 2, "`110xxxxx 10xxxxxx`"),
    ("U+0800 – U+FFFF", 3, "`1110xxxx 10xxxxxx 10xxxxxx`"),
    ("U+10000 – U+10FFFF", 4, "`11110xxx 10xxxxxx 10xxxxxx 10xxxxxx`"),
)


def utf8_table(trace: Trace) -> str:
    """The four rows of UTF-8, each with the first traced scalar of that
    length as its example and its bytes in hexadecimal."""
    scalars = [scalar for entry in trace["examples"] for scalar in checked(entry)["scalars"]]
    rows = []
    for scalars_range, length, pattern in UTF8_ROWS:
        sample = next((s for s in scalars if len(s["bytes"]) == length), None)
        if sample is None:
            raise ValueError(f"the chapter 1 trace has no {length}-byte scalar for the UTF-8 table")
        hexes = " ".join(f"{byte:02X}" for byte in sample["bytes"])
        rows.append([scalars_range, str(length), pattern, f"`{sample['text']}` {sample['label']}: `{hexes}`"])
    return table(["Scalar range", "Bytes", "Bit pattern (x marks the scalar's bits)", "Traced example"], rows,
                 "UTF-8: how many bytes a scalar takes, with one traced scalar of each length", "utf8-rows")


def lowest_byte(entry: Trace) -> int:
    """The smallest byte of one example."""
    return min(byte_list(entry))


def ids(entry: Trace) -> list[int]:
    """The vocabulary IDs of one example, in order."""
    return [scalar["id"] for scalar in entry["scalars"]]


def byte_list(entry: Trace) -> list[int]:
    """All UTF-8 bytes of one example, in order."""
    return [byte for scalar in entry["scalars"] for byte in scalar["bytes"]]


def _example_label(entry: Trace) -> str:
    """An HTML-like Graphviz table: one column per scalar, one row per stage."""
    scalars = entry["scalars"]
    width = sum(len(scalar["bytes"]) for scalar in scalars)

    def cell(text: str, span: int = 1, fill: str = "#ffffff", bold: bool = False) -> str:
        body = f"<B>{html_text(text)}</B>" if bold else html_text(text)
        return f'<TD COLSPAN="{span}" BGCOLOR="{fill}">{body}</TD>'

    def stage(name: str, cells: Sequence[str]) -> str:
        return f'<TR><TD ALIGN="LEFT" BGCOLOR="{HEADER_FILL}"><B>{html_text(name)}</B></TD>{"".join(cells)}</TR>'

    def fill(scalar: Trace) -> str:
        return UNKNOWN_FILL if scalar["id"] == 0 else KNOWN_FILL

    rows = [
        f'<TR><TD COLSPAN="{width + 1}" BGCOLOR="{HEADER_FILL}"><B>"{html_text(entry["input"])}"</B>: '
        f'{entry["byte_count"]} bytes, {entry["scalar_count"]} scalars, {entry["id_count"]} IDs'
        f"{html_text(mixing_note(entry))}</TD></TR>",
        stage("input unit", [cell(s["text"], len(s["bytes"]), fill(s), True) for s in scalars]),
        stage("UTF-8 bytes", [cell(f"{b} (0x{b:02x})", 1, fill(s)) for s in scalars for b in s["bytes"]]),
        stage("scalar value", [cell(s["label"], len(s["bytes"]), fill(s)) for s in scalars]),
        stage("vocabulary ID", [cell(str(s["id"]), len(s["bytes"]), fill(s), True) for s in scalars]),
        stage("decoded", [cell(entry["decoded"], width)]),
    ]
    return f'<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="5">{"".join(rows)}</TABLE>>'


def mixing_note(entry: Trace) -> str:
    """A warning when an input mixes ASCII and non-ASCII scalars, as a look-alike does."""
    wide = [s["label"] for s in entry["scalars"] if len(s["bytes"]) > 1]
    if wide and len(wide) < len(entry["scalars"]):
        return f" (mixes ASCII with {', '.join(wide)})"
    return ""


def pipeline_figure(trace: Trace, inputs: Sequence[str]) -> str:
    """Figure: each input as four aligned rows, bytes grouped under the scalar they encode."""
    lines = [
        "digraph text_units {",
        '  graph [rankdir=TB, nodesep=0.3, ranksep=0.3, bgcolor="transparent"];',
        '  node [shape=plaintext, fontname="Helvetica", fontsize=11];',
    ]
    for index, text in enumerate(inputs):
        lines.append(f"  example{index} [label={_example_label(example(trace, text))}];")
    for index in range(len(inputs) - 1):
        lines.append(f"  example{index} -> example{index + 1} [style=invis];")
    lines.append("}")
    unknown = [text for text in inputs if 0 in ids(example(trace, text))]
    caption = (
        "Each input four ways: the bytes of one scalar sit under it, and each scalar gets one ID. "
        "Blue cells are scalars the vocabulary knows; red cells became the unknown ID 0"
        + (f" ({', '.join(repr(t) for t in unknown)})." if unknown else ".")
    )
    return graphviz("\n".join(lines), caption, "text-units-pipeline")


def vocabulary_table(trace: Trace) -> str:
    """Table: every ID of the vocabulary, its unit and its scalar value."""
    rows = []
    for entry in trace["vocabulary"]:
        unit = "`<UNK>`" if entry["id"] == 0 else ("space" if entry["unit"] == " " else f'`{entry["unit"]}`')
        rows.append([str(entry["id"]), unit, entry["label"]])
    caption = f'The vocabulary built from "{trace["training_text"]}": known scalars in numeric order after ID 0'
    return table(["ID", "Unit", "Scalar value"], rows, caption, "scalar-vocabulary")


def counts_table(trace: Trace) -> str:
    """Table: bytes, scalars and IDs per traced input, with the IDs and the decoded text."""
    rows = [
        [
            f'`{entry["input"]}`',
            str(entry["byte_count"]),
            str(entry["scalar_count"]),
            str(entry["id_count"]),
            "`[" + ", ".join(str(i) for i in ids(entry)) + "]`",
            f'`{entry["decoded"]}`',
        ]
        for entry in trace["examples"]
    ]
    return table(["Input", "Bytes", "Scalars", "IDs", "Token IDs", "Decoded"], rows,
                 "Three counts per input, and what survives the round trip", "unit-counts")
