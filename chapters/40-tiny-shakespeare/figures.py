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
* :func:`runs_table` -- every recorded run's threads, time, rate and final
  validation loss.

Every number comes from the trace or those files; nothing is typed by hand.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Iterable, Mapping

from tools.figures import current, fixed, matplotlib_svg, plain, svg_figure, table

Trace = Mapping[str, Any]

ROOT = Path(__file__).resolve().parents[2]
RUNS = ROOT / "docs" / "train-runs"
#: Our recorded run (make train, one thread) and the libtorch anchor on the same machine.
OURS = RUNS / "ours-shakespeare-char.json"
ANCHOR = RUNS / "libtorch-float32-1t.json"
#: The same anchor in float64, our precision.
ANCHOR64 = RUNS / "libtorch-float64-1t.json"
#: Our run again with LLM_THREADS=2.
OURS_2T = RUNS / "ours-shakespeare-char-2t.json"
#: The character run of the morning the byte-pair run was made, with the same day's earlier code.
MORNING_CHAR = RUNS / "xeon-morning" / "ours-shakespeare-char.json"
#: The runs of the runs table, in its order (docs/train-runs/README.md says how each was made).
RUN_FILES = (OURS.name, OURS_2T.name, ANCHOR64.name, "libtorch-float64-2t.json", "libtorch-float64-2t-blas1.json",
             ANCHOR.name, "libtorch-float32-2t-blas1.json")

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


def run_summary(path: Path) -> dict[str, Any]:
    """One finished recorded run, ours or libtorch's, in the same terms.

    Raises:
        ValueError: naming the file when the run did not finish.
    """
    run = load_run(path)
    if "final" not in run:
        raise ValueError(f"{path}: the run has no final evaluation; finish it before the page quotes it")
    final = run["final"]
    if run["program"] == "llm-train":
        totals = session_totals(run)
        wall = totals["wall"]
        threads = ", ".join(sorted({str(s.get("threads", 1)) for s in run["sessions"]}))
        loads = [s[key][0] for s in run["sessions"] for key in ("load_average_start", "load_average_end")
                 if s.get(key)]
        loads += [e["load_average"][0] for e in run["evaluations"] if e.get("load_average")]
        name = "ours, float64"
    else:
        wall = final["training"]["wall_seconds"]
        threads = str(run["threads"])
        if run["threads"] > 1:  # libtorch's own pool, then OpenBLAS's
            threads += f" (OpenBLAS {run['openblas_threads']})"
        loads = [run[key][0] for key in ("load_average_start", "load_average_end") if run.get(key)]
        loads += [e["load_average"][0] for e in run["evaluations"] if e.get("load_average")]
        name = f"libtorch, {run['dtype']}"
    tokens = run["config"]["iterations"] * run["tokens_per_iteration"]
    return {"run": run, "name": name, "threads": threads, "wall": wall, "tokens_per_second": tokens / wall,
            "full_pass": final["validation_loss_full_pass"], "estimate": final["validation_loss_estimate"],
            "loads": loads, "cpu": f"{run['cpu_model_name']}, family {run['cpu_family']}, model {run['cpu_model']}"}


def recorded_runs() -> list[dict[str, Any]]:
    """Every run of the table, in its order: ours, then libtorch float64, then float32."""
    return [run_summary(RUNS / name) for name in RUN_FILES]


