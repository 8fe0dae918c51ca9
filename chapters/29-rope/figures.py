"""Figures of chapter 29, drawn from the demo's trace (``chapter-29-demo --trace``).

* :func:`rotation_figure` -- the pair [1, 0] turned by the table at every
  position 0-5, once per pair: pair 0 turns 1 radian per position, pair 1 a
  tenth of that (``trace.table``);
* :func:`pair_table` -- the single pair of the opening prediction at four
  position pairs (``trace.pair``);
* :func:`grid_table` -- a dot grid with each cell's signed offset n - m, for
  the printed run or the asymmetric one (``trace.printed``, ``trace.asymmetric``);
* :func:`gradient_table` -- upstream and gradient pairs position by position
  (``trace.printed``);
* :func:`refusal_table` -- every refused request with its kind and message
  (``trace.refusals``).

Every number comes from the trace; nothing is typed by hand.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from tools.figures import fixed, matplotlib_svg, plain, svg_figure, table, tensor_rows

Trace = Mapping[str, Any]


def num(value: float, digits: int = 6) -> str:
    """A value with six decimals, as the demo prints it, ``-0`` written as ``0``."""
    text = fixed(value, digits)
    return text[1:] if text.startswith("-") and float(text) == 0.0 else text


def vec(values: Sequence[float], digits: int = 6) -> str:
    """``[0.540302, 0.841471]``: a vector for prose and tables."""
    return "[" + ", ".join(num(v, digits) for v in values) + "]"


def exact(values: Sequence[float]) -> str:
    """``[1, 0, 1, 0]``: a short exact vector (integral or short decimals)."""
    return "[" + ", ".join(plain(v) for v in values) + "]"


def rotation_figure(trace: Trace) -> str:
    """Two unit circles, one per pair: the point (cos t w_p, sin t w_p) for t = 0 .. capacity-1."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cosines = tensor_rows(trace["table"]["cosines"])
    sines = tensor_rows(trace["table"]["sines"])
    frequencies = trace["table"]["inverse_frequencies"]["values"]
    positions = len(cosines)
    figure, axes = plt.subplots(1, len(frequencies), figsize=(7.2, 3.7))
    circle = [i * 2 * math.pi / 200 for i in range(201)]
    for pair, axis in enumerate(axes):
        axis.plot([math.cos(a) for a in circle], [math.sin(a) for a in circle], color="#bbbbbb", linewidth=0.8)
        xs = [cosines[t][pair] for t in range(positions)]
        ys = [sines[t][pair] for t in range(positions)]
        color = "#336699" if pair == 0 else "#b35c00"
        # The slow pair's arrows lie too close to label each: label the first and the last.
        labelled = range(positions) if pair == 0 else (0, positions - 1)
        for t in range(positions):
            axis.annotate("", xy=(xs[t], ys[t]), xytext=(0, 0),
                          arrowprops={"arrowstyle": "->", "color": color, "linewidth": 1.2})
            if t in labelled:
                axis.text(xs[t] * 1.17, ys[t] * 1.17, f"t={t}", ha="center", va="center", fontsize=10)
        axis.set_aspect("equal")
        axis.set_xlim(-1.4, 1.4)
        axis.set_ylim(-1.4, 1.4)
        axis.set_xticks([-1, 0, 1])
        axis.set_yticks([-1, 0, 1])
        axis.set_title(f"pair {pair}: w = {plain(frequencies[pair])} rad per position", fontsize=11)
        axis.set_xlabel(f"coordinate {2 * pair}")
        axis.set_ylabel(f"coordinate {2 * pair + 1}")
    figure.tight_layout()
    svg = matplotlib_svg(figure)
    plt.close(figure)
    last = positions - 1
    alt = (f"Two unit circles. Left, pair 0: the vector [1, 0] turned by 1 radian per position, so the arrows "
           f"for positions 0 to {last} spread around the circle, position {last} at "
           f"({num(cosines[last][0], 3)}, {num(sines[last][0], 3)}). Right, pair 1: turned by "
           f"{plain(frequencies[1])} radian per position, so all {positions} arrows stay within "
           f"{num(last * frequencies[1], 1)} radian of the first.")
    caption = (f"The pair $[1, 0]$ rotated at positions 0 to {last} by the table of width "
               f"{trace['config']['width']} and base {plain(trace['config']['base'])}: one arrow per position. "
               "Pair 0 turns fast and tells near positions apart; pair 1 turns slowly and changes little "
               "over the whole table.")
    return svg_figure(svg, caption, "rotation-circles", alt=alt)


