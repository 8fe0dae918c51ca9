"""Figures of chapter 40.

From the demo's trace (``chapter-40-demo --trace``):

* :func:`parameter_table` -- the decoder's 800,000 parameters by part;
* :func:`cost_table` -- multiply-adds per token by where they happen.

From the recorded runs committed in ``docs/train-runs/`` (JSON logs written
by ``make train`` and ``make train-anchor``; docs/train-runs/README.md says
how, where and under which load each was measured):

* :func:`run_facts` -- the numbers the page quotes from our run;
* :func:`loss_figure` -- training and validation loss against updates, ours
  and libtorch's;
* :func:`throughput_table` -- tokens per second, the model's FLOP rate and
  llm::matmul's measured rate.

Every number comes from the trace or those files; nothing is typed by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from tools.figures import current, fixed, matplotlib_svg, plain, svg_figure, table

Trace = Mapping[str, Any]

ROOT = Path(__file__).resolve().parents[2]
RUNS = ROOT / "docs" / "train-runs"
#: Our recorded run (make train) and the libtorch anchor on the same machine.
OURS = RUNS / "ours-shakespeare-char.json"
ANCHOR = RUNS / "libtorch-float32-1t.json"
#: The same anchor in float64, our precision.
ANCHOR64 = RUNS / "libtorch-float64-1t.json"

PART_NAMES = {
    "token_embedding": "token embedding (tied head)",
    "blocks.attention": "attention: query, key, value, output",
    "blocks.attention_norm": "RMSNorm gains before attention",
    "blocks.ffn": "SwiGLU: gate, up, down",
    "blocks.ffn_norm": "RMSNorm gains before SwiGLU",
    "final_norm": "final RMSNorm gain",
}


def load_run(path: Path) -> dict[str, Any]:
    """A run log, recorded as a dependency of the page.

    Raises:
        ValueError: naming the file when it is not a run log.
    """
    current().dependencies.add(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    for key in ("config", "train_log", "evaluations"):
        if key not in data:
            raise ValueError(f"{path}: not a run log (no {key!r})")
    return data


def count(value: int) -> str:
    """``800,000``."""
    return f"{value:,}"


def parameter_table(trace: Trace) -> str:
    """The decoder's parameters by part, with their share."""
    parts = trace["parameters"]["parts"]
    total = trace["parameters"]["total"]
    rows = [[PART_NAMES.get(name, name), count(n), fixed(100 * n / total, 1) + " %"] for name, n in parts.items()]
    rows.append(["total", count(total), "100 %"])
    return table(["Part (all blocks together)", "Parameters", "Share"], rows,
                 "The decoder of nanoGPT's CPU configuration, by part", "ch40-parameters")


def cost_table(trace: Trace) -> str:
    """Forward multiply-adds per token by where they happen."""
    c = trace["cost"]
    rows = [[label, count(c[key]), fixed(100 * c[key] / c["multiply_adds"], 1) + " %"]
            for label, key in (("projections, $4ND^2$", "projections"), ("SwiGLU, $3NDF$", "feed_forward"),
                               ("attention, $2NTD$", "attention"), ("head, $DV$", "head"))]
    rows.append(["total", count(c["multiply_adds"]), "100 %"])
    return table(["Where", "Multiply-adds per token", "Share"], rows,
                 "The forward pass's multiply-adds per token", "ch40-cost")


def session_totals(run: Mapping[str, Any]) -> dict[str, float]:
    """Updates made and their clocks, summed over the run's sessions."""
    updates = wall = cpu = 0.0
    for session in run["sessions"]:
        if "training" not in session:
            continue
        updates += session["end_iteration"] - session["start_iteration"]
        wall += session["training"]["wall_seconds"]
        cpu += session["training"]["thread_cpu_seconds"]
    return {"updates": updates, "wall": wall, "thread_cpu": cpu}


