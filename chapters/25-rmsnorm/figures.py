"""Figures of chapter 25, drawn from the demo's trace (``chapter-25-demo --trace``).

* :func:`pass_figure` -- the worked row through the composed pass: x, its
  mean square, r, the normalized row, the gain and the output, with the
  adjoints the reverse pass left on x and g (``trace.composed``);
* :func:`batch_table` -- an asymmetric two-row pass reversed through the
  composed and the fused form (``trace.batch_reverse``);
* :func:`scale_table` and :func:`invariance_table` -- the row and the row
  times ten normalized with and without epsilon, and how often scaling
  changes bits (``trace.scale``, ``trace.invariance``);
* :func:`epsilon_figure` -- the normalized row's mean square against the
  row's RMS (``trace.epsilon_curve``);
* :func:`history_table` and :func:`refusal_table` (``trace.history``,
  ``trace.refusals``).

Every number comes from the trace; nothing is typed by hand.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from tools.figures import (card, card_field, dot_head, fixed, graphviz, html_text, matplotlib_svg, plain,
                           svg_figure, table, tensor_rows)

Trace = Mapping[str, Any]

FILL = {"input": "#eef3fb", "statistic": "#fdf1e6", "weight": "#e7f2e4", "result": "#f4f4f4"}
HEADER = {"input": "#c9daf2", "statistic": "#f6d9bb", "weight": "#c6e2bf", "result": "#dddddd"}


def num(value: float, digits: int = 6) -> str:
    """A value for prose and labels: integral values plain (``12.5`` stays), others to ``digits`` decimals."""
    if math.isfinite(value) and value == int(value):
        return plain(value)
    text = fixed(value, digits).rstrip("0")
    return "0" if text in ("-0.", "0.") else text


def vec(values: Sequence[float], digits: int = 6) -> str:
    """``[0.848528, 1.13137]``: a short vector for prose and labels."""
    return "[" + ", ".join(num(v, digits) for v in values) + "]"


def rows_text(tensor: Mapping[str, Any], digits: int = 6) -> str:
    """A [2, 3] tensor row by row: ``[[3, 4, 0], [1, -2, 2]]``."""
    return "[" + ", ".join(vec(row, digits) for row in tensor_rows(tensor)) + "]"


def value_cell(text: str) -> str:
    """A value for a table cell, as plain text: it may wrap at its spaces, so a
    table of vectors fits a 390 px phone (a code span never wraps)."""
    return text


def pass_figure(trace: Trace) -> str:
    """The composed pass as two rows of cards: the statistic above, the rescaled row and its gain below."""
    p = trace["composed"]
    v = {key: p[key]["values"] for key in p if isinstance(p[key], Mapping)}
    lines = dot_head("rmsnorm", {"rankdir": "LR", "nodesep": 0.3, "ranksep": 0.45},
                     {"shape": "plaintext", "fontsize": 10}, {"arrowsize": 0.6, "fontsize": 9})

    def node(name: str, title: str, subtitle: str, fields: Sequence[tuple[str, str]], kind: str) -> str:
        rows = [card_field(key, html_text(value)) for key, value in fields]
        label = card(title, rows, subtitle=subtitle, fill=FILL[kind], header_fill=HEADER[kind])
        return f'  "{name}" [label={label}];'

    lines += [
        node("x", "input x", "[2]", [("value", vec(v["input"])), ("adjoint", vec(v["input_gradient"]))], "input"),
        node("m", "mean square m", "mean(x * x)", [("value", vec(v["mean_square"]))], "statistic"),
        node("r", "inverse RMS r", "rsqrt(m + eps)", [("value", vec(v["inverse_rms"]))], "statistic"),
        node("n", "normalized", "x * r", [("value", vec(v["normalized"]))], "result"),
        node("g", "gain g", "[2]", [("value", vec(v["gain"])), ("adjoint", vec(v["gain_gradient"]))], "weight"),
        node("y", "output y", "(x * r) * g", [("value", vec(v["output"])), ("seed", vec(v["upstream"]))], "result"),
        '  { rank=same; "x"; "n"; }',
        '  { rank=same; "m"; "g"; }',
        '  { rank=same; "r"; "y"; }',
        '  "x" -> "m"; "m" -> "r";',
        '  "x" -> "n"; "r" -> "n" [constraint=false];',
        '  "n" -> "y" [constraint=false]; "g" -> "y";',
        "  \"n\" -> \"g\" [style=invis];",
        "}",
    ]
    caption = ("The worked row through the composed pass. The statistic (top) is one number per row; the bottom "
               "row rescales x by it and applies the gain. The reverse pass started from the seed on y and left "
               "the adjoints on x and g.")
    alt = (f"Dataflow cards: x = {vec(v['input'])} gives the mean square {vec(v['mean_square'])} and the inverse "
           f"RMS {vec(v['inverse_rms'])}; x times r is {vec(v['normalized'])}; times the gain {vec(v['gain'])} "
           f"it is y = {vec(v['output'])}. Reversed from {vec(v['upstream'])}, x's adjoint is "
           f"{vec(v['input_gradient'])} and g's is {vec(v['gain_gradient'])}.")
    return graphviz("\n".join(lines), caption, "rmsnorm-pass", alt=alt)


def batch_table(trace: Trace) -> str:
    """The asymmetric two-row pass (composed form), row by row; the gain and its adjoint span both rows."""
    c = trace["batch_reverse"]["composed"]
    per_row = (("input $x$", "input"), ("seed $\\bar y$", "upstream"), ("$r$", "inverse_rms"),
               ("output $y$", "output"), ("$\\bar x$", "input_gradient"))
    rows = [[label] + [value_cell(vec(row)) for row in tensor_rows(c[key])] for label, key in per_row]
    rows.append(["gain $g$ (shared)", value_cell(vec(c["gain"]["values"])), ""])
    rows.append(["$\\bar g$ (summed over rows)", value_cell(vec(c["gain_gradient"]["values"])), ""])
    return table(["quantity", "row 0", "row 1"], rows,
                 "Two unequal rows, a gain of three different values, a seed of mixed signs", "batch-reverse")


def tex_epsilon(value: float) -> str:
    """``0`` or ``10^{-5}``: an epsilon for math."""
    if value == 0.0:
        return "0"
    exponent = round(math.log10(value))
    return f"10^{{{exponent}}}" if math.isclose(value, 10.0 ** exponent) else num_sci(value)


def scale_table(trace: Trace) -> str:
    """The four scale probes: the row and the row times ten, normalized (gain one).

    The largest difference is in brackets after the scaled row's values, not
    in a column of its own, so that the table fits a 390 px phone (with four
    columns it was 444 px wide there).
    """
    s = trace["scale"]
    how = {"ideal_correctly_rounded": "`1.0 / std::sqrt`"}

    def label(key: str) -> str:
        probe = s[key]
        return (f"{value_cell(vec(probe['row']))}, $\\varepsilon = {tex_epsilon(probe['epsilon'])}$, "
                f"{how.get(key, '`rsqrt` (exp-log)')}")

    cases = [(key, label(key)) for key in ("ideal_library", "ideal_correctly_rounded", "production", "near_zero")]
    rows = [[label, value_cell(vec(s[key]["base"], 9)),
             f"{value_cell(vec(s[key]['scaled'], 9))} ({value_cell(num_sci(s[key]['max_abs_diff']))})"]
            for key, label in cases]
    return table(["row and denominator", "$\\hat x$ of the row",
                  f"$\\hat x$ of {plain(s['production']['factor'])} times the row (largest difference)"],
                 rows, "Normalizing a row and the same row times ten", "scale-probes", fits_phone=True)


def num_sci(value: float) -> str:
    """``0``, ``2.2e-16``, ``0.72``: a difference that may be a rounding error or a large change."""
    if value == 0.0:
        return "0"
    if abs(value) < 1e-3:
        mantissa, exponent = f"{value:.2e}".split("e")
        return f"{mantissa}e{int(exponent)}"
    return num(value, 6)


def invariance_table(trace: Trace) -> str:
    """How many of the seeded rows change any bit when scaled, per way of computing 1/sqrt."""
    rows = [[plain(entry["factor"]), str(entry["rows"]), str(entry["library_changed"]),
             str(entry["correctly_rounded_changed"])]
            for entry in trace["invariance"]]
    seed = trace["invariance"][0]["seed"]
    return table(["factor $a$", "rows", "changed with the layer's exp-log root", "changed with the correctly rounded root"], rows,
                 f"Rows of width 4 from SplitMix64({seed}) in [-1, 1), epsilon 0: how many change a bit when scaled",
                 "invariance-bits")


def epsilon_figure(trace: Trace) -> str:
    """mean(x_hat^2) = m / (m + epsilon) against RMS(x), log x axis, with the two worked rows marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curve = trace["epsilon_curve"]
    epsilon = trace["config"]["epsilon"]
    rms = [point["rms"] for point in curve]
    energy = [point["normalized_mean_square"] for point in curve]
    worked = trace["composed"]["mean_square"]["values"][0] ** 0.5
    tiny = trace["scale"]["near_zero"]
    tiny_rms = math.sqrt(sum(v * v for v in tiny["row"]) / len(tiny["row"]))
    tiny_energy = sum(v * v for v in tiny["base"]) / len(tiny["base"])
    figure, axis = plt.subplots(figsize=(5.8, 3.4))
    axis.plot(rms, energy, marker="o", markersize=3, color="#336699")
    axis.set_xscale("log")
    axis.axvline(math.sqrt(epsilon), color="#b35c00", linestyle="--")
    axis.text(math.sqrt(epsilon) / 1.3, 0.75, "RMS = sqrt(epsilon)", color="#b35c00", fontsize=10, ha="right")
    axis.plot([worked], [trace["normalized_mean_square"]], marker="s", color="#2a7a2a", linestyle="none",
              label=f"[3, 4]: {num(trace['normalized_mean_square'])}")
    axis.plot([tiny_rms], [tiny_energy], marker="^", color="#a33", linestyle="none",
              label=f"{vec(tiny['row'])}: {num(tiny_energy)}")
    axis.set_xlabel("RMS of the row x")
    axis.set_ylabel("mean of normalized squares")
    axis.legend(loc="lower right")
    svg = matplotlib_svg(figure)
    plt.close(figure)
    alt = (f"Plot of the normalized row's mean square against the row's RMS from {num_sci(rms[0])} to "
           f"{num(rms[-1])} on a log axis: it is near 0 far below sqrt(epsilon) = {num_sci(math.sqrt(epsilon))}, "
           f"one half at it and near 1 above; the row [3, 4] sits at {num(trace['normalized_mean_square'])} and "
           f"the row {vec(tiny['row'])} at {num(tiny_energy)}.")
    caption = ("Rows $s \\cdot [3, 4]$ for $s$ over seven decades, with $\\varepsilon = 10^{-5}$: the normalized "
               "row's mean square is $m / (m + \\varepsilon)$, which falls from 1 to 0 around "
               "$\\mathrm{RMS} = \\sqrt{\\varepsilon}$.")
    return svg_figure(svg, caption, "epsilon-curve", alt=alt)


