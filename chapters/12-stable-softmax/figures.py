"""Figures of chapter 12, drawn from the demo's trace (``chapter-12-demo --trace``).

* :func:`shift_table` -- every intermediate of the stable path, row by row:
  maximum, shifted logits, exponentials, normalizer, log-sum-exp,
  probabilities and log-probabilities (``trace.stable`` or ``trace.asymmetric``);
* :func:`naive_table` -- the unshifted formula on the same rows
  (``trace.naive``);
* :func:`exp_range_figure` -- where the raw and the shifted logits sit against
  the range in which ``exp`` returns a finite, nonzero double
  (``trace.exp_limits``, ``trace.stable``);
* :func:`targets_table` -- each row's target, log-probability and loss
  (``trace.targets``);
* :func:`log_normalizer_table` -- ``ln Z`` against ``log1p(tail)`` on rows
  ``[0, -gap]``: values, bits and the printed log-probability
  (``trace.log_normalizer``);
* :func:`errors_table` -- the requests the library refused (``trace.errors``).

Every number comes from the trace; JSON has no infinity or NaN, so the trace
stores those as the text the demo prints (``inf``, ``NaN``).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from tools.figures import fixed, matplotlib_svg, plain, sci, svg_figure, table

Trace = Mapping[str, Any]

DIGITS = 6  # table cells; the printed output keeps twelve


def number(value: Any, digits: int = DIGITS) -> str:
    """A traced number for a table cell: ``0.367879``, or ``inf`` / ``NaN`` as stored."""
    if isinstance(value, str):
        return value
    if float(value).is_integer() and abs(value) < 1e15:
        return plain(value)
    return fixed(value, digits)


def vector(values: Sequence[Any], digits: int = DIGITS) -> str:
    """``[0.268941, 0.731059]`` for a table cell or the prose."""
    return "[" + ", ".join(number(value, digits) for value in values) + "]"


def row(trace: Trace, index: int, key: str = "stable") -> Mapping[str, Any]:
    """Row ``index`` of the stable path of the worked (or the asymmetric) example."""
    return trace[key]["rows"][index]


def error(trace: Trace, kind: str) -> Mapping[str, Any]:
    """The traced rejection of kind ``kind``."""
    for entry in trace["errors"]:
        if entry["kind"] == kind:
            return entry
    raise KeyError(f"the trace has no rejection of kind {kind!r}")


def shift_table(trace: Trace, key: str = "stable") -> str:
    """The stable path row by row, from the logits to the log-probabilities."""
    rows = []
    for entry in trace[key]["rows"]:
        rows.append([
            str(entry["row"]),
            vector(entry["logits"]),
            number(entry["maximum"]),
            vector(entry["shifted"]),
            vector(entry["exponentials"]),
            number(entry["normalizer"]),
            number(entry["log_normalizer"]),
            number(entry["log_sum_exp"]),
            vector(entry["probabilities"]),
            vector(entry["log_probabilities"]),
        ])
    header = ["row", "logits $x$", "$m$", "$x - m$", "$e^{x - m}$", "$Z$", "$\\ln Z$", "$m + \\ln Z$", "$p$", "$\\log p$"]
    if key == "stable":
        caption = "The worked rows: three different maxima, one shifted row, one set of probabilities"
        name = "shift"
    else:
        caption = "The asymmetric example: each row has its own maximum position, spread and normalizer"
        name = "asymmetric"
    return table(header, rows, caption, name)


def naive_table(trace: Trace) -> str:
    """The unshifted formula exp(x) / sum exp(x) on the worked rows."""
    meaning = {"finite": "correct", "overflow": "inf / inf = NaN", "underflow": "0 / 0 = NaN"}
    rows = [[str(entry["row"]), vector(row(trace, entry["row"])["logits"]), vector(entry["exponentials"]),
             number(entry["sum"]), vector(entry["result"]), meaning[entry["status"]]]
            for entry in trace["naive"]]
    header = ["row", "logits $x$", "$e^{x}$", "$\\sum e^{x}$", "$e^{x} / \\sum e^{x}$", "outcome"]
    return table(header, rows, "The unshifted formula on the same rows: right for row 0, NaN for the other two", "naive")


def exp_range_figure(trace: Trace) -> str:
    """Raw and shifted logits against the arguments for which exp is finite and nonzero."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    limits = trace["exp_limits"]
    high, low = limits["largest_finite_argument"], limits["smallest_positive_argument"]
    rows = trace["stable"]["rows"]
    figure, axis = plt.subplots(figsize=(6.4, 2.6))
    axis.axvspan(high, 1150, color="#f4c7c3", label="exp overflows to inf")
    axis.axvspan(-1150, low, color="#c6dafc", label="exp underflows to 0")
    for entry in rows:
        y = len(rows) - 1 - entry["row"]
        axis.plot(entry["logits"], [y] * len(entry["logits"]), "o", color="#b35c00",
                  label="raw logits" if entry["row"] == 0 else None)
        axis.plot(entry["shifted"], [y - 0.25] * len(entry["shifted"]), "x", color="#336699",
                  label="shifted logits $x - m$" if entry["row"] == 0 else None)
    axis.axvline(high, color="#b3261e", linewidth=0.6)
    axis.axvline(low, color="#1a4f9c", linewidth=0.6)
    axis.set_xlim(-1150, 1150)
    axis.set_ylim(-0.8, len(rows) - 0.4)
    axis.set_yticks([len(rows) - 1 - entry["row"] - 0.125 for entry in rows],
                    labels=[f"row {entry['row']}" for entry in rows])
    axis.set_xlabel("argument of exp")
    axis.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2, fontsize=8, frameon=False)
    svg = matplotlib_svg(figure)
    plt.close(figure)
    raw = "; ".join(f"row {entry['row']} at {vector(entry['logits'])}" for entry in rows)
    over = [str(entry["row"]) for entry in rows if max(entry["logits"]) > high]
    under = [str(entry["row"]) for entry in rows if max(entry["logits"]) < low]
    bands = ", ".join([f"row {', '.join(over)} lies in the overflow band"] * bool(over)
                      + [f"row {', '.join(under)} in the underflow band"] * bool(under)) or "no row leaves the range"
    alt = (f"A number line of exp arguments from -1150 to 1150. Above {fixed(high, 2)} exp overflows to "
           f"infinity and below {fixed(low, 2)} it underflows to zero. The raw logits sit at {raw}: "
           f"{bands}. After the shift every "
           f"row sits at {vector(rows[0]['shifted'])}, near zero, where exp is finite.")
    caption = (f"Raw logits (circles) and shifted logits (crosses) against the finite range of exp, "
               f"about ({fixed(low, 1)}, {fixed(high, 1)})")
    return svg_figure(svg, caption, "exp-range", alt=alt)


