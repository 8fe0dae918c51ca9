"""Figures of chapter 19, drawn from the demo's trace (``chapter-19-demo --trace``).

* :func:`graph_figure` -- the forward chain X -> matmul -> add -> Y with every
  shape, and the three gradients flowing back (``trace``);
* :func:`output_table` -- each output element as a sum of products plus bias
  (``trace.input``, ``trace.weight``, ``trace.bias``, ``trace.output``);
* :func:`weight_gradient_table` -- each weight gradient entry as a sum over
  positions (``trace.input``, ``trace.upstream``, ``trace.weight_gradient``);
* :func:`variants_table` -- input shapes and the shapes the layer returned;
* :func:`errors_table` -- the refused inputs and parameters.

Every number comes from the trace; nothing is typed by hand.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from tools.figures import graphviz, html_text, plain, shortest, table

Trace = Mapping[str, Any]

FORWARD = "#1f5fa8"
REVERSE = "#b3261e"


def num(value: float) -> str:
    """``2``, ``-0.5``: a small value as a person writes it."""
    return plain(value) if float(value).is_integer() else shortest(value)


def vec(values: Sequence[float]) -> str:
    return "[" + ", ".join(num(value) for value in values) + "]"


def rows(tensor: Mapping[str, Any]) -> list[list[float]]:
    """The tensor as rows of its last axis (leading axes flattened)."""
    width = tensor["shape"][-1]
    values = tensor["values"]
    return [values[k:k + width] for k in range(0, len(values), width)]


def column(tensor: Mapping[str, Any], index: int) -> list[float]:
    return [row[index] for row in rows(tensor)]


def shape(values: Sequence[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def matrix_tex(tensor: Mapping[str, Any]) -> str:
    body = r" \\ ".join(" & ".join(num(v) for v in row) for row in rows(tensor))
    return r"\begin{bmatrix}" + body + r"\end{bmatrix}"


def graph_figure(trace: Trace) -> str:
    x, w, b, y = (trace[k]["shape"] for k in ("input", "weight", "bias", "output"))
    lines = [
        "digraph linear {",
        '  graph [rankdir=LR, fontname="Helvetica", fontsize=11, nodesep=0.35, ranksep=0.6];',
        '  node [shape=box, style="rounded,filled", fillcolor="#eef3fb", fontname="Helvetica", fontsize=11];',
        '  edge [fontname="Helvetica", fontsize=9, arrowsize=0.7];',
        f'  X [label="X {shape(x)}"]; W [label="W {shape(w)}"]; b [label="b {shape(b)}"];',
        f'  XW [label="matmul\\n{shape(y)}", fillcolor="white"]; Y [label="add\\nY {shape(y)}", fillcolor="white"];',
        f'  X -> XW [color="{FORWARD}"]; W -> XW [color="{FORWARD}"]; XW -> Y [color="{FORWARD}"];',
        f'  b -> Y [color="{FORWARD}", label="broadcast over {shape(y[:-1])}"];',
        f'  Y -> XW [color="{REVERSE}", fontcolor="{REVERSE}", style=dashed, constraint=false, label="dY {shape(y)}"];',
        f'  Y -> b [color="{REVERSE}", fontcolor="{REVERSE}", style=dashed, constraint=false, label="sum over rows: {vec(trace["bias_gradient"]["values"])}"];',
        f'  XW -> X [color="{REVERSE}", fontcolor="{REVERSE}", style=dashed, constraint=false, label="dY W^T {shape(x)}"];',
        f'  XW -> W [color="{REVERSE}", fontcolor="{REVERSE}", style=dashed, constraint=false, label="X^T dY {shape(w)}"];',
        "}",
    ]
    caption = (f"The layer as two recorded operations: forward (solid) from X {shape(x)} to Y {shape(y)}, "
               "and the gradients each operation sends back (dashed)")
    return graphviz("\n".join(lines), caption, "graph")


def output_table(trace: Trace) -> str:
    x_rows = rows(trace["input"])
    y_rows = rows(trace["output"])
    bias = trace["bias"]["values"]
    out = []
    for t, x_row in enumerate(x_rows):
        for j in range(len(bias)):
            w_col = column(trace["weight"], j)
            terms = " + ".join(f"({num(a)})({num(c)})" for a, c in zip(x_row, w_col))
            out.append([f"({t}, {j})", f"${terms} + ({num(bias[j])})$", num(y_rows[t][j])])
    return table(["(position, output)", "$\\sum_i x_i W_{ij} + b_j$", "$Y$"], out,
                 "Every output of the run as the sum a single weighted unit computes", "outputs")


def weight_gradient_table(trace: Trace) -> str:
    x_rows = rows(trace["input"])
    u_rows = rows(trace["upstream"])
    g_rows = rows(trace["weight_gradient"])
    out = []
    for i in range(len(g_rows)):
        for j in range(len(g_rows[i])):
            terms = " + ".join(f"({num(x_rows[t][i])})({num(u_rows[t][j])})" for t in range(len(x_rows)))
            out.append([f"({i}, {j})", f"${terms}$", num(g_rows[i][j])])
    return table(["$(i, j)$", "$\\sum_t X_{t,i}\\,\\bar Y_{t,j}$", "$\\bar W_{ij}$"], out,
                 "The weight gradient: one product per position, added over the leading axes", "weight-gradient")


def variants_table(trace: Trace) -> str:
    out = [[shape(v["input"]), shape(v["output"])] for v in trace["variants"]]
    return table(["input shape", "output shape"], out,
                 "The same layer on every leading shape the run tried", "variants")


def errors_table(trace: Trace) -> str:
    out = [[f"`{e['kind']}`", html_text(e["message"])] for e in trace["errors"]]
    return table(["kind", "message"], out, "What the layer refused, before recording anything", "errors")