def pair_table(trace: Trace) -> str:
    """The single pair q = [1, 0], k = [0, 1] rotated at (m, n) and their dot product.

    The positions and their offset share the first column, "(1, 0): -1", so
    that the table fits a 390 px phone (with a column each it was 393 px wide).
    """
    rows = []
    for entry in trace["pair"]:
        rows.append([f"({entry['m']}, {entry['n']}): {entry['n'] - entry['m']}",
                     vec(entry['rotated_query']), vec(entry['rotated_key']), num(entry["dot"])])
    return table(["$(m, n)$: $n - m$", "$R(m)\\,q$", "$R(n)\\,k$", "dot product"], rows,
                 "One pair turning 1 radian per position: q = [1, 0] at m, k = [0, 1] at n", "pair-dots",
                 fits_phone=True)


def grid_table(trace: Trace, case: str) -> str:
    """A dot grid, cell (m, n) with its value and signed offset n - m, beside the shifted grid."""
    grid = tensor_rows(trace[case]["dot_grid"])
    shifted = tensor_rows(trace[case]["shifted_dot_grid"])
    shift = trace["config"]["shift"]
    rows = []
    for m, (row, shifted_row) in enumerate(zip(grid, shifted)):
        rows.append([f"$m$ = {m} ({m + shift})"]
                    + [f"{num(value)} / {num(moved)} (offset {n - m})"
                       for n, (value, moved) in enumerate(zip(row, shifted_row))])
    key = exact(trace[case]["key"]["values"][: trace["config"]["width"]])
    query = exact(trace[case]["query"]["values"][: trace["config"]["width"]])
    header = ["query"] + [f"key $n$ = {n} ({n + shift})" for n in range(len(grid))]
    caption = (f"Dot products of the rotated query {query} and key {key} at positions 0-2 / at {shift}-{shift + 2}, "
               "with the signed offset $n - m$ of each cell")
    return table(header, rows, caption, f"grid-{case}")


def gradient_table(trace: Trace) -> str:
    """Per position: the query's upstream row, its gradient row R^T(upstream), and their norm.

    The two norms share one column, headed by their equality, so that the
    table fits a 390 px phone (two columns were 366 px wide there); a
    position where the printed norms differ stops the render instead.
    """
    width = trace["config"]["width"]
    upstream = trace["printed"]["query_upstream"]["values"]
    gradient = trace["printed"]["query_gradient"]["values"]
    rows = []
    for t in range(len(upstream) // width):
        up, down = upstream[t * width:(t + 1) * width], gradient[t * width:(t + 1) * width]
        norm_up, norm_down = num(math.sqrt(sum(v * v for v in up))), num(math.sqrt(sum(v * v for v in down)))
        if norm_up != norm_down:
            raise ValueError(f"position {t}: the upstream norm {norm_up} and the gradient norm {norm_down} differ")
        rows.append([str(t), vec(up), vec(down), norm_up])
    return table(["$t$", "upstream $\\bar y_t$", "gradient $\\bar x_t$",
                  "$\\lVert\\bar y_t\\rVert = \\lVert\\bar x_t\\rVert$"], rows,
                 "The query's gradient is its upstream rotated back, position by position", "query-gradient",
                 fits_phone=True)


def refusal_table(trace: Trace) -> str:
    """Each refused request, its error kind and the library's message."""
    rows = [[entry["request"], entry["kind"], f"\u201c{entry['message']}\u201d"] for entry in trace["refusals"]]
    return table(["request", "error kind", "message"], rows, "What the table and the operation refuse", "refusals",
                 fits_phone=True)