def targets_table(trace: Trace) -> str:
    """Each row's target class, its log-probability and its loss."""
    rows = [[str(entry["row"]), str(entry["class"]), fixed(entry["log_probability"]), fixed(entry["loss"])]
            for entry in trace["targets"]]
    rows.append(["mean", "", "", fixed(trace["mean_nll"])])
    header = ["row", "target class", "$\\log p_{\\text{target}}$", "loss $-\\log p_{\\text{target}}$"]
    return table(header, rows, "One target per row: its log-probability, its loss, and the mean NLL", "targets")


def errors_table(trace: Trace) -> str:
    """The requests the library refused: kind, message, the demo's line."""
    rows = [[entry["request"], f"`{entry['kind']}`", f"`{entry['message']}`", f"`{entry['printed']}`"]
            for entry in trace["errors"]]
    header = ["request", "kind", "the library's message", "the demo's line"]
    return table(header, rows, "Requests the probability functions refuse before they allocate an output", "errors")


def bits(value: int) -> str:
    """The 64 bits of a double as the trace stores them, in hexadecimal: ``0x3ff0000000000000``."""
    return f"`0x{value:016x}`"


def log_normalizer_case(trace: Trace, gap: float) -> Mapping[str, Any]:
    """The traced row ``[0, -gap]``."""
    for entry in trace["log_normalizer"]["cases"]:
        if entry["gap"] == gap:
            return entry
    raise KeyError(f"the trace has no log-normalizer row with gap {gap}")


