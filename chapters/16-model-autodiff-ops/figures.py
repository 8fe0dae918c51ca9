"""Figures of chapter 16, drawn from the demo's trace (``chapter-16-demo --trace``).

* :func:`forward_chain_figure` -- the worked chain from the embedding table to
  the loss, with the fork after SiLU into two separate operation calls
  (``trace.inputs``, ``trace.forward``: each step's operands and the fork as
  the traced passes recorded them).
* :func:`position_table` -- the loss-logit gradient of every flat position
  with its token, target, signs and class sum (``trace.position_gradients``).
* :func:`scatter_figure` -- four occurrence adjoints added into three
  embedding-table rows (``trace.embedding_rows``, ``trace.position_gradients``).
* :func:`ledger_table` -- the reverse ledger: the upstream and parent
  gradient of every operand use, with its rule and shape
  (``trace.reverse_ledger``).
* :func:`probes_table`, :func:`checks_table`, :func:`errors_table` -- the
  scalar probes, the eight sampled VJP checks and the four rejected requests
  (``trace.scalar_probes``, ``trace.gradchecks``, ``trace.errors``).

The helpers :func:`plain`, :func:`frac`, :func:`tex` and :func:`row_text`
format trace numbers for the prose. Every number shown comes from the trace;
nothing is typed by hand.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Mapping, Sequence

from tools.figures import (
    CARD_FILL,
    card,
    card_field,
    dot_head,
    find_entry,
    fixed,
    graphviz,
    html_text,
    matplotlib_svg,
    max_scaled_error,
    plain,
    sci,
    shape_text,
    svg_figure,
    table,
    tensor_rows,
    value_grid,
)

Trace = Mapping[str, Any]
TensorJson = Mapping[str, Any]  # {"shape": [...], "values": [...]}, row-major

DATA_FILL = "#f4f4f4"
LOSS_FILL = "#fdf1e6"
UNUSED_FILL = "#f2f2f2"
UNUSED_TEXT = "#777777"
REPEATED_FILL = "#e7f2e4"
SINGLE_FILL = "#eef3fb"
ERROR_DIGITS = 2  # scaled errors are shown to three significant digits
NBSP = "\u00a0"  # keeps a shape such as [4, 2] on one line inside a table cell

# Largest denominator :func:`frac` writes as a fraction; the worked example's
# values are exact dyadic numbers such as 1/8 and 1/16.
MAX_DENOMINATOR = 64

# What each operation of the chain keeps for its reverse rule (its saved context).
SAVED_TEXT = {
    "gather_rows": "the checked plan: selectors and shapes",
    "matmul": "both operand values (shared)",
    "silu": "its input (shared)",
    "log_softmax": "P emitted by this call",
    "indexed_mean_nll": "its own P, the targets, the axis",
}

# The fixture labels the chain's tape nodes; the trace names nodes by these
# labels. What each one is, in words, and its symbol in the text.
NODE_TEXT = {
    "embeddings": ("embedding table", "E"),
    "weights": ("projection weights", "W"),
    "gathered": ("gathered rows", "X"),
    "preactivations": ("projection preactivations", "H"),
    "activated": ("loss logits", "Z"),
    "log_probabilities": ("log-probabilities", "Y"),
    "loss": ("mean loss", "L"),
}

# The input cards of the chain figure: a parameter by its node label, an
# integer input (which receives no gradient) by its name, with the edge label.
PARAMETER_CARD = {"embeddings": "E", "weights": "W"}
INTEGER_CARD = {"token IDs": ("z", "selects rows"), "target classes": ("y", "selects classes")}


# --- Numbers and tensors for prose -------------------------------------------------


def node_text(label: str, math: bool = False) -> str:
    """What the node labelled ``label`` is: ``gathered rows X``, or ``gathered rows $X$`` for MyST."""
    words, symbol = NODE_TEXT[label]
    return f"{words} ${symbol}$" if math else f"{words} {symbol}"


def frac(value: float) -> str:
    """``value`` as LaTeX: an integer, a fraction ``-\\tfrac{1}{8}`` when it is exactly one with a
    small denominator, else the shortest round-trip decimal."""
    if not math.isfinite(value):
        return plain(value)
    exact = Fraction(value)
    if exact.denominator == 1 or exact.denominator > MAX_DENOMINATOR:
        return plain(value)
    sign = "-" if exact < 0 else ""
    return f"{sign}\\tfrac{{{abs(exact.numerator)}}}{{{exact.denominator}}}"


def tex(tensor: TensorJson) -> str:
    """A tensor as LaTeX with exact fractions: a number, a row vector or a bracketed matrix."""
    shape = tensor["shape"]
    if len(shape) == 0:
        return frac(tensor["values"][0])
    if len(shape) == 1:
        return "\\begin{bmatrix} " + " & ".join(frac(v) for v in tensor["values"]) + " \\end{bmatrix}"
    if len(shape) == 2:
        body = " \\\\ ".join(" & ".join(frac(v) for v in row) for row in tensor_rows(tensor))
        return f"\\begin{{bmatrix}} {body} \\end{{bmatrix}}"
    raise ValueError(f"tex() shows rank 0 to 2, not shape {shape_text(shape)}")


def row_tex(values: Sequence[float]) -> str:
    """One row of values as a LaTeX row vector with exact fractions: ``[-\\tfrac18,\\ \\tfrac18]``."""
    return "[" + ",\\ ".join(frac(v) for v in values) + "]"


def ids_tex(ids: Sequence[int]) -> str:
    """Integer IDs as a LaTeX row vector: ``\\begin{bmatrix} 1 & 1 & 1 & 2 \\end{bmatrix}``."""
    return "\\begin{bmatrix} " + " & ".join(str(i) for i in ids) + " \\end{bmatrix}"


def row_text(values: Sequence[float]) -> str:
    """One row of values as plain text in shortest form: ``[-0.125, 0.125]``."""
    return "[" + ", ".join(plain(v) for v in values) + "]"


def ids_text(ids: Sequence[int]) -> str:
    """Integer IDs as the demo prints them: ``[1, 1, 1, 2]``."""
    return "[" + ", ".join(str(i) for i in ids) + "]"


def step(forward: Trace, operation: str) -> Mapping[str, Any]:
    """The forward step of the tape operation ``operation`` (``gather_rows``, ``silu``, ...)."""
    for entry in forward["steps"]:
        if entry["operation"] == operation:
            return entry
    raise KeyError(f"the forward chain has no {operation!r} step")


def step_tensor(forward: Trace, operation: str) -> TensorJson:
    """The output of the forward step ``operation`` as a tensor."""
    entry = step(forward, operation)
    return {"shape": entry["output_shape"], "values": entry["values"]}


def ledger_edge(trace: Trace, consumer: str, slot: int = 0) -> Mapping[str, Any]:
    """The reverse-ledger entry of operand ``slot`` of the operation ``consumer`` (``matmul``, ...)."""
    return find_entry(trace["reverse_ledger"], "reverse-ledger edge", operation=consumer, operand_slot=slot)


def check(trace: Trace, operation: str) -> Mapping[str, Any]:
    """The sampled VJP check of ``operation`` (``gather_rows``, ``matmul-left``, ...)."""
    return find_entry(trace["gradchecks"]["checks"], "gradient check", operation=operation)


def probe(trace: Trace, operation: str) -> Mapping[str, Any]:
    """The scalar probe of ``operation`` (``exp``, ``log``, ``silu``)."""
    return find_entry(trace["scalar_probes"], "scalar probe", operation=operation)


def error(trace: Trace, label: str) -> Mapping[str, Any]:
    """The rejected request labelled ``label`` (``invalid-id``, ``exp-overflow``, ...)."""
    return find_entry(trace["errors"]["cases"], "rejected request", label=label)


def error_text(value: float) -> str:
    """A scaled error to three significant digits (``9.52e-12``), or ``0`` when it is exactly zero."""
    return "0" if value == 0 else sci(value, ERROR_DIGITS)


def max_error_overall(trace: Trace) -> float:
    """The largest scaled error over every sampled coordinate of every check."""
    return max(max_scaled_error(entry) for entry in trace["gradchecks"]["checks"])


def sampled_total(trace: Trace) -> int:
    """How many coordinates the eight checks sampled in all."""
    return sum(len(entry["coordinates"]) for entry in trace["gradchecks"]["checks"])


def repeated_row(trace: Trace) -> Mapping[str, Any]:
    """The embedding row selected most often (row 1 in the worked input)."""
    return max(trace["embedding_rows"], key=lambda row: row["occurrence_count"])


# --- Graphviz building blocks --------------------------------------------------------


def cell_text(value: float) -> str:
    """A value for a figure cell: ``-1`` for an integral value, else the demo's twelve decimals."""
    if math.isfinite(value) and value == int(value):
        return plain(value)
    return fixed(value)