def run_facts(trace: Trace) -> dict[str, Any]:
    """What the page quotes from the recorded runs."""
    runs = {name: summary for name, summary in zip(RUN_FILES, recorded_runs())}
    ours, ours2 = runs[OURS.name], runs[OURS_2T.name]
    torch64, torch64_2, torch64_2b = (runs[ANCHOR64.name], runs["libtorch-float64-2t.json"],
                                      runs["libtorch-float64-2t-blas1.json"])
    cpus = {summary["cpu"] for summary in runs.values()}
    if len(cpus) != 1:
        raise ValueError(f"{RUNS}: the runs of the table come from different machines: {sorted(cpus)}")
    loads = [load for summary in runs.values() for load in summary["loads"]]
    run = ours["run"]
    tokens = run["config"]["iterations"] * run["tokens_per_iteration"]
    flops_per_token = trace["cost"]["training_flops"]
    totals = session_totals(run)
    matmul = [s["matmul"] for s in run["sessions"] if "matmul" in s][-1]
    model_gflops = flops_per_token * tokens / totals["thread_cpu"] * 1e-9
    anchor = runs[ANCHOR.name]
    pairs = validation_pairs(run, anchor["run"])
    pairs64 = validation_pairs(run, torch64["run"])
    logged = {entry["iteration"]: entry["loss"] for entry in torch64["run"]["train_log"]}
    lines = [(entry["loss"], logged[entry["iteration"]]) for entry in run["train_log"] if entry["iteration"] in logged]
    best2 = min(torch64_2, torch64_2b, key=lambda summary: summary["wall"])
    return {
        "cpu": next(iter(cpus)),
        "load_high": fixed(max(loads), 1),
        "load_high_run": high_load_run(runs.values()),
        "runs_words": NUMBER_WORDS.get(len(runs), plain(len(runs))),
        "final_val_loss": fixed(ours["estimate"], 4),
        "final_full_pass": fixed(ours["full_pass"], 4),
        "ours_full_pass_8": fixed(ours["full_pass"], 8),
        "wall": fixed(ours["wall"], 0),
        "wall_2t": fixed(ours2["wall"], 0),
        "speedup_2t": fixed(ours["wall"] / ours2["wall"], 2),
        "model_gflops": fixed(model_gflops, 2),
        "matmul_gflops": fixed(matmul["gflops_thread_cpu"], 2),
        "matmul_kernel": matmul["kernel"],
        "matmul_shape": f"[{matmul['rows']}, {matmul['depth']}] x [{matmul['depth']}, {matmul['columns']}]",
        "peak_share": fixed(100 * model_gflops / matmul["gflops_thread_cpu"], 0),
        "counted_seconds": fixed(flops_per_token * tokens / (matmul["gflops_thread_cpu"] * 1e9), 0),
        "cpu_seconds": fixed(totals["thread_cpu"], 0),
        "anchor_full_pass": fixed(anchor["full_pass"], 8),
        "compared_evaluations": plain(len(pairs)),
        "largest_difference": upper_bound(max(abs(x - y) for x, y in pairs)),
        "anchor64_full_pass": fixed(torch64["full_pass"], 8),
        "anchor64_largest_difference": upper_bound(max(abs(x - y) for x, y in pairs64)),
        "anchor64_logged_lines": plain(len(lines)),
        "anchor64_equal_lines": plain(sum(f"{x:.4f}" == f"{y:.4f}" for x, y in lines)),
        "anchor64_wall": fixed(torch64["wall"], 0),
        "anchor64_time_ratio": fixed(ours["wall"] / torch64["wall"], 2),
        "anchor64_2t_wall": fixed(torch64_2["wall"], 0),
        "anchor64_2t_cpu": fixed(torch64_2["run"]["final"]["training"]["process_cpu_seconds"], 0),
        "anchor64_cpu": fixed(torch64["run"]["final"]["training"]["process_cpu_seconds"], 0),
        "anchor64_2t_blas1_wall": fixed(torch64_2b["wall"], 0),
        "anchor64_2t_blas1_first_wall": fixed(run_summary(RUNS / "libtorch-float64-2t-blas1-first.json")["wall"], 0),
        "anchor32_wall": fixed(anchor["wall"], 0),
        "anchor32_2t_wall": fixed(runs["libtorch-float32-2t-blas1.json"]["wall"], 0),
        "anchor64_best2_ratio": fixed(ours2["wall"] / best2["wall"], 2),
        "anchor64_best2_comparison": time_comparison(ours2["wall"], best2["wall"]),
        "anchor64_best_wall": fixed(min(torch64["wall"], best2["wall"]), 0),
        "ours_faster_than_every_anchor64": ours2["wall"] < min(torch64["wall"], torch64_2["wall"], best2["wall"]),
        "peak_share_met": 100 * model_gflops / matmul["gflops_thread_cpu"] >= 50,
        "anchor64_2t_slower": torch64_2["wall"] > torch64["wall"],
    }


