"""Figures of chapter 33, drawn from the demo's trace (``chapter-33-demo --trace``).

* :func:`order_figure` -- the six events of one update, in order;
* :func:`checkpoint_figure` -- train and validation loss at the five scored
  steps, the selected one marked (``trace.checkpoints``);
* :func:`norm_figure` -- each update's global gradient norm before clipping
  against the ceiling, with its learning rate (``trace.steps``);
* :func:`steps_table` -- every update: batch, rate, batch loss, norm, factor;
* :func:`extended_figure` -- the longer run whose validation minimum comes
  before its last step (``trace.extended``).

Every number comes from the trace; nothing is typed by hand.
"""

from __future__ import annotations

from typing import Any, Mapping

from tools.figures import card, card_field, dot_head, fixed, graphviz, matplotlib_svg, plain, svg_figure, table

Trace = Mapping[str, Any]

TRAIN = "#336699"
VALIDATION = "#b35c00"
EVENTS = [
    ("forward", "loss of the batch", "#eef3fb"),
    ("backward", "gradients, graph released", "#eef3fb"),
    ("finite-check", "loss must be finite", "#f4f4f4"),
    ("clip", "one global norm", "#fdf1e6"),
    ("adamw-step", "rate of this step", "#e7f2e4"),
    ("zero-grad", "gradients cleared", "#f4f4f4"),
]


def order_figure() -> str:
    """The six events of kUpdateEventOrder as two rows of cards."""
    lines = dot_head("update_order", {"rankdir": "LR", "nodesep": 0.3, "ranksep": 0.35},
                     {"shape": "plaintext", "fontsize": 11}, {"color": "#555555"})
    for index, (name, what, fill) in enumerate(EVENTS):
        lines.append(f'  e{index} [label={card(f"{index + 1}. {name}", [card_field("", what, None)], fill=fill)}];')
    lines.append("  { rank=same; e0; e3; }")
    lines.append("  e0 -> e1 -> e2;")
    lines.append("  e2 -> e3 [constraint=false];")
    lines.append("  e3 -> e4 -> e5;")
    lines.append("}")
    return graphviz("\n".join(lines), "One update, six events in this order (`kUpdateEventOrder`)", "update-order",
                    alt="Six cards in two rows joined by arrows: forward, backward, finite-check, then clip, "
                        "adamw-step, zero-grad.")


