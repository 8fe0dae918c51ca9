"""Figures of chapter 23, drawn from the demo's trace (``chapter-23-demo --trace``).

* :func:`pipeline_figure` -- the untrained model's pass over the prompt's two
  IDs: embeddings, the concatenated row, the hidden vector and the logits,
  each with its shape and values (``trace.probe``);
* :func:`order_table` -- the hidden vector for the two IDs in both orders
  (``trace.probe``);
* :func:`parameter_table` -- the five parameters, their shapes, sizes and
  first-step gradient L1 norms (``trace.config``, ``trace.first_gradient_l1``);
* :func:`loss_figure` -- train and validation loss at every checkpoint, the
  selected one, and the baselines' validation losses (``trace.checkpoints``,
  ``trace.bigram``);
* :func:`comparison_table` -- validation mean NLL and perplexity of every
  model on the same targets (``trace.checkpoints``, ``trace.bigram``).

Every number comes from the trace; nothing is typed by hand.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from tools.figures import fixed, graphviz, matplotlib_svg, plain, svg_figure, table

Trace = Mapping[str, Any]

FILL = {"ids": "#eef3fb", "features": "#fdf1e6", "hidden": "#e7f2e4", "logits": "#f4f4f4"}


def values_text(values: Sequence[float], digits: int = 6) -> str:
    """``[0.064154, 0.021328]``: the demo's six-decimal lists."""
    return "[" + ", ".join(fixed(value, digits) for value in values) + "]"


def ids_text(ids: Sequence[int]) -> str:
    """``[67, 118]``."""
    return "[" + ", ".join(str(token) for token in ids) + "]"


def shape_text(shape: Sequence[int]) -> str:
    """``[1, 2, 4]``."""
    return ids_text(shape)


def selected(trace: Trace) -> Mapping[str, Any]:
    """The checkpoint with the lowest validation loss."""
    return trace["checkpoints"][trace["selected"]]


def generated_text(trace: Trace) -> str:
    """The greedy continuation's bytes as UTF-8 (invalid sequences shown as U+FFFD)."""
    return bytes.fromhex(trace["generation"]["bytes_hex"]).decode("utf-8", errors="replace")


def epoch_of(trace: Trace, step: int) -> int:
    """The number of whole epochs after ``step`` updates."""
    return step // trace["data"]["train_batches"]


def _wrapped(values: Sequence[float], per_line: int = 4, digits: int = 3) -> str:
    lines = [", ".join(fixed(v, digits) for v in values[i:i + per_line]) for i in range(0, len(values), per_line)]
    return "[" + ",\\n ".join(lines) + "]"


def pipeline_figure(trace: Trace) -> str:
    """The five stages of the untrained model on the prompt, in two rows of cards."""
    p = trace["probe"]
    c = trace["config"]
    emb = p["embeddings"]["values"]
    d = c["embedding"]
    node = '  "{0}" [label="{1}", fillcolor="{2}"];'
    lines = [
        "digraph pipeline {",
        '  graph [rankdir=TB, fontname="Helvetica", fontsize=12, nodesep=0.5, ranksep=0.5, newrank=true];',
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=12];',
        '  edge [fontname="Helvetica", fontsize=11, arrowsize=0.7];',
        node.format("ids", f"context IDs [1, {c['context']}]\\n{ids_text(p['context_ids'])}  (\\\"{trace['prompt']}\\\")",
                    FILL["ids"]),
        node.format("emb", f"embeddings {shape_text(p['embeddings']['shape'])}\\nrow {p['context_ids'][0]}: "
                    f"{_wrapped(emb[:d])}\\nrow {p['context_ids'][1]}: {_wrapped(emb[d:])}", FILL["features"]),
        node.format("cat", f"concatenated {shape_text(p['concatenated']['shape'])}\\n"
                    f"{_wrapped(p['concatenated']['values'])}", FILL["features"]),
        node.format("hid", f"hidden {shape_text(p['hidden']['shape'])}\\n{_wrapped(p['hidden']['values'], digits=4)}",
                    FILL["hidden"]),
        node.format("log", f"logits {shape_text(p['logits_shape'])}\\nfirst three: "
                    f"{_wrapped(p['logits_preview'][:3], per_line=3, digits=6)}\\nlargest: ID {p['argmax']}, "
                    f"{fixed(p['argmax_logit'], 6)}", FILL["logits"]),
        '  subgraph top { rank=same; "ids"; "emb"; "cat"; }',
        '  subgraph bottom { rank=same; "hid"; "log"; }',
        '  "ids" -> "emb" [label="look up"];',
        '  "emb" -> "cat" [label="reshape"];',
        '  "cat" -> "hid" [label="SwiGLU", constraint=false];',
        '  "hid" -> "log" [label="× W_o"];',
        '  "ids" -> "hid" [style=invis];',
        "}",
    ]
    caption = (f"The untrained model on the prompt `{trace['prompt']}`: concatenation is a reshape and moves no "
               "value, and every logit is within a few thousandths of zero.")
    alt = (f"Five stages: context IDs {ids_text(p['context_ids'])}, their two embedding rows of "
           f"{d} values, the same eight values as one concatenated row, then on a second row a hidden vector of "
           f"{c['hidden']} values all within 0.005 of zero and {c['vocabulary']} logits whose largest is ID "
           f"{p['argmax']} at {fixed(p['argmax_logit'], 6)}.")
    return graphviz("\n".join(lines), caption, "pipeline", alt=alt)


