"""Figures of chapter 35, drawn from the demo's trace (``chapter-35-demo --trace``).

* :func:`byte_map_figure` -- the file as one bar: header, tokenizer,
  parameters, the interleaved moments, to scale (``trace.records``);
* :func:`header_table` -- the first 58 bytes decoded field by field
  (``trace.first_bytes``);
* :func:`families_table` -- the records grouped by role: count, bytes, span
  (``trace.records``);
* :func:`refusals_table` -- each damaged or mismatched file, its error kind
  and message (``trace.refusals``).

Every number comes from the trace; nothing is typed by hand.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from tools.figures import hex_bytes, matplotlib_svg, svg_figure, table

Trace = Mapping[str, Any]

ROLES = ("LiteralToken", "ModelParameter", "OptimizerFirstMoment", "OptimizerSecondMoment")
ROLE_LABELS = {"LiteralToken": "tokenizer pieces", "ModelParameter": "parameters", "moments": "moments m and v",
               "OptimizerFirstMoment": "first moments m", "OptimizerSecondMoment": "second moments v"}
COLORS = {"header": "#dddddd", "LiteralToken": "#b35c00", "ModelParameter": "#336699",
          "moments": "#7a9cc6"}


def little_endian(data: Sequence[int], offset: int, width: int) -> int:
    """The unsigned little-endian integer at ``offset``."""
    return sum(data[offset + i] << (8 * i) for i in range(width))


def families(trace: Trace) -> list[dict[str, Any]]:
    """Records grouped by role, in file order: count, first offset, end, bytes."""
    result = []
    for role in ROLES:
        records = [r for r in trace["records"] if r["role"] == role]
        if records:
            result.append({"role": role, "count": len(records), "start": records[0]["offset"],
                           "end": records[-1]["end"], "bytes": sum(r["end"] - r["offset"] for r in records)})
    return result


def byte_map_figure(trace: Trace) -> str:
    """One horizontal bar per file region, to scale."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    grouped = families(trace)
    moments = [f for f in grouped if f["role"].startswith("Optimizer")]
    parts = [{"role": "header", "start": 0, "bytes": trace["header_bytes"], "count": 1}]
    parts += [f for f in grouped if not f["role"].startswith("Optimizer")]
    parts.append({"role": "moments", "start": min(f["start"] for f in moments),
                  "bytes": sum(f["bytes"] for f in moments), "count": sum(f["count"] for f in moments)})
    figure, axis = plt.subplots(figsize=(7.0, 2.6))
    for index, part in enumerate(parts):
        axis.barh(0, part["bytes"], left=part["start"], color=COLORS[part["role"]], edgecolor="white")
        label = "header" if part["role"] == "header" else ROLE_LABELS[part["role"]]
        axis.annotate(f"{label}\n{part['bytes']} B", xy=(part["start"] + part["bytes"] / 2, 0.4),
                      xytext=(part["start"] + part["bytes"] / 2, 0.75 + 0.55 * (index % 2)),
                      ha="center", fontsize=10, arrowprops={"arrowstyle": "-", "color": "#888888"})
    axis.set_xlim(0, trace["file_bytes"])
    axis.set_ylim(-0.6, 1.9)
    axis.set_yticks([])
    axis.set_xlabel("byte offset in the file")
    for side in ("left", "right", "top"):
        axis.spines[side].set_visible(False)
    svg = matplotlib_svg(figure)
    plt.close(figure)
    described = ", ".join(
        f"{'header' if p['role'] == 'header' else ROLE_LABELS[p['role']]} {p['bytes']} bytes" for p in parts)
    alt = f"A bar of the {trace['file_bytes']}-byte file split into, from left to right: {described}."
    header_share = round(100 * trace["header_bytes"] / trace["file_bytes"])
    caption = (f"The {trace['file_bytes']} bytes of the checkpoint to scale: the header that describes the rest "
               f"is {header_share} % of the file, and the optimizer's two moments take twice the space of the "
               "parameters.")
    return svg_figure(svg, caption, "byte-map", alt=alt)


def header_table(trace: Trace) -> str:
    """The fixed header and the first fields of the variable header."""
    b = trace["first_bytes"]
    fields = [
        (0, 8, "magic", "".join(chr(c) if 32 <= c < 127 else "\\0" for c in b[0:8])),
        (8, 2, "schema version", str(little_endian(b, 8, 2))),
        (10, 4, "byte-order marker", f"0x{little_endian(b, 10, 4):08x}"),
        (14, 8, "header length", str(little_endian(b, 14, 8))),
        (22, 8, "payload length", str(little_endian(b, 22, 8))),
        (30, 8, "checksum (FNV-1a 64)", f"0x{little_endian(b, 30, 8):016x}"),
        (38, 2, "tokenizer layout", str(little_endian(b, 38, 2))),
        (40, 2, "generator algorithm", str(little_endian(b, 40, 2))),
        (42, 8, "selected step", str(little_endian(b, 42, 8))),
        (50, 8, "generator state", f"0x{little_endian(b, 50, 8):016x}"),
    ]
    rows = [[str(offset), f"`{hex_bytes(b[offset:offset + width])}`", name, value]
            for offset, width, name, value in fields]
    return table(["offset", "bytes", "field", "value"], rows,
                 "The first 58 bytes of the file, decoded", "header-fields")


def families_table(trace: Trace) -> str:
    """Records grouped by role."""
    rows = [[ROLE_LABELS[f["role"]], f"`{f['role']}`", str(f["count"]), str(f["bytes"]), str(f["start"])]
            for f in families(trace)]
    return table(["records", "role", "count", "bytes", "first record at"], rows,
                 f"The {len(trace['records'])} records after the {trace['header_bytes']}-byte header", "record-families")


def refusals_table(trace: Trace) -> str:
    """Each damaged or mismatched input with the error it got."""
    edits = {"version": "schema version 1 changed to 2",
             "vocabulary_mismatch": "a one-piece tokenizer for a five-token model",
             "step_mismatch": "selected step 8 changed to 9, checksum recomputed",
             "truncation": "the last byte cut off",
             "checksum": "the lowest bit of the last byte flipped"}
    rows = [[edits[r["case"]], f"`{r['kind']}`", r["message"]] for r in trace["refusals"]]
    return table(["what was changed", "error kind", "message"], rows,
                 "Five checkpoints the reader or the constructor refuses", "refusals")
