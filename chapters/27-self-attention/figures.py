"""Figures of chapter 27, drawn from the demo's trace (``chapter-27-demo --trace``).

* :func:`flow_figure` -- the head as a dataflow: Q and K into the score grid,
  the scale, the row softmax, and the weights with V into the output, each
  node with its values (``trace.primary``);
* :func:`grids_figure` -- the scaled scores and the weights as two annotated
  query-by-key grids (``trace.primary``);
* :func:`mixture_table` -- each output row as the sum of weighted value rows;
* :func:`asymmetric_table` -- the printed case against a case whose score
  grid and seed are not symmetric, with the output of a swapped score
  product beside each (``trace.primary``, ``trace.asymmetric``);
* :func:`refusal_table` -- the refused inputs and the library's messages.

Every number comes from the trace; nothing is typed by hand.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from tools.figures import (
    dot_head,
    dot_text,
    fixed,
    graphviz,
    matplotlib_svg,
    plain,
    svg_figure,
    table,
)

Trace = Mapping[str, Any]

FILL = {"input": "#eef3fb", "score": "#fdf1e6", "weight": "#e7f2e4", "output": "#f4f4f4"}


def six(value: float) -> str:
    """A value as the demo prints it: six decimals, ``-0`` as ``0``."""
    return fixed(0.0 if value == 0 else value, 6)


def num(value: float) -> str:
    """A value for prose: ``6`` when integral, else six decimals."""
    return plain(value) if float(value).is_integer() else six(value)


def vec(values: Sequence[float]) -> str:
    """``[0, 3]`` or ``[1.028332, 2.915004]``."""
    return "[" + ", ".join(num(v) for v in values) + "]"


def mat(tensor: Mapping[str, Any]) -> str:
    """``[[0, 3], [2, -1]]``: the rows of a [1, T, D] tensor."""
    return "[" + ", ".join(vec(row) for row in matrix_rows(tensor)) + "]"


def matrix_rows(tensor: Mapping[str, Any]) -> list[list[float]]:
    """The last two axes of a [1, T, D] trace tensor as rows."""
    width = tensor["shape"][-1]
    values = tensor["values"]
    return [values[i:i + width] for i in range(0, len(values), width)]


def tex_matrix(tensor: Mapping[str, Any]) -> str:
    """A [1, T, D] tensor as a LaTeX bmatrix of its T rows."""
    rows = [" & ".join(num(v) for v in row) for row in matrix_rows(tensor)]
    return "\\begin{bmatrix}" + " \\\\ ".join(rows) + "\\end{bmatrix}"


def flow_figure(trace: Trace) -> str:
    """Q, K, V on top; scores, scaled scores and weights in one row; the output below."""
    p = trace["primary"]

    def rows(tensor: Mapping[str, Any]) -> str:
        return "\n".join(vec(row) for row in matrix_rows(tensor))

    node = '  "{0}" [label="{1}", fillcolor="{2}"];'
    lines = dot_head(
        "attention",
        {"rankdir": "TB", "nodesep": 0.35, "ranksep": 0.4},
        {"shape": "box", "style": "rounded,filled", "fontsize": 11},
        {"fontsize": 10, "arrowsize": 0.6},
    )
    lines += [
        node.format("q", dot_text(f"Q\n{rows(p['query'])}"), FILL["input"]),
        node.format("k", dot_text(f"K\n{rows(p['key'])}"), FILL["input"]),
        node.format("v", dot_text(f"V\n{rows(p['value'])}"), FILL["input"]),
        node.format("s", dot_text(f"S = Q Kᵀ\n{rows(p['scores'])}"), FILL["score"]),
        node.format("z", dot_text(f"S × {six(p['scale'])}\n{rows(p['scaled_scores'])}"), FILL["score"]),
        node.format("a", dot_text(f"A = softmax of each row\n{rows(p['weights'])}"), FILL["weight"]),
        node.format("o", dot_text(f"O = A V\n{rows(p['output'])}"), FILL["output"]),
        '  { rank=same; "q"; "k"; "v"; }',
        '  { rank=same; "s"; "z"; "a"; }',
        '  "q" -> "s"; "k" -> "s" [label=" transposed"];',
        '  "s" -> "z"; "z" -> "a";',
        '  "a" -> "o"; "v" -> "o";',
        "}",
    ]
    caption = ("One unmasked head on the worked input. Every query row of $S$ scores both keys; the softmax turns "
               "each row into weights that sum to 1, and row $i$ of $O$ mixes the rows of $V$ with row $i$ of $A$.")
    alt = (f"Dataflow: Q = {mat(p['query'])} and K = {mat(p['key'])} give the scores {mat(p['scores'])}, scaled by "
           f"{six(p['scale'])} to {mat(p['scaled_scores'])}; the row softmax gives {mat(p['weights'])}; with "
           f"V = {mat(p['value'])} the output is {mat(p['output'])}.")
    return graphviz("\n".join(lines), caption, "attention-flow", alt=alt)


def grids_figure(trace: Trace) -> str:
    """Two annotated 2x2 grids: scaled scores and weights, queries down, keys across."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    p = trace["primary"]
    panels = (("scaled scores S / √2", matrix_rows(p["scaled_scores"]), "RdBu_r"),
              ("weights A (rows sum to 1)", matrix_rows(p["weights"]), "Greens"))
    figure, axes = plt.subplots(1, 2, figsize=(6.4, 3.0))
    for axis, (title, rows, colours) in zip(axes, panels):
        limit = max(abs(v) for row in rows for v in row)
        low = -limit if colours == "RdBu_r" else 0.0
        axis.imshow(rows, cmap=colours, vmin=low, vmax=limit)
        for i, row in enumerate(rows):
            for j, value in enumerate(row):
                shade = "white" if abs(value) > 0.6 * limit else "black"
                axis.text(j, i, six(value), ha="center", va="center", fontsize=11, color=shade)
        axis.set_title(title, fontsize=11)
        axis.set_xticks(range(len(rows[0])), [f"key {j}" for j in range(len(rows[0]))], fontsize=10)
        axis.set_yticks(range(len(rows)), [f"query {i}" for i in range(len(rows))], fontsize=10)
    figure.tight_layout()
    svg = matplotlib_svg(figure)
    plt.close(figure)
    weights = matrix_rows(p["weights"])
    alt = (f"Two 2 by 2 grids, queries as rows and keys as columns. Scaled scores {mat(p['scaled_scores'])}; "
           f"weights {mat(p['weights'])}: query 0 puts {six(weights[0][1])} on key 1, query 1 puts "
           f"{six(weights[1][0])} on key 0.")
    caption = ("The scaled score grid and the weights it becomes. The softmax runs along each row (over the keys), "
               "so each row of $A$ sums to 1; the columns need not.")
    return svg_figure(svg, caption, "attention-grids", alt=alt)