def _grid(tensor: TensorJson) -> str:
    """A tensor's values as an HTML-like Graphviz table (:func:`cell_text` in each cell)."""
    return value_grid(tensor, cell=cell_text, width=22)


def _graph_head(name: str, rankdir: str, nodesep: float, ranksep: float) -> list[str]:
    """The first lines of a DOT digraph in the book's style."""
    return dot_head(name, {"rankdir": rankdir, "nodesep": nodesep, "ranksep": ranksep},
                    {"shape": "plaintext", "fontsize": 11}, {"fontsize": 10, "color": "#555555", "penwidth": 1.4})


# --- Figure 1: the forward chain and its fork -----------------------------------------


def _step_card(entry: Mapping[str, Any], fill: str) -> str:
    """One forward step: its name, tape operation, operands and integer inputs, shapes and value."""
    tensor = {"shape": entry["output_shape"], "values": entry["values"]}
    shapes = ", ".join(shape_text(shape) for shape in entry["operand_shapes"])
    value = html_text(cell_text(entry["values"][0])) if not entry["output_shape"] else _grid(tensor)
    reads = "<BR/>".join(
        html_text(part) for part in [node_text(label) for label in entry["operands"]] + entry["integer_inputs"]
    )
    rows = [
        card_field("reads", reads),
        card_field("differentiable inputs", html_text(shapes)),
        card_field("output shape", html_text(shape_text(entry["output_shape"]))),
        card_field("saves for its VJP", html_text(SAVED_TEXT.get(entry["operation"], "see the listing"))),
        card_field("value", value),
    ]
    return card(f'step {entry["step"]} · {entry["name"]}', rows, entry["operation"], fill=fill)


