"""Figures of chapter 7, drawn from the demo's trace (``chapter-07-demo --trace``).

* :func:`chain_figure` -- two assigned probabilities traced into NLL terms,
  their total, the mean per target and the perplexity (``trace.fixed.tiny``);
* :func:`cases_table` -- every fixed example side by side: its targets, mean
  NLL and perplexity (``trace.fixed``);
* :func:`surprisal_plot` -- the curve $-\\ln p$ with every probability the
  fixed examples scored marked on it (``trace.fixed``);
* :func:`partitions_table` -- the frozen bigram model scored on the training
  and validation documents (``trace.corpus.partitions``);
* :func:`documents_plot` -- each scored document's own mean NLL against the
  pooled value of its partition (``trace.corpus.documents``);
* :func:`boundary_table` -- which tokens are targets, checked on the encoded
  documents (``trace.corpus.boundary``);
* :func:`sweep_plot` and :func:`sweep_table` -- the bigram on train and on
  validation and its unigram reading on validation, for every candidate
  alpha (``trace.corpus.baseline.sweep``);
* :func:`baseline_table` -- every model of the chapter on the same
  validation targets, and the chosen one once on test;
* :func:`samples_table` -- seeded text from the add-one and the tuned bigram.

Every number comes from the trace; nothing is typed by hand.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from tools.figures import fence, fixed, graphviz, matplotlib_svg, plain, sci, svg_figure, table

Trace = Mapping[str, Any]

FILL = {"input": "#eef3fb", "term": "#fdf1e6", "total": "#f4f4f4", "result": "#e7f2e4"}


def number(value: float | str) -> str:
    """A traced number with twelve decimals; a non-finite one is traced as its
    printed text (``inf``) and shown as it is."""
    return value if isinstance(value, str) else fixed(value)


def probabilities_text(values: Sequence[float]) -> str:
    """``[0.5, 0.25]``: assigned probabilities in their shortest form."""
    return "[" + ", ".join(plain(value) for value in values) + "]"


def chain_figure(tiny: Trace) -> str:
    """Each probability to its NLL term, the terms to their total, the total
    divided by the target count, and the mean exponentiated."""
    metrics = tiny["metrics"]
    lines = [
        "digraph chain {",
        '  graph [rankdir=LR, fontname="Helvetica", fontsize=11, nodesep=0.3, ranksep=0.4];',
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11];',
        '  edge [fontname="Helvetica", fontsize=10, arrowsize=0.7];',
    ]
    for target in tiny["targets"]:
        index = target["index"]
        lines.append(f'  "p{index}" [label="target t = {index + 1}\\np = {plain(target["probability"])}", '
                     f'fillcolor="{FILL["input"]}"];')
        lines.append(f'  "s{index}" [label="-ln p\\n{fixed(target["nll"])}", fillcolor="{FILL["term"]}"];')
        lines.append(f'  "p{index}" -> "s{index}";')
        lines.append(f'  "s{index}" -> "total";')
    lines += [
        f'  "total" [label="total NLL\\n{fixed(metrics["total_nll"])}", fillcolor="{FILL["total"]}"];',
        f'  "mean" [label="mean NLL\\n{fixed(metrics["mean_nll"])} nats", fillcolor="{FILL["result"]}"];',
        f'  "ppl" [label="perplexity\\n{fixed(metrics["perplexity"])}", fillcolor="{FILL["result"]}"];',
        f'  "total" -> "mean" [label="÷ N = {metrics["target_count"]}"];',
        '  "mean" -> "ppl" [label="exp"];',
        "}",
    ]
    return graphviz("\n".join(lines), "From two assigned probabilities to mean NLL and perplexity", "chain")


def cases_table(fixed_examples: Trace) -> str:
    """The fixed examples: what was scored, how many targets, mean NLL, perplexity."""
    f = fixed_examples
    weighting = f["weighting"]
    documents = " and ".join(probabilities_text(document) for document in weighting["documents"])
    rows = [
        ["worked pair", probabilities_text([target["probability"] for target in f["tiny"]["targets"]]),
         f["tiny"]["metrics"]],
        ["perfect", "every target p = 1", f["perfect"]],
        [f"uniform over V = {f['uniform']['vocabulary']}",
         f"{f['uniform']['metrics']['target_count']} targets, p = 1/{f['uniform']['vocabulary']}",
         f["uniform"]["metrics"]],
        ["impossible target", probabilities_text(f["impossible"]["probabilities"]), f["impossible"]["metrics"]],
        ["two documents, pooled", documents, weighting["pooled"]],
    ]
    body = []
    for name, scored, metrics in rows:
        body.append([name, scored, f"{metrics['target_count']}", number(metrics["mean_nll"]), number(metrics["perplexity"])])
    count = len(weighting["documents"])
    body.append(["two documents, mean of document means (wrong)", documents, f"{count} documents",
                 fixed(weighting["mean_of_document_means"]), fixed(weighting["perplexity_of_document_means"])])
    under = f["underflow"]
    body.append([f"{under['factors']} halves", f"{under['factors']} × 0.5; their direct product is {sci(under['raw_product'], 3)}",
                 f"{under['metrics']['target_count']}", fixed(under["metrics"]["mean_nll"]),
                 fixed(under["metrics"]["perplexity"])])
    header = ["example", "assigned probabilities", "$N$", "mean NLL (nats)", "perplexity"]
    return table(header, body, "Every fixed example of the run, scored by the same function", "cases")


def surprisal_plot(fixed_examples: Trace) -> str:
    """The NLL term $-\\ln p$ over $p \\in (0, 1]$, with the scored probabilities marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    f = fixed_examples
    points = {target["probability"]: target["nll"] for target in f["tiny"]["targets"]}
    argmax = f["argmax"]
    points[argmax["q"][argmax["target"]]] = argmax["q_nll"]
    points[argmax["r"][argmax["target"]]] = argmax["r_nll"]
    figure, axis = plt.subplots(figsize=(6.0, 3.2))
    grid = [k / 400 for k in range(4, 401)]
    axis.plot(grid, [-math.log(p) for p in grid], color="#336699", linewidth=1.5, label="$-\\ln p$")
    # Labels stand in a column to the right of the points, each joined to its
    # point by a thin line, so that close probabilities stay readable.
    for rank, (probability, nll) in enumerate(sorted(points.items())):
        axis.plot([probability], [nll], "o", color="#b35c00")
        axis.annotate(f"p = {plain(probability)}: {fixed(nll, 3)}", (probability, nll),
                      xytext=(0.62, 4.9 - 0.55 * rank), fontsize=8,
                      arrowprops={"arrowstyle": "-", "color": "#999999", "linewidth": 0.6})
    axis.set_xlabel("probability assigned to the observed token, $p$")
    axis.set_ylabel("NLL term (nats)")
    axis.set_xlim(0, 1.02)
    axis.set_ylim(0, 5.6)
    axis.grid(True, linewidth=0.3)
    axis.legend(loc="upper right")
    svg = matplotlib_svg(figure)
    plt.close(figure)
    marks = "; ".join(f"p = {plain(probability)} gives {fixed(nll, 3)} nats" for probability, nll in sorted(points.items()))
    alt = ("A curve of the NLL term -ln p against the probability p from 0 to 1: it is 0 at p = 1 "
           f"and rises without bound as p falls to 0. Marked points from the run: {marks}.")
    return svg_figure(svg, "The NLL term of one target: 0 at p = 1, unbounded as p falls to 0; the run's probabilities marked",
                      "surprisal", alt=alt)


