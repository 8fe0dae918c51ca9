"""Figures of chapter 36, drawn from the demo's trace (``chapter-36-demo --trace``).

* :func:`temperature_figure` -- the probabilities of the four tokens at the
  three temperatures, side by side (``trace.temperatures``);
* :func:`candidates_table` -- one distribution token by token: logit, rank,
  retained, probability (``trace.boundary``, ``trace.support``);
* :func:`draws_table` -- the eight seeded draws with the interval each fell
  in (``trace.draws``);
* :func:`untied_table` -- the tied row against the untied one: probabilities
  at tau = 1 and the tokens the same eight draws choose (``trace.untied``);
* :func:`loaded_table` -- the restored decoder's two generation steps: the
  prefix, its logit row, the draw and the token (``trace.loaded``).

Every number comes from the trace; nothing is typed by hand.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from tools.figures import fixed, matplotlib_svg, plain, svg_figure, table

Trace = Mapping[str, Any]

COLORS = ("#336699", "#888888", "#b35c00")


def ids(values: Sequence[int]) -> str:
    """``[3,1]``: the demo's token lists."""
    return "[" + ",".join(str(value) for value in values) + "]"


def probability_of(distribution: Mapping[str, Any], token: int) -> float:
    """The probability the distribution gives ``token``."""
    return next(c["probability"] for c in distribution["candidates"] if c["id"] == token)


def temperature_figure(trace: Trace) -> str:
    """Grouped bars: token on the x axis, one bar per temperature."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    distributions = trace["temperatures"]
    tokens = [c["id"] for c in distributions[0]["candidates"]]
    figure, axis = plt.subplots(figsize=(7.2, 3.6))
    width = 0.26
    for index, distribution in enumerate(distributions):
        offsets = [token + (index - 1) * width for token in tokens]
        values = [c["probability"] for c in distribution["candidates"]]
        bars = axis.bar(offsets, values, width, color=COLORS[index],
                        label=f"τ = {plain(distribution['temperature'])}")
        for bar, value in zip(bars, values):
            axis.text(bar.get_x() + bar.get_width() / 2, value + 0.01, fixed(value, 2),
                      ha="center", va="bottom", fontsize=10)
    axis.set_xticks(tokens)
    axis.set_xticklabels([f"token {t}\nlogit {plain(trace['logits'][t])}" for t in tokens])
    axis.set_ylabel("probability")
    axis.set_ylim(0, 0.9)
    axis.legend(loc="upper left")
    svg = matplotlib_svg(figure)
    plt.close(figure)
    top = [probability_of(d, 3) for d in distributions]
    alt = ("Grouped bar chart of the probabilities of tokens 0 to 3 at temperatures "
           + ", ".join(plain(d["temperature"]) for d in distributions)
           + f"; token 3 falls from {fixed(top[0], 3)} to {fixed(top[1], 3)} to {fixed(top[2], 3)} "
           "as the temperature rises, while tokens 1 and 2 always share one height and token 0 grows.")
    caption = (f"One logit row {ids(int(v) for v in trace['logits'])} at three temperatures: the order of the bars "
               "never changes, only how far apart they are.")
    return svg_figure(svg, caption, "temperature-bars", alt=alt)


def candidates_table(distribution: Mapping[str, Any], caption: str, name: str) -> str:
    """Token by token: logit, stable rank, retained or not, stored probability."""
    rows = [[str(c["id"]), fixed(c["logit"], 1), str(c["rank"]), "yes" if c["retained"] else "no",
             fixed(c["probability"], 12), "yes" if c["probability"] > 0 else "no"]
            for c in distribution["candidates"]]
    return table(["token", "logit", "rank", "retained", "probability", "probability > 0"], rows, caption, name)


def draws_table(trace: Trace) -> str:
    """The seeded draws: u, the half-open interval it lands in, the token."""
    rows = [[str(i + 1), fixed(d["unit"], 12), f"[{fixed(d['start'], 12)}, {fixed(d['end'], 12)})", str(d["token"])]
            for i, d in enumerate(trace["draws"])]
    policy = trace["draw_distribution"]
    return table(["draw", "u", "interval", "token"], rows,
                 f"Eight draws from SplitMix64 seed 36 at τ = {plain(policy['temperature'])}, "
                 f"k = {policy['top_k']} (retained {ids(policy['retained'])}); intervals in token-ID order",
                 "seeded-draws")


def untied_table(trace: Trace) -> str:
    """The tied and the untied row side by side at tau = 1, with the draws' tokens."""
    tied = trace["temperatures"][1]
    untied = trace["untied"]["temperatures"][1]
    rows = []
    for c_tied, c_untied in zip(tied["candidates"], untied["candidates"]):
        rows.append([str(c_tied["id"]), fixed(c_tied["logit"], 1), fixed(c_tied["probability"], 6),
                     fixed(c_untied["logit"], 1), fixed(c_untied["probability"], 6)])
    rows.append(["top-2 retained", "", ids(trace["boundary"]["retained"]), "",
                 ids(trace["untied"]["boundary"]["retained"])])
    rows.append(["seed-36 top-3 draws", "", ids(d["token"] for d in trace["draws"]), "",
                 ids(d["token"] for d in trace["untied"]["draws"])])
    return table(["token", "tied logit", "probability", "untied logit", "probability"], rows,
                 "The printed row and the same row with its tie broken, at τ = 1", "untied-row")


def loaded_table(trace: Trace) -> str:
    """The two steps of generation from the restored decoder."""
    loaded = trace["loaded"]
    rows = []
    for step, logits in zip(loaded["run"]["steps"], loaded["logits"]):
        rows.append([str(step["prefix_length"]), "[" + ", ".join(fixed(v, 3) for v in logits) + "]",
                     fixed(step["unit"], 6), f"[{fixed(step['start'], 6)}, {fixed(step['end'], 6)})",
                     str(step["token"])])
    return table(["prefix length", "logits of tokens 0-4", "u", "interval", "token"], rows,
                 f"Chapter 35's decoder from prompt [0], τ = 1, k = 3, generator state {loaded['generator_state']}",
                 "loaded-steps")