def order_table(trace: Trace) -> str:
    """The hidden vector of the prompt's two IDs in both orders, one row per feature."""
    p = trace["probe"]
    forward, backward = p["hidden"]["values"], p["swapped_hidden"]["values"]
    rows = [[str(i), fixed(a, 6), fixed(b, 6)] for i, (a, b) in enumerate(zip(forward, backward))]
    return table(["feature of $h$", f"context `{ids_text(p['context_ids'])}`",
                  f"context `{ids_text(p['swapped_ids'])}`"], rows,
                 "The same two tokens in the two orders give different hidden vectors (untrained model)", "order")


def parameter_table(trace: Trace) -> str:
    """Name, shape, size and first-step gradient L1 of each parameter.

    The names' shared prefix (``ngram.``) is said once, in the caption, so
    that the table fits a 390 px phone (with it, in code that does not wrap,
    the table was 390 px wide there).
    """
    c = trace["config"]
    v, d, h, f = c["vocabulary"], c["embedding"], c["hidden"], c["features"]
    shapes = [[v, d], [f, h], [f, h], [h, h], [h, v]]
    names = trace["parameter_names"]
    prefix = names[0].split(".", 1)[0] + "."
    if not all(name.startswith(prefix) for name in names):
        raise ValueError(f"the parameter names do not share the prefix {prefix!r}: {names}")
    rows = []
    for name, shape, l1 in zip(names, shapes, trace["first_gradient_l1"]):
        rows.append([f"`{name.removeprefix(prefix)}`", f"`{shape_text(shape)}`", str(shape[0] * shape[1]), fixed(l1, 6)])
    rows.append(["total", "", str(sum(a * b for a, b in shapes)), ""])
    return table(["parameter", "shape", "values", "first gradient, L1 norm"], rows,
                 f"The five parameters in initialization order, each name after `{prefix}`", "parameters",
                 fits_phone=True)


def baselines(trace: Trace) -> list[tuple[str, float]]:
    """The validation losses the neural n-gram is compared with, on its own targets."""
    b = trace["bigram"]
    return [("uniform over the vocabulary", b["uniform"]),
            ("add-one bigram (chapter 7)", b["add_one_same_targets"]),
            (f"bigram, α = {plain(b['tuned_alpha'])} chosen on validation (chapter 7)", b["tuned_same_targets"])]


def loss_figure(trace: Trace) -> str:
    """Train and validation loss by step, the selected checkpoint, and the baselines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = trace["checkpoints"]
    steps = [p["step"] for p in points]
    best = selected(trace)
    figure, axis = plt.subplots(figsize=(6.0, 3.8))
    axis.plot(steps, [p["train"] for p in points], marker="o", markersize=3, color="#336699", label="train")
    axis.plot(steps, [p["validation"] for p in points], marker="s", markersize=3, color="#b35c00",
              label="validation")
    for (label, value), style in zip(baselines(trace), (":", "--", "-.")):
        axis.axhline(value, color="#777777", linestyle=style, linewidth=1, label=f"{label}, validation")
    axis.plot([best["step"]], [best["validation"]], marker="*", markersize=12, color="#b35c00", linestyle="none",
              label="selected")
    axis.set_xlabel("AdamW step")
    axis.set_ylabel("mean NLL (nats per target)")
    axis.legend(loc="upper right", fontsize=8)
    svg = matplotlib_svg(figure)
    plt.close(figure)
    first, last = points[0], points[-1]
    alt = (f"Line plot of mean NLL against step from 0 to {last['step']}: train falls from {fixed(first['train'], 3)} "
           f"to {fixed(last['train'], 3)}, validation from {fixed(first['validation'], 3)} to its lowest "
           f"{fixed(best['validation'], 3)} at step {best['step']} and back up to {fixed(last['validation'], 3)}; "
           + "; ".join(f"the {label} scores {fixed(value, 3)}" for label, value in baselines(trace)) + ".")
    caption = (f"Both losses every {trace['config']['epochs'] // (len(points) - 1)} epochs; the star marks the "
               "checkpoint with the lowest validation loss, the one the run keeps.")
    return svg_figure(svg, caption, "losses", alt=alt)


def comparison_table(trace: Trace) -> str:
    """Validation mean NLL and perplexity, every model on the same targets."""
    points = trace["checkpoints"]
    best = selected(trace)
    rows = [[label, fixed(value, 6), fixed(math.exp(value), 3)] for label, value in baselines(trace)]
    rows.append(["neural n-gram, untrained (step 0)", fixed(points[0]["validation"], 6),
                 fixed(math.exp(points[0]["validation"]), 3)])
    rows.append([f"neural n-gram, selected (step {best['step']})", fixed(best["validation"], 6),
                 fixed(math.exp(best["validation"]), 3)])
    rows.append([f"neural n-gram, last (step {points[-1]['step']})", fixed(points[-1]["validation"], 6),
                 fixed(math.exp(points[-1]["validation"]), 3)])
    n = trace["bigram"]["same_targets"]
    return table(["model", "validation mean NLL", "perplexity"], rows,
                 f"Every model on the same {n} validation targets", "comparison")


def number(value: float) -> str:
    """A count or an exact value written plainly."""
    return plain(value)
