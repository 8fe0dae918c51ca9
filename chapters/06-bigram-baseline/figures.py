"""Figures of chapter 6, drawn from the demo's trace (``chapter-06-demo --trace``).

* :func:`documents_figure` -- the two training documents as chains of
  transitions, and the transition that joining them would invent
  (``trace.documents``, ``trace.joined``);
* :func:`count_table` -- the whole [V, V] count table with its row totals
  (``trace.counts``, ``trace.row_totals``);
* :func:`rows_table` -- one context's row cell by cell: count, pseudocount,
  numerator, maximum-likelihood and add-alpha probability (``trace.rows``);
* :func:`errors_table` -- the requests the model refused (``trace.errors``).

The helpers :func:`row_of`, :func:`symbol`, :func:`vector_text` and
:func:`frac` format trace values for the prose. Every number comes from the
trace; nothing is typed by hand.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping, Sequence

from tools.figures import fixed, graphviz, html_text, plain, table

Trace = Mapping[str, Any]

FILL = {"boundary": "#f4f4f4", "content": "#eef3fb", "unseen": "#fdf1e6"}
INVENTED = "#b3261e"
MAX_DENOMINATOR = 64


def symbol(trace: Trace, token: int) -> str:
    """The symbol of a token ID: ``A`` for 2."""
    return trace["vocabulary"][token]["symbol"]


def row_of(trace: Trace, name: str) -> Mapping[str, Any]:
    """The traced row of context ``name`` (``A`` or ``C``)."""
    for row in trace["rows"]:
        if row["symbol"] == name:
            return row
    raise KeyError(f"the trace has no row for context {name!r}")


def frac(value: float) -> str:
    """A probability as an exact small fraction when it is one: ``1/8``, ``3/8``."""
    fraction = Fraction(value).limit_denominator(MAX_DENOMINATOR)
    if float(fraction) != value:
        return fixed(value, 3)
    return f"{fraction.numerator}" if fraction.denominator == 1 else f"{fraction.numerator}/{fraction.denominator}"


def vector_text(values: Sequence[float], style: str = "plain") -> str:
    """``[0, 0, 1, 2, 0]`` (plain), ``[1/8, 1/8, ...]`` (frac) or three decimals (fixed3)."""
    formats = {"plain": plain, "frac": frac, "fixed3": lambda value: fixed(value, 3)}
    return "[" + ", ".join(formats[style](value) for value in values) + "]"


def transition_text(trace: Trace, pair: Sequence[int]) -> str:
    """``A→B`` for the pair [2, 3]."""
    return f"{symbol(trace, pair[0])}→{symbol(trace, pair[1])}"


def documents_figure(trace: Trace) -> str:
    """Each training document as a chain of its tokens; every arrow is one counted
    transition. The red dashed arrow is the transition joining would invent."""
    lines = [
        "digraph documents {",
        '  graph [rankdir=LR, fontname="Helvetica", fontsize=11, nodesep=0.25, ranksep=0.45];',
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11, width=0.5];',
        '  edge [fontname="Helvetica", fontsize=9, arrowsize=0.7];',
    ]
    roles = {entry["id"]: entry["role"] for entry in trace["vocabulary"]}
    for index, document in enumerate(trace["documents"]):
        name = document["name"]
        lines.append(f'  subgraph "cluster_{name}" {{ label="{name}: {len(document["transitions"])} transitions"; '
                     'style="rounded"; color="#aaaaaa";')
        for position, token in enumerate(document["tokens"]):
            lines.append(f'    "{name}-{position}" [label="{symbol(trace, token)}\\n{token}", '
                         f'fillcolor="{FILL[roles[token]]}"];')
        for position in range(len(document["tokens"]) - 1):
            lines.append(f'    "{name}-{position}" -> "{name}-{position + 1}";')
        lines.append("  }")
    documents = trace["documents"]
    for transition in trace["joined"]["invented"]:
        # The join: the last token of one document and the first of the next.
        for before, after in zip(documents, documents[1:]):
            if before["tokens"][-1] == transition["from"] and after["tokens"][0] == transition["to"]:
                lines.append(
                    f'  "{before["name"]}-{len(before["tokens"]) - 1}" -> "{after["name"]}-0" '
                    f'[color="{INVENTED}", fontcolor="{INVENTED}", style=dashed, constraint=false, '
                    f'label="{transition_text(trace, (transition["from"], transition["to"]))}: never counted"];'
                )
    lines.append("}")
    caption = (
        f"The {trace['fitted_documents']} training documents and their {trace['fitted_transitions']} counted "
        "transitions; the dashed arrow exists only if the documents are joined"
    )
    return graphviz("\n".join(lines), caption, "documents")


def count_table(trace: Trace) -> str:
    """The [V, V] count table: rows are the current token, columns the next one."""
    names = [entry["symbol"] for entry in trace["vocabulary"]]
    rows = []
    for row_index, counts in enumerate(trace["counts"]):
        cells = [f"**{value}**" if value else f"{value}" for value in counts]
        rows.append([f"{names[row_index]} ({row_index})", *cells, f"{trace['row_totals'][row_index]}"])
    header = ["current ↓ / next →", *names, "total $N_i$"]
    return table(header, rows, f"The count table $C$ of shape [{len(names)}, {len(names)}] fitted from both documents", "counts")


def rows_table(trace: Trace, name: str) -> str:
    """One context's row, cell by cell, from counts to both distributions."""
    row = row_of(trace, name)
    names = [entry["symbol"] for entry in trace["vocabulary"]]
    mle = row["mle"]
    cells = []
    for column, next_name in enumerate(names):
        cells.append([
            next_name,
            f"{row['counts'][column]}",
            plain(row["pseudocount"]),
            plain(row["numerators"][column]),
            frac(mle[column]) if mle is not None else "undefined",
            frac(row["smoothed"][column]),
        ])
    caption = (
        f"Context {name}: row total {row['total']}, add-one denominator "
        f"{plain(row['total'])} + {plain(row['pseudocount'])}·{len(names)} = {plain(row['denominator'])}"
    )
    header = ["next token", "count $C_{ij}$", "$\\alpha$", "$C_{ij}+\\alpha$", "MLE", "add-one"]
    return table(header, cells, caption, f"row-{name.lower()}")


def errors_table(trace: Trace) -> str:
    """The requests the demo made that the model must refuse, with its answer."""
    rows = [[html_text(error["request"]), f"`{error['kind']}`", html_text(error["message"])] for error in trace["errors"]]
    return table(["request", "kind", "message"], rows, "Requests the bigram model refuses, as the demo ran them", "errors")