def mixture_table(trace: Trace) -> str:
    """Output row i = sum over keys j of A[i][j] times value row j."""
    p = trace["primary"]
    weights = matrix_rows(p["weights"])
    values = matrix_rows(p["value"])
    outputs = matrix_rows(p["output"])
    rows = []
    for i, terms in enumerate(p["terms"]):
        parts = [f"{six(weights[i][j])} · {vec(values[j])} = {vec(term)}" for j, term in enumerate(terms)]
        rows.append([f"query {i}", parts[0], parts[1], vec(outputs[i])])
    return table(["row", "key 0: $A_{i0} v_0$", "key 1: $A_{i1} v_1$", "output $o_i$"], rows,
                 "Each output row is the weighted sum of the value rows", "mixtures")


def asymmetric_table(trace: Trace) -> str:
    """The printed case and the asymmetric case, side by side."""
    cases = (trace["primary"], trace["asymmetric"])
    fields = (("query $Q$", "query"), ("scores $QK^\\top$", "scores"), ("weights $A$", "weights"),
              ("output $O$", "output"), ("output with $KQ^\\top$ (a bug)", "swapped_scores_output"),
              ("seed $\\bar O$", "upstream"), ("$\\bar Q$", "query_gradient"), ("$\\bar K$", "key_gradient"),
              ("$\\bar V$", "value_gradient"))
    rows = [[label] + [mat(case[key]) for case in cases] for label, key in fields]
    return table(["quantity", "printed case", "asymmetric case (trace)"], rows,
                 "The printed case and a case without its two symmetries", "asymmetric")


def refusal_table(trace: Trace) -> str:
    """Each refused call: the printed field, the error kind, its message."""
    rows = [[f"`{r['case']}`", r["kind"], f"\u201c{r['message']}\u201d"]
            for r in trace["refusals"]]
    return table(["printed field", "error kind", "message"], rows,
                 "What scaled_dot_product_attention refuses, before recording anything", "refusals")
