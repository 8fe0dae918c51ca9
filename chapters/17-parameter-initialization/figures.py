"""Figures of chapter 17, drawn from the demo's trace (``chapter-17-demo --trace``).

* :func:`histogram_figure` -- the 4096 weights of a [64, 64] matrix in nine
  bins, for a zero start, twice the Xavier limit and the Xavier limit
  (``trace.distributions``);
* :func:`propagation_figure` -- the variance of a unit-variance signal after
  0 to 4 layers, expected and measured (``trace.distributions``);
* :func:`probe_table` -- the first-layer gradient of the symmetry probe from a
  zero start and from the seed-17 weights (``trace.zero_probe``,
  ``trace.seeded_probe``);
* :func:`statistics_table` -- limit, extremes, mean and variance of each
  distribution against its target;
* :func:`errors_table` -- the refused requests (``trace.errors``).

Every number comes from the trace; nothing is typed by hand.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from tools.figures import fixed, html_text, matplotlib_svg, plain, svg_figure, table

Trace = Mapping[str, Any]

COLOURS = {"zero": "#8a8a8a", "oversized": "#c62828", "xavier": "#1f5fa8"}
LABELS = {"zero": "zero", "oversized": "2 × Xavier limit", "xavier": "Xavier limit"}
EDGES = [-0.45 + 0.1 * k for k in range(10)]


def distribution(trace: Trace, kind: str) -> Mapping[str, Any]:
    """The traced distribution ``zero``, ``oversized`` or ``xavier``."""
    for entry in trace["distributions"]:
        if entry["kind"] == kind:
            return entry
    raise KeyError(f"the trace has no distribution {kind!r}")


def values_text(values: Sequence[float], digits: int = 4) -> str:
    """``[0.5000, -0.5000]``."""
    return "[" + ", ".join(fixed(value, digits) for value in values) + "]"


def matrix_tex(tensor: Mapping[str, Any], digits: int = 4) -> str:
    """A [2, 2] tensor as a LaTeX bmatrix."""
    rows, columns = tensor["shape"]
    values = tensor["values"]
    body = r" \\ ".join(
        " & ".join(fixed(values[r * columns + c], digits) for c in range(columns)) for r in range(rows))
    return r"\begin{bmatrix}" + body + r"\end{bmatrix}"


def histogram_figure(trace: Trace) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    width = trace["width"]
    total = width * width
    figure, axes = plt.subplots(1, 3, figsize=(9.0, 2.8), sharey=True)
    centres = [(EDGES[k] + EDGES[k + 1]) / 2 for k in range(9)]
    for axis, kind in zip(axes, ["zero", "oversized", "xavier"]):
        entry = distribution(trace, kind)
        shares = [100.0 * count / total for count in entry["counts"]]
        axis.bar(centres, shares, width=0.09, color=COLOURS[kind])
        if entry["limit"] > 0:
            for sign in (-1, 1):
                axis.axvline(sign * entry["limit"], color="#333333", linestyle="--", linewidth=0.8)
        axis.set_title(f"{LABELS[kind]} (a = {fixed(entry['limit'], 4)})", fontsize=9)
        axis.set_xlabel("weight value")
        axis.set_xlim(-0.5, 0.5)
    axes[0].set_ylabel("share of weights (%)")
    figure.tight_layout()
    svg = matplotlib_svg(figure)
    plt.close(figure)
    zero, over, xavier = (distribution(trace, k) for k in ("zero", "oversized", "xavier"))
    alt = (
        f"Three histograms of the {total} weights of a [{width}, {width}] matrix in bins of width 0.1. "
        f"Zero puts all {zero['counts'][4]} weights in the middle bin; twice the Xavier limit spreads them "
        f"flat over all nine bins from -0.45 to 0.45; the Xavier limit {fixed(xavier['limit'], 4)} "
        f"fills only the five middle bins, with counts {', '.join(str(c) for c in xavier['counts'][2:7])}."
    )
    caption = (
        f"The same {total} seed-{trace['seed']} draws at three scales: a flat band of half-width $a$ "
        f"(dashed), measured variance {fixed(over['variance'], 4)} and {fixed(xavier['variance'], 4)} "
        f"against the targets {fixed(over['limit'] ** 2 / 3, 4)} and {fixed(xavier['limit'] ** 2 / 3, 4)}"
    )
    return svg_figure(svg, caption, "histograms", alt=alt)


def propagation_figure(trace: Trace) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(6.0, 3.2))
    for kind in ("oversized", "xavier"):
        entry = distribution(trace, kind)
        layers = list(range(len(entry["expected_variances"])))
        axis.plot(layers, entry["expected_variances"], color=COLOURS[kind], linestyle="--", marker="o",
                  label=f"{LABELS[kind]}, expected")
        axis.plot(layers, entry["measured_variances"], color=COLOURS[kind], marker="x", linestyle="-",
                  label=f"{LABELS[kind]}, measured")
    axis.set_yscale("log", base=2)
    axis.set_xlabel("layers applied")
    axis.set_ylabel("variance of the signal")
    axis.set_xticks(range(len(distribution(trace, "xavier")["expected_variances"])))
    axis.legend(fontsize=8)
    figure.tight_layout()
    svg = matplotlib_svg(figure)
    plt.close(figure)
    over = distribution(trace, "oversized")
    xavier = distribution(trace, "xavier")
    zero = distribution(trace, "zero")
    alt = (
        f"Variance of a {trace['signal_rows']}-row signal after 0 to 4 layers of width {trace['width']}, "
        f"log scale. With twice the Xavier limit it grows by four per layer, to "
        f"{plain(round(over['expected_variances'][-1]))} expected and {fixed(over['measured_variances'][-1], 1)} measured; "
        f"with the Xavier limit it stays near 1, ending at {fixed(xavier['measured_variances'][-1], 3)} measured. "
        f"The zero start, not drawn on a log axis, is 0 after the first layer."
    )
    caption = (
        "Variance after each layer $h \\mapsto hW$, expected ($\\mathrm{fan}_{in}\\operatorname{Var}(W)$ per layer, "
        "dashed) and measured on the run's signal (solid); the zero start drops to "
        f"{plain(zero['measured_variances'][1])} after one layer"
    )
    return svg_figure(svg, caption, "propagation", alt=alt)


def statistics_table(trace: Trace) -> str:
    rows = []
    for kind in ("zero", "oversized", "xavier"):
        entry = distribution(trace, kind)
        rows.append([
            LABELS[kind], fixed(entry["limit"], 6), fixed(entry["min"], 6), fixed(entry["max"], 6),
            fixed(entry["mean"], 6), fixed(entry["variance"], 6), fixed(entry["limit"] ** 2 / 3, 6),
        ])
    header = ["start", "limit $a$", "min", "max", "mean", "measured variance", "target $a^2/3$"]
    width = trace["width"]
    return table(header, rows, f"One [{width}, {width}] matrix per start: a sample's statistics against its target", "statistics")


def probe_table(trace: Trace) -> str:
    rows = []
    for label, probe in (("zeros", trace["zero_probe"]), (f"seed {trace['seed']}", trace["seeded_probe"])):
        values = probe["gradient"]["values"]
        rows.append([
            label, fixed(probe["output"], 6), values_text(values[0:2]), values_text(values[2:4]),
            "yes" if probe["columns_equal"] else "no",
        ])
    header = ["$W_1$ starts as", "output $y$", "gradient row 0", "gradient row 1", "columns equal"]
    return table(header, rows, "The symmetry probe's first-layer gradient from two starts", "probe")


def parameters_table(trace: Trace) -> str:
    rows = [[str(index), f"`{entry['name']}`", "[" + ", ".join(str(e) for e in entry["shape"]) + "]"]
            for index, entry in enumerate(trace["parameters"])]
    return table(["position", "name", "shape"], rows, "The model's parameters in declaration order", "parameters")


def errors_table(trace: Trace) -> str:
    rows = [[f"`{error['kind']}`", html_text(error["message"])] for error in trace["errors"]]
    caption = "Requests the initializer refused; the generator's state was the same after all three"
    if not trace["generator_unchanged"]:
        raise ValueError("the trace says a refused request moved the generator")
    return table(["kind", "message"], rows, caption, "errors")
