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

from tools.figures import dot_cluster, dot_head, graphviz, plain, table

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


def _table_rows(trace: Trace, prefix: str, tensor: str) -> list[str]:
    """One node per row of a [vocabulary, width] tensor, grey where no position chose the row."""
    lines = []
    for index in range(trace["table"]["shape"][0]):
        fill = USED if rows_choosing(trace, index) else UNUSED
        lines.append(f'    {prefix}{index} [label="row {index}: {vec(row(trace[tensor], index))}", fillcolor="{fill}"];')
    return lines


def _flow(name: str, edge: Mapping[str, Any], clusters: Sequence[tuple[str, str, list[str]]], arrows: list[str]) -> str:
    """A left-to-right diagram of rounded boxes: labelled clusters of nodes, then the arrows between them."""
    lines = dot_head(name, {"rankdir": "LR", "fontsize": 11, "nodesep": 0.2, "ranksep": 0.9},
                     {"shape": "box", "style": "rounded,filled", "fontsize": 11}, {**edge, "arrowsize": 0.7})
    for cluster, label, body in clusters:
        lines += dot_cluster(cluster, label, body)
    return "\n".join(lines + arrows + ["}"])


def lookup_figure(trace: Trace) -> str:
    positions = trace["positions"]
    ids = [f'    p{e["position"]} [label="position {e["position"]}\\nID {e["id"]}", fillcolor="white"];' for e in positions]
    outputs = [f'    x{e["position"]} [label="X[0, {e["position"]}] = {vec(e["row"])}", fillcolor="white"];'
               for e in positions]
    arrows = []
    for entry in positions:
        arrows += [f'  p{entry["position"]} -> e{entry["id"]} [style=dashed];', f'  e{entry["id"]} -> x{entry["position"]};']
    clusters = [("ids", "IDs z, shape [1, 3]", ids), ("table", "table E, shape [4, 2]", _table_rows(trace, "e", "table")),
                ("out", "output X, shape [1, 3, 2]", outputs)]
    dot = _flow("lookup", {"color": FORWARD}, clusters, arrows)
    unused = [str(index) for index in range(trace["table"]["shape"][0]) if not rows_choosing(trace, index)]
    caption = (f"Forward: each ID selects one table row and the output copies it; "
               f"rows {' and '.join(unused)} (grey) are selected by no position")
    return graphviz(dot, caption, "lookup")


def scatter_figure(trace: Trace) -> str:
    vocabulary = trace["table"]["shape"][0]
    upstream = [f'    u{e["position"]} [label="position {e["position"]} (ID {e["id"]}): {vec(e["upstream"])}", '
                'fillcolor="white"];' for e in trace["positions"]]
    arrows = [f'  u{e["position"]} -> g{e["id"]} [label="+="];' for e in trace["positions"]]
    dot = _flow("scatter", {"color": REVERSE, "fontcolor": REVERSE, "fontsize": 9},
                [("up", "upstream, shape [1, 3, 2]", upstream),
                 ("grad", "table gradient, shape [4, 2]", _table_rows(trace, "g", "table_gradient"))], arrows)
    repeated = max(range(vocabulary), key=lambda index: len(rows_choosing(trace, index)))
    caption = (f"Reverse: every position adds its upstream row into the row its ID chose; row {repeated} "
               f"receives {len(rows_choosing(trace, repeated))} contributions and keeps their sum")
    return graphviz(dot, caption, "scatter")


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
