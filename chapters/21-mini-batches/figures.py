"""Figures of chapter 21, drawn from the demo's trace (``chapter-21-demo --trace``).

* :func:`epoch_figure` -- the five windows in document order, their shuffled
  order, and the two batches they are stacked into, with the capacity slot
  the last batch does not create (``trace.sequential_order``, ``trace.batches``);
* :func:`rows_table` -- every row of the epoch: batch, origin, input, target
  and its two token losses (``trace.batches[*].rows``);
* :func:`denominator_table` -- each batch's loss sum divided by the tokens
  present and by the capacity (``trace.batches``).

Every number comes from the trace; nothing is typed by hand.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from tools.figures import fixed, graphviz, plain, table

Trace = Mapping[str, Any]

FILL = {"train-a": "#eef3fb", "train-b": "#fdf1e6", "batch": "#f4f4f4", "unused": "#ffffff"}


def origin(row: Mapping[str, Any]) -> str:
    """``train-b@1``: a row's document and start."""
    return f"{row['document']}@{row['start']}"


def ids_text(ids: Sequence[int]) -> str:
    """``[20, 21]``."""
    return "[" + ", ".join(str(token) for token in ids) + "]"


def values_text(values: Sequence[float], digits: int = 6) -> str:
    """``[0.875000, 1.562500]``: the demo's six-decimal lists."""
    return "[" + ", ".join(fixed(value, digits) for value in values) + "]"


def shuffled_order(trace: Trace) -> list[str]:
    """The origins of every row, batch after batch."""
    return [origin(row) for batch in trace["batches"] for row in batch["rows"]]


def epoch_figure(trace: Trace) -> str:
    """Document order, shuffled order, then each batch as a column of rows."""
    capacity = trace["capacity"]
    lines = [
        "digraph epoch {",
        '  graph [rankdir=TB, fontname="Helvetica", fontsize=11, nodesep=0.25, ranksep=0.45];',
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];',
        '  edge [arrowsize=0.6, color="#888888"];',
    ]
    sequential = trace["sequential_order"]
    lines.append('  subgraph cluster_order { label="document order (before the shuffle)"; color="#aaaaaa";')
    lines.append("    { rank=same; " + " ".join(f'"s{k}";' for k in range(len(sequential))) + " }")
    for k, name in enumerate(sequential):
        lines.append(f'    "s{k}" [label="{name}", fillcolor="{FILL[name.split("@")[0]]}"];')
    lines.append("  }")
    slot = 0
    for b, batch in enumerate(trace["batches"]):
        lines.append(f'  subgraph cluster_b{b} {{ label="batch {b}: shape [{batch["width"]}, {trace["context_length"]}], '
                     f'{batch["tokens"]} target tokens"; color="#666666";')
        names = []
        for r, row in enumerate(batch["rows"]):
            node = f"b{b}r{r}"
            names.append(node)
            lines.append(f'    "{node}" [label="row {r}: {origin(row)}\\ninput {ids_text(row["input"])}  '
                         f'target {ids_text(row["target"])}\\nlosses {values_text(row["losses"], 3)}", '
                         f'fillcolor="{FILL[row["document"]]}"];')
            position = sequential.index(origin(row))
            lines.append(f'    "s{position}" -> "{node}" [label="slot {slot}", fontsize=9];')
            slot += 1
        for r in range(batch["width"], capacity):
            node = f"b{b}u{r}"
            names.append(node)
            lines.append(f'    "{node}" [label="row {r}: not created\\nno tokens, no loss, no gradient", '
                         f'style="rounded,dashed", fillcolor="{FILL["unused"]}", fontcolor="#777777"];')
        lines.append(f'    "b{b}mean" [label="mean loss {fixed(batch["mean_loss"], 6)}\\n'
                     f'= {fixed(batch["loss_sum"], 6)} / {batch["tokens"]}", fillcolor="{FILL["batch"]}"];')
        for node in names:
            if "u" not in node:
                lines.append(f'    "{node}" -> "b{b}mean";')
        lines.append("  }")
    lines.append("}")
    last = trace["batches"][-1]
    caption = (f"The {trace['windows']} windows in document order (top), the slot each takes after the seed "
               f"{trace['seed']} shuffle, and the two batches; the dashed box is the capacity row the last "
               "batch does not create.")
    alt = (f"Five window cards in document order, each joined to its row in one of two batches; batch 0 holds "
           f"{trace['batches'][0]['width']} rows and batch 1 holds {last['width']} rows plus a dashed empty slot; "
           f"batch 1's mean loss is {fixed(last['mean_loss'], 6)}, its loss sum over {last['tokens']} tokens.")
    return graphviz("\n".join(lines), caption, "epoch", alt=alt)


def rows_table(trace: Trace) -> str:
    """One line per row of the epoch."""
    rows = []
    slot = 0
    for b, batch in enumerate(trace["batches"]):
        for r, row in enumerate(batch["rows"]):
            rows.append([str(slot), f"{b}", f"{r}", f"`{origin(row)}`", f"`{ids_text(row['input'])}`",
                         f"`{ids_text(row['target'])}`", f"`{values_text(row['losses'])}`"])
            slot += 1
    return table(["slot", "batch", "row", "origin", "input", "target", "token losses"], rows,
                 "Every row of the shuffled epoch, copied from one document", "rows")


def denominator_table(trace: Trace) -> str:
    """Loss sum over tokens present against loss sum over capacity."""
    capacity_tokens = trace["capacity"] * trace["context_length"]
    rows = []
    for b, batch in enumerate(trace["batches"]):
        rows.append([str(b), str(batch["width"]), str(batch["tokens"]), fixed(batch["loss_sum"], 6),
                     f"{fixed(batch['mean_loss'], 6)}", str(capacity_tokens), fixed(batch["capacity_mean_loss"], 6),
                     fixed(batch["capacity_mean_loss"] / batch["mean_loss"], 6)])
    return table(["batch", "rows", "tokens present", "loss sum", "sum ÷ tokens", "capacity tokens",
                  "sum ÷ capacity", "ratio"], rows,
                 "The right and the wrong denominator for each batch", "denominators")


def capacity_mean(trace: Trace, index: int) -> str:
    """A batch's loss sum over the capacity, six decimals."""
    return fixed(trace["batches"][index]["capacity_mean_loss"], 6)


def plain_number(value: float) -> str:
    """``4`` or ``0.4375``."""
    return plain(value)