def _parameter_node(name: str, label: str, tensor: TensorJson) -> str:
    """A DOT node line: a parameter's card with its value."""
    subtitle = f"parameter {shape_text(tensor['shape'])}"
    return f"  {name} [label={card(node_text(label), [card_field('value', _grid(tensor))], subtitle)}];"


def _integer_node(name: str, title: str, subtitle: str, key: str, ids: Sequence[int]) -> str:
    """A DOT node line: an integer input's dashed card (it selects rows or classes, it gets no gradient)."""
    rows = [card_field(key, html_text(ids_text(ids)))]
    return f"  {name} [label={card(title, rows, subtitle, fill=DATA_FILL, header_fill=DATA_FILL, dashed=True)}];"


def forward_chain_dot(inputs: Trace, forward: Trace) -> str:
    """DOT source of the worked chain: inputs on top, five operation steps, the fork after SiLU.

    Every arrow into a step is one of its recorded operands or integer inputs.
    Differentiable operands arrive on solid arrows; the integer token IDs and
    target classes, which choose rows and classes but receive no gradient,
    arrive on dashed arrows. The fork is drawn as its own small node so that
    the two branches visibly start from the same logits and nothing else.
    """
    steps = forward["steps"]
    fork = forward["fork"]
    branches = set(fork["branches"])
    lines = _graph_head("forward_chain", "TB", 0.45, 0.42)
    embeddings, weights = inputs["embeddings"], inputs["weights"]
    lines += [
        _parameter_node("E", "embeddings", embeddings),
        _integer_node("z", "token IDs z", f'integers, index shape [{len(inputs["token_ids"])}]',
                      f'B = {inputs["batch"]}, T = {inputs["time"]}', inputs["token_ids"]),
        _parameter_node("W", "weights", weights),
        _integer_node("y", "target classes", f'integers, class axis {inputs["class_axis"]}',
                      "one per position", inputs["targets"]),
    ]
    for entry in steps:
        fill = LOSS_FILL if entry["step"] in branches else CARD_FILL
        lines.append(f'  s{entry["step"]} [label={_step_card(entry, fill)}];')
    lines.append(
        f'  fork [label="fork after step {fork["after_step"]}\\nshared: {node_text(fork["shared"])} only", '
        'shape=box, style="rounded,filled", fillcolor="#ffffff", fontsize=10, margin="0.12,0.05"];'
    )
    # Three rows instead of one column, so the chain fits a laptop screen:
    # the inputs; the steps before the last shared one, side by side; the
    # shared step with the fork and the targets; then the two branches.
    chain = [entry["step"] for entry in steps if entry["step"] not in branches]
    lines.append("  { rank=same; E; z; W; }")
    if len(chain) > 1:
        lines.append(f'  {{ rank=same; {" ".join(f"s{step};" for step in chain[:-1])} }}')
    lines.append(f"  {{ rank=same; s{chain[-1]}; fork; y; }}")
    producer = {entry["label"]: entry["step"] for entry in steps}
    for entry in steps:
        for label in entry["operands"]:
            if label in PARAMETER_CARD:
                lines.append(f'  {PARAMETER_CARD[label]} -> s{entry["step"]};')
            elif producer[label] == fork["after_step"] and entry["step"] in branches:
                lines.append(f'  fork -> s{entry["step"]} [label=" separate call"];')
            else:
                lines.append(f'  s{producer[label]} -> s{entry["step"]};')
        for name in entry["integer_inputs"]:
            card, label = INTEGER_CARD[name]
            lines.append(f'  {card} -> s{entry["step"]} [style=dashed, label=" {label}"];')
    lines.append(f'  s{fork["after_step"]} -> fork [arrowhead=none];')
    lines.append(f'  {{ rank=same; {" ".join(f"s{b};" for b in fork["branches"])} }}')
    lines.append("}")
    return "\n".join(lines)


