"""Figures of chapter 32, drawn from the demo's trace (``chapter-32-demo --trace``).

* :func:`model_figure` -- the decoder as a dataflow for one position: IDs,
  the table, the stream after each stage, the tied head, logits and loss
  (``trace.stages``, ``trace.logits``);
* :func:`stage_table` -- every stage, every position (``trace.stages``);
* :func:`logits_table` -- each position's logits, prediction, target and
  loss (``trace.logits``, ``trace.position_nll``);
* :func:`roles_table` -- the tying probe's table gradient, row by row, split
  into its lookup and head roles (``trace.tying``);
* :func:`parameter_table` -- where the scalars are, tied and untied
  (``trace.parameters``).

Every number comes from the trace; nothing is typed by hand.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from tools.figures import graphviz, table

Trace = Mapping[str, Any]

FILL = {"ids": "#f4f4f4", "table": "#e7f2e4", "stream": "#eef3fb", "out": "#fdf1e6"}


def num(value: float, digits: int = 6) -> str:
    """A value as the page writes it: ``digits`` decimals without trailing zeros, ``0`` for zero."""
    text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return "0" if text in ("0", "-0") else text


def vec(values: Sequence[float], digits: int = 6) -> str:
    """``[0.10443, 0.699156, 0.051971, -0.160217]``."""
    return "[" + ", ".join(num(v, digits) for v in values) + "]"


def ids(values: Sequence[int]) -> str:
    """``[0, 1, 2]``."""
    return "[" + ", ".join(str(v) for v in values) + "]"


def uniform_loss(trace: Trace) -> float:
    """ln V: the loss of a model that gives every token the same probability."""
    return math.log(len(trace["logits"][0]))


def model_figure(trace: Trace, position: int = 1) -> str:
    """Three rows of cards: input side, the stack, the output side."""
    s = trace["stages"]
    blocks = [key for key in s if key.startswith("block_")]
    token = trace["tokens"][position]
    target = trace["targets"][position]

    def card(key: str, label: str, fill: str, extra: str = "") -> str:
        return f'  "{key}" [label="{label}", fillcolor="{fill}"{extra}];'

    lines = [
        "digraph decoder {",
        '  graph [rankdir=TB, fontname="Helvetica", fontsize=11, nodesep=0.3, ranksep=0.45];',
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];',
        '  edge [fontname="Helvetica", fontsize=9, arrowsize=0.6];',
        card("ids", f"token IDs {ids(trace['tokens'])}", FILL["ids"]),
        card("table", f"table E [{len(trace['logits'][0])}, {len(s['embedding'][0])}]\\n"
             "token_embedding.weight", FILL["table"], ", peripheries=2"),
        card("embedding", f"x_0 = E[{token}]\\n{vec(s['embedding'][position])}", FILL["stream"]),
    ]
    for index, key in enumerate(blocks):
        lines.append(card(key, f"x_{index + 1} = block {index}\\n{vec(s[key][position])}", FILL["stream"]))
    lines += [
        card("final_norm", f"n = RMSNorm(x_{len(blocks)})\\n{vec(s['final_norm'][position])}", FILL["stream"]),
        card("logits", f"logits z = n E^T\\n{vec(trace['logits'][position])}", FILL["out"]),
        card("loss", f"-log p(target {target})\\n= {num(trace['position_nll'][position])}", FILL["out"]),
        '  { rank=same; "ids"; "table"; "embedding"; }',
        '  { rank=same; ' + " ".join(f'"{key}";' for key in blocks) + ' "final_norm"; }',
        '  { rank=same; "logits"; "loss"; }',
        '  "ids" -> "embedding" [label="gather rows"];',
        '  "table" -> "embedding" [label="lookup"];',
        f'  "embedding" -> "{blocks[0] if blocks else "final_norm"}";',
    ]
    for first, second in zip(blocks, blocks[1:] + ["final_norm"]):
        lines.append(f'  "{first}" -> "{second}";')
    lines += [
        '  "final_norm" -> "logits";',
        '  "table" -> "logits" [style=dashed, label="head: E^T"];',
        '  "logits" -> "loss";',
        "}",
    ]
    caption = (f"The tied decoder at position {position} (token {token}, target {target}). The one table E is read "
               "twice: rows are looked up at the bottom, and its transpose scores the final stream at the top "
               "(dashed).")
    alt = (f"Dataflow for position {position}: token {token} looks up x_0 = {vec(s['embedding'][position])} in the "
           f"table E; {len(blocks)} blocks turn it into {vec(s[blocks[-1]][position]) if blocks else 'the same row'}; "
           f"the final RMSNorm gives {vec(s['final_norm'][position])}; multiplying by the transpose of the same table "
           f"gives logits {vec(trace['logits'][position])} and a loss of {num(trace['position_nll'][position])} "
           f"for target {target}.")
    return graphviz("\n".join(lines), caption, "decoder-flow", alt=alt)


def stage_table(trace: Trace) -> str:
    """Every stage's rows, positions as columns."""
    s = trace["stages"]
    names = {"embedding": "embedding $x_0$", "final_norm": "final RMSNorm $n$"}
    rows = []
    for key, values in s.items():
        if key in names:
            label = names[key]
        else:
            layer = int(key.split("_")[1])
            label = f"after block {layer} $x_{layer + 1}$"
        rows.append([label, *[f"`{vec(row)}`" for row in values]])
    header = ["stage", *[f"position {t} (token {z})" for t, z in enumerate(trace["tokens"])]]
    return table(header, rows, "The stream through the model: every stage is [1, 3, 4]", "stages")


