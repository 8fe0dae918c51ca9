"""Figure macros of chapter 4: the frozen rules in both ID spaces, two inputs
through encoding and back, and two segmentations of the same bytes.

Every value comes from the demo's trace (``chapters/04-apply-bpe-tokenizer/demo.cpp``).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from tools.figures import graphviz, html_text, table

Trace = Mapping[str, Any]

CONTROL_FILL = "#eeeeee"
BYTE_FILL = "#ffffff"
MERGE_FILL = "#c6dbef"
HEADER_FILL = "#f4f4f4"
EXACT_FILL = "#d9f0d3"


def hex_bytes(values: Sequence[int]) -> str:
    """Bytes as ``20 d0``."""
    return " ".join(f"{value:02x}" for value in values)


def case(trace: Trace, case_id: str) -> Mapping[str, Any]:
    """One traced input by its id (``ascii-bee``, ``cyrillic-a``)."""
    for entry in trace["cases"]:
        if entry["id"] == case_id:
            return entry
    raise KeyError(f"the chapter 4 trace has no case {case_id!r}")


def rule_for_bytes(trace: Trace, values: Sequence[int]) -> Mapping[str, Any]:
    """The frozen rule whose token stands for exactly these bytes."""
    for rule in trace["rules"]:
        if list(rule["bytes"]) == list(values):
            return rule
    raise KeyError(f"no rule stores the bytes {hex_bytes(values)}")


def rules_table(trace: Trace) -> str:
    """Table: each frozen rank in training IDs and in content IDs, with its bytes."""
    rows = [
        [
            str(rule["rank"]),
            f'`({rule["training_pair"][0]},{rule["training_pair"][1]})` → {rule["training_token"]}',
            f'`({rule["content_pair"][0]},{rule["content_pair"][1]})` → {rule["content_token"]}',
            f'`{hex_bytes(rule["bytes"])}`',
        ]
        for rule in trace["rules"]
    ]
    return table(["Rank", "Chapter 3: training pair → ID", "Tokenizer: content pair → ID", "Bytes"], rows,
                 "The frozen rules: every ID shifted by two to make room for BOS and EOS", "frozen-rules")


def _pipeline_label(entry: Mapping[str, Any]) -> str:
    """An HTML-like table: input bytes, initial IDs, merged pieces, document IDs, decoded bytes."""
    width = len(entry["bytes"]) + 2  # BOS and EOS columns

    def row(name: str, cells: str) -> str:
        return f'<TR><TD ALIGN="LEFT" BGCOLOR="{HEADER_FILL}"><B>{html_text(name)}</B></TD>{cells}</TR>'

    def cell(text: str, span: int = 1, fill: str = BYTE_FILL) -> str:
        return f'<TD COLSPAN="{span}" BGCOLOR="{fill}">{html_text(text)}</TD>'

    blank = cell("", 1, HEADER_FILL)
    pieces = "".join(
        cell(f'{piece["token"]}: {hex_bytes(piece["bytes"])}', len(piece["bytes"]),
             MERGE_FILL if len(piece["bytes"]) > 1 else BYTE_FILL)
        for piece in entry["pieces"]
    )
    applied = ", ".join(str(a["rank"]) for a in entry["applications"]) or "none"
    rows = [
        f'<TR><TD COLSPAN="{width + 1}" BGCOLOR="{HEADER_FILL}"><B>"{html_text(entry["input"])}"</B> '
        f'({html_text(entry["id"])}), ranks applied: {applied}</TD></TR>',
        row("UTF-8 bytes", blank + "".join(cell(f"{b:02x}") for b in entry["bytes"]) + blank),
        row("byte token IDs", blank + "".join(cell(str(t)) for t in entry["initial"]) + blank),
        row("after the ranks", blank + pieces + blank),
        row("document IDs", cell("BOS 0", 1, CONTROL_FILL)
            + "".join(cell(str(p["token"]), len(p["bytes"]), MERGE_FILL if len(p["bytes"]) > 1 else BYTE_FILL)
                      for p in entry["pieces"])
            + cell("EOS 1", 1, CONTROL_FILL)),
        row("decoded bytes", blank + "".join(cell(f"{b:02x}", 1, EXACT_FILL if entry["exact"] else "#fbe9e7")
                                             for b in entry["decoded"]) + blank),
    ]
    return f'<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="5">{"".join(rows)}</TABLE>>'


def pipelines_figure(trace: Trace) -> str:
    """Figure: both traced inputs, bytes to pieces to document and back to the same bytes."""
    lines = [
        "digraph pipelines {",
        '  graph [rankdir=TB, nodesep=0.3, ranksep=0.3, bgcolor="transparent"];',
        '  node [shape=plaintext, fontname="Helvetica", fontsize=10];',
    ]
    for index, entry in enumerate(trace["cases"]):
        lines.append(f"  case{index} [label={_pipeline_label(entry)}];")
    for index in range(len(trace["cases"]) - 1):
        lines.append(f"  case{index} -> case{index + 1} [style=invis];")
    lines.append("}")
    exact = all(entry["exact"] for entry in trace["cases"])
    caption = (
        "Two inputs through the tokenizer. Shaded pieces are merged tokens, spanning the bytes they stand for; "
        "BOS and EOS are added around the content and stand for no bytes. "
        + ("Both decode to exactly the input bytes." if exact else "A case did NOT decode to its input.")
    )
    return graphviz("\n".join(lines), caption, "tokenizer-pipelines")


def segmentations_table(trace: Trace) -> str:
    """Table: the canonical and a non-canonical segmentation of " а", which decode to the same bytes."""
    names = {"canonical": "canonical (encode_content)", "noncanonical": "another valid sequence"}
    rows = []
    for entry in trace["segmentations"]:
        pieces = []
        for token in entry["ids"]:
            if token >= 258:
                rule = next(r for r in trace["rules"] if r["content_token"] == token)
                pieces.append(f'{token} = `{hex_bytes(rule["bytes"])}`')
            else:
                pieces.append(f"{token} = `{token - 2:02x}`")
        rows.append([names[entry["name"]], f'`[{", ".join(str(i) for i in entry["ids"])}]`', ", ".join(pieces),
                     f'`{hex_bytes(entry["decoded"])}`', f'`[{", ".join(str(i) for i in entry["reencoded"])}]`'])
    return table(["Sequence", "Content IDs", "Pieces", "Decodes to", "Encoding those bytes gives"], rows,
                 'Two sequences that decode to the bytes of " а"; only one is what encoding produces',
                 "segmentations")


def costs_table(trace: Trace) -> str:
    """What a few units of text cost: bytes, scalars and content tokens."""
    rows = []
    for entry in trace["costs"]:
        if len(entry["text"].encode("utf-8")) != entry["bytes"]:
            raise ValueError(f"{entry['text']!r}: traced {entry['bytes']} bytes, Python counts another number")
        rows.append([f"`{entry['text']}`", ", ".join(entry["scalars"]), str(entry["bytes"]),
                     str(len(entry["tokens"])), "`[" + ", ".join(str(token) for token in entry["tokens"]) + "]`"])
    return table(["text", "scalars", "bytes", "tokens", "content IDs"], rows,
                 "What a letter and a few emoji cost with the eight merges", "costs")


def cost(trace: Trace, text: str) -> Mapping[str, Any]:
    """The traced cost entry of ``text``."""
    for entry in trace["costs"]:
        if entry["text"] == text:
            return entry
    raise KeyError(f"the chapter 4 trace has no cost entry for {text!r}")
