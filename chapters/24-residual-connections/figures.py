"""Figures of chapter 24, drawn from the demo's trace (``chapter-24-demo --trace``).

* :func:`merge_figure` -- the worked merge as a dataflow: x on the identity
  path and through the branch x W, their sum y, each node with its value and
  its adjoint from the reverse pass (``trace.merge``);
* :func:`upstream_table` -- the same merge reversed from the printed
  upstream [1, 1] and from the asymmetric [1.5, -2] (``trace.merge``,
  ``trace.asymmetric``);
* :func:`stack_table` and :func:`stack_figure` -- four plain and four
  residual layers of -0.25 x: the value at every depth and the input's
  gradient (``trace.plain``, ``trace.residual``).

Every number comes from the trace; nothing is typed by hand.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from tools.figures import graphviz, matplotlib_svg, plain, svg_figure, table, tensor_rows

Trace = Mapping[str, Any]

FILL = {"input": "#eef3fb", "branch": "#fdf1e6", "weight": "#e7f2e4", "result": "#f4f4f4"}


def num(value: float) -> str:
    """A value the way the page writes it: ``-2.25``, ``0.5``, ``3``."""
    return plain(value)


def vec(values: Sequence[float]) -> str:
    """``[2, -1]``: a short exact vector for prose and labels."""
    return "[" + ", ".join(num(v) for v in values) + "]"


def mat(tensor: Mapping[str, Any]) -> str:
    """``[[2, 2], [-1, -1]]``: a [2, 2] tensor row by row."""
    return "[" + ", ".join(vec(row) for row in tensor_rows(tensor)) + "]"


def tex(values: Sequence[float]) -> str:
    """A vector as a LaTeX row: ``\\begin{bmatrix}2 & -1\\end{bmatrix}``."""
    return "\\begin{bmatrix}" + " & ".join(num(v) for v in values) + "\\end{bmatrix}"


def tex_matrix(tensor: Mapping[str, Any]) -> str:
    """A matrix as a LaTeX bmatrix."""
    rows = [" & ".join(num(v) for v in row) for row in tensor_rows(tensor)]
    return "\\begin{bmatrix}" + " \\\\ ".join(rows) + "\\end{bmatrix}"


def merge_figure(trace: Trace) -> str:
    """Values flow left to right; each node also shows the adjoint the reverse pass gave it."""
    m = trace["merge"]
    v = {key: m[key]["values"] for key in m if isinstance(m[key], Mapping)}
    node = '  "{0}" [label="{1}", fillcolor="{2}"{3}];'
    lines = [
        "digraph merge {",
        '  graph [rankdir=LR, fontname="Helvetica", fontsize=11, nodesep=0.35, ranksep=0.55];',
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];',
        '  edge [fontname="Helvetica", fontsize=9, arrowsize=0.6];',
        node.format("x", f"x = {vec(v['input'])}\\nadjoint {vec(v['input_gradient'])}", FILL["input"], ""),
        node.format("w", f"W = {mat(m['weight'])}\\nadjoint {mat(m['weight_gradient'])}", FILL["weight"], ""),
        node.format("f", f"F(x) = x W = {vec(v['branch_output'])}\\nadjoint {vec(v['upstream'])}",
                    FILL["branch"], ', style="rounded,filled,dashed"'),
        node.format("y", f"y = x + F(x) = {vec(v['output'])}\\nadjoint (seed) {vec(v['upstream'])}",
                    FILL["result"], ', peripheries=2'),
        '  { rank=same; "x"; "w"; }',
        f'  "x" -> "y" [label="identity path\\nhands back {vec(v["identity_gradient"])}", penwidth=1.6];',
        f'  "x" -> "f" [label="hands back W ȳ = {vec(v["branch_input_gradient"])}", style=dashed];',
        '  "w" -> "f" [style=dashed];',
        '  "f" -> "y" [style=dashed];',
        "}",
    ]
    caption = ("The worked merge. Values flow along the arrows; the reverse pass sends the seed back along both "
               "of x's outgoing arrows, and x's adjoint is the sum of the two.")
    alt = (f"Dataflow: x = {vec(v['input'])} goes straight to the sum y = {vec(v['output'])} and also through the "
           f"branch x W = {vec(v['branch_output'])}; reversed from {vec(v['upstream'])}, the identity path hands back "
           f"{vec(v['identity_gradient'])} and the branch {vec(v['branch_input_gradient'])}, so x's adjoint is "
           f"{vec(v['input_gradient'])} and W's is {mat(m['weight_gradient'])}.")
    return graphviz("\n".join(lines), caption, "merge", alt=alt)


def upstream_table(trace: Trace) -> str:
    """The printed upstream against the asymmetric one, quantity by quantity."""
    rows = []
    for label, key in (("upstream $\\bar y$", "upstream"), ("identity path: $\\bar y$", "identity_gradient"),
                       ("branch: $W \\bar y$", "branch_input_gradient"), ("input adjoint $\\bar x$", "input_gradient")):
        rows.append([label] + [vec(trace[case][key]['values']) for case in ("merge", "asymmetric")])
    rows.append(["weight adjoint $\\bar W = x^\\top \\bar y$"]
                + [mat(trace[case]['weight_gradient']) for case in ("merge", "asymmetric")])
    return table(["quantity", "printed case", "asymmetric case (trace)"], rows,
                 "One merge reversed from two upstream adjoints", "upstreams")


def stack_table(trace: Trace) -> str:
    """The value after each depth in both stacks."""
    plain_values = trace["plain"]["values"]
    residual_values = trace["residual"]["values"]
    rows = [[str(depth), vec(p['values']), vec(r['values'])]
            for depth, (p, r) in enumerate(zip(plain_values, residual_values))]
    rows.append(["input adjoint", vec(trace['plain']['input_gradient']['values']),
                 vec(trace['residual']['input_gradient']['values'])])
    return table(["depth", "plain: $x \\leftarrow x W$", "residual: $x \\leftarrow x + x W$"], rows,
                 "Four layers of the same branch, plain and residual, with the seed [1, 1]", "stack")


def stack_figure(trace: Trace) -> str:
    """|first coordinate| by depth on a log scale: the plain stack shrinks by 4 per layer, the residual by 4/3."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plain_values = [abs(t["values"][0]) for t in trace["plain"]["values"]]
    residual_values = [abs(t["values"][0]) for t in trace["residual"]["values"]]
    depths = list(range(len(plain_values)))
    figure, axis = plt.subplots(figsize=(5.6, 3.4))
    axis.plot(depths, plain_values, marker="o", color="#336699", label="plain")
    axis.plot(depths, residual_values, marker="s", color="#b35c00", label="residual")
    axis.set_yscale("log")
    axis.set_xticks(depths)
    axis.set_xlabel("depth (layers applied)")
    axis.set_ylabel("|first coordinate|")
    axis.legend(loc="lower left")
    svg = matplotlib_svg(figure)
    plt.close(figure)
    plain_gradient = trace["plain"]["input_gradient"]["values"][0]
    residual_gradient = trace["residual"]["input_gradient"]["values"][0]
    alt = (f"Log-scale plot of the first coordinate's magnitude against depth 0 to {depths[-1]}: the plain stack "
           f"falls from {num(plain_values[0])} to {num(plain_values[-1])}, the residual stack only to "
           f"{num(residual_values[-1])}; the input adjoints after depth {depths[-1]} are {num(plain_gradient)} and "
           f"{num(residual_gradient)}.")
    caption = (f"The first coordinate through {depths[-1]} layers of $F(x) = -\\tfrac14 x$. Each plain layer "
               "multiplies by $-\\tfrac14$, each residual layer by $1 - \\tfrac14$; the input adjoints shrink by the "
               "same factors.")
    return svg_figure(svg, caption, "stack-depth", alt=alt)
