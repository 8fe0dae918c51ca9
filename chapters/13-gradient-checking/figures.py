"""Figures of chapter 13, drawn from the demo's trace (``chapter-13-demo --trace``).

* :func:`probe_spacing_figure` -- the three points of a central difference on a
  number line, requested against actual probes, for the quadratic and the
  rounded identity (``trace.quadratic``, ``trace.rounded_identity``).
* :func:`step_scan_figure` -- scaled error against requested step for the
  cubic scan, log-log, with the tolerance line (``trace.step_scan``).
* :func:`coordinate_table` -- the four sampled NLL coordinates and the
  bit-exact restoration verdict (``trace.nll``).
* :func:`rejections_table` -- the refused requests (``trace.rejected``).
* :func:`weights_table` -- the identity and the parabola at 2^53 under the
  weighted, swapped-weight and requested-2h estimates
  (``trace.rounded_identity``, ``trace.unequal_parabola``).
* :func:`smooth_checks_table` -- the quadratic beside three checks of
  exp(tanh x) (``trace.quadratic``, ``trace.exp_tanh``).

Text helpers for chapter.md (``spacing``, ``tex_step``, ``flag`` ...)
format trace values the way the demo prints them. Every number shown comes
from the trace; nothing is typed by hand.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from tools.figures import fixed, matplotlib_svg, sci, shortest, svg_figure, table

Trace = Mapping[str, Any]

# Colours shared by the plots.
PROBE_COLOUR = "#1f5fa8"
REQUESTED_COLOUR = "#8a8a8a"
PASS_COLOUR = "#2e7d32"
FAIL_COLOUR = "#c62828"
TOLERANCE_COLOUR = "#6a4c93"

# The demo prints steps, spacings and weights with 17 digits after the point.
SPACING_DIGITS = 17


# -- text helpers for chapter.md -------------------------------------------


def spacing(value: float) -> str:
    """A step, spacing or weight as the demo prints it: ``1.00000000000000089e-1``."""
    return sci(value, SPACING_DIGITS)


def flag(value: bool) -> str:
    """``true`` / ``false``, as the demo prints a verdict."""
    return "true" if value else "false"


def ulp(value: float) -> float:
    """The gap from ``|value|`` to the next larger double."""
    return math.ulp(value)


def spacing_in_ulps(difference: Trace, side: str = "minus") -> int:
    """How many gaps between neighbouring doubles near the point make up ``h-`` (or ``h+``)."""
    return round(difference[f"{side}_spacing"] / ulp(difference["point"]))


def tex_step(value: float) -> str:
    """A requested step as the fixture wrote it, in TeX: ``10^{-5}``, ``0.1``, ``1``."""
    text = shortest(value)
    mantissa, _, exponent = text.partition("e")
    mantissa = mantissa.removesuffix(".0")
    if not exponent:
        return mantissa
    power = f"10^{{{exponent}}}"
    return power if mantissa == "1" else f"{mantissa}\\times{power}"


def requested_two_step_estimate(difference: Trace) -> float:
    """(f(theta+) - f(theta-)) / (2 h) with the REQUESTED h, in the same double arithmetic."""
    return (difference["plus_value"] - difference["minus_value"]) / (2.0 * difference["requested_step"])


def coordinate_of(flat: int, shape: Sequence[int]) -> list[int]:
    """The row-major coordinate of flat offset ``flat`` in ``shape``."""
    coordinate = []
    for extent in reversed(shape):
        coordinate.append(flat % extent)
        flat //= extent
    return coordinate[::-1]


def unsampled(nll: Trace) -> list[tuple[int, list[int], float]]:
    """Flat offset, coordinate and analytic value of every logit the sampler skipped."""
    shape = nll["logits"]["shape"]
    sampled = {check["flat_index"] for check in nll["checks"]}
    return [
        (flat, coordinate_of(flat, shape), value)
        for flat, value in enumerate(nll["analytic_gradient"]["values"])
        if flat not in sampled
    ]


# -- figure 1: probe spacing -----------------------------------------------


def _number_line(axes: Any, example: Trace, title: str) -> None:
    """Draws one central difference on a number line in units of the requested step.

    Actual probes are filled dots at ``-h-/h`` and ``+h+/h``; the requested
    probes ``theta -/+ h`` are open triangles at ``-1`` and ``+1``. Above each
    dot: the probe and its function value; below each gap: the actual
    spacing, the one-sided slope and its weight.
    """
    d = example["difference"]
    h = d["requested_step"]
    left, right = -d["minus_spacing"] / h, d["plus_spacing"] / h
    reach = max(abs(left), abs(right), 1.0)

    axes.axhline(0.0, color="#333333", linewidth=1.0, zorder=1)
    axes.plot([-1.0, 1.0], [0.0, 0.0], linestyle="none", marker="^", markersize=11,
              markerfacecolor="white", markeredgecolor=REQUESTED_COLOUR, markeredgewidth=1.5,
              zorder=2, label=r"requested $\theta \mp h$")
    axes.plot([left, 0.0, right], [0.0, 0.0, 0.0], linestyle="none", marker="o", markersize=7,
              color=PROBE_COLOUR, zorder=3, label=r"actual $\theta_-,\ \theta,\ \theta_+$")
    for x, side in ((-1.0, "-"), (1.0, "+")):
        axes.annotate(rf"$\theta {side} h$", (x, 0.0), xytext=(0, -17), textcoords="offset points",
                      ha="center", va="top", fontsize=9, color=REQUESTED_COLOUR)

    # The outer labels open away from the centre, so close probes never collide.
    points = [
        (left, "right", r"$\theta_- = \mathrm{fl}(\theta - h)$", d["minus_point"], d["minus_value"]),
        (0.0, "center", r"$\theta$", d["point"], d["center_value"]),
        (right, "left", r"$\theta_+ = \mathrm{fl}(\theta + h)$", d["plus_point"], d["plus_value"]),
    ]
    for x, align, name, point, value in points:
        shift = {"right": 6, "center": 0, "left": -6}[align]
        axes.annotate(f"{name}\n{spacing(point)}\n$f$ = {fixed(value)}", (x, 0.0), xytext=(shift, 12),
                      textcoords="offset points", ha=align, va="bottom", fontsize=9.5,
                      multialignment="center")

    # Each gap's text hangs from the centre outward, under its own arrow.
    gaps = [
        (left, 0.0, "right", -8, "h_-", d["minus_spacing"], "left", d["left_slope"], d["left_weight"]),
        (0.0, right, "left", 8, "h_+", d["plus_spacing"], "right", d["right_slope"], d["right_weight"]),
    ]
    for start, end, align, shift, symbol, width, side, slope, weight in gaps:
        axes.annotate("", xy=(start, -0.62), xytext=(end, -0.62),
                      arrowprops={"arrowstyle": "<->", "color": PROBE_COLOUR, "linewidth": 1.2})
        axes.annotate(f"${symbol}$ = {spacing(width)}\n{side} slope {fixed(slope)}\n"
                      f"{side} weight {spacing(weight)}",
                      (0.0, -0.62), xytext=(shift, -6), textcoords="offset points",
                      ha=align, va="top", fontsize=9.5, color=PROBE_COLOUR, multialignment=align)

    axes.set_title(title, fontsize=11, loc="left")
    axes.set_xlim(-reach * 1.8, reach * 1.8)
    axes.set_ylim(-1.75, 1.25)
    axes.set_yticks([])
    axes.set_xlabel(r"offset from $\theta$ in units of the requested step $h$", fontsize=9.5)
    axes.tick_params(axis="x", labelsize=9)
    for edge in ("left", "right", "top"):
        axes.spines[edge].set_visible(False)


def _panel_title(label: str, example: Trace) -> str:
    """``q(θ) = θ^2 at θ = 3, requested h = ...: symmetric stencil, estimate ...``."""
    d = example["difference"]
    return (
        f"{label} at $\\theta$ = ${tex_step(d['point'])}$, requested $h$ = {spacing(d['requested_step'])}: "
        f"{d['stencil']} stencil, estimate {fixed(d['derivative'])}"
    )


def probe_spacing_figure(quadratic: Trace, rounded: Trace) -> str:
    """Figure 1: requested against actual probes for the quadratic and the rounded identity."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, (top, bottom) = pyplot.subplots(2, 1, figsize=(8.6, 7.0))
    _number_line(top, quadratic, _panel_title(r"$q(\theta) = \theta^2$", quadratic))
    _number_line(bottom, rounded, _panel_title(r"$f(x) = x$", rounded))
    handles, labels = top.get_legend_handles_labels()
    figure.tight_layout(h_pad=2.0)
    figure.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2,
                  fontsize=9.5, frameon=False)
    svg = matplotlib_svg(figure)
    pyplot.close(figure)

    q, r = quadratic["difference"], rounded["difference"]
    caption = (
        f"Requested against actual probes. Top: for $\\theta^2$ at ${tex_step(q['point'])}$ both actual "
        f"spacings are {spacing(q['minus_spacing'])}, not the requested {spacing(q['requested_step'])}, "
        f"but they are equal, so the weights are {spacing(q['left_weight'])} each. Bottom: for $x$ at "
        f"${tex_step(r['point'])}$ the probes round to different distances, {spacing(r['minus_spacing'])} "
        f"and {spacing(r['plus_spacing'])}; the shorter side gets the larger weight."
    )
    alt = (
        "Two number lines marked in units of the requested step h. In each, open triangles at -1 and +1 "
        "mark the requested probes and dots mark the stored ones. Top, the quadratic at "
        f"{tex_step(q['point'])}: the dots sit on the triangles, at {-q['minus_spacing'] / q['requested_step']:.4f} "
        f"and {q['plus_spacing'] / q['requested_step']:.4f}. Bottom, the identity at {tex_step(r['point'])}: "
        f"the dots sit at {-r['minus_spacing'] / r['requested_step']:.4f} and "
        f"{r['plus_spacing'] / r['requested_step']:.4f}, so the two sides have different spacings, "
        f"slopes {fixed(r['left_slope'])} and {fixed(r['right_slope'])} and weights "
        f"{fixed(r['left_weight'], 4)} and {fixed(r['right_weight'], 4)}."
    )
    return svg_figure(svg, caption, "probe-spacing", alt=alt)


