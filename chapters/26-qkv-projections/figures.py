"""Figures of chapter 26, drawn from the demo's trace (``chapter-26-demo --trace``).

* :func:`projection_figure` -- one input X [1, 2, 3] and its three
  projections, each with its weight and output (``trace.worked``);
* :func:`shares_table` -- each branch's share of the input's adjoint and
  their sum (``trace.shares``, ``trace.worked``);
* :func:`batch_table` -- a two-item batch against its two items run alone
  (``trace.batch``);
* :func:`shape_table`, :func:`refusal_table`, :func:`additive_table`
  (``trace.shapes``, ``trace.refusals``, ``trace.additive``).

Every number comes from the trace; nothing is typed by hand.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from tools.figures import card, card_field, dot_head, graphviz, plain, shape_text, table, value_grid

Trace = Mapping[str, Any]

ROLES = ("query", "key", "value")
FILL = {"input": "#eef3fb", "query": "#fdf1e6", "key": "#e7f2e4", "value": "#f1e9f7"}
HEADER = {"input": "#c9daf2", "query": "#f6d9bb", "key": "#c6e2bf", "value": "#dcc9ec"}
LETTER = {"query": "Q", "key": "K", "value": "V"}


def num(value: float, digits: int = 6) -> str:
    """A value for prose: ``3``, ``-1.5``, ``0.271``."""
    if value == int(value):
        return plain(value)
    return f"{value:.{digits}f}".rstrip("0")


def vec(values: Sequence[float], digits: int = 6) -> str:
    """``[0, 3]``."""
    return "[" + ", ".join(num(v, digits) for v in values) + "]"


def rows_text(tensor: Mapping[str, Any]) -> str:
    """A tensor's last-axis rows: ``[[0, 3], [2, -1]]`` (leading axes flattened)."""
    values, width = tensor["values"], tensor["shape"][-1]
    return "[" + ", ".join(vec(values[i:i + width]) for i in range(0, len(values), width)) + "]"


def tex_matrix(tensor: Mapping[str, Any]) -> str:
    """The last two axes of a tensor with one leading item as a LaTeX bmatrix."""
    values, width = tensor["values"], tensor["shape"][-1]
    rows = [" & ".join(num(v) for v in values[i:i + width]) for i in range(0, len(values), width)]
    return "\\begin{bmatrix}" + " \\\\ ".join(rows) + "\\end{bmatrix}"


def code(text: str) -> str:
    """Inline code for a table cell."""
    return f"`{text}`"


def value_cell(text: str) -> str:
    """A value for a table cell, as plain text: it may wrap at its spaces, so a
    table of vectors fits a 390 px phone (a code span never wraps)."""
    return text


def projection_figure(trace: Trace) -> str:
    """X on the left, three cards (weight and output) to its right, one per role."""
    w = trace["worked"]
    lines = dot_head("qkv", {"rankdir": "LR", "nodesep": 0.25, "ranksep": 0.6},
                     {"shape": "plaintext", "fontsize": 10}, {"arrowsize": 0.6, "fontsize": 9})
    x_rows = [f'<TR><TD COLSPAN="2">{value_grid(w["input"], fill="#ffffff")}</TD></TR>']
    x_card = card("X  " + shape_text(w["input"]["shape"]), x_rows, subtitle="tokens by features",
                  fill=FILL["input"], header_fill=HEADER["input"])
    lines.append(f'  "x" [label={x_card}];')
    for role in ROLES:
        rows = [card_field(f"W_{LETTER[role]} " + shape_text(w[f"{role}_weight"]["shape"]),
                           value_grid(w[f"{role}_weight"], fill="#ffffff")),
                card_field(f"{LETTER[role]} = X W_{LETTER[role]}", value_grid(w[role], fill="#ffffff"))]
        label = card(role, rows, subtitle=shape_text(w[role]["shape"]), fill=FILL[role], header_fill=HEADER[role])
        lines.append(f'  "{role}" [label={label}];')
        lines.append(f'  "x" -> "{role}";')
    lines.append('  { rank=same; "query"; "key"; "value"; }')
    lines.append("}")
    caption = ("One input, three projections. Each output keeps X's batch and token axes; only the feature axis "
               "changes, from the model width to the head width, through that role's own weight.")
    alt = (f"X = {rows_text(w['input'])} feeds three boxes: query with W_Q = {rows_text(w['query_weight'])} giving "
           f"Q = {rows_text(w['query'])}; key with W_K = {rows_text(w['key_weight'])} giving K = {rows_text(w['key'])}; "
           f"value with W_V = {rows_text(w['value_weight'])} giving V = {rows_text(w['value'])}.")
    return graphviz("\n".join(lines), caption, "qkv-projections", alt=alt)