def history_table(trace: Trace) -> str:
    """The anchor row normalized by BatchNorm (two companions), LayerNorm and RMSNorm."""
    h = trace["history"]
    rows = [
        ["BatchNorm, batch with " + value_cell(vec(h["companion_a"])), "features, over the batch",
         value_cell(vec(h["batch_anchor_a"]))],
        ["BatchNorm, batch with " + value_cell(vec(h["companion_b"])), "features, over the batch",
         value_cell(vec(h["batch_anchor_b"]))],
        ["LayerNorm", "the row: mean and variance", value_cell(vec(h["layer_norm"]))],
        ["RMSNorm ($\\varepsilon = 0$)", "the row: mean square only", value_cell(vec(h["rms_norm"]))],
    ]
    return table(["method", "statistics over", "anchor " + value_cell(vec(h["anchor"])) + " becomes"], rows,
                 "One anchor row, three normalizations", "history")


def refusal_table(trace: Trace) -> str:
    """Each refused request with the kind and message the library gave."""
    rows = [[r["request"], r["kind"], r["message"]] for r in trace["refusals"]]
    return table(["request", "kind", "message"], rows, "What the layer and the operation refuse", "refusals")


def dot(a: Sequence[float], b: Sequence[float]) -> float:
    """The dot product of two trace vectors, in index order."""
    return sum(x * y for x, y in zip(a, b))


def composed_fused_gap(trace: Trace) -> dict[str, Any]:
    """How far the composed and fused reverse passes of the two-row case are apart.

    Returns the number of input- and gain-gradient coordinates whose bits
    differ, the coordinate count, the largest absolute difference, and whether
    the outputs agree bit for bit.
    """
    c, f = trace["batch_reverse"]["composed"], trace["batch_reverse"]["fused"]
    pairs = [pair for key in ("input_gradient", "gain_gradient")
             for pair in zip(c[key]["values"], f[key]["values"])]
    return {
        "differ": sum(1 for a, b in pairs if a != b),
        "total": len(pairs),
        "largest": max(abs(a - b) for a, b in pairs),
        "same_output": c["output"]["values"] == f["output"]["values"],
    }


def nearest_point(trace: Trace, target: float) -> Mapping[str, Any]:
    """The epsilon-curve point whose normalized mean square is nearest ``target``."""
    return min(trace["epsilon_curve"], key=lambda point: abs(point["normalized_mean_square"] - target))
