"""Figures of chapter 22, drawn from the demo's trace (``chapter-22-demo --trace``).

* :func:`update_flow_figure` -- one parameter's step: the gradient through
  both moments and their corrections into the adaptive delta, and the old
  value past them into the decay delta (``trace.updates``, ``trace.config``);
* :func:`update_table` -- every intermediate of both named parameters
  (``trace.updates``);
* :func:`trajectory_figure` -- SGD and AdamW from (1, 1) on
  q(x, y) = (x^2 + 4 y^2) / 2 (``trace.trajectory``);
* :func:`history_table` -- four optimizers after the same two gradients
  (``trace.history``);
* :func:`zero_after_history_table` -- a zero gradient after a nonzero one:
  the moments still move the parameter (``trace.zero_after_history``);
* :func:`round_trip_table` -- whether the first step's bias correction gives
  back g and g² bit for bit, for two pairs of betas (``trace.round_trips``).

Every number comes from the trace; nothing is typed by hand.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from tools.figures import dot_head, find_entry, fixed, graphviz, matplotlib_svg, plain, svg_figure, table

Trace = Mapping[str, Any]

FILL = {"input": "#eef3fb", "moment": "#fdf1e6", "decay": "#e7f2e4", "result": "#f4f4f4"}


def vec(values: Sequence[float], digits: int = 6) -> str:
    """``[0.066667, -0.080000]``: the demo's six-decimal lists."""
    return "[" + ", ".join(fixed(value, digits) for value in values) + "]"


def update_of(trace: Trace, name: str) -> Mapping[str, Any]:
    """The traced update of parameter ``name``."""
    return find_entry(trace["updates"], "update", name=name)


def update_flow_figure(trace: Trace, name: str) -> str:
    """The two paths of one parameter's step, left to right."""
    u = update_of(trace, name)
    c = trace["config"]
    first, second = trace["corrections"]
    node = '  "{0}" [label="{1}", fillcolor="{2}"];'
    lines = dot_head("flow", {"rankdir": "LR", "fontsize": 11, "nodesep": 0.3, "ranksep": 0.35},
                     {"shape": "box", "style": "rounded,filled", "fontsize": 10}, {"fontsize": 9, "arrowsize": 0.6})
    lines += [
        node.format("g", f"gradient g\\n{vec(u['gradient'])}", FILL["input"]),
        node.format("theta", f"value before\\n{vec(u['before'])}", FILL["input"]),
        node.format("m", f"first moment m\\n{vec(u['first'])}", FILL["moment"]),
        node.format("v", f"second moment v\\n{vec(u['second'])}", FILL["moment"]),
        node.format("mh", f"m / {fixed(first, 2)}\\n{vec(u['corrected_first'])}", FILL["moment"]),
        node.format("vh", f"v / {fixed(second, 2)}\\n{vec(u['corrected_second'])}", FILL["moment"]),
        node.format("ad", f"adaptive delta\\n{vec(u['adaptive'])}", FILL["moment"]),
        node.format("dd", f"decay delta\\n{vec(u['decay_delta'])}", FILL["decay"]),
        node.format("after", f"value after\\n{vec(u['after'])}", FILL["result"]),
        '  { rank=same; "m"; "v"; }',
        '  { rank=same; "mh"; "vh"; }',
        f'  "g" -> "m" [label="(1 - {plain(c["beta1"])}) g"];',
        f'  "g" -> "v" [label="(1 - {plain(c["beta2"])}) g²"];',
        '  "m" -> "mh"; "v" -> "vh";',
        f'  "mh" -> "ad" [label="η m̂"]; "vh" -> "ad" [label="√v̂ + {plain(c["epsilon"])}"];',
        f'  "theta" -> "dd" [label="× ηλ = {fixed(c["decay_product"], 2)}"];',
        '  "theta" -> "after"; "ad" -> "after" [label="−"]; "dd" -> "after" [label="−"];',
        "}",
    ]
    caption = (f"One step of `{name}`: the gradient feeds both moments and, corrected, the adaptive delta; "
               "the old value reaches the decay delta without passing through them.")
    alt = (f"Flow diagram: gradient {vec(u['gradient'])} into first moment {vec(u['first'])} and second moment "
           f"{vec(u['second'])}, corrected to {vec(u['corrected_first'])} and {vec(u['corrected_second'])}, giving "
           f"adaptive delta {vec(u['adaptive'])}; the value {vec(u['before'])} gives decay delta "
           f"{vec(u['decay_delta'])}; both are subtracted to give {vec(u['after'])}.")
    return graphviz("\n".join(lines), caption, "update-flow", alt=alt)