def _loss_svg(checkpoints: list[Mapping[str, Any]], selected: int, legend: str) -> str:
    """Train (circles) and validation (diamonds) loss at the measured steps, ``selected`` ringed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(5.6, 3.6))
    steps = [c["step"] for c in checkpoints]
    axis.plot(steps, [c["train_loss"] for c in checkpoints], "o", color=TRAIN, label="train loss (measured)")
    axis.plot(steps, [c["validation_loss"] for c in checkpoints], "D", color=VALIDATION,
              label="validation loss (measured)")
    chosen = next(c for c in checkpoints if c["step"] == selected)
    axis.plot([selected], [chosen["validation_loss"]], "o", markersize=16, markerfacecolor="none",
              markeredgecolor="#222222", label=f"selected: step {selected}")
    axis.set_xticks(steps)
    axis.set_xlabel("updates done")
    axis.set_ylabel("mean next-token loss (nats)")
    axis.grid(axis="y", color="#dddddd")
    axis.legend(loc=legend)
    svg = matplotlib_svg(figure)
    plt.close(figure)
    return svg


def checkpoint_figure(trace: Trace) -> str:
    """Train and validation loss at each scored step; markers only, no line between them."""
    checkpoints = trace["checkpoints"]
    selected = trace["selected"]["step"]
    svg = _loss_svg(checkpoints, selected, "upper right")
    first, last = checkpoints[0], checkpoints[-1]
    alt = (f"Markers at steps {', '.join(str(c['step']) for c in checkpoints)}: train loss falls from "
           f"{fixed(first['train_loss'], 3)} to {fixed(last['train_loss'], 3)}, validation loss from "
           f"{fixed(first['validation_loss'], 3)} to {fixed(last['validation_loss'], 3)}; step {selected} is circled.")
    caption = (f"The five measurements of the run: train loss over {trace['config']['update_windows']} "
               f"windows, validation loss over {trace['config']['validation_windows']}; nothing is measured "
               "between them, so no line joins them.")
    return svg_figure(svg, caption, "checkpoints", alt=alt)


def norm_figure(trace: Trace) -> str:
    """Each update's norm before clipping, the ceiling, and the rate the step used."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = trace["steps"]
    ceiling = trace["config"]["max_norm"]
    figure, axis = plt.subplots(figsize=(5.6, 3.4))
    xs = [s["step"] for s in steps]
    axis.bar(xs, [s["norm_before"] for s in steps], color="#c9d6ea", edgecolor=TRAIN, label="norm before clipping")
    axis.bar(xs, [s["norm_after"] for s in steps], color=VALIDATION, width=0.4, label="norm AdamW reads")
    axis.axhline(ceiling, color="#222222", linestyle="--", linewidth=1, label=f"ceiling c = {plain(ceiling)}")
    axis.set_xticks(xs, [f"{s['step']}\n{plain(s['learning_rate'])}" for s in steps])
    axis.set_xlabel("update, and its learning rate η")
    axis.set_ylabel("global gradient norm")
    axis.set_ylim(0, max(s["norm_before"] for s in steps) * 1.1)
    axis.legend(loc="upper right")
    svg = matplotlib_svg(figure)
    plt.close(figure)
    clipped = sum(1 for s in steps if s["clipped"])
    alt = (f"Bars for updates 1 to {len(steps)}: norms before clipping from "
           f"{fixed(min(s['norm_before'] for s in steps), 3)} to {fixed(max(s['norm_before'] for s in steps), 3)}, "
           f"all above the dashed ceiling {plain(ceiling)}; {clipped} of {len(steps)} were scaled down to it.")
    caption = (f"The global norm of each update's gradient before and after clipping at $c = {plain(ceiling)}$, "
               "with the learning rate the schedule gave that step.")
    return svg_figure(svg, caption, "norms", alt=alt)


def steps_table(trace: Trace) -> str:
    """Every update of the run."""
    rows = [[str(s["step"]), str(s["batch_index"]), plain(s["learning_rate"]), fixed(s["train_loss"], 6),
             fixed(s["norm_before"], 6), fixed(s["multiplier"], 6), fixed(s["norm_after"], 6)]
            for s in trace["steps"]]
    return table(["update", "batch", "rate $\\eta_s$", "batch loss", "$\\lVert g_s\\rVert_2$",
                  "factor $\\alpha_s$", "norm after"], rows,
                 "Each update: the shuffled batch it used, its rate, its loss before the step, and the clip", "steps")


def extended_figure(trace: Trace) -> str:
    """The longer run: validation turns up while train keeps falling; selection keeps the minimum."""
    e = trace["extended"]
    checkpoints = e["checkpoints"]
    selected = e["selected"]["step"]
    svg = _loss_svg(checkpoints, selected, "upper right")
    last = checkpoints[-1]
    chosen = next(c for c in checkpoints if c["step"] == selected)
    alt = (f"Train loss falls at every marker to {fixed(last['train_loss'], 3)} at step {last['step']}; validation "
           f"loss reaches {fixed(chosen['validation_loss'], 3)} at step {selected}, circled, and rises to "
           f"{fixed(last['validation_loss'], 3)} at step {last['step']}.")
    caption = (f"The same model and data trained for {e['updates']} updates at a constant $\\eta = {plain(e['rate'])}$, "
               f"scored every {e['every']} steps: selection keeps step {selected}, not the last one.")
    return svg_figure(svg, caption, "extended", alt=alt)
