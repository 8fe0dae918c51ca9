"""Figures of chapter 9, drawn from the demo's trace (``chapter-09-demo --trace``).

* :func:`views_figure` -- the owner's six stored values and the four views
  that read them (base, reshape, transpose, slice), each as a grid of
  values with the storage offset it reads, plus the materialized copy with
  its own storage (``trace.storage``, ``trace.views``, ``trace.materialized``);
* :func:`offsets_plot` -- storage offset against logical position for each
  view, with the stride walker's runs drawn as segments (``trace.views[*].runs``);
* :func:`copy_table` -- where each value of the materialized slice came from
  (``trace.materialized``);
* :func:`errors_table` -- the three refused requests: kind, the library's
  message and the reference edition's sentence (``trace.errors``);
* :func:`heads_table` -- splitting [B, T, C] into heads and merging them back
  (``trace.heads``);
* :func:`packed_qkv_table` -- the keys sliced out of a packed [B, T, 3C]
  projection, copied once, then split into heads (``trace.packed_qkv``).

The helpers :func:`view_of`, :func:`list_text` and :func:`values_text`
format trace values for the prose. Every number comes from the trace.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from tools.figures import graphviz, html_text, matplotlib_svg, plain, shape_text, svg_figure, table

Trace = Mapping[str, Any]

SHARED = "#eef3fb"
COPIED = "#e7f2e4"
STORAGE = "#f4f4f4"
NBSP = "\u00a0"


def view_of(trace: Trace, view_id: str) -> Mapping[str, Any]:
    """The traced view with id ``view_id`` (``base``, ``reshape``, ``transpose``, ``slice``)."""
    for view in trace["views"]:
        if view["id"] == view_id:
            return view
    raise KeyError(f"the trace has no view {view_id!r}")


def list_text(values: Sequence[float]) -> str:
    """``[0, 3, 1]``: integers or integral values without a fraction."""
    return "[" + ", ".join(plain(value) for value in values) + "]"


def values_text(values: Sequence[float]) -> str:
    """``[10, 20, 11]``: values as the prose writes them."""
    return list_text(values)


def yes_no(flag: bool) -> str:
    return "yes" if flag else "no"


def _grid(shape: Sequence[int], values: Sequence[float], offsets: Sequence[int], fill: str) -> str:
    """The rows of an HTML-like table: one cell per element, its value over
    the storage offset it reads."""
    columns = shape[-1] if shape else 1
    rows = []
    for start in range(0, len(values), columns):
        cells = "".join(
            f'<TD BGCOLOR="{fill}">{plain(value)}<BR/><FONT POINT-SIZE="8">@{offset}</FONT></TD>'
            for value, offset in zip(values[start : start + columns], offsets[start : start + columns])
        )
        rows.append(f"<TR>{cells}</TR>")
    return "".join(rows)


def _card(title: str, facts: Sequence[str], shape: Sequence[int], values: Sequence[float], offsets: Sequence[int],
          fill: str) -> str:
    columns = max(shape[-1] if shape else 1, 1)
    header = (f'<TR><TD COLSPAN="{columns}" BORDER="0"><B>{html_text(title)}</B><BR/>'
              f'<FONT POINT-SIZE="9">{"<BR/>".join(html_text(line) for line in facts)}</FONT></TD></TR>')
    return (f'<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="4">{header}'
            f"{_grid(shape, values, offsets, fill)}</TABLE>>")


def views_figure(trace: Trace) -> str:
    """One owner, four views over its storage, and one explicit copy."""
    storage = trace["storage"]["values"]
    offsets_row = "".join(f'<TD BGCOLOR="{STORAGE}"><FONT POINT-SIZE="8">{k}</FONT></TD>' for k in range(len(storage)))
    values_row = "".join(f'<TD BGCOLOR="{STORAGE}">{plain(value)}</TD>' for value in storage)
    lines = [
        "digraph views {",
        '  graph [rankdir=TB, fontname="Helvetica", fontsize=11, nodesep=0.35, ranksep=0.55];',
        '  node [shape=plaintext, fontname="Helvetica", fontsize=11];',
        '  edge [fontname="Helvetica", fontsize=9, arrowsize=0.7];',
        f'  storage [label=<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="4">'
        f'<TR><TD COLSPAN="{len(storage) + 1}" BORDER="0"><B>owner storage (one block, {len(storage)} doubles)</B></TD></TR>'
        f'<TR><TD BORDER="0"><FONT POINT-SIZE="8">offset</FONT></TD>{offsets_row}</TR>'
        f'<TR><TD BORDER="0"><FONT POINT-SIZE="8">value</FONT></TD>{values_row}</TR></TABLE>>];',
    ]
    names = []
    for view in trace["views"]:
        name = f'view_{view["id"]}'
        names.append(name)
        facts = [f'shape {shape_text(view["shape"])}, strides {shape_text(view["strides"])}',
                 f'base {view["base"]}, contiguous: {yes_no(view["contiguous"])}']
        lines.append(f'  {name} [label={_card(view["operation"], facts, view["shape"], view["values"], view["offsets"], SHARED)}];')
        lines.append(f'  storage -> {name} [label="{"shared" if view["shares_owner_storage"] else "copied"}"];')
    lines.append(f'  {{ rank=same; {"; ".join(names)}; }}')
    copy = trace["materialized"]
    facts = [f'shape {shape_text(copy["shape"])}, strides {shape_text(copy["strides"])}', "base 0, its own storage"]
    lines.append(f'  copy [label={_card("slice.materialize()", facts, copy["shape"], copy["values"], list(range(len(copy["values"]))), COPIED)}];')
    lines.append('  view_slice -> copy [style=dashed, label="copies 4 values"];'.replace("4", str(len(copy["values"]))))
    lines.append("}")
    transpose = view_of(trace, "transpose")
    caption = ("Four views share the owner's storage and differ only in shape, strides and base; "
               "only `materialize()` writes values into new storage")
    alt = (f"The owner's storage, offsets 0 to {len(storage) - 1} holding {values_text(storage)}, at the top; below it "
           "four views as grids whose cells show a value and the offset it reads: the base view and the reshape read "
           f"offsets in order, the transpose reads {list_text(transpose['offsets'])}, the slice reads "
           f"{list_text(view_of(trace, 'slice')['offsets'])} from base 1; a dashed arrow leads from the slice to its "
           f"materialized copy {values_text(copy['values'])} in new storage.")
    return graphviz("\n".join(lines), caption, "views", alt=alt)


def offsets_plot(trace: Trace) -> str:
    """Storage offset against logical position, one panel per distinct walk."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [view_of(trace, "reshape"), view_of(trace, "transpose"), view_of(trace, "slice")]
    figure, axes = plt.subplots(1, len(panels), figsize=(8.4, 2.8), sharey=True)
    for axis, view in zip(axes, panels):
        offsets = view["offsets"]
        axis.plot(range(len(offsets)), offsets, ":", color="#999999", linewidth=0.8)
        position = 0
        for run in view["runs"]:
            xs = list(range(position, position + run["count"]))
            ys = [run["first"] + i * run["step"] for i in range(run["count"])]
            axis.plot(xs, ys, "-o", color="#336699", linewidth=2.2, markersize=4)
            position += run["count"]
        for k, offset in enumerate(offsets):
            axis.annotate(plain(view["values"][k]), (k, offset), textcoords="offset points", xytext=(0, 6),
                          ha="center", fontsize=7)
        axis.set_title(f'{view["operation"]}\nstrides {shape_text(view["strides"])}, '
                       f'{len(view["runs"])} run{"s" if len(view["runs"]) != 1 else ""}', fontsize=9)
        axis.set_xlabel("logical position (row-major)", fontsize=8)
        axis.set_xticks(range(len(offsets)))
        axis.grid(True, linewidth=0.3)
    axes[0].set_ylabel("storage offset read", fontsize=8)
    axes[0].set_yticks(range(len(trace["storage"]["values"])))
    axes[0].set_ylim(-0.6, len(trace["storage"]["values"]) - 0.2)
    svg = matplotlib_svg(figure)
    plt.close(figure)
    described = "; ".join(
        f'{view["operation"]} reads offsets {list_text(view["offsets"])} in '
        f'{len(view["runs"])} run{"s" if len(view["runs"]) != 1 else ""} of step {view["runs"][0]["step"]}'
        for view in panels)
    alt = ("Three panels plot the storage offset each view reads against the logical position, with the stride "
           f"walker's runs drawn as thick segments: {described}.")
    return svg_figure(svg, "The order each view reads storage in: thick segments are the runs the stride walker "
                      "hands a kernel, dotted lines the jumps between runs", "offsets", alt=alt)