def logits_table(trace: Trace) -> str:
    """Each position: input token, logits, prediction, target and its loss."""
    rows = []
    for t, row in enumerate(trace["logits"]):
        rows.append([str(t), str(trace["tokens"][t]), f"`{vec(row)}`", str(trace["predictions"][t]),
                     str(trace["targets"][t]), num(trace["position_nll"][t])])
    return table(["position", "token", "logits over the 5 tokens", "argmax", "target",
                  "$-\\log p(\\text{target})$"], rows,
                 f"Logits [1, 3, 5] and the per-position loss; their mean is {num(trace['mean_loss'])}", "logits")


def roles_table(trace: Trace) -> str:
    """The probe's table gradient by row: lookup role + head role = full."""
    g = trace["tying"]
    rows = []
    for r, (lookup, head, full) in enumerate(zip(g["lookup_role"], g["head_role"], g["full"])):
        rows.append([str(r), f"`{vec(lookup, 4)}`", f"`{vec(head, 4)}`", f"`{vec(full, 4)}`"])
    return table(["row", "lookup role", "head role", "full gradient"], rows,
                 "The tying probe: the table's gradient, one row per token, split by role (4 decimals)", "roles")


def parameter_table(trace: Trace) -> str:
    """Scalars per group of parameters."""
    p = trace["parameters"]
    groups: dict[str, list[int]] = {}
    for name, size in zip(p["names"], p["sizes"]):
        key = ".".join(name.split(".")[:2]) if name.startswith("blocks.") else name
        groups.setdefault(key, []).append(size)
    rows = [[f"`{key}`" + (" (9 tensors)" if key.startswith("blocks.") else ""), str(sum(sizes))]
            for key, sizes in groups.items()]
    rows.append(["total, tied head", str(p["scalars"])])
    rows.append(["an untied head adds `head.weight` [4, 5]", str(p["untied_scalars"] - p["scalars"])])
    rows.append(["total, untied head", str(p["untied_scalars"])])
    return table(["parameters", "scalars"], rows, "Where the parameters are", "parameters")


def refusal_table(trace: Trace) -> str:
    """The four refused requests."""
    rows = [[r["request"], f"`{r['kind']}`", r["message"]] for r in trace["refusals"]]
    return table(["request", "kind", "message"], rows, "The requests the model refuses", "refusals")


def nums(values: Sequence[float]) -> str:
    """``1.382345, 3.006661, 1.747601``: values for prose."""
    return ", ".join(num(v) for v in values)


def short_sci(value: float) -> str:
    """``2.8e-17``: a tiny magnitude with two significant digits."""
    return f"{value:.1e}"


def hits(trace: Trace) -> int:
    """How many positions' argmax equals their target."""
    return sum(1 for p, t in zip(trace["predictions"], trace["targets"]) if p == t)


def costlier_than_uniform(trace: Trace) -> int:
    """How many positions give their target less than the uniform 1/V."""
    return sum(1 for loss in trace["position_nll"] if loss > uniform_loss(trace))
