"""Figures of chapter 28, drawn from the demo's trace (``chapter-28-demo --trace``).

* :func:`triangle_figure` -- the mask, the scaled scores with the blocked
  cells hatched, and the weights, as three query-by-key grids
  (``trace.primary``);
* :func:`forms_table` -- the fused causal softmax against the additive
  -inf form, the 0/1 keep-mask form and zeroing after an ordinary softmax
  (``trace.forms``);
* :func:`prefix_table` -- the outputs before and after the last key and
  value change, and the gradients of a loss on the first two outputs
  (``trace.primary``, ``trace.prefix``);
* :func:`refusal_table` -- the refused inputs and the library's messages.

Every number comes from the trace; nothing is typed by hand.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from tools.figures import fixed, matplotlib_svg, plain, svg_figure, table

Trace = Mapping[str, Any]


def six(value: float) -> str:
    """A value as the demo prints it: six decimals, ``-0`` as ``0``."""
    return fixed(0.0 if value == 0 else value, 6)


def num(value: float) -> str:
    """A value for prose: ``6`` when integral, else six decimals."""
    return plain(value) if float(value).is_integer() else six(value)


def four(value: float) -> str:
    """A value to four decimals for the crowded figure cells, ``-0`` as ``0``."""
    return fixed(0.0 if value == 0 else value, 4)


def vec(values: Sequence[float]) -> str:
    """``[0, 3]`` or ``[0.554192, 0.770959]``."""
    return "[" + ", ".join(num(v) for v in values) + "]"


def matrix_rows(tensor: Mapping[str, Any]) -> list[list[float]]:
    """The last two axes of a [1, T, D] trace tensor as rows."""
    width = tensor["shape"][-1]
    values = tensor["values"]
    return [values[i:i + width] for i in range(0, len(values), width)]


def mat(tensor: Mapping[str, Any]) -> str:
    """``[[0, 3], [2, -1], [1, 1]]``: the rows of a [1, T, D] tensor."""
    return "[" + ", ".join(vec(row) for row in matrix_rows(tensor)) + "]"


def tex_matrix(tensor: Mapping[str, Any]) -> str:
    """A [1, T, D] tensor as a LaTeX bmatrix of its T rows."""
    rows = [" & ".join(num(v) for v in row) for row in matrix_rows(tensor)]
    return "\\begin{bmatrix}" + " \\\\ ".join(rows) + "\\end{bmatrix}"


def triangle_figure(trace: Trace) -> str:
    """Mask, masked scaled scores and weights: blocked cells hatched and labelled."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    p = trace["primary"]
    size = p["weights"]["shape"][-1]
    mask = [p["additive_mask"][i:i + size] for i in range(0, size * size, size)]
    scores = matrix_rows(p["scaled_scores"])
    weights = matrix_rows(p["weights"])
    panels = (("mask M", [[0 if v == 0 else "-inf" for v in row] for row in mask]),
              ("scaled scores S", [[four(v) for v in row] for row in scores]),
              ("weights A", [[four(v) for v in row] for row in weights]))
    figure, axes = plt.subplots(1, 3, figsize=(7.6, 3.0))
    for axis, (title, cells) in zip(axes, panels):
        for i in range(size):
            for j in range(size):
                blocked = j > i
                axis.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="#eeeeee" if blocked else "#e7f2e4",
                                         edgecolor="#555555", hatch="//" if blocked else None,
                                         linewidth=1.2 if i == j else 0.6))
                axis.text(j, i, str(cells[i][j]), ha="center", va="center", fontsize=10,
                          color="#444444" if blocked else "black",
                          bbox={"facecolor": "white", "edgecolor": "none", "pad": 1.0} if blocked else None)
        axis.set_xlim(-0.5, size - 0.5)
        axis.set_ylim(size - 0.5, -0.5)
        axis.set_title(title, fontsize=11)
        axis.set_xticks(range(size), [f"k{j}" for j in range(size)], fontsize=10)
        axis.set_yticks(range(size), [f"q{i}" for i in range(size)], fontsize=10)
        axis.set_aspect("equal")
    figure.tight_layout()
    svg = matplotlib_svg(figure)
    plt.close(figure)
    alt = (f"Three 3 by 3 grids, queries as rows and keys as columns; the three cells above the diagonal are "
           f"hatched as blocked. Mask: 0 on and below the diagonal, -inf above. Scaled scores "
           f"{mat(p['scaled_scores'])}. Weights {mat(p['weights'])}: exact zeros in the blocked cells.")
    caption = ("The causal triangle on the worked input, to four decimals. Hatched cells are the future: their scores exist in "
               "$QK^\\top$ but are never read, and their weights are exactly 0. Each row of $A$ sums to 1 over "
               "its unhatched cells.")
    return svg_figure(svg, caption, "causal-triangle", alt=alt)