def forward_chain_figure(inputs: Trace, forward: Trace) -> str:
    """Figure 1: the worked chain, gather to matmul to SiLU, then two separate probability calls."""
    fork = forward["fork"]
    caption = (
        f'The worked chain as the tape recorded it: {len(forward["steps"])} operation calls. After step '
        f'{fork["after_step"]} the graph forks into log-softmax and indexed mean NLL, two separate calls '
        "that share only the input logits; each saves the probabilities of its own forward call. "
        "Dashed arrows carry integers that choose rows or classes and receive no gradient."
    )
    return graphviz(forward_chain_dot(inputs, forward), caption, "forward-chain")


# --- Figure 2: the per-position loss gradients ---------------------------------------------


def _signed(value: float) -> str:
    """A component as math with its sign spelled out: ``$-\\tfrac{1}{8}$ (negative)``."""
    sign = "negative" if value < 0 else "positive" if value > 0 else "zero"
    return f"${frac(value)}$ ({sign})"


def position_table(positions: Sequence[Mapping[str, Any]]) -> str:
    """Figure 2: one row per flat position p = bT + t with its gradient row and the signs."""
    header = [
        "Flat position $p$",
        "$(b, t)$",
        "Token ID $z_{b,t}$",
        "Target class $y_p$",
        "Gradient row $\\bar Z_{p,:}$",
        "Target component",
        "Other component",
        "Class sum",
    ]
    rows = [
        [
            str(entry["flat_position"]),
            f'$({entry["batch"]}, {entry["time"]})$',
            str(entry["token_id"]),
            str(entry["target_class"]),
            f'${row_tex(entry["gradient"])}$',
            _signed(entry["target_component"]),
            _signed(entry["other_component"]),
            f'${frac(entry["class_sum"])}$',
        ]
        for entry in positions
    ]
    return table(header, rows, "The loss-logit gradient of every flat position", "position-gradients")


