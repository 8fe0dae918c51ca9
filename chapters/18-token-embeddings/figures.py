"""Figures of chapter 18, drawn from the demo's trace (``chapter-18-demo --trace``).

* :func:`lookup_figure` -- each position's ID choosing a table row, forward
  (``trace.positions``, ``trace.table``);
* :func:`scatter_figure` -- each position's upstream row added into the row
  its ID chose, reverse (``trace.positions``, ``trace.table_gradient``);
* :func:`one_hot_table` -- the one-hot rows, their product with the table,
  and the gradient the product gives the table (``trace.one_hot`` ...);
* :func:`gradient_table` -- each table row: the positions that chose it,
  their contributions and their sum.

Every number comes from the trace; nothing is typed by hand.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from tools.figures import graphviz, plain, table

Trace = Mapping[str, Any]

USED = "#eef3fb"
UNUSED = "#f4f4f4"
FORWARD = "#1f5fa8"
REVERSE = "#b3261e"


def row(tensor: Mapping[str, Any], index: int) -> list[float]:
    """Row ``index`` of a rank-two tensor, or of the flattened leading axes."""
    width = tensor["shape"][-1]
    return tensor["values"][index * width:(index + 1) * width]


def vec(values: Sequence[float]) -> str:
    """``[30, 31]``: small integral values without a fraction."""
    return "[" + ", ".join(plain(value) for value in values) + "]"


def rows_choosing(trace: Trace, table_row: int) -> list[int]:
    """The flat positions whose ID is ``table_row``."""
    return [entry["position"] for entry in trace["positions"] if entry["id"] == table_row]


def lookup_figure(trace: Trace) -> str:
    vocabulary = trace["table"]["shape"][0]
    lines = [
        "digraph lookup {",
        '  graph [rankdir=LR, fontname="Helvetica", fontsize=11, nodesep=0.2, ranksep=0.9];',
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11];',
        f'  edge [color="{FORWARD}", arrowsize=0.7];',
        '  subgraph cluster_ids { label="IDs z, shape [1, 3]"; style="rounded"; color="#aaaaaa";',
    ]
    for entry in trace["positions"]:
        lines.append(f'    p{entry["position"]} [label="position {entry["position"]}\\nID {entry["id"]}", fillcolor="white"];')
    lines.append("  }")
    lines.append('  subgraph cluster_table { label="table E, shape [4, 2]"; style="rounded"; color="#aaaaaa";')
    for index in range(vocabulary):
        fill = USED if rows_choosing(trace, index) else UNUSED
        lines.append(f'    e{index} [label="row {index}: {vec(row(trace["table"], index))}", fillcolor="{fill}"];')
    lines.append("  }")
    lines.append('  subgraph cluster_out { label="output X, shape [1, 3, 2]"; style="rounded"; color="#aaaaaa";')
    for entry in trace["positions"]:
        lines.append(f'    x{entry["position"]} [label="X[0, {entry["position"]}] = {vec(entry["row"])}", fillcolor="white"];')
    lines.append("  }")
    for entry in trace["positions"]:
        lines.append(f'  p{entry["position"]} -> e{entry["id"]} [style=dashed];')
        lines.append(f'  e{entry["id"]} -> x{entry["position"]};')
    lines.append("}")
    unused = [str(index) for index in range(vocabulary) if not rows_choosing(trace, index)]
    caption = (f"Forward: each ID selects one table row and the output copies it; "
               f"rows {' and '.join(unused)} (grey) are selected by no position")
    return graphviz("\n".join(lines), caption, "lookup")


def scatter_figure(trace: Trace) -> str:
    vocabulary = trace["table"]["shape"][0]
    lines = [
        "digraph scatter {",
        '  graph [rankdir=LR, fontname="Helvetica", fontsize=11, nodesep=0.2, ranksep=0.9];',
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11];',
        f'  edge [color="{REVERSE}", fontcolor="{REVERSE}", fontname="Helvetica", fontsize=9, arrowsize=0.7];',
        '  subgraph cluster_up { label="upstream, shape [1, 3, 2]"; style="rounded"; color="#aaaaaa";',
    ]
    for entry in trace["positions"]:
        lines.append(f'    u{entry["position"]} [label="position {entry["position"]} (ID {entry["id"]}): {vec(entry["upstream"])}", fillcolor="white"];')
    lines.append("  }")
    lines.append('  subgraph cluster_grad { label="table gradient, shape [4, 2]"; style="rounded"; color="#aaaaaa";')
    for index in range(vocabulary):
        fill = USED if rows_choosing(trace, index) else UNUSED
        lines.append(f'    g{index} [label="row {index}: {vec(row(trace["table_gradient"], index))}", fillcolor="{fill}"];')
    lines.append("  }")
    for entry in trace["positions"]:
        lines.append(f'  u{entry["position"]} -> g{entry["id"]} [label="+="];')
    lines.append("}")
    repeated = max(range(vocabulary), key=lambda index: len(rows_choosing(trace, index)))
    caption = (f"Reverse: every position adds its upstream row into the row its ID chose; row {repeated} "
               f"receives {len(rows_choosing(trace, repeated))} contributions and keeps their sum")
    return graphviz("\n".join(lines), caption, "scatter")


def one_hot_table(trace: Trace) -> str:
    rows = []
    for entry in trace["positions"]:
        position = entry["position"]
        rows.append([
            str(position), str(entry["id"]), vec(row(trace["one_hot"], position)),
            vec(row(trace["one_hot_product"], position)), vec(entry["row"]),
        ])
    caption = "One-hot rows times the table give exactly the looked-up rows"
    return table(["position", "ID", "one-hot row $o_p$", "$o_p E$", "lookup $X_p$"], rows, caption, "one-hot")


def gradient_table(trace: Trace) -> str:
    vocabulary = trace["table"]["shape"][0]
    rows = []
    for index in range(vocabulary):
        positions = rows_choosing(trace, index)
        parts = " + ".join(vec(trace["positions"][p]["upstream"]) for p in positions) or "(none)"
        rows.append([
            str(index), ", ".join(str(p) for p in positions) or "(none)", parts,
            vec(row(trace["table_gradient"], index)), vec(row(trace["one_hot_gradient"], index)),
        ])
    caption = "The table gradient row by row, against the gradient the one-hot product gives"
    header = ["row $i$", "positions with $z_p = i$", "contributions $\\bar X_p$", "$\\bar E_i$ (lookup)",
              "$o^\\top \\bar X$ (one-hot)"]
    return table(header, rows, caption, "gradient")
