"""Figures of chapter 10, drawn from the demo's trace (``chapter-10-demo --trace``).

* :func:`alignment_table` -- each operand's shape, its shape aligned from the
  right, its effective strides and the storage offsets they read
  (``trace.broadcast``);
* :func:`reuse_figure` -- every output element with the token element and the
  bias element it reads; each bias element feeds two outputs
  (``trace.broadcast.maps``);
* :func:`reductions_table` -- each reduction's groups of storage offsets, the
  values they hold and the result (``trace.reductions``);
* :func:`errors_table` -- the requests the library refused (``trace.errors``).

The helpers :func:`reduction`, :func:`error` and :func:`values_text` format
trace values for the prose. Every number comes from the trace.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from tools.figures import graphviz, plain, shape_text, table

Trace = Mapping[str, Any]

TOKEN_FILL = "#eef3fb"
BIAS_FILL = "#e7f2e4"
OUTPUT_FILL = "#f4f4f4"
REUSE_COLOR = "#2e7d32"
NBSP = "\u00a0"  # keeps a shape such as [2, 3] on one line inside a table cell


def values_text(values: Sequence[float]) -> str:
    """``[25, 47, 69]``: values as the prose writes them."""
    return "[" + ", ".join(plain(value) for value in values) + "]"


def shape(values: Sequence[int]) -> str:
    """A shape for a table cell, kept on one line: ``[2, 3]``."""
    return shape_text(values, NBSP)


def reduction(trace: Trace, operation: str) -> Mapping[str, Any]:
    """The traced reduction named ``operation`` (sum, mean or max)."""
    for entry in trace["reductions"]:
        if entry["operation"] == operation:
            return entry
    raise KeyError(f"the trace has no {operation!r} reduction")


def error(trace: Trace, kind: str, index: int = 0) -> Mapping[str, Any]:
    """The ``index``-th traced rejection of kind ``kind``."""
    matches = [entry for entry in trace["errors"] if entry["kind"] == kind]
    if index >= len(matches):
        raise KeyError(f"the trace has no rejection {index} of kind {kind!r}")
    return matches[index]


def alignment_table(trace: Trace) -> str:
    """Both operands and the output: shape, right-aligned shape, strides, offsets."""
    plan = trace["broadcast"]
    rows = [
        ["tokens", f"`{shape(trace['tokens']['shape'])}`", f"`{shape(plan['aligned_tokens'])}`",
         f"`{shape(plan['token_strides'])}`", values_text(plan["token_offsets"])],
        ["bias", f"`{shape(trace['bias']['shape'])}`", f"`{shape(plan['aligned_bias'])}`",
         f"`{shape(plan['bias_strides'])}`", values_text(plan["bias_offsets"])],
        ["output", f"`{shape(plan['output_shape'])}`", f"`{shape(plan['output_shape'])}`",
         "(row-major, new storage)", values_text(range(len(plan["maps"])))],
    ]
    header = ["operand", "shape", "aligned from the right", "strides read through", "storage offsets, in output order"]
    return table(header, rows, "Aligning tokens and bias from the right: the missing bias axis becomes extent 1 with stride 0", "alignment")


def reuse_figure(trace: Trace) -> str:
    """Every output element and the two stored elements it reads."""
    plan = trace["broadcast"]
    tokens, bias = trace["tokens"], trace["bias"]
    columns = tokens["shape"][-1]
    lines = [
        "digraph reuse {",
        '  graph [rankdir=TB, nodesep=0.15, ranksep=0.9, fontname="Helvetica", fontsize=11];',
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11, width=0.55, height=0.4];',
        '  edge [arrowsize=0.6, color="#888888"];',
    ]
    token_nodes = []
    for offset, value in enumerate(tokens["values"]):
        row, column = divmod(offset, columns)
        token_nodes.append(f'"t{offset}" [label="{plain(value)}\\nt[{row},{column}]", fillcolor="{TOKEN_FILL}"];')
    bias_nodes = [f'"b{offset}" [label="{plain(value)}\\nb[{offset}]", fillcolor="{BIAS_FILL}"];'
                  for offset, value in enumerate(bias["values"])]
    output_nodes = []
    for index, entry in enumerate(plan["maps"]):
        coordinate = ",".join(str(c) for c in entry["output"])
        output_nodes.append(f'"y{index}" [label="{plain(entry["value"])}\\ny[{coordinate}]", fillcolor="{OUTPUT_FILL}"];')
    lines.append("  { rank=same; " + " ".join(token_nodes + bias_nodes) + " }")
    lines.append("  { rank=same; " + " ".join(output_nodes) + " }")
    for index, entry in enumerate(plan["maps"]):
        lines.append(f'  "t{entry["token_offset"]}" -> "y{index}";')
        lines.append(f'  "b{entry["bias_offset"]}" -> "y{index}" [color="{REUSE_COLOR}", penwidth=1.4];')
    lines.append("}")
    reads = {}
    for entry in plan["maps"]:
        reads.setdefault(entry["bias_offset"], []).append(entry["output"])
    reused = sum(1 for outputs in reads.values() if len(outputs) > 1)
    caption = (
        f"Each of the {len(plan['maps'])} outputs reads one token element (grey arrow) and one bias element "
        f"(green arrow); all {reused} bias elements are read twice, and none is copied"
    )
    alt = (
        f"Top row: the {len(tokens['values'])} token values {values_text(tokens['values'])} and the "
        f"{len(bias['values'])} bias values {values_text(bias['values'])}. Bottom row: the outputs "
        f"{values_text([entry['value'] for entry in plan['maps']])}, each with one arrow from a token value "
        f"and one from a bias value, so every bias value has two outgoing arrows."
    )
    return graphviz("\n".join(lines), caption, "reuse", alt=alt)


def reductions_table(trace: Trace) -> str:
    """Each reduction: axis, keep_dim, output shape, offset groups and values."""
    rows = []
    for entry in trace["reductions"]:
        groups = "; ".join(
            "{" + ", ".join(str(o) for o in offsets) + "} → " + values_text(values)
            for offsets, values in zip(entry["groups"], entry["group_values"])
        )
        rows.append([
            f"`{entry['operation']}`",
            str(entry["axis"]),
            "yes" if entry["keep_dim"] else "no",
            f"`{shape(entry['output_shape'])}`",
            groups,
            values_text(entry["values"]),
        ])
    header = ["reduction", "axis", "keep_dim", "result shape", "groups: storage offsets → values", "result"]
    return table(header, rows, "Three reductions of the biased [2, 3] tensor, one group of storage offsets per result value", "reductions")


def errors_table(trace: Trace) -> str:
    """The requests the library refused: kind, typed evidence, message."""
    rows = []
    for entry in trace["errors"]:
        rows.append([
            entry["request"],
            f"`{entry['kind']}`",
            str(entry["axis"]),
            f"`{entry['message']}`",
            f"`{entry['printed']}`",
        ])
    header = ["request", "kind", "axis()", "the library's message", "the demo's line"]
    return table(header, rows, "Requests the kernels refuse before they allocate or compute anything", "errors")