# --- Figure 3: occurrences added into embedding rows -----------------------------------------


def _occurrence_card(position: Mapping[str, Any], contribution: Sequence[float]) -> str:
    """One gathered row's adjoint: its flat position, (b, t), token ID and contribution."""
    rows = [
        card_field("(b, t)", html_text(f'({position["batch"]}, {position["time"]})')),
        card_field("token ID", f'<B>{position["token_id"]}</B>'),
        card_field("adjoint of X[p, :]", html_text(row_text(contribution))),
    ]
    return card(f'position p = {position["flat_position"]}', rows, "gathered row")


def _row_total_label(row: Mapping[str, Any]) -> str:
    """The sum node of one table row: its gradient and how many occurrences made it."""
    count = row["occurrence_count"]
    colour = UNUSED_TEXT if count == 0 else "#000000"
    how = "no occurrence selects it" if count == 0 else (
        "1 occurrence" if count == 1 else f"sum of {count} occurrences"
    )
    return (
        f'<<TABLE BORDER="1" CELLBORDER="0" CELLSPACING="0" CELLPADDING="4" BGCOLOR="#ffffff" COLOR="{colour}">'
        f'<TR><TD><FONT COLOR="{colour}"><B>row {row["row"]} of the gradient of E</B></FONT></TD></TR>'
        f'<TR><TD><FONT COLOR="{colour}" POINT-SIZE="14">{html_text(row_text(row["total"]))}</FONT></TD></TR>'
        f'<TR><TD><FONT COLOR="{colour}" POINT-SIZE="9">{html_text(how)}</FONT></TD></TR>'
        "</TABLE>>"
    )


def scatter_dot(rows: Sequence[Mapping[str, Any]], positions: Sequence[Mapping[str, Any]]) -> str:
    """DOT source of the scatter-add: occurrence cards on the left, one cluster per table row.

    Each cluster holds the contributions that arrived at its row, one small
    node per occurrence, and the row's sum. A row no ID selects keeps an empty,
    grey cluster with a zero sum.
    """
    by_position = {entry["flat_position"]: entry for entry in positions}
    lines = _graph_head("scatter_add", "LR", 0.25, 0.7)
    lines.append("  newrank=true;")
    lines.append('  subgraph cluster_occurrences { label="occurrence adjoints (matmul left gradient)"; '
                 'fontsize=11; style="rounded"; color="#999999";')
    for row in rows:
        for occurrence in row["occurrences"]:
            p = occurrence["flat_position"]
            lines.append(f'    p{p} [label={_occurrence_card(by_position[p], occurrence["contribution"])}];')
    lines.append("  }")
    for row in rows:
        count = row["occurrence_count"]
        if count == 0:
            fill, colour, title = UNUSED_FILL, UNUSED_TEXT, f'E row {row["row"]}: unused'
        elif count == 1:
            fill, colour, title = SINGLE_FILL, "#555555", f'E row {row["row"]} ← position {row["flat_positions"][0]}'
        else:
            fill, colour, title = REPEATED_FILL, "#3d7a35", (
                f'E row {row["row"]} ← positions {", ".join(str(p) for p in row["flat_positions"])}'
            )
        lines.append(
            f'  subgraph cluster_row{row["row"]} {{ label="{title}"; fontsize=11; style="rounded,filled"; '
            f'fillcolor="{fill}"; color="{colour}"; fontcolor="{colour}";'
        )
        for occurrence in row["occurrences"]:
            p = occurrence["flat_position"]
            lines.append(
                f'    c{row["row"]}_{p} [label="+ {row_text(occurrence["contribution"])}\\nfrom p = {p}", '
                'shape=box, style="rounded,filled", fillcolor="#ffffff", fontsize=10];'
            )
        if not row["occurrences"]:
            # A placeholder in the contributions column keeps the unused row in line with the others.
            lines.append(
                f'    c{row["row"]}_none [label="nothing added", shape=box, style="rounded,dashed", '
                f'color="{UNUSED_TEXT}", fontcolor="{UNUSED_TEXT}", fontsize=10];'
            )
        lines.append(f'    r{row["row"]} [label={_row_total_label(row)}];')
        lines.append("  }")
    first = min(entry["flat_position"] for entry in positions)
    for row in rows:
        if not row["occurrences"]:
            lines.append(f'  p{first} -> c{row["row"]}_none [style=invis];')
            lines.append(f'  c{row["row"]}_none -> r{row["row"]} [style=invis];')
        for occurrence in row["occurrences"]:
            p = occurrence["flat_position"]
            lines.append(f'  p{p} -> c{row["row"]}_{p} [label=" id {row["row"]}"];')
            lines.append(f'  c{row["row"]}_{p} -> r{row["row"]} [arrowhead=none, style=dotted];')
    sums = " ".join(f'r{row["row"]};' for row in rows)
    lines.append(f"  {{ rank=same; {sums} }}")
    lines.append("}")
    return "\n".join(lines)