def high_load_run(summaries: Iterable[Mapping[str, Any]]) -> str:
    """Which run logged the highest load average: ``"libtorch's float64 run with 2 threads (OpenBLAS 2)"``."""
    summary = max(summaries, key=lambda run: max(run["loads"]))
    owner = "our" if summary["name"].startswith("ours") else "libtorch's"
    precision = summary["name"].split(", ")[1]
    count, _, rest = summary["threads"].partition(" ")
    threads = f"{count} thread{'' if count == '1' else 's'}" + (f" {rest}" if rest else "")
    return f"{owner} {precision} run with {threads}"


def time_comparison(ours: float, theirs: float) -> str:
    """Our time against theirs in words: ``"0.86 times as long (14 % less)"`` or ``"1.22 times as long"``."""
    ratio = ours / theirs
    if ratio < 1:
        return f"{fixed(ratio, 2)} times as long ({fixed(100 * (1 - ratio), 0)} % less)"
    return f"{fixed(ratio, 2)} times as long"


NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"}


def upper_bound(value: float) -> str:
    """``value`` rounded up to two significant digits (``1.031e-7`` -> ``1.1e-07``), for "agree to within"."""
    if value == 0:
        return "0"
    scale = 10.0 ** (math.floor(math.log10(abs(value))) - 1)
    return f"{math.ceil(value / scale) * scale:.1e}"


def validation_pairs(ours: Mapping[str, Any], anchor: Mapping[str, Any]) -> list[tuple[float, float]]:
    """Our validation loss and the anchor's, at every update both runs evaluated."""
    theirs = {a["iteration"]: a["validation_loss"] for a in anchor["evaluations"]}
    return [(e["validation_loss"], theirs[e["iteration"]]) for e in ours["evaluations"] if e["iteration"] in theirs]


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
    return svg_figure(svg, "The recorded runs: our training-batch loss and validation loss, and libtorch float32's "
                      f"validation loss on the same windows (hollow rings; the two agree within {upper_bound(max(pairs))}, "
                      "so the curves coincide; docs/train-runs/)", "ch40-loss", alt=alt)


BENCH = ROOT / "docs" / "bench"


def step_ratios() -> str:
    """One update of the benchmark's chapter-40 model (SwiGLU width 512), ours against libtorch float64.

    From each committed ``make bench`` run (docs/bench/bench-*.json): the
    minimum CPU time of five repetitions of ``decoder_step/{ours,torch}/chapter40``.
    One phrase per recorded machine, joined by "and": ``0.83 times libtorch's
    time on AMD EPYC (family 26, model 2) and 1.40 on ...``.

    Raises:
        ValueError: naming a file that lacks either step.
    """
    phrases = []
    for path in sorted(BENCH.glob("bench-*.json")):
        current().dependencies.add(path)
        data = json.loads(path.read_text(encoding="utf-8"))
        times = {}
        for entry in data["benchmarks"]:
            for method in ("ours", "torch"):
                if entry["name"] == f"decoder_step/{method}/chapter40/repeats:5_min":
                    times[method] = entry["cpu_time"]
        if len(times) != 2:
            raise ValueError(f"{path.relative_to(ROOT)}: no decoder_step/{{ours,torch}}/chapter40 minimum")
        context = data["context"]
        unit = "" if phrases else " times libtorch's time"
        phrases.append(f"{fixed(times['ours'] / times['torch'], 2)}{unit} on {context['cpu_model_name']} "
                       f"(family {context['cpu_family']}, model {context['cpu_model']})")
    return " and ".join(phrases)