def small(value: float, digits: int = 6) -> str:
    """A small traced number in exponent form, or ``0`` for a zero."""
    return "0" if value == 0 else sci(value, digits)


def relative_difference(entry: Mapping[str, Any]) -> str:
    """``(ln Z - log1p(tail)) / log1p(tail)`` in exponent form, or ``0`` when the bits agree."""
    if entry["log_normalizer_bits"] == entry["log1p_tail_bits"]:
        return "0"
    relative = (entry["log_normalizer"] - entry["log1p_tail"]) / entry["log1p_tail"]
    return plain(relative) if float(relative).is_integer() else small(relative, 1)


ONE_BITS = 0x3FF0000000000000  #: the bits of 1.0


def check_log_normalizer_claims(trace: Trace) -> None:
    """Raise if the traced rows stop showing what the page says of them: equal bits at
    gap 1, different bits at gap 25, and at gap 40 a Z of exactly 1 whose ln Z prints
    without a sign where -log1p(tail) prints with one."""
    g1, g25, g40 = (log_normalizer_case(trace, gap) for gap in (1, 25, 40))
    problems = []
    if g1["log_normalizer_bits"] != g1["log1p_tail_bits"]:
        problems.append("at gap 1 ln Z and log1p(tail) differ")
    if g25["log_normalizer_bits"] == g25["log1p_tail_bits"]:
        problems.append("at gap 25 ln Z and log1p(tail) agree")
    if g40["normalizer_bits"] != ONE_BITS or g40["log_normalizer"] != 0 or g40["library_printed"].startswith("-"):
        problems.append("at gap 40 Z is not exactly 1 or its log-probability prints with a sign")
    if not g40["log1p_printed"].startswith("-"):
        problems.append("at gap 40 -log1p(tail) prints without a minus sign")
    if trace["log_normalizer"]["sweep"]["differ"] * 2 <= trace["log_normalizer"]["sweep"]["count"]:
        problems.append("fewer than half of the swept tails differ")
    if problems:
        raise ValueError("the ln Z / log1p passage no longer matches the trace: " + "; ".join(problems))


def log_normalizer_table(trace: Trace) -> str:
    """ln Z and log1p(tail) for each traced row [0, -gap], and what the demo's twelve decimals print."""
    check_log_normalizer_claims(trace)
    rows = []
    for entry in trace["log_normalizer"]["cases"]:
        rows.append([
            plain(entry["gap"]),
            small(entry["tail"], 3),
            small(entry["log_normalizer"], 3),
            small(entry["log1p_tail"], 3),
            relative_difference(entry),
            f"`{entry['library_printed']}`",
            f"`{entry['log1p_printed']}`",
        ])
    header = ["$g$", "tail $e^{-g}$", "$\\ln Z$ (library)", "$\\operatorname{log1p}(\\text{tail})$",
              "relative difference", "$\\log p_0$ printed", "with log1p, printed"]
    return table(header, rows, "ln Z of the rounded Z against log1p of the tail: equal for the worked row, "
                 "apart in the sixth digit at gap 25, and the whole tail lost at gap 40", "log-normalizer")


def log_normalizer_bits_table(trace: Trace) -> str:
    """The 64 bits of Z, ln Z and log1p(tail) for each traced row."""
    rows = [[plain(entry["gap"]), bits(entry["normalizer_bits"]), bits(entry["log_normalizer_bits"]),
             bits(entry["log1p_tail_bits"])] for entry in trace["log_normalizer"]["cases"]]
    header = ["$g$", "$Z$", "$\\ln Z$", "$\\operatorname{log1p}(\\text{tail})$"]
    return table(header, rows, "The same three rows bit by bit: once Z is rounded, its last bits are all "
                 "that is left of the tail", "log-normalizer-bits")