def scatter_figure(rows: Sequence[Mapping[str, Any]], positions: Sequence[Mapping[str, Any]]) -> str:
    """Figure 3: four occurrence adjoints added into the three rows of the embedding table."""
    occurrences = sum(row["occurrence_count"] for row in rows)
    unused = [str(row["row"]) for row in rows if row["occurrence_count"] == 0]
    caption = (
        f"The gather VJP: {occurrences} occurrence adjoints, each added into the table row its token ID "
        f"selected, giving a gradient with {len(rows)} rows. Repeated IDs add up with no further mean; "
        + (f"row {', '.join(unused)} is selected by no occurrence and stays zero." if unused else
           "every row is selected at least once.")
    )
    return graphviz(scatter_dot(rows, positions), caption, "scatter-add")


# --- Figure 4: the reverse ledger ------------------------------------------------------


def ledger_table(ledger: Sequence[Mapping[str, Any]]) -> str:
    """Figure 4: every operand use of the traced pass, its rule, upstream and parent gradient."""
    header = ["Step", "Consumer, slot → parent, shape", "Rule", "Upstream", "Parent gradient"]
    rows = [
        [
            str(entry["reverse_index"]),
            f'`{entry["operation"]}`, slot {entry["operand_slot"]} → {node_text(entry["parent_label"], math=True)}, '
            f'`{shape_text(entry["parent_shape"], NBSP)}`',
            entry["rule"],
            f'${tex(entry["upstream"])}$',
            f'${tex(entry["contribution"])}$' if entry["contribution"] is not None else "none (untracked)",
        ]
        for entry in ledger
    ]
    return table(header, rows, "The reverse ledger from the loss back to both parameters", "reverse-ledger")


# --- Tables: probes, checks, errors ----------------------------------------------------


def probes_table(probes: Sequence[Mapping[str, Any]]) -> str:
    """Table: value and local derivative of exp, log and SiLU at one scalar input each."""
    rows = [
        [f'`{entry["label"]}`', plain(entry["input"]), plain(entry["output"]), plain(entry["derivative"])]
        for entry in probes
    ]
    return table(["Probe", "Input", "Output", "Derivative from the tape"], rows,
                 "Three scalar probes, each one backward() with seed 1", "scalar-probes")


def checks_table(gradchecks: Trace) -> str:
    """Table: the eight sampled VJP checks against central differences of the plain kernels."""
    header = ["VJP", "Objective", "Input shape", "Weights $w$", "Sampled coordinates", "Largest scaled error",
              "Verdict"]
    rows = []
    for entry in gradchecks["checks"]:
        coordinates = ", ".join(
            "(" + ", ".join(str(i) for i in c["coordinate"]) + ")" for c in entry["coordinates"]
        )
        rows.append(
            [
                f'`{entry["operation"]}`',
                f'`{entry["expression"]}`',
                f'`{shape_text(entry["input"]["shape"], NBSP)}`',
                row_text(entry["weights"]["values"]),
                coordinates,
                error_text(max_scaled_error(entry)),
                "pass" if entry["passed"] else "FAIL",
            ]
        )
    return table(header, rows, "Eight sampled checks of the new VJPs against central differences", "gradchecks")


