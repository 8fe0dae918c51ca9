"""Figure macros of chapter 5: input/target pairs on separate document tapes,
the same document at stride 2, and every corpus document's pair count.

Every value comes from the demo's trace (``chapters/05-autoregressive-examples/demo.cpp``):
the windows and suffixes the library cut, and the encoded corpus's lengths.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from tools.figures import dot_head, graphviz, html_text, label_table, table

Trace = Mapping[str, Any]

PARTITIONS = ("train", "validation", "test")
INPUT_FILL = "#c6dbef"
TARGET_FILL = "#d9f0d3"
TAIL_FILL = "#fbe9e7"
HEADER_FILL = "#f4f4f4"
BORDER = {"train": "#4a78a8", "validation": "#b7791f", "test": "#3d7a35"}


def token_text(token: int) -> str:
    """A token as the tapes show it: BOS and EOS by name."""
    return {0: "BOS", 1: "EOS"}.get(token, str(token))


def _tape_label(tape: Mapping[str, Any]) -> str:
    """One document: its tokens by position, then one input row and one target row per pair."""
    tokens = tape["tokens"]
    width = len(tokens)

    def row(name: str, cells: Sequence[str]) -> str:
        return f'<TR><TD ALIGN="LEFT" BGCOLOR="{HEADER_FILL}">{html_text(name)}</TD>{"".join(cells)}</TR>'

    def span(start: int, values: Sequence[int], fill: str) -> list[str]:
        cells = ["<TD></TD>"] * width
        for offset, value in enumerate(values):
            cells[start + offset] = f'<TD BGCOLOR="{fill}">{html_text(token_text(value))}</TD>'
        return cells

    rows = [
        f'<TR><TD COLSPAN="{width + 1}" BGCOLOR="{HEADER_FILL}"><B>{html_text(tape["id"])}</B> '
        f'({len(tokens)} tokens, {len(tape["windows"])} pairs)</TD></TR>',
        row("position", [f"<TD><I>{i}</I></TD>" for i in range(width)]),
        row("tokens", [f"<TD><B>{html_text(token_text(t))}</B></TD>" for t in tokens]),
    ]
    for window in tape["windows"]:
        rows.append(row(f'start {window["start"]}: input x', span(window["start"], window["input"], INPUT_FILL)))
        rows.append(row("target y", span(window["start"] + 1, window["target"], TARGET_FILL)))
    if tape["tail"] is not None:
        tail = tape["tail"]
        rows.append(row(f'start {tail["start"]}: too short', span(tail["start"], tail["tokens"], TAIL_FILL)))
    return f"<{label_table(rows)}>"


def tapes_figure(trace: Trace) -> str:
    """Figure: every traced document on its own tape, grouped by partition, with its pairs and suffix."""
    config = trace["config"]
    lines = dot_head("tapes", {"rankdir": "TB", "nodesep": 0.3, "ranksep": 0.3, "bgcolor": "transparent"},
                     {"shape": "plaintext", "fontsize": 10})
    previous = None
    for partition in PARTITIONS:
        tapes = [t for t in trace["tapes"] if t["partition"] == partition]
        if not tapes:
            continue
        lines.append(f'  subgraph cluster_{partition} {{ label="{partition}"; style="rounded"; '
                     f'color="{BORDER[partition]}"; fontsize=11;')
        for tape in tapes:
            node = tape["id"].replace("-", "_")
            lines.append(f"    {node} [label={_tape_label(tape)}];")
        lines.append("  }")
        for tape in tapes:
            node = tape["id"].replace("-", "_")
            if previous is not None:
                lines.append(f"  {previous} -> {node} [style=invis];")
            previous = node
    lines.append("}")
    pairs = sum(len(t["windows"]) for t in trace["tapes"])
    caption = (
        f'Context T = {config["context"]}, stride S = {config["stride"]}: each pair needs {config["required"]} '
        f"tokens of one document. Blue is an input, green its target one position to the right; red is the "
        f"suffix at the next start, too short for another pair. {pairs} pairs in all, none across a tape."
    )
    return graphviz("\n".join(lines), caption, "document-tapes")


def stride_table(trace: Trace) -> str:
    """Table: the worked document and a seven-token one at strides 1, 2 and 4,
    with the targets no pair predicts."""
    rows = []
    for entry in trace["coverage"]:
        missed = entry["missed"]
        eos_position = len(entry["tokens"]) - 1
        lost = ", ".join(f'{token_text(m["token"])} (position {m["position"]})' for m in missed) or "none"
        eos = "no" if any(m["position"] == eos_position for m in missed) else "yes"
        rows.append([f'`{entry["id"]}` ({len(entry["tokens"])} tokens)', str(entry["stride"]),
                     ", ".join(str(start) for start in entry["starts"]), lost, eos])
    context = trace["coverage"][0]["context"]
    return table(["Document", "Stride S", "Starts", "Targets no pair predicts", "EOS a target"], rows,
                 f"Two documents at context {context} and three strides: what each stride leaves out", "strides")


def coverage(trace: Trace, document: str, stride: int) -> Mapping[str, Any]:
    """The traced coverage of one document at one stride."""
    for entry in trace["coverage"]:
        if entry["id"] == document and entry["stride"] == stride:
            return entry
    raise KeyError(f"the chapter 5 trace has no coverage of {document!r} at stride {stride}")


def totals(trace: Trace) -> dict[str, dict[str, int]]:
    """Per partition: documents, tokens and pairs, summed from the traced documents."""
    result = {p: {"documents": 0, "tokens": 0, "pairs": 0} for p in PARTITIONS}
    for document in trace["documents"]:
        entry = result[document["partition"]]
        entry["documents"] += 1
        entry["tokens"] += document["tokens"]
        entry["pairs"] += document["pairs"]
    return result


def corpus_table(trace: Trace) -> str:
    """Table: every encoded corpus document's tokens and pairs, with the partition totals."""
    rows = [[d["partition"], f'`{d["id"]}`', str(d["tokens"]), str(d["pairs"])] for d in trace["documents"]]
    for partition, entry in totals(trace).items():
        rows.append([f"**{partition} total**", f'{entry["documents"]} documents', f'**{entry["tokens"]}**',
                     f'**{entry["pairs"]}**'])
    config = trace["config"]
    return table(["Partition", "Document", "Tokens with BOS and EOS", f'Pairs at T = {config["context"]}, S = {config["stride"]}'],
                 rows, "The book's corpus, encoded one document at a time", "corpus-pairs")