def partitions_table(corpus: Trace) -> str:
    """Training and validation scores of the one frozen model."""
    rows = []
    for score in corpus["partitions"]:
        rows.append([score["name"], f"{score['documents']}", f"{score['targets']}", fixed(score["total_nll"]),
                     fixed(score["mean_nll"]), fixed(score["perplexity"])])
    header = ["partition", "documents", "targets $N$", "total NLL", "mean NLL", "perplexity"]
    return table(header, rows, "One bigram model, fitted on train, scored on train and on validation", "partitions")


def documents_plot(corpus: Trace) -> str:
    """Each document's own mean NLL (a point), and the pooled mean of its
    partition (a line across its documents)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    documents = corpus["documents"]
    colors = {"train": "#336699", "validation": "#b35c00"}
    figure, axis = plt.subplots(figsize=(7.0, 3.6))
    for score in corpus["partitions"]:
        name = score["name"]
        members = [k for k, document in enumerate(documents) if document["partition"] == name]
        axis.plot(members, [documents[k]["mean_nll"] for k in members], "o", color=colors[name],
                  label=f"{name} documents")
        axis.hlines(score["mean_nll"], min(members) - 0.4, max(members) + 0.4, colors=colors[name],
                    linewidth=1.2, linestyles="dashed")
        axis.annotate(f"pooled {name}: {fixed(score['mean_nll'], 3)}", (min(members) - 0.4, score["mean_nll"]),
                      textcoords="offset points", xytext=(0, 4), fontsize=8, color=colors[name])
    values = [document["mean_nll"] for document in documents]
    margin = 0.25 * (max(values) - min(values))
    axis.set_ylim(min(values) - margin, max(values) + 2 * margin)
    axis.set_xticks(range(len(documents)))
    axis.set_xticklabels([f"{document['id']} ({document['targets']})" for document in documents],
                         rotation=60, ha="right", fontsize=7)
    axis.set_ylabel("mean NLL (nats per target)")
    axis.grid(True, axis="y", linewidth=0.3)
    axis.legend(loc="upper left", fontsize=8)
    svg = matplotlib_svg(figure)
    plt.close(figure)
    pooled = "; ".join(f"pooled {score['name']} mean {fixed(score['mean_nll'], 3)}" for score in corpus["partitions"])
    each = ", ".join(f"{document['id']} {fixed(document['mean_nll'], 3)}" for document in documents)
    alt = (f"A dot plot of the mean NLL in nats per target of each of the {len(documents)} scored documents, "
           f"with a dashed line at each partition's pooled mean ({pooled}). Documents: {each}.")
    return svg_figure(
        svg,
        "Each document's own mean NLL (points, target count in brackets) and the pooled mean of its partition (dashed)",
        "documents",
        alt=alt,
    )


def boundary_table(corpus: Trace) -> str:
    """The boundary rules, each checked on the encoded documents of the run."""
    boundary = corpus["boundary"]
    yes_no = {True: "yes", False: "no"}
    rows = [
        ["`BOS` is ever a scored target", yes_no[boundary["bos_target"]]],
        ["`EOS` is the last scored target of every document", yes_no[boundary["eos_target"]]],
        ["an `EOS→BOS` pair is scored", yes_no[boundary["cross_document"]]],
        ["the bigram scorer can select the test partition", yes_no[boundary["test_selectable"]]],
    ]
    return table(["rule", "in this run"], rows, "Which tokens are scored, checked on the encoded training and validation documents", "boundaries")


def scenes_with_more_targets(corpus: Trace, language: str) -> tuple[int, int]:
    """(how many scenes have more targets in ``language`` than in the other
    language, how many scenes there are), pairing documents ``en-x``/``ru-x``."""
    by_scene: dict[str, dict[str, int]] = {}
    for document in corpus["documents"]:
        tag, _, scene = document["id"].partition("-")
        by_scene.setdefault(scene, {})[tag] = document["targets"]
    pairs = [counts for counts in by_scene.values() if len(counts) == 2]
    more = sum(1 for counts in pairs if counts[language] > max(v for k, v in counts.items() if k != language))
    return more, len(pairs)


# --- The baseline: alpha chosen on validation -----------------------------------


def chosen_candidate(baseline: Trace) -> Trace:
    """The sweep entry of the chosen alpha."""
    return baseline["sweep"][baseline["chosen"]]


def best_unigram(baseline: Trace) -> Trace:
    """The sweep entry whose unigram reading scored lowest on validation."""
    return min(baseline["sweep"], key=lambda candidate: candidate["unigram_validation"]["mean_nll"])


def crossing(baseline: Trace) -> tuple[float, float]:
    """(the smallest alpha at which the bigram still loses to its unigram
    reading on validation, the largest at which it wins), in grid order."""
    losing = [c["alpha"] for c in baseline["sweep"]
              if c["validation"]["mean_nll"] > c["unigram_validation"]["mean_nll"]]
    winning = [c["alpha"] for c in baseline["sweep"]
               if c["validation"]["mean_nll"] < c["unigram_validation"]["mean_nll"]]
    if not losing or not winning:
        raise ValueError("the sweep has no alpha at which the bigram loses to its unigram reading, "
                         "or none at which it wins; the page's crossing sentence does not hold")
    return min(losing), max(winning)


def sweep_plot(corpus: Trace) -> str:
    """Mean NLL against alpha (log scale): the bigram on train and on
    validation, the unigram reading on validation; the chosen alpha marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    baseline = corpus["baseline"]
    sweep = baseline["sweep"]
    alphas = [c["alpha"] for c in sweep]
    chosen = chosen_candidate(baseline)
    series = [
        ("bigram on train", [c["train"]["mean_nll"] for c in sweep], "#336699", "o--"),
        ("bigram on validation", [c["validation"]["mean_nll"] for c in sweep], "#b35c00", "o-"),
        ("unigram reading on validation", [c["unigram_validation"]["mean_nll"] for c in sweep], "#3d7a35", "s-"),
    ]
    figure, axis = plt.subplots(figsize=(6.4, 3.6))
    for label, values, color, style in series:
        axis.plot(alphas, values, style, color=color, label=label, markersize=4, linewidth=1.3)
    axis.plot([chosen["alpha"]], [chosen["validation"]["mean_nll"]], "o", markersize=11,
              markerfacecolor="none", markeredgecolor="#b35c00")
    axis.annotate(f"chosen: alpha = {plain(chosen['alpha'])}, {fixed(chosen['validation']['mean_nll'], 3)}",
                  (chosen["alpha"], chosen["validation"]["mean_nll"]), textcoords="offset points",
                  xytext=(8, -16), fontsize=8, color="#b35c00")
    axis.set_xscale("log")
    axis.invert_xaxis()
    axis.set_xlabel("pseudocount alpha (log scale; less smoothing to the right)")
    axis.set_ylabel("mean NLL (nats per target)")
    axis.grid(True, linewidth=0.3)
    axis.legend(loc="lower left", fontsize=8)
    svg = matplotlib_svg(figure)
    plt.close(figure)
    first, last = sweep[0], sweep[-1]
    alt = (f"Three curves of mean NLL against alpha from {plain(first['alpha'])} down to {plain(last['alpha'])} "
           f"on a log scale. The bigram on its own training documents falls steadily, from "
           f"{fixed(first['train']['mean_nll'], 3)} to {fixed(last['train']['mean_nll'], 3)}. On validation it falls "
           f"from {fixed(first['validation']['mean_nll'], 3)} to its lowest, {fixed(chosen['validation']['mean_nll'], 3)} "
           f"at alpha = {plain(chosen['alpha'])}, and rises again to {fixed(last['validation']['mean_nll'], 3)}. "
           f"The unigram reading stays between {fixed(min(c['unigram_validation']['mean_nll'] for c in sweep), 3)} and "
           f"{fixed(max(c['unigram_validation']['mean_nll'] for c in sweep), 3)}, above the bigram except at alpha = "
           f"{', '.join(plain(c['alpha']) for c in sweep if c['validation']['mean_nll'] > c['unigram_validation']['mean_nll'])}.")
    return svg_figure(svg, "Mean NLL of the bigram on train and on validation, and of its unigram reading on validation, for every candidate alpha",
                      "alpha-sweep", alt=alt)