def copy_table(trace: Trace) -> str:
    """The provenance of each value of the materialized slice."""
    copy = trace["materialized"]
    rows = [[f"{k}", f"{source}", plain(value)] for k, (source, value) in enumerate(zip(copy["source_offsets"], copy["values"]))]
    return table(["offset in the new storage", "offset in the owner's storage", "value"], rows,
                 f"`materialize()` of the slice: {len(rows)} values copied into a new row-major block", "copy")


def errors_table(trace: Trace) -> str:
    """The three refused requests, with the library's message and the reference sentence."""
    rows = [[f"`{error['request']}` refused with `{error['kind']}`", html_text(error["message"]),
             html_text(error["reference_wording"])] for error in trace["errors"]]
    return table(["request and error kind", "the library's message (`what()`)", "printed by the demo"], rows,
                 "Requests a view refuses, as the demo ran them; the owner and the view are unchanged after each",
                 "errors")


def heads_table(trace: Trace) -> str:
    """Splitting [B, T, C] into heads and merging them back."""
    rows = []
    for step in trace["heads"]["steps"]:
        rows.append([f"`{step['step']}`", shape_text(step["shape"], NBSP), shape_text(step["strides"], NBSP),
                     yes_no(step["contiguous"]), yes_no(step["shares_x"])])
    shape = shape_text(trace["heads"]["input"]["shape"])
    return table(["step", "shape", "strides", "contiguous", "shares $x$"], rows,
                 f"Two heads of $x$ with shape {shape}: split and merged by views, then merged from a fresh "
                 "result, which needs a copy", "heads")


def packed_qkv_table(trace: Trace) -> str:
    """The K slice of a packed [B, T, 3C] projection on its way to [B, H, T, D]."""
    packed = trace["packed_qkv"]
    rows = [[f"`{step['step']}`", step["layout"].replace(" ", NBSP), shape_text(step["shape"], NBSP),
             shape_text(step["strides"], NBSP), str(step["base"]), yes_no(step["contiguous"])]
            for step in packed["steps"]]
    shared = [step["shares_packed"] for step in packed["steps"]]
    if shared != [True] + [False] * (len(shared) - 1):
        raise ValueError("packed_qkv: only the slice should share the packed block; the page says so")
    shape = shape_text(packed["packed"]["shape"])
    return table(["step", "layout", "shape", "strides", "base", "contiguous"], rows,
                 f"The keys of a packed projection of shape {shape}: a strided slice, one copy, then views",
                 "packed-qkv")