# -- figure 2: step scan -----------------------------------------------------


def _positive(values: Sequence[float]) -> list[float]:
    """The values with exact zeros lifted to a tenth of the smallest positive one (log axes)."""
    floor = min((v for v in values if v > 0.0), default=1.0) / 10.0
    return [v if v > 0.0 else floor for v in values]


def _guide(axes: Any, anchor: Trace, power: float, steps: Sequence[float], label: str) -> None:
    """A dotted reference line error ∝ h**power through one record of the scan."""
    h0, e0 = anchor["requested_step"], anchor["scaled_error"]
    if e0 <= 0.0:
        return
    xs = [min(steps), max(steps)]
    axes.plot(xs, [e0 * (x / h0) ** power for x in xs], linestyle=":" if power > 0 else "-.", color="#9e9e9e",
              linewidth=1.2, zorder=1, label=label)


def _side(steps: Sequence[float], index: int, decades: float = 2.5) -> int:
    """-1 to label a point on its left, +1 on its right, 0 centred.

    A point with a close neighbour (within ``decades``) is labelled on the
    side away from it, so the labels of a close pair never collide; the
    outermost points are centred so their labels stay inside the axes.
    """
    logs = [math.log10(s) for s in steps]
    here = logs[index]
    if here in (min(logs), max(logs)):
        return 0
    close = [x - here for i, x in enumerate(logs) if i != index and abs(x - here) <= decades]
    if not close:
        return 0
    return -1 if min(close, key=abs) > 0 else 1