def run_facts(trace: Trace) -> dict[str, Any]:
    """What the page quotes from our recorded run and the anchor."""
    ours = load_run(OURS)
    anchor = load_run(ANCHOR)
    totals = session_totals(ours)
    tokens = totals["updates"] * ours["tokens_per_iteration"]
    flops_per_token = trace["cost"]["training_flops"]
    matmul = [s["matmul"] for s in ours["sessions"] if "matmul" in s]
    last_eval = ours["evaluations"][-1]
    anchor_final = anchor["final"]
    loads = [s["load_average_start"] for s in ours["sessions"]] + [s.get("load_average_end") for s in ours["sessions"]]
    loads = [load[0] for load in loads if load]
    facts = {
        "updates": plain(totals["updates"]),
        "iterations": plain(ours["config"]["iterations"]),
        "sessions": plain(len(ours["sessions"])),
        "last_eval_iteration": plain(last_eval["iteration"]),
        "last_train_loss": fixed(last_eval["train_loss"], 4),
        "last_val_loss": fixed(last_eval["validation_loss"], 4),
        "wall": fixed(totals["wall"], 0),
        "thread_cpu": fixed(totals["thread_cpu"], 0),
        "tokens_per_second_wall": fixed(tokens / totals["wall"], 0),
        "tokens_per_second_cpu": fixed(tokens / totals["thread_cpu"], 0),
        "model_gflops": fixed(flops_per_token * tokens / totals["thread_cpu"] * 1e-9, 2),
        "cpu": ours["cpu_model_name"] + ", family " + ours["cpu_family"] + ", model " + ours["cpu_model"],
        "load_low": fixed(min(loads), 1) if loads else "unknown",
        "load_high": fixed(max(loads), 1) if loads else "unknown",
        "anchor_val_loss": fixed(anchor_final["validation_loss_estimate"], 4),
        "anchor_full_pass": fixed(anchor_final["validation_loss_full_pass"], 4),
        "anchor_tokens_per_second_cpu": fixed(anchor_final["tokens_per_second_process_cpu"], 0),
        "anchor_wall": fixed(anchor_final["training"]["wall_seconds"], 0),
        "anchor_load": fixed(anchor["load_average_start"][0], 1),
        "finished": "final" in ours,
    }
    if matmul:
        facts["matmul_gflops"] = fixed(matmul[-1]["gflops_thread_cpu"], 2)
        facts["matmul_kernel"] = matmul[-1]["kernel"]
        facts["matmul_shape"] = f"[{matmul[-1]['rows']}, {matmul[-1]['depth']}] x [{matmul[-1]['depth']}, {matmul[-1]['columns']}]"
        facts["peak_share"] = fixed(100 * flops_per_token * tokens / totals["thread_cpu"] * 1e-9
                                    / matmul[-1]["gflops_thread_cpu"], 0)
    pairs = validation_pairs(ours, anchor)
    facts["compared_evaluations"] = plain(len(pairs))
    facts["largest_difference"] = f"{max(abs(x - y) for x, y in pairs):.1e}"
    facts.update(float64_anchor_facts(ours, totals["thread_cpu"]))
    if "final" in ours:
        facts["final_val_loss"] = fixed(ours["final"]["validation_loss_estimate"], 4)
        facts["final_full_pass"] = fixed(ours["final"]["validation_loss_full_pass"], 4)
    return facts


def validation_pairs(ours: Mapping[str, Any], anchor: Mapping[str, Any]) -> list[tuple[float, float]]:
    """Our validation loss and the anchor's, at every update both runs evaluated."""
    theirs = {a["iteration"]: a["validation_loss"] for a in anchor["evaluations"]}
    return [(e["validation_loss"], theirs[e["iteration"]]) for e in ours["evaluations"] if e["iteration"] in theirs]


def float64_anchor_facts(ours: Mapping[str, Any], ours_thread_cpu: float) -> dict[str, str]:
    """How libtorch's float64 run compares with ours: losses, logged lines and CPU time."""
    anchor = load_run(ANCHOR64)
    final = anchor["final"]
    logged = {entry["iteration"]: entry["loss"] for entry in anchor["train_log"]}
    lines = [(entry["loss"], logged[entry["iteration"]]) for entry in ours["train_log"]
             if entry["iteration"] in logged]
    pairs = validation_pairs(ours, anchor)
    return {
        "anchor64_val_loss": fixed(final["validation_loss_estimate"], 4),
        "anchor64_full_pass": fixed(final["validation_loss_full_pass"], 8),
        "anchor64_load": fixed(anchor["load_average_start"][0], 1),
        "anchor64_thread_cpu": fixed(final["training"]["thread_cpu_seconds"], 1),
        "anchor64_tokens_per_second_cpu": fixed(final["tokens_per_second_process_cpu"], 0),
        "anchor64_largest_difference": f"{max(abs(x - y) for x, y in pairs):.1e}",
        "anchor64_compared_evaluations": plain(len(pairs)),
        "anchor64_logged_lines": plain(len(lines)),
        "anchor64_equal_lines": plain(sum(f"{x:.4f}" == f"{y:.4f}" for x, y in lines)),
        "anchor64_time_ratio": fixed(ours_thread_cpu / final["training"]["thread_cpu_seconds"], 2),
        "ours_full_pass_8": fixed(ours["final"]["validation_loss_full_pass"], 8) if "final" in ours else "",
    }