def shares_table(trace: Trace) -> str:
    """The input's adjoint, branch by branch, and the sum the worked pass printed."""
    w, s = trace["worked"], trace["shares"]
    rows = [[f"{role}: $U_{LETTER[role]} W_{LETTER[role]}^\\top$", value_cell(vec(w[f"{role}_upstream"]["values"])),
             value_cell(rows_text(s[role]))] for role in ROLES]
    rows.append(["sum: $\\bar X$", "", value_cell(rows_text(w["input_gradient"]))])
    return table(["branch", "upstream $U$ (as printed)", "share of $\\bar X$ $[1, 2, 3]$"], rows,
                 "Each branch's share of the input's adjoint, reversed on its own", "input-shares")


def item_rows(tensor: Mapping[str, Any], item: int) -> Mapping[str, Any]:
    """Batch item ``item`` of a trace tensor [B, T, F], as a trace tensor [T, F]."""
    _, tokens, width = tensor["shape"]
    size = tokens * width
    return {"shape": [tokens, width], "values": tensor["values"][item * size:(item + 1) * size]}


def items_match(trace: Trace) -> bool:
    """Whether every per-position result of the batch equals its item's result alone, bit for bit."""
    b = trace["batch"]
    keys = ("query", "key", "value", "input_gradient")
    return all(item_rows(b["batch"][key], i)["values"] == b[name][key]["values"]
               for key in keys for i, name in enumerate(("first", "second")))


def batch_table(trace: Trace) -> str:
    """The two-item batch, item by item: input, upstream, outputs and the input's adjoint."""
    b = trace["batch"]["batch"]
    rows = []
    for key, label in (("input", "input $X$"), ("query_upstream", "$U_Q$"), ("query", "$Q$"), ("key", "$K$"),
                       ("value", "$V$"), ("input_gradient", "$\\bar X$")):
        rows.append([label] + [value_cell(rows_text(item_rows(b[key], i))) for i in range(2)])
    return table(["quantity", "item 0", "item 1"], rows, "A batch of two different items, item by item", "batch")


def weight_table(trace: Trace) -> str:
    """The query weight's adjoint for each item alone and for the batch (the key and value ones are in the trace)."""
    b = trace["batch"]
    rows = [[label, value_cell(rows_text(b[name]["query_weight_gradient"]))]
            for name, label in (("first", "item 0 alone"), ("second", "item 1 alone"), ("batch", "batch of both"))]
    return table(["run", "$\\bar W_Q$ $[3, 2]$"], rows, "The query weight's adjoint: the batch's is the sum of the items'",
                 "weight-adjoints")


def weight_sum_matches(trace: Trace) -> bool:
    """Whether each batch weight adjoint equals the sum of the two items' (exactly)."""
    b = trace["batch"]
    for role in ROLES:
        key = f"{role}_weight_gradient"
        total = [x + y for x, y in zip(b["first"][key]["values"], b["second"][key]["values"])]
        if total != b["batch"][key]["values"]:
            return False
    return True


def shape_table(trace: Trace) -> str:
    """Input shapes and the shape each projection returns."""
    rows = [[code(shape_text(entry["input"])), code(shape_text(entry["output"]))] for entry in trace["shapes"]]
    return table(["input $[B, T, D]$", "each of $Q$, $K$, $V$ $[B, T, D_h]$"], rows,
                 "Batch and token extents pass through, even when they are 0", "shapes")


def refusal_table(trace: Trace) -> str:
    """Each refused request with the kind and message the library gave."""
    rows = [[r["request"], r["kind"], r["message"]] for r in trace["refusals"]]
    return table(["request", "kind", "message"], rows, "What the layer refuses", "refusals", fits_phone=True)


def additive_table(trace: Trace) -> str:
    """Additive attention's scores and weights over the three annotations.

    The score's formula is in the caption, not the header: a formula never
    wraps, and as a header it held the table past a 390 px phone's column.
    """
    a = trace["additive"]
    rows = [[str(j), value_cell(vec(h)), num(score), num(weight)]
            for j, (h, score, weight) in enumerate(zip(a["annotations"], a["scores"], a["weights"]))]
    return table(["$j$", "annotation $h_j$", "score", "weight"], rows,
                 "Additive attention of one decoder state over three encoder annotations; "
                 "each score is $v^\\top \\tanh(W s + U h_j)$", "additive")