def row_text(values: Sequence[float], digits: int = 6) -> str:
    """``[0.9992, 0.0008, 0]`` as plain text whose spaces do not break.

    Table cells hold plain text, not code: at 390 px a code span never wraps
    and pushed these tables past the phone's column. Inside one row the
    spaces are no-break spaces, so a matrix wraps between its rows only.
    """
    cells = [plain(v) if float(v).is_integer() else fixed(0.0 if v == 0 else v, digits) for v in values]
    return "[" + ",\u00a0".join(cells) + "]"


def forms_table(trace: Trace) -> str:
    """Each form's weights, and whether they have the fused form's bits.

    Two columns, so that the table fits a 390 px phone: the form with its
    verdict, and the weights to four decimals, one row of $A$ per line when
    the column is narrow. The bits are compared in the demo, not here.
    """
    f = trace["forms"]
    yes_no = {True: "yes", False: "no"}

    def weights(key: str) -> str:
        return " ".join(row_text(row, 4) for row in matrix_rows(f[key]))

    sums = ", ".join(six(v) for v in f["zeroed_after_row_sums"])
    rows = [
        ["fused: the library's causal softmax of $S$; the reference", weights("fused")],
        ["additive: softmax of $S + M$ with $M$ = 0 or $-\\infty$, on plain loops; same bits: "
         f"{yes_no[f['additive_bits_equal']]}", weights("additive")],
        ["keep mask on the tape: exp of $(S - m) M$, times $M$, over its row sum, with $M$ = 0 or 1; "
         f"same bits: {yes_no[f['keep_bits_equal']]}", weights("keep")],
        [f"zeroed after (wrong): an ordinary softmax of $S$, times $M$; same bits: no, the rows sum to {sums}",
         weights("zeroed_after")],
    ]
    return table(["form", "weights $A$, to four decimals"], rows,
                 "One masked softmax, four ways, on the worked scores", "mask-forms")


def prefix_table(trace: Trace) -> str:
    """Output rows before and after the suffix change; gradients of the prefix-only loss.

    One column per position and one row per quantity, short row labels and
    four decimals, so that three value columns fit a 390 px phone; the
    caption names the rows.
    """
    p, r = trace["primary"], trace["prefix"]
    quantities = [
        ("$o_i$", matrix_rows(p["output"])),
        ("$\\tilde o_i$", matrix_rows(r["perturbed_output"])),
        ("$\\bar q_i$", matrix_rows(r["query_gradient"])),
        ("$\\bar k_i$", matrix_rows(r["key_gradient"])),
        ("$\\bar v_i$", matrix_rows(r["value_gradient"])),
    ]
    positions = len(quantities[0][1])
    rows = [[name] + [row_text(values[i], 4).replace("\u00a0", " ") for i in range(positions)]
            for name, values in quantities]
    return table([""] + [f"position {i}" for i in range(positions)], rows,
                 "The suffix changes only the last output and receives nothing from the first two: the output "
                 "$o_i$, the output $\\tilde o_i$ with $k_2$ and $v_2$ replaced, and the adjoints of a loss on "
                 "outputs 0 and 1 only (four decimals)", "prefix")


def refusal_table(trace: Trace) -> str:
    """Each refused call: the printed field, the error kind, its message.

    Two columns, the kind and the message in plain text that may wrap (a
    kind after its hyphens), so that the table fits a 390 px phone.
    """
    rows = [[f"`{r['case']}`: {r['kind']}", f"\u201c{r['message']}\u201d"] for r in trace["refusals"]]
    return table(["printed field: error kind", "message"], rows,
                 "What causal attention and causal_softmax refuse", "refusals")