def loss_figure() -> str:
    """Loss against updates: our training batches and evaluations, libtorch's evaluations."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ours = load_run(OURS)
    anchor = load_run(ANCHOR)
    # Narrow, with the legend under the axes: shown at its natural width on a
    # laptop and scaled to a 390 px phone's column, its 10 pt labels stay
    # above 10 px there (at 6.4 inches they were 8 px).
    figure, axis = plt.subplots(figsize=(4.6, 3.4))
    axis.plot([e["iteration"] for e in ours["train_log"]], [e["loss"] for e in ours["train_log"]],
              color="#9bb7e0", linewidth=1.0, label="ours: training batch (float64)")
    # The two validation curves coincide, so libtorch's is drawn as hollow rings
    # over our filled dots: both stay visible.
    for run, colour, name, style in ((ours, "#1f4e9c", "ours", dict(marker="o", markersize=4, linewidth=1.6)),
                                     (anchor, "#c0561b", "libtorch float32",
                                      dict(marker="o", markersize=9, markerfacecolor="none", linewidth=1.0,
                                           linestyle=":"))):
        points = run["evaluations"]
        axis.plot([e["iteration"] for e in points], [e["validation_loss"] for e in points], color=colour,
                  label=f"{name}: validation (20 fixed batches)", **style)
    axis.axhline(1.88, color="#555555", linestyle="--", linewidth=1.0, label="nanoGPT README: 1.88")
    axis.set_xlabel("update")
    axis.set_ylabel("mean loss (nats per byte)")
    highest = max([e["loss"] for e in ours["train_log"]]
                  + [e["validation_loss"] for run in (ours, anchor) for e in run["evaluations"]])
    axis.set_ylim(1.2, highest + 0.15)  # the first, highest losses stay in the plot
    axis.set_xlim(0, ours["config"]["iterations"])
    axis.grid(alpha=0.3)
    axis.legend(fontsize=10, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=1, frameon=False)
    svg = matplotlib_svg(figure)
    plt.close(figure)
    last = ours["evaluations"][-1]
    alt = (f"Loss against updates from 0 to {ours['config']['iterations']}: our validation loss falls from "
           f"{fixed(ours['evaluations'][0]['validation_loss'], 2)} to {fixed(last['validation_loss'], 2)} at update "
           f"{last['iteration']}; libtorch's float32 run ends at "
           f"{fixed(anchor['evaluations'][-1]['validation_loss'], 2)}; a dashed line marks 1.88.")
    pairs = [abs(e["validation_loss"] - a["validation_loss"]) for e in ours["evaluations"]
             for a in anchor["evaluations"] if a["iteration"] == e["iteration"]]
    return svg_figure(svg, "The recorded runs: our training-batch loss and validation loss, and libtorch's "
                      f"validation loss on the same windows (hollow rings; the two agree within {max(pairs):.1e}, "
                      "so the curves coincide; docs/train-runs/)", "ch40-loss", alt=alt)


def throughput_table(trace: Trace) -> str:
    """Our run's measured rates beside llm::matmul's and libtorch's."""
    f = run_facts(trace)
    rows = [
        ["ours, float64", f["tokens_per_second_wall"], f["tokens_per_second_cpu"], f["model_gflops"]],
        ["libtorch float32, 1 thread", fixed(load_run(ANCHOR)["final"]["tokens_per_second_wall"], 0),
         f["anchor_tokens_per_second_cpu"], "—"],
    ]
    if "matmul_gflops" in f:
        rows.append([f"llm::matmul alone, {f['matmul_shape']}", "—", "—", f["matmul_gflops"]])
    return table(["Measured", "Tokens/s (wall)", "Tokens/s (CPU)", "GFLOP/s (CPU)"], rows,
                 "Measured rates on the shared machine (docs/train-runs/README.md)", "ch40-throughput")


def log(value: float) -> float:
    """The natural logarithm, for the uniform model's loss ln V."""
    import math

    return math.log(value)


def sci3(value: float) -> str:
    """``1.09e-4``: a learning rate with three significant digits."""
    mantissa, exponent = f"{value:.2e}".split("e")
    return f"{mantissa}e{int(exponent)}"


SAMPLE = RUNS / "ours-shakespeare-char-sample.txt"


def sample_block() -> str:
    """The committed sample from the recorded run's checkpoint, as a text block."""
    current().dependencies.add(SAMPLE)
    text = SAMPLE.read_text(encoding="utf-8").rstrip("\n")
    longest = max((len(run) for run in text.split("\n") if set(run) == {"`"}), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}\n"