def sweep_table(corpus: Trace) -> str:
    """Every candidate alpha with its three scores; the chosen row in bold."""
    baseline = corpus["baseline"]
    rows = []
    for index, candidate in enumerate(baseline["sweep"]):
        mark = (lambda text: f"**{text}**") if index == baseline["chosen"] else (lambda text: text)
        rows.append([mark(plain(candidate["alpha"])), fixed(candidate["train"]["mean_nll"], 3),
                     mark(f"{fixed(candidate['validation']['mean_nll'], 3)} ({fixed(candidate['validation']['perplexity'], 1)})"),
                     f"{fixed(candidate['unigram_validation']['mean_nll'], 3)} ({fixed(candidate['unigram_validation']['perplexity'], 1)})"])
    header = ["$\\alpha$", "bigram, train", "bigram, validation (PPL)", "unigram reading, validation (PPL)"]
    return table(header, rows, "The sweep: mean NLL per target for every candidate alpha; the chosen one in bold", "alpha-sweep-table")


def baseline_table(corpus: Trace) -> str:
    """Every model of the chapter scored on the same validation targets, and
    the chosen bigram once on test."""
    baseline = corpus["baseline"]
    vocabulary = corpus["tokenizer"]["vocabulary"]
    validation = next(score for score in corpus["partitions"] if score["name"] == "validation")
    chosen = chosen_candidate(baseline)
    unigram = best_unigram(baseline)
    uniform = math.log(vocabulary)
    rows = [
        [f"uniform over $V = {vocabulary}$", "none", fixed(uniform, 3), fixed(float(vocabulary), 1), "—"],
        ["unigram reading, $\\alpha = 1$", "none",
         fixed(baseline["add_one_unigram_validation"]["mean_nll"], 3),
         fixed(baseline["add_one_unigram_validation"]["perplexity"], 1), "—"],
        [f"unigram reading, best $\\alpha = {plain(unigram['alpha'])}$", "none",
         fixed(unigram["unigram_validation"]["mean_nll"], 3), fixed(unigram["unigram_validation"]["perplexity"], 1), "—"],
        ["bigram, $\\alpha = 1$ (printed)", "one token", fixed(validation["mean_nll"], 3),
         fixed(validation["perplexity"], 1), "—"],
        [f"**bigram, $\\alpha = {plain(chosen['alpha'])}$ (the baseline)**", "one token",
         f"**{fixed(baseline['validation']['mean_nll'], 3)}**", f"**{fixed(baseline['validation']['perplexity'], 1)}**",
         f"{fixed(baseline['test']['metrics']['mean_nll'], 3)} ({fixed(baseline['test']['metrics']['perplexity'], 1)})"],
    ]
    header = ["model", "context", "validation mean NLL", "validation PPL", "test mean NLL (PPL), read once"]
    return table(header, rows, f"Every model of the chapter on the same {validation['targets']} validation targets", "baselines")