def _label_point(axes: Any, step: float, error: float, record: Trace, side: int) -> None:
    """Phase, numerical value and scaled error beside one scan point.

    Passing points are labelled below the point, failing ones above it.
    """
    up = 1 if not record["passed"] else -1
    axes.annotate(
        f"{record['phase']}\n$n$ = {fixed(record['numerical'])}\n$e$ = {sci(record['scaled_error'], 3)}",
        (step, error), xytext=(8 * side, 8 * up), textcoords="offset points",
        ha={-1: "right", 0: "center", 1: "left"}[side], va="bottom" if up > 0 else "top",
        fontsize=8.5, color=PASS_COLOUR if record["passed"] else FAIL_COLOUR,
    )


def step_scan_figure(scan: Trace) -> str:
    """Figure 2: scaled error against requested step, pass/fail and phase of every record."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    records = scan["records"]
    steps = [r["requested_step"] for r in records]
    errors = _positive([r["scaled_error"] for r in records])

    figure, axes = pyplot.subplots(figsize=(8.0, 5.4))
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.plot(steps, errors, color="#455a64", linewidth=1.0, zorder=2)

    truncation = [r for r in records if r["phase"] == "truncation"]
    rounding = [r for r in records if r["phase"] == "rounding"]
    if truncation:
        _guide(axes, truncation[-1], 2.0, steps, r"slope 2: truncation $\propto h^2$")
    if rounding:
        _guide(axes, rounding[-1], -1.0, steps, r"slope $-1$: rounding $\propto 1/h$")

    axes.axhline(scan["tolerance"], color=TOLERANCE_COLOUR, linestyle="--", linewidth=1.2, zorder=1,
                 label=f"tolerance {sci(scan['tolerance'])}")
    for passed, colour, marker, label in ((True, PASS_COLOUR, "o", "pass"), (False, FAIL_COLOUR, "X", "fail")):
        xs = [s for s, r in zip(steps, records) if r["passed"] == passed]
        ys = [e for e, r in zip(errors, records) if r["passed"] == passed]
        axes.plot(xs, ys, linestyle="none", marker=marker, markersize=9, color=colour, zorder=4, label=label)

    for index, (step, error, record) in enumerate(zip(steps, errors, records)):
        _label_point(axes, step, error, record, _side(steps, index))

    low, high = min(errors + [scan["tolerance"]]), max(errors + [scan["tolerance"]])
    axes.set_ylim(low / 3e3, high * 3e3)
    axes.set_xlim(min(steps) / 1e3, max(steps) * 1e3)
    axes.set_xlabel(r"requested step $h$", fontsize=10)
    axes.set_ylabel(r"scaled error $e = |a/s - n/s|$", fontsize=10)
    axes.set_title(
        f"$g(\\theta) = \\theta^3 - 2\\theta$ at $\\theta$ = {shortest(scan['point'])}, "
        f"analytic $a$ = {fixed(scan['analytic'])}",
        fontsize=11, loc="left",
    )
    axes.tick_params(labelsize=9)
    axes.grid(True, which="major", color="#eeeeee", linewidth=0.8)
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), fontsize=9, frameon=False, ncol=3)
    svg = matplotlib_svg(figure)
    pyplot.close(figure)

    passing = [r for r in records if r["passed"]]
    best = min(records, key=lambda r: r["scaled_error"])
    caption = (
        f"Scaled error of the central difference against the requested step, {len(records)} steps. "
        f"{len(passing)} of them pass the tolerance {sci(scan['tolerance'])}; the lowest error, "
        f"{sci(best['scaled_error'])}, is at requested $h = {tex_step(best['requested_step'])}$. "
        "Larger steps are limited by truncation, smaller ones by rounding."
    )
    worst = max(records, key=lambda r: r["requested_step"])
    smallest = min(records, key=lambda r: r["requested_step"])
    alt = (
        f"Log-log plot of scaled error against requested step for {len(records)} steps from "
        f"{sci(smallest['requested_step'], 0)} to {sci(worst['requested_step'], 0)}, with a dashed "
        f"tolerance line at {sci(scan['tolerance'], 0)}. The error falls from {sci(worst['scaled_error'], 1)} "
        f"at the largest step along a slope-2 guide, reaches its lowest value {sci(best['scaled_error'], 1)} "
        f"at {sci(best['requested_step'], 0)}, and rises again along a slope -1 guide to "
        f"{sci(smallest['scaled_error'], 1)} at the smallest step. Passing points ("
        + ", ".join(sci(r["requested_step"], 0) for r in passing)
        + ") are green circles below the line; failing points are red crosses above it."
    )
    return svg_figure(svg, caption, "step-scan", alt=alt)


# -- figure 3: sampled coordinates -----------------------------------------


def coordinate_table(nll: Trace) -> str:
    """Figure 3: each sampled logit coordinate, its two gradients, scaled error and verdict.

    The caption sits in the opening line of a backtick fence, so it must not
    contain backticks (CommonMark ends the info string there).
    """
    header = [
        "Flat offset → coordinate",
        "Logit $\\theta$ (probes)",
        "Analytic $a$",
        "Numerical $n$",
        "Scaled error $e$",
        "Pass",
    ]
    rows = [
        [
            f"{check['flat_index']} → `{check['coordinate']}`",
            f"{shortest(check['difference']['point'])} ({check['difference']['stencil']})",
            fixed(check["analytic"]),
            fixed(check["numerical"]),
            sci(check["scaled_error"]),
            "✓" if check["passed"] else "✗ FAIL",
        ]
        for check in nll["checks"]
    ]
    caption = (
        f"The {len(nll['checks'])} sampled coordinates of the logits, shape {nll['logits']['shape']}, "
        f"in sample order $k = 0, \\ldots, {len(nll['checks']) - 1}$, at "
        f"tolerance {sci(nll['tolerance'])} and requested $h = {tex_step(nll['step'])}$. "
        f"Logits restored bit for bit afterwards: {'yes' if nll['restored_exactly'] else 'NO'}."
    )
    return table(header, rows, caption, "sampled-coordinates")


def rejections_table(rejected: Sequence[Trace]) -> str:
    """Figure 4: each refused request, its error kind and the message it carries."""
    rows = [[request["label"], f"`{request['kind']}`", request["message"]] for request in rejected]
    return table(["Request", "Error kind", "Message (`what()`)"], rows,
                 "Requests the checker refuses before any derivative is accepted", "rejected-requests")


# -- figure 5: the quadratic against exp(tanh x) ----------------------------


def smooth_checks_table(quadratic: Trace, smooth: Trace) -> str:
    """Figure 5: the quadratic's check beside three checks of exp(tanh x).

    The quadratic's central difference is exact at any step (its third
    derivative is zero); exp(tanh x) shows the same step 0.1 failing a correct
    chain rule, a small step passing it, and a dropped inner factor failing.
    """
    header = ["Function", "Candidate $a$", "Requested $h$", "Numerical $n$", "Scaled error $e$", "Pass"]
    good = quadratic["candidates"][0]["comparison"]
    rows = [[
        "$\\theta^2$ at " + shortest(quadratic["difference"]["point"]),
        f"$2\\theta$ = {fixed(good['analytic'])}",
        f"${tex_step(quadratic['difference']['requested_step'])}$",
        fixed(good["numerical"]),
        sci(good["scaled_error"]),
        "✓" if good["passed"] else "✗ FAIL",
    ]]
    formulas = {
        "chain rule": "$e^{\\tanh x}(1 - \\tanh^2 x)$",
        "missing inner factor": "$e^{\\tanh x}$ (inner factor dropped)",
    }
    for check in smooth["checks"]:
        comparison = check["comparison"]
        rows.append([
            "$e^{\\tanh x}$ at " + shortest(smooth["point"]),
            f"{formulas[check['candidate']]} = {fixed(comparison['analytic'])}",
            f"${tex_step(check['difference']['requested_step'])}$",
            fixed(comparison["numerical"]),
            sci(comparison["scaled_error"]),
            "✓" if comparison["passed"] else "✗ FAIL",
        ])
    caption = (
        f"The quadratic beside the non-polynomial $e^{{\\tanh x}}$, every check at tolerance "
        f"{sci(smooth['tolerance'])}: the step that is exact for $\\theta^2$ fails a correct "
        "derivative of $e^{\\tanh x}$"
    )
    return table(header, rows, caption, "smooth-checks")


# -- figure 6: what the weights change --------------------------------------


def weights_table(identity: Trace, parabola: Trace) -> str:
    """Figure 6: the identity and the parabola at 2^53 under the right and two wrong estimates.

    The swapped-weights and requested-2h columns are computed here from the
    trace's slopes, weights and values in the same double arithmetic as the
    demo (the parabola's were also computed by the demo; both must agree).
    """
    rows = []
    for label, example in (("$x$ at 1", identity), ("$(x - 2^{53})^2$ at $2^{53}$", parabola)):
        d = example["difference"]
        swapped = d["right_weight"] * d["left_slope"] + d["left_weight"] * d["right_slope"]
        requested = (d["plus_value"] - d["minus_value"]) / (2.0 * d["requested_step"])
        if "swapped_weights_estimate" in example and swapped != example["swapped_weights_estimate"]:
            raise ValueError("the swapped-weights estimate differs from the demo's")
        exact = example["comparison"]["analytic"]
        rows.append([
            label,
            f"{shortest(d['minus_spacing'])}, {shortest(d['plus_spacing'])}",
            f"{fixed(d['left_slope'])}, {fixed(d['right_slope'])}",
            fixed(exact),
            fixed(d["derivative"]),
            fixed(swapped) + (" ✓" if swapped == exact else " ✗"),
            fixed(requested) + (" ✓" if requested == exact else " ✗"),
        ])
    header = ["Function", "Spacings $h_-, h_+$", "Slopes $d_-, d_+$", "Exact $f'$",
              "Weighted $n$", "Weights swapped", "Over requested $2h$"]
    return table(header, rows,
                 "Two unequal stencils: equal slopes hide swapped weights, unequal slopes expose them",
                 "weights-catch")