def runs_table() -> str:
    """Every recorded run: threads, training time, rate and final validation loss.

    The threads (and a libtorch run's OpenBLAS threads) follow the run's name
    instead of filling a column, so that the table fits a 390 px phone (with
    a column of their own, "2 (OpenBLAS 1)" among them, it was 384 px wide there).
    """
    rows = []
    for summary in recorded_runs():
        run, threads = summary["run"], summary["threads"]
        name = f"{summary['name']}, {threads} thread{'' if threads == '1' else 's'}"
        if run["program"] != "llm-train" and run["threads"] > 1:
            name = f"{summary['name']}, {run['threads']} threads, OpenBLAS {run['openblas_threads']}"
        rows.append([name, fixed(summary["wall"], 0) + " s",
                     count(round(summary["tokens_per_second"])), fixed(summary["full_pass"], 8)])
    return table(["Run", "Wall time", "Tokens/s", "Validation loss"], rows,
                 f"The same {count(load_run(RUNS / OURS.name)['config']['iterations'])} updates, one run at a time "
                 "on the quiet machine: training wall time, tokens per second of wall time, "
                 "validation loss over all windows; OpenBLAS N: libtorch's OpenBLAS on N threads of its own "
                 "(docs/train-runs/)",
                 "ch40-runs", fits_phone=True)


def bpe_facts() -> dict[str, str]:
    """What the page quotes from the byte-pair run, beside the character run."""
    bpe, chars = load_run(BPE), load_run(OURS)
    if bpe.get("tokenizer") != "bpe" or "final" not in bpe:
        raise ValueError(f"{BPE}: not a finished byte-pair run")
    final, session = bpe["final"], bpe["sessions"][0]
    tokens = bpe["config"]["iterations"] * bpe["tokens_per_iteration"]
    loads = [session["load_average_start"][0], session["load_average_end"][0]]
    loads += [e["load_average"][0] for e in bpe["evaluations"]]
    return {
        "merges": count(bpe["tokenizer_merges"]),
        "vocabulary": count(bpe["vocabulary_size"]),
        "learn_seconds": fixed(bpe["learn_merges"]["thread_cpu_seconds"], 1),
        "train_bytes_per_token": fixed(bpe["train_bytes_per_token"], 3),
        "validation_bytes_per_token": fixed(bpe["validation_bytes_per_token"], 3),
        "train_tokens": count(bpe["train_tokens"]),
        "parameters": count(bpe["parameters"]),
        "passes": fixed(tokens / bpe["train_tokens"], 1),
        "char_passes": fixed(tokens / chars["train_tokens"], 1),
        "full_pass": fixed(final["validation_loss_full_pass"], 4),
        "nats_per_byte": fixed(final["validation_nats_per_byte_full_pass"], 4),
        "char_nats_per_byte": fixed(chars["final"]["validation_loss_full_pass"], 4),
        "thread_cpu": fixed(final["training"]["thread_cpu_seconds"], 1),
        "char_thread_cpu": fixed(load_run(MORNING_CHAR)["final"]["training"]["thread_cpu_seconds"], 1),
        "load_low": fixed(min(loads), 1),
        "load_high": fixed(max(loads), 1),
        "flops_per_token": count(round(final["training_flops_per_token"])),
        "context_bytes": fixed(bpe["config"]["context"] * bpe["train_bytes_per_token"], 0),
        "targets": count(final["validation_full_pass_windows"] * bpe["config"]["context"]),
        "target_bytes": count(final["validation_full_pass_target_bytes"]),
    }


def bpe_sample_block() -> str:
    """The committed sample from the byte-pair run's checkpoint, as a text block."""
    return sample_block(BPE_SAMPLE)


def log(value: float) -> float:
    """The natural logarithm, for the uniform model's loss ln V."""
    import math

    return math.log(value)


def sci3(value: float) -> str:
    """``1.09e-4``: a learning rate with three significant digits."""
    mantissa, exponent = f"{value:.2e}".split("e")
    return f"{mantissa}e{int(exponent)}"


SAMPLE = RUNS / "ours-shakespeare-char-sample.txt"
#: The byte-pair run (make train CONFIG=data/tinyshakespeare/bpe.json) and a sample from its checkpoint.
BPE = RUNS / "ours-shakespeare-bpe.json"
BPE_SAMPLE = RUNS / "ours-shakespeare-bpe-sample.txt"


def sample_block(path: Path = SAMPLE) -> str:
    """A committed sample from a recorded run's checkpoint, as a text block."""
    current().dependencies.add(path)
    text = path.read_text(encoding="utf-8").rstrip("\n")
    longest = max((len(run) for run in text.split("\n") if set(run) == {"`"}), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}\n"
