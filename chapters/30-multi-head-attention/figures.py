"""Figures of chapter 30, drawn from the demo's trace (``chapter-30-demo --trace``).

* :func:`flow_figure` -- the layer as a dataflow, each node with its shape
  from the run (``trace``'s tensors and ``config``);
* :func:`weights_table` -- each head's causal attention rows beside the one
  table of a single full-width head (``trace.weights``,
  ``trace.single_head_weights``);
* :func:`mixing_table` -- the merged heads and the output after W_O, token
  by token (``trace.merged``, ``trace.output``);
* :func:`seeded_table` -- the layer with seeded Xavier-uniform weights: its
  heads' rows, its output, and its output with W_Q and W_K exchanged
  (``trace.seeded``);
* :func:`refusal_table` -- every refused request, its kind and message
  (``trace.refusals``).

Every number comes from the trace; nothing is typed by hand.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from tools.figures import fixed, graphviz, plain, shape_text, table  # noqa: F401 (plain: used by chapter.md)

Trace = Mapping[str, Any]


def num(value: float, digits: int = 6) -> str:
    """A value with six decimals, as the demo prints it, ``-0`` written as ``0``."""
    text = fixed(value, digits)
    return text[1:] if text.startswith("-") and float(text) == 0.0 else text


def vec(values: Sequence[float], digits: int = 6) -> str:
    """``[0.770151, -0.420735]``: a vector for prose and tables."""
    return "[" + ", ".join(num(v, digits) for v in values) + "]"


def rows_of(values: Sequence[float], width: int) -> list[list[float]]:
    """Consecutive rows of ``width`` values."""
    return [list(values[i:i + width]) for i in range(0, len(values), width)]


def flow_figure(trace: Trace) -> str:
    """X -> Q, K, V -> heads -> RoPE -> causal attention per head -> merge -> W_O -> Y, with shapes."""
    config = trace["config"]
    heads = config["heads"]
    x = shape_text(trace["input"]["shape"])
    split = shape_text(trace["query_heads"]["shape"])
    weights = shape_text(trace["weights"]["shape"])
    outputs = shape_text(trace["head_outputs"]["shape"])
    merged = shape_text(trace["merged"]["shape"])
    y = shape_text(trace["output"]["shape"])
    d = config["model_width"]
    lines = [
        "digraph mha {",
        '  graph [rankdir=TB, fontname="Helvetica", fontsize=11, nodesep=0.25, ranksep=0.3];',
        '  node [shape=box, style="rounded,filled", fillcolor="#f4f4f4", fontname="Helvetica", fontsize=10];',
        '  edge [arrowsize=0.6];',
        f'  x [label="X {x}"];',
        f'  q [label="Q = X W_Q {x}"]; k [label="K = X W_K {x}"]; v [label="V = X W_V {x}"];',
        "  { rank=same; q; k; v; }",
        f'  qh [label="RoPE(split Q) {split}", fillcolor="#eef3fb"];',
        f'  kh [label="RoPE(split K) {split}", fillcolor="#eef3fb"];',
        f'  vh [label="split V {split}"];',
        "  { rank=same; qh; kh; vh; }",
        f'  a [label="{heads} causal weight tables {weights}", fillcolor="#fdf1e6"];',
        f'  o [label="head outputs {outputs}", fillcolor="#fdf1e6"];',
        "  { rank=same; a; o; }",
        f'  m [label="merge {merged}"]; y [label="Y = merged W_O {y}", fillcolor="#e7f2e4", peripheries=2];',
        "  { rank=same; m; y; }",
        "  x -> q; x -> k; x -> v; q -> qh; k -> kh; v -> vh;",
        "  qh -> a; kh -> a; a -> o; vh -> o; o -> m; m -> y;",
        "}",
    ]
    caption = (f"One pass of the layer with the run's shapes: width {d} split into {heads} heads of width "
               f"{config['head_width']}. Blue: the only rotated tensors; orange: the per-head attention; green: "
               "the only step that mixes heads.")
    alt = (f"Dataflow: X {x} is projected to Q, K and V {x}; each is split into {heads} heads {split}; the query "
           f"and key heads are rotated; each head computes its own causal weights {weights} and output {outputs}; "
           f"the outputs are merged to {merged} and multiplied by W_O to give Y {y}.")
    return graphviz("\n".join(lines), caption, "flow", alt=alt)


def weights_table(trace: Trace) -> str:
    """Row by row: head 0's, head 1's and a single full-width head's causal weights."""
    tokens = trace["config"]["tokens"]
    heads = trace["config"]["heads"]
    per_head = rows_of(trace["weights"]["values"], tokens)
    single = rows_of(trace["single_head_weights"]["values"], tokens)
    rows = []
    for query in range(tokens):
        rows.append([str(query)] + [vec(per_head[h * tokens + query]) for h in range(heads)]
                    + [vec(single[query])])
    header = ["query position"] + [f"head {h}" for h in range(heads)] + ["one head over all features"]
    return table(header, rows, "Causal attention rows: each head normalizes its own, over the keys it may see",
                 "head-weights")


def mixing_table(trace: Trace) -> str:
    """Per token: the merged row (head 0's output, then head 1's) and Y = merged W_O.

    Whole rows, not a column per half, so that the table fits a 390 px phone
    (four columns of pairs were 413 px wide there); each row wraps between
    its halves where the column is narrow.
    """
    width = trace["config"]["model_width"]
    half = trace["config"]["head_width"]
    merged = rows_of(trace["merged"]["values"], width)
    output = rows_of(trace["output"]["values"], width)
    rows = [[str(t), vec(m), vec(o)] for t, (m, o) in enumerate(zip(merged, output))]
    return table(["token", f"merged (features 0-{half - 1} from head 0, {half}-{width - 1} from head 1)", "$Y$"], rows,
                 "The merge puts the heads side by side; W_O swaps the two blocks", "mixing", fits_phone=True)


def seeded_table(trace: Trace) -> str:
    """The seeded layer: per query position, both heads' rows; then Y and Y with W_Q, W_K exchanged."""
    config = trace["config"]
    tokens, width = config["tokens"], config["model_width"]
    seeded = trace["seeded"]
    per_head = rows_of(seeded["weights"]["values"], tokens)
    output = rows_of(seeded["output"]["values"], width)
    swapped = rows_of(seeded["swapped_output"]["values"], width)
    rows = [[str(t), vec(per_head[t], 3), vec(per_head[tokens + t], 3), vec(output[t], 3),
             vec(swapped[t], 3)] for t in range(tokens)]
    return table(["token", "head 0 row", "head 1 row", "Y", "Y with W_Q and W_K exchanged"], rows,
                 f"A layer with Xavier-uniform weights (seed {config['seed']}) on the same input", "seeded")


def refusal_table(trace: Trace) -> str:
    """Each refused request, its error kind and the library's message."""
    rows = [[entry["request"], entry["kind"], f"\u201c{entry['message']}\u201d"] for entry in trace["refusals"]]
    return table(["request", "error kind", "message"], rows, "What the layer refuses", "refusals", fits_phone=True)