def update_table(trace: Trace) -> str:
    """Every intermediate of every named parameter, one row per quantity."""
    updates = trace["updates"]
    fields = [("group", None), ("value before", "before"), ("gradient", "gradient"), ("first moment", "first"),
              ("second moment", "second"), ("corrected first", "corrected_first"),
              ("corrected second", "corrected_second"), ("adaptive delta", "adaptive"),
              ("decay delta", "decay_delta"), ("value after", "after")]
    rows = []
    for label, key in fields:
        if key is None:
            rows.append([label] + ["decay" if u["decay"] else "no decay" for u in updates])
        else:
            rows.append([label] + [f"`{vec(u[key])}`" for u in updates])
    return table(["quantity"] + [f"`{u['name']}`" for u in updates], rows,
                 "The committed step, parameter by parameter", "update-table")


def trajectory_figure(trace: Trace) -> str:
    """Both paths in the (x, y) plane over the level sets of the quadratic."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = trace["trajectory"]
    figure, axis = plt.subplots(figsize=(5.6, 4.2))
    grid = [k / 100 for k in range(0, 111)]
    xs, ys = [[x for x in grid] for _ in grid], [[y for _ in grid] for y in grid]
    zs = [[(x * x + 4 * y * y) / 2 for x in grid] for y in grid]
    axis.contour(xs, ys, zs, levels=8, colors="#cccccc", linewidths=0.8)
    for key, color, marker in (("sgd", "#336699", "o"), ("adamw", "#b35c00", "s")):
        axis.plot([p[key][0] for p in points], [p[key][1] for p in points], marker=marker, color=color,
                  label="SGD" if key == "sgd" else "AdamW")
    axis.set_xlabel("x (curvature 1)")
    axis.set_ylabel("y (curvature 4)")
    axis.set_xlim(0, 1.1)
    axis.set_ylim(0, 1.1)
    axis.set_aspect("equal")
    axis.legend(loc="lower right")
    svg = matplotlib_svg(figure)
    plt.close(figure)
    last = points[-1]
    alt = (f"Two {len(points) - 1}-step paths from ({plain(points[0]['sgd'][0])}, {plain(points[0]['sgd'][1])}) in the x-y plane over elliptic level sets; SGD ends at "
           f"({fixed(last['sgd'][0], 3)}, {fixed(last['sgd'][1], 3)}), moving fast along the steep y axis, "
           f"AdamW ends at ({fixed(last['adamw'][0], 3)}, {fixed(last['adamw'][1], 3)}), moving about equally "
           "along both axes.")
    start = points[0]["sgd"]
    caption = (f"SGD and AdamW for {len(points) - 1} steps on $q(x, y) = (x^2 + 4y^2)/2$ from "
               f"$({plain(start[0])}, {plain(start[1])})$, both with $\\eta = {plain(trace['config']['learning_rate'])}$.")
    return svg_figure(svg, caption, "trajectory", alt=alt)


def history_table(trace: Trace) -> str:
    """Four update rules after two steps from 1 with gradients 0.2 and -0.1."""
    h = trace["history"]
    rows = [["SGD", "$\\theta - \\eta g$", fixed(h["sgd"], 6)],
            ["momentum", "$u = \\mu u + g$, $\\theta - \\eta u$", fixed(h["momentum"], 6)],
            ["Adam with $L_2$", "moments of $g + \\lambda\\theta$, no separate decay", fixed(h["adam_l2"], 6)],
            ["AdamW", "moments of $g$, decay $\\eta\\lambda\\theta$ beside them", fixed(h["adamw"], 6)]]
    return table(["rule", "what it does", "value after two steps"], rows,
                 f"One parameter from {plain(h['start'])}, gradients {gradients_text(h['gradients'])}, "
                 "four update rules", "history")


def asymmetric_table(trace: Trace) -> str:
    """The second step with unequal betas, computed right and with the betas swapped."""
    a = trace["asymmetric"]
    right, swapped = a["step"], a["swapped"]
    keys = [("first moment", "first"), ("second moment", "second"), ("corrected first", "corrected_first"),
            ("corrected second", "corrected_second"), ("adaptive delta", "adaptive"), ("value after", "after")]
    rows = [[label, f"`{vec(right[key])}`", f"`{vec(swapped[key])}`"] for label, key in keys]
    b1, b2 = a["betas"]
    return table(["quantity", f"β1 = {plain(b1)}, β2 = {plain(b2)}", f"swapped: β1 = {plain(b2)}, β2 = {plain(b1)}"],
                 rows, "Second step of the asymmetric case: a swap of the betas changes every moment",
                 "asymmetric")


def gradients_text(values: Sequence[float]) -> str:
    """``0.2, then -0.1``."""
    return ", then ".join(plain(value) for value in values)


def grouped(count: int) -> str:
    """``100,000``: a count with thousands separators."""
    return f"{count:,}"


def percent(part: int, whole: int) -> str:
    """``14.9 %``: ``part`` of ``whole`` with one decimal."""
    return f"{100 * part / whole:.1f}\u00a0%"


def zero_after_history_table(trace: Trace) -> str:
    """Step 1 with a gradient and step 2 without one, quantity by quantity, and decay alone."""
    z = trace["zero_after_history"]
    first, second = z["first"], z["second"]
    if any(second["gradient"]) or not all(second["adaptive"]) or second["after"] == z["pure_decay"]:
        raise ValueError("zero_after_history: step 2 is no longer a zero gradient with an adaptive delta")
    quantities = [("gradient $g_t$", "gradient"), ("first moment $m_t$", "first"), ("second moment $v_t$", "second"),
                  ("adaptive delta", "adaptive"), ("decay delta", "decay_delta"), ("value after", "after")]
    rows = [[label, f"`{vec(first[key])}`", f"`{vec(second[key])}`"] for label, key in quantities]
    rows.append(["decay alone, $(1 - d)\\,\\theta_1$", "", f"`{vec(z['pure_decay'])}`"])
    return table(["quantity", "step 1", "step 2"], rows,
                 "A zero gradient after a nonzero one: the moments keep the first step's direction, "
                 "so step 2 moves the parameter further than decay alone would", "zero-after-history")


def round_trip_table(trace: Trace) -> str:
    """How often the first step's corrected moments differ from g and g² in their bits."""
    exact, inexact = trace["round_trips"]
    if exact["beta1"] != 0.5 or exact["first_differ"] or exact["second_differ"]:
        raise ValueError("round_trips: the worked betas (1 - beta = 0.5) should give back g and g² bit for bit")
    if not inexact["first_differ"]:
        raise ValueError("round_trips: the asymmetric betas should miss g in some last bits")
    p = trace["parameterization"]
    if p["book_decay_halved"] * 2 != p["book_decay"] or p["lh_decay_halved"] != p["lh_decay"]:
        raise ValueError("parameterization: halving the rate should halve d here and leave Algorithm 2's decay")
    rows = []
    for trip in trace["round_trips"]:
        count = trip["count"]
        rows.append([f"{plain(trip['beta1'])}, {plain(trip['beta2'])}",
                     f"{trip['first_differ']:,} ({percent(trip['first_differ'], count)})",
                     f"{trip['second_differ']:,} ({percent(trip['second_differ'], count)})",
                     str(trip["largest_ulps"])])
    count = trace["round_trips"][0]["count"]
    return table(["$\\beta_1$, $\\beta_2$", "$\\hat m_1 \\ne g$", "$\\hat v_1 \\ne \\mathrm{fl}(g^2)$",
                  "largest difference (ulps)"], rows,
                 f"The first step's corrected moments against g and g², over {count:,} gradients drawn "
                 "uniformly from [−1, 1): exact only where 1 − β is a power of two", "round-trip")
