"""Figures of chapter 37, drawn from the demo's trace (``chapter-37-demo --trace``).

* :func:`timeline_figure` -- the three steps side by side: for each head the
  cached key rows (the appended one marked) and the new query's weights
  (``trace.steps``);
* :func:`match_table` -- each cached output against the last row of full
  attention, for the fixture layer and for a layer of random weights
  (``trace.steps``, ``trace.random``);
* :func:`work_table` -- projection rows per step with and without the cache
  (``trace.steps``);
* :func:`refusal_table` -- the eight refused requests and their error kinds
  (``trace.errors``).

Every number comes from the trace; nothing is typed by hand.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from tools.figures import card, card_field, dot_head, fixed, graphviz, html_text, table

Trace = Mapping[str, Any]

KEPT = "#eef3fb"
APPENDED = "#fdf1e6"


def vec(values: Sequence[float], digits: int = 6) -> str:
    """``[0.213809, 0.786191]``: a list with ``digits`` decimals, negative zero as 0."""
    return "[" + ", ".join(fixed(0.0 if value == 0 else value, digits) for value in values) + "]"


def rows_of(values: Sequence[float], width: int) -> list[list[float]]:
    """A flat list cut into rows of ``width``."""
    return [list(values[i:i + width]) for i in range(0, len(values), width)]


def _key_rows(head: Mapping[str, Any], width: int) -> str:
    """The cached key rows of one head as a small table, the last (appended) row shaded."""
    rows = rows_of(head["keys"], width)
    cells = []
    for index, row in enumerate(rows):
        fill = APPENDED if index == len(rows) - 1 else KEPT
        text = html_text(vec(row, 3))
        cells.append(f'<TR><TD BGCOLOR="{fill}" ALIGN="RIGHT">{index}: {text}</TD></TR>')
    return f'<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="2">{"".join(cells)}</TABLE>'


def timeline_figure(trace: Trace) -> str:
    """One card per step: the cache length, and per head its key rows and the new query's weights."""
    width = trace["config"]["head_width"]
    lines = dot_head("timeline", {"rankdir": "LR", "nodesep": 0.25, "ranksep": 0.3},
                     {"shape": "plaintext", "fontsize": 10}, {"arrowsize": 0.6})
    names = []
    for step in trace["steps"]:
        fields = [card_field("cache", f"{step['cache_before']} → {step['cache_after']}")]
        for head_index, head in enumerate(step["heads"]):
            fields.append(card_field(f"head {head_index} keys", _key_rows(head, width)))
            fields.append(card_field(f"head {head_index} weights", html_text(vec(head["weights"], 3))))
        name = f"step{step['position']}"
        names.append(name)
        label = card(f"position {step['position']}", fields, subtitle=f"shape {step['cache_shape']}")
        lines.append(f"  {name} [label={label}];")
    lines.append("  " + " -> ".join(names) + ";")
    lines.append("}")
    last = trace["steps"][-1]
    caption = ("Three cached steps. Each card lists, per head, the rotated key rows the new query reads "
               "(shaded blue: kept from earlier steps; orange: appended by this step) and the query's "
               "weights over them.")
    alt = (f"Three cards for positions 0, 1 and 2. The cache grows from 0 to {last['cache_after']} rows; "
           f"at position {last['position']} head 0 weighs its {len(last['heads'][0]['weights'])} keys "
           f"{vec(last['heads'][0]['weights'], 3)} and head 1 weighs {vec(last['heads'][1]['weights'], 3)}.")
    return graphviz("\n".join(lines), caption, "cache-timeline", alt=alt)


def match_table(trace: Trace) -> str:
    """Cached output, full-attention last row and their difference, for both layers."""
    rows = []
    random_name = f"random (seed {trace['random']['seed']})"
    for layer, steps in (("fixture", trace["steps"]), (random_name, trace["random"]["steps"])):
        for step in steps:
            rows.append([layer, str(step["position"]), f"`{vec(step['cached_output'])}`",
                         f"`{vec(step['full_output'])}`", f"`{fixed(step['max_abs_difference'])}`",
                         "yes" if step["bit_identical"] else "no"])
    return table(["layer", "position", "cached output", "full attention, last row", "max abs diff",
                  "same bits"], rows, "Each cached step against full causal attention over its prefix", "match")


def work_table(trace: Trace) -> str:
    """Rows each projection computes per step, with and without the cache."""
    rows = []
    for step in trace["steps"]:
        rows.append([str(step["position"]), str(step["position"] + 1), "1", str(step["position"]),
                     str(len(step["heads"][0]["weights"]))])
    w = trace["work"]
    rows.append(["total", str(w["full_rows_per_projection"]), str(w["incremental_rows_per_projection"]),
                 str(w["reused_rows_per_kv_projection"]), ""])
    return table(["position", "rows without cache", "rows with cache", "rows reused", "keys read"], rows,
                 "Rows per projection (query, key or value) at each step", "work")


def refusal_table(trace: Trace) -> str:
    """The eight refused requests with the error each threw."""
    rows = [[f"`{entry['label']}`", f"`{entry['error']}`", "yes" if entry["refused_unchanged"] else "no"]
            for entry in trace["errors"]]
    return table(["request", "error (area/kind)", "cache unchanged"], rows,
                 "Eight requests the cache refuses", "refusals")
