"""Figures of chapter 8, drawn from the demo's trace (``chapter-08-demo --trace``).

* :func:`storage_figure` -- the two slices of the worked tensor, the stride
  terms of the looked-up coordinate, the flat buffer with its offset marked,
  and the rejected coordinate's axis checks (``trace.tensor``,
  ``trace.lookup``, ``trace.bounds``);
* :func:`terms_table` -- one lookup axis by axis: the stride term of the
  formula and the running offset of Horner's rule (``trace.lookup``,
  ``trace.write.lookup``);
* :func:`offset_map_table` -- every coordinate's offset under the row-major
  rule and under two wrong ones (``trace.offset_map``);
* :func:`bounds_table` -- the axis checks of the rejected coordinate
  (``trace.bounds``);
* :func:`model_shapes_table` -- the model-shaped stand-ins
  (``trace.model_shapes``);
* :func:`errors_table` -- every request the library refused, with its kind,
  its own message and the line the demo printed (``trace.errors``).

The helpers :func:`list_text`, :func:`row_of` and :func:`collisions` format
and select trace values for the prose. Every number comes from the trace;
nothing is typed by hand.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Mapping, Sequence

from tools.figures import graphviz, html_text, shortest, table

Trace = Mapping[str, Any]

FILL = {"slice": "#eef3fb", "term": "#fdf1e6", "buffer": "#f4f4f4", "selected": "#fff2b3",
        "pass": "#e7f2e4", "fail": "#f9dedc", "skip": "#f4f4f4"}
MARK = "◆"  # marks the selected element without relying on colour
NBSP = "\u00a0"


def list_text(values: Sequence[Any]) -> str:
    """``[1, 0, 2]``: a coordinate, shape or strides list as the demo prints it."""
    return "[" + ", ".join(str(value) for value in values) + "]"


def cell_list(values: Sequence[Any]) -> str:
    """A list for a table cell: no-break spaces, so it never wraps."""
    return list_text(values).replace(" ", NBSP)


def row_of(trace: Trace, coordinate: Sequence[int]) -> Mapping[str, Any]:
    """The offset-map row of one coordinate."""
    for row in trace["offset_map"]["rows"]:
        if list(row["coordinate"]) == list(coordinate):
            return row
    raise KeyError(f"the trace has no offset-map row for {list(coordinate)}")


def collisions(trace: Trace, column: str) -> list[list[Mapping[str, Any]]]:
    """Groups of coordinates that share one offset under ``column``'s rule,
    largest group first."""
    rows = trace["offset_map"]["rows"]
    counts = Counter(row[column] for row in rows)
    groups = [[row for row in rows if row[column] == offset] for offset, count in counts.items() if count > 1]
    return sorted(groups, key=lambda group: (-len(group), group[0][column]))


def _selected_cell(value: float, selected: bool) -> str:
    text = html_text(shortest(value))
    if selected:
        return f'<TD BORDER="3" BGCOLOR="{FILL["selected"]}"><B>{MARK} {text}</B></TD>'
    return f'<TD BGCOLOR="white">{text}</TD>'


def storage_figure(trace: Trace) -> str:
    """Slices, stride terms, flat buffer and the rejected coordinate, in three rows."""
    tensor, lookup, bounds = trace["tensor"], trace["lookup"], trace["bounds"]
    selected = list(lookup["coordinate"])
    lines = [
        "digraph storage {",
        '  graph [rankdir=TB, fontname="Helvetica", fontsize=11, nodesep=0.35, ranksep=0.35];',
        '  node [shape=plaintext, fontname="Helvetica", fontsize=11];',
        '  edge [fontname="Helvetica", fontsize=10, arrowsize=0.7];',
    ]
    # Row 1: one table per slice (axis 0); rows are axis 1, columns axis 2.
    for slice_index, rows in enumerate(tensor["slices"]):
        cells = [f'<TR><TD COLSPAN="{len(rows[0]) + 1}" BGCOLOR="{FILL["slice"]}"><B>slice {slice_index}</B> '
                 f'(index 0 = {slice_index})</TD></TR>']
        cells.append("<TR><TD></TD>" + "".join(f"<TD><I>col {c}</I></TD>" for c in range(len(rows[0]))) + "</TR>")
        for row_index, row in enumerate(rows):
            tds = "".join(_selected_cell(value, [slice_index, row_index, column] == selected)
                          for column, value in enumerate(row))
            cells.append(f"<TR><TD><I>row {row_index}</I></TD>{tds}</TR>")
        label = '<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="4">' + "".join(cells) + "</TABLE>"
        lines.append(f"  slice{slice_index} [label=<{label}>];")
    lines.append("  { rank=same; " + " ".join(f"slice{i};" for i in range(len(tensor["slices"]))) + " }")
    # Row 2: the stride terms of the selected coordinate, and the rejected coordinate.
    term_rows = "".join(
        f'<TR><TD>axis {t["axis"]}</TD><TD>{t["index"]} × {t["stride"]}</TD><TD>= {t["contribution"]}</TD></TR>'
        for t in lookup["terms"])
    terms_label = (f'<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="4" BGCOLOR="{FILL["term"]}">'
                   f'<TR><TD COLSPAN="3"><B>{MARK} coordinate {list_text(selected)}</B>, '
                   f'strides {list_text(tensor["strides"])}</TD></TR>{term_rows}'
                   f'<TR><TD COLSPAN="3"><B>offset {lookup["offset"]}</B></TD></TR></TABLE>')
    lines.append(f"  terms [label=<{terms_label}>];")
    status_fill = {"passes": FILL["pass"], "fails": FILL["fail"], "not checked": FILL["skip"]}
    bound_rows = "".join(
        f'<TR><TD>axis {a["axis"]}</TD><TD>{a["index"]} &lt; {a["extent"]}?</TD>'
        f'<TD BGCOLOR="{status_fill[a["status"]]}">{a["status"]}</TD></TR>'
        for a in bounds["axes"])
    bounds_label = ('<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="4">'
                    f'<TR><TD COLSPAN="3"><B>coordinate {list_text(bounds["coordinate"])}</B></TD></TR>{bound_rows}'
                    '<TR><TD COLSPAN="3">rejected: no offset, no read</TD></TR></TABLE>')
    lines.append(f"  bounds [label=<{bounds_label}>];")
    lines.append("  { rank=same; terms; bounds; }")
    # Row 3: the flat buffer, offsets above values.
    offsets = "".join(f'<TD PORT="o{offset}" BGCOLOR="{FILL["selected"]}"><B>{offset}</B></TD>'
                      if offset == lookup["offset"] else f"<TD><I>{offset}</I></TD>"
                      for offset in range(tensor["length"]))
    values = "".join(
        '<TD' + (f' BORDER="3" BGCOLOR="{FILL["selected"]}"><B>{MARK} ' if offset == lookup["offset"]
                 else ' BGCOLOR="white">')
        + html_text(shortest(value)) + ("</B></TD>" if offset == lookup["offset"] else "</TD>")
        for offset, value in enumerate(tensor["values"]))
    buffer_label = (f'<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="4" BGCOLOR="{FILL["buffer"]}">'
                    f'<TR><TD><B>offset</B></TD>{offsets}</TR><TR><TD><B>value</B></TD>{values}</TR></TABLE>')
    lines.append(f"  buffer [label=<{buffer_label}>];")
    lines.append(f'  slice{selected[0]} -> terms [label="  coordinate"];')
    lines.append(f'  terms -> buffer:o{lookup["offset"]}:n [label="  offset {lookup["offset"]}"];')
    lines.append("  slice0 -> bounds [style=invis];")
    lines.append("}")
    caption = (f"Coordinate {list_text(selected)} of the {list_text(tensor['shape'])} tensor becomes offset "
               f"{lookup['offset']} and then value {shortest(lookup['value'])}; coordinate "
               f"{list_text(bounds['coordinate'])} stops at axis {bounds['axis']}")
    terms = ", ".join(str(t["contribution"]) for t in lookup["terms"])
    alt = (f"Top: the two slices of the {list_text(tensor['shape'])} tensor as two tables of two rows and three "
           f"columns, with the element at {list_text(selected)} marked by a diamond and a thick border. Middle: "
           f"its stride terms {terms} add up to offset {lookup['offset']}; beside them, coordinate "
           f"{list_text(bounds['coordinate'])} passes axis 0 and fails axis {bounds['axis']}, index "
           f"{bounds['index']} not below extent {bounds['size']}, so it is rejected. Bottom: the flat buffer of "
           f"{tensor['length']} values with offset {lookup['offset']}, value {shortest(lookup['value'])}, marked.")
    return graphviz("\n".join(lines), caption, "storage", alt=alt)


def terms_table(trace: Trace, which: str = "lookup") -> str:
    """One lookup axis by axis: extent, stride, stride term and Horner step."""
    lookup = trace["lookup"] if which == "lookup" else trace["write"]["lookup"]
    rows = []
    for term, step in zip(lookup["terms"], lookup["horner"]):
        rows.append([
            f"{term['axis']}",
            f"{term['index']}",
            f"{term['extent']}",
            f"{term['stride']}",
            f"{term['index']} · {term['stride']} = {term['contribution']}",
            f"{step['before']} · {step['extent']} + {step['index']} = {step['after']}",
        ])
    rows.append(["", "", "", "", f"sum = **{lookup['offset']}**", f"**{lookup['horner'][-1]['after']}**"])
    header = ["axis $k$", "index $i_k$", "extent $n_k$", "stride $s_k$", "term $i_k s_k$", "Horner step"]
    caption = (f"Coordinate {list_text(lookup['coordinate'])}: the stride terms and the running offset "
               f"of Horner's rule reach the same offset {lookup['offset']} (value {shortest(lookup['value'])})")
    return table(header, rows, caption, f"terms-{which}")


def offset_map_table(trace: Trace) -> str:
    """Every coordinate of the worked tensor, its value and its offset under three rules."""
    offset_map = trace["offset_map"]
    shared = {row["extents_as_strides"] for group in collisions(trace, "extents_as_strides") for row in group}
    length = trace["tensor"]["length"]
    rows = []
    for row in offset_map["rows"]:
        wrong = row["extents_as_strides"]
        wrong_text = f"**{wrong}** (shared)" if wrong in shared else f"{wrong}"
        if wrong >= length:
            wrong_text += " (outside)"
        rows.append([cell_list(row["coordinate"]), shortest(row["value"]), f"{row['offset']}",
                     wrong_text, f"{row['column_major']} → {shortest(trace['tensor']['values'][row['column_major']])}"])
    header = ["coordinate", "value", f"offset, strides {cell_list(offset_map['strides'])}",
              f"extents {cell_list(offset_map['extents_as_strides'])} used as strides",
              f"column-major strides {cell_list(offset_map['column_major_strides'])} → value read"]
    return table(header, rows, "Every coordinate's offset under the row-major rule and under two wrong ones",
                 "offset-map")


def bounds_table(trace: Trace) -> str:
    """The rejected coordinate's axis checks, in the order the library makes them."""
    bounds = trace["bounds"]
    rows = [[f"{a['axis']}", f"{a['index']}", f"{a['extent']}", f"{a['index']} < {a['extent']}", a["status"]]
            for a in bounds["axes"]]
    caption = (f"Coordinate {list_text(bounds['coordinate'])} is checked axis by axis and rejected at "
               f"axis {bounds['axis']}")
    return table(["axis", "index", "extent", "check", "result"], rows, caption, "bounds")


def model_shapes_table(trace: Trace) -> str:
    """The seven model-shaped stand-ins: shape, strides and element count."""
    rows = [[entry["label"], cell_list(entry["shape"]), cell_list(entry["strides"]), f"{entry['elements']}"]
            for entry in trace["model_shapes"]]
    return table(["stand-in", "shape", "strides", "elements"], rows,
                 "One Tensor type for the matrices of both papers, at toy sizes", "model-shapes")


def errors_table(trace: Trace) -> str:
    """Every request the demo made that the library refused."""
    rows = []
    for error in trace["errors"]:
        # Messages are plain text, so that a long one wraps inside its cell.
        printed = error["printed"] if error["printed"] else "(trace only)"
        rows.append([f"`{error['request']}`", f"`{error['kind']}`", error["message"], printed])
    return table(["request", "kind", "the library's message", "the demo's line"], rows,
                 "Requests the tensor library refused, as the demo ran them", "errors")