def errors_table(errors: Trace) -> str:
    """Table: the four rejected requests, their typed errors and the gradient-bits verdict."""
    header = ["Request", "Error type and kind", "Message", "Protected gradient", "Unchanged"]
    rows = [
        [
            f'`{entry["label"]}`',
            f'`{entry["error_type"]}` `{entry["kind"]}`',
            entry["message"],
            f'`{entry["parameter"]}` {shape_text(entry["gradient_before"]["shape"], NBSP)}: '
            + (row_text(entry["gradient_before"]["values"]) if entry["gradient_before"]["values"] else "no elements"),
            "yes, bit for bit" if entry["gradients_unchanged"] else "NO",
        ]
        for entry in errors["cases"]
    ]
    return table(header, rows, "Four rejected requests and the gradients they leave alone", "rejected-requests")


# --- The asymmetric chain, the checks each rule gets, chapter 13's logits, descent ---------

VALUE_DIGITS = 6  # decimals of the asymmetric chain's values in tables


def _short(values: Sequence[float]) -> str:
    """A row of values to VALUE_DIGITS decimals: ``[-0.268941, -0.278375]``."""
    return "[" + ", ".join(fixed(v, VALUE_DIGITS) for v in values) + "]"


def asymmetric_table(trace: Trace) -> str:
    """Table: the asymmetric chain, one column per group of positions with identical rows.

    The table is transposed (quantities as rows) and positions whose token and
    target agree, hence whose every row agrees, share a column, so it fits the
    page width.
    """
    a = trace["asymmetric"]
    targets = trace["inputs"]["targets"]
    ids = trace["inputs"]["token_ids"]
    width = a["logits"]["shape"][1]
    fields = [
        ("Preactivations $H_p$", "preactivations"),
        ("Logits $Z_p$", "logits"),
        ("Probabilities $P_p$", "probabilities"),
        ("$\\bar Z_p$ through the NLL", "nll_logit_gradient"),
        ("$\\bar Z_p$ through log-softmax", "log_softmax_logit_gradient"),
        ("$\\bar H_p$, the SiLU rule", "through_silu"),
        ("$\\bar H_p$ if SiLU$'$ were $\\sigma(x)$", "through_sigmoid_only"),
    ]

    def row(name: str, p: int) -> list[float]:
        return a[name]["values"][p * width:(p + 1) * width]

    groups: list[list[int]] = []
    for p in range(len(targets)):
        for group in groups:
            first = group[0]
            if ids[first] == ids[p] and targets[first] == targets[p] and all(
                row(name, first) == row(name, p) for _, name in fields
            ):
                group.append(p)
                break
        else:
            groups.append([p])
    titles = [f"$p = {group[0]}$" if len(group) == 1 else f"$p = {group[0]}$ to ${group[-1]}$" for group in groups]
    rows = [["**Target class**", *(str(targets[group[0]]) for group in groups)]]
    rows += [[f"**{label}**", *(_short(row(name, group[0])) for group in groups)] for label, name in fields]
    return table(["Position", *titles], rows,
                 "The asymmetric chain: non-zero logits, both loss paths, and a wrong SiLU rule",
                 "asymmetric-chain")


# Which handwritten comparison exercises each checked rule: (trace key of the
# fixture, name of the compared tensor, what the comparison covers).
RULE_BASELINES = {
    "matmul-left": [("baseline", "gathered-row gradient", "worked chain")],
    "matmul-right": [("baseline", "weight gradient", "worked chain"),
                     ("asymmetric", "asymmetric weight gradient", "asymmetric chain")],
    "gather_rows": [("baseline", "embedding gradient", "worked chain")],
    "exp": [],
    "log": [],
    "silu": [("baseline", "gradient through SiLU", "worked chain, at x = 0 only"),
             ("asymmetric", "asymmetric gradient through SiLU", "asymmetric chain")],
    "log_softmax": [("asymmetric", "logit gradient through log_softmax", "asymmetric chain")],
    "indexed_mean_nll": [("baseline", "loss-logit gradient", "worked chain"),
                         ("asymmetric", "logit gradient through indexed_mean_nll", "asymmetric chain")],
}