def samples_block(corpus: Trace) -> str:
    """The seeded samples as a text block, one line each: model, seed, text
    (``\\xNN`` for a byte that is not a visible character)."""
    baseline = corpus["baseline"]
    chosen = chosen_candidate(baseline)
    lines = []
    for kind, label in (("add_one", "alpha = 1"), ("tuned", f"alpha = {plain(chosen['alpha'])}")):
        for sample in baseline["samples"][kind]:
            lines.append(f"{label:<13} seed {sample['seed']}: {sample['visible']}")
    body = "\n".join(lines)
    ticks = fence(body)
    return f"{ticks}text\n{body}\n{ticks}\n"


def samples_table(corpus: Trace) -> str:
    """Per sample: tokens drawn, escaped bytes, and transitions training never had."""
    baseline = corpus["baseline"]
    chosen = chosen_candidate(baseline)
    rows = []
    for kind, label in (("add_one", "$\\alpha = 1$"), ("tuned", f"$\\alpha = {plain(chosen['alpha'])}$")):
        for sample in baseline["samples"][kind]:
            rows.append([label, f"{sample['seed']}", f"{len(sample['tokens'])}", f"{sample['escaped_bytes']}",
                         f"{sample['unseen_transitions']}"])
    header = ["model", "seed", "tokens drawn", "bytes shown as `\\xNN`", "transitions never seen in training"]
    return table(header, rows, f"The samples counted: at most {baseline['sample_tokens']} tokens each, from BOS", "samples")


def sample_totals(corpus: Trace, kind: str) -> dict[str, int]:
    """Summed over one model's samples: tokens drawn, escaped bytes, unseen transitions."""
    samples = corpus["baseline"]["samples"][kind]
    return {"tokens": sum(len(s["tokens"]) for s in samples),
            "escaped": sum(s["escaped_bytes"] for s in samples),
            "unseen": sum(s["unseen_transitions"] for s in samples)}


def uniform_nll(corpus: Trace) -> float:
    """ln V: the mean NLL of the uniform guess over the vocabulary."""
    return math.log(corpus["tokenizer"]["vocabulary"])


def reserved_share(corpus: Trace, row_total: int) -> float:
    """alpha V / (N + alpha V) of the chosen alpha: the share of a row with
    ``row_total`` counted transitions that the pseudocounts hold."""
    reserve = chosen_candidate(corpus["baseline"])["alpha"] * corpus["tokenizer"]["vocabulary"]
    return reserve / (row_total + reserve)
