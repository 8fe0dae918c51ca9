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
  documents (``trace.corpus.boundary``).

Every number comes from the trace; nothing is typed by hand.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from tools.figures import fixed, graphviz, matplotlib_svg, plain, sci, svg_figure, table

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