def _compared(trace: Trace, key: str) -> Sequence[str]:
    return trace[key]["compared"] if key == "baseline" else trace[key]["baseline"]["compared"]


def handwritten_rules(trace: Trace) -> list[str]:
    """The checked rules that some handwritten comparison of this run exercised, in check order."""
    return [entry["operation"] for entry in trace["gradchecks"]["checks"] if RULE_BASELINES[entry["operation"]]]


def numerical_only_rules(trace: Trace) -> list[str]:
    """The checked rules that only the central differences exercised."""
    return [entry["operation"] for entry in trace["gradchecks"]["checks"] if not RULE_BASELINES[entry["operation"]]]


def coverage_table(trace: Trace) -> str:
    """Table: for each checked rule, the handwritten comparisons and the central-difference verdict.

    Raises ValueError when the trace lacks a check or a comparison this
    table claims, so the page cannot say a rule was checked when it was not.
    """
    rows = []
    for entry in trace["gradchecks"]["checks"]:
        operation = entry["operation"]
        if operation not in RULE_BASELINES:
            raise ValueError(f"no handwritten-coverage entry for the checked rule {operation!r}")
        covered = []
        for key, name, where in RULE_BASELINES[operation]:
            if name not in _compared(trace, key):
                raise ValueError(f"the {key} fixture did not compare {name!r}; the coverage of {operation} is wrong")
            covered.append(f"{where} ({name})")
        rows.append([f"`{operation}`", "; ".join(covered) if covered else "none",
                     "pass" if entry["passed"] else "FAIL"])
    return table(["Rule", "Compared with a handwritten calculation", "Central differences"], rows,
                 "How each reverse rule is checked in this run", "rule-coverage")


def chapter13_table(nll: Trace) -> str:
    """Table: chapter 13's logits, the tape's NLL gradient and the handwritten one, coordinate by coordinate."""
    shape = nll["logits"]["shape"]
    columns = shape[1]
    rows = []
    for k, logit in enumerate(nll["logits"]["values"]):
        row, column = divmod(k, columns)
        target = nll["targets"][row]
        rows.append([f"({row}, {column})", plain(logit), "yes" if column == target else "",
                     fixed(nll["tape_gradient"]["values"][k]), fixed(nll["handwritten_gradient"]["values"][k])])
    return table(["Coordinate", "Logit", "Target", "Tape gradient", "By hand, $(P - \\mathbf{1})/G$"], rows,
                 f"Chapter 13's logits [{shape[0]}, {shape[1]}] reversed on the tape", "chapter13-logits")


def descent_figure(descent: Trace) -> str:
    """Plot: the mean loss before each gradient-descent step and after the last."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    losses = descent["losses"]
    figure, axis = plt.subplots(figsize=(6.0, 3.0))
    axis.plot(range(len(losses)), losses, "o-", color="#336699", linewidth=1.5)
    for k in (0, len(losses) - 1):
        axis.annotate(fixed(losses[k], 4), (k, losses[k]), textcoords="offset points", xytext=(6, 4), fontsize=8)
    axis.set_xlabel("gradient-descent steps taken")
    axis.set_ylabel("mean loss L (nats)")
    axis.set_ylim(0, max(losses) * 1.15)
    axis.set_xticks(range(len(losses)))
    axis.grid(True, linewidth=0.3)
    svg = matplotlib_svg(figure)
    plt.close(figure)
    values = ", ".join(fixed(loss, 4) for loss in losses)
    alt = (f"A line plot of the worked chain's mean loss against the number of gradient-descent steps, "
           f"0 to {len(losses) - 1}, learning rate {plain(descent['learning_rate'])}: it falls every step, "
           f"from {fixed(losses[0], 4)} to {fixed(losses[-1], 4)}. Values: {values}.")
    caption = (f"The worked chain trained by {len(losses) - 1} plain gradient-descent steps of rate "
               f"{plain(descent['learning_rate'])}: the mean loss before the first step and after each one")
    return svg_figure(svg, caption, "descent-loss", alt=alt)
