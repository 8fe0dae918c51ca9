"""Figures of chapter 15, drawn from the demo's trace (``chapter-15-demo --trace``).

* :func:`forward_graph_figure` -- the shared fixture's eight tensor nodes with
  shapes, values and pass adjoints, and its eight operand uses
  (``trace.forward``, ``trace.reverse.nodes``, ``trace.reverse.seed``).
* :func:`ledger_table` -- the reverse ledger of the first pass, edge by edge
  (``trace.reverse.edges``).
* :func:`lifecycle_figure` -- stored gradients after each call of the
  retain / repeat / zero / release sequence and the rejected pass over the
  released graph (``trace.outcomes.lifecycle``, ``trace.outcomes.release``).
* :func:`detach_table`, :func:`detach_edges_table` -- the detach example and
  the edges its traced pass applied (``trace.outcomes.detach``).
* :func:`asymmetric_table` -- the product of two different tensors, tape
  against hand and a wrong-operand rule (``trace.asymmetric``).
* :func:`strides_table` -- strides and storage offsets of three layouts
  (``trace.strides``).
* :func:`checks_table` -- the seven sampled VJP checks (``trace.outcomes.checks``).
* :func:`errors_table` -- the four rejected requests (``trace.outcomes.errors``).

The small helpers (:func:`plain`, :func:`tex`, :func:`code`, :func:`node`,
:func:`adjoint`) format trace tensors for the prose. Every number shown comes
from the trace; nothing is typed by hand.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Mapping, Sequence

from tools.figures import (
    card,
    card_field,
    dot_head,
    dot_text,
    find_entry,
    fixed,
    graphviz,
    html_text,
    max_scaled_error,
    plain,
    sci,
    shape_text,
    shortest,
    table,
    tensor_rows,
    value_grid,
)

Trace = Mapping[str, Any]
TensorJson = Mapping[str, Any]  # {"shape": [...], "values": [...]}, row-major

VALUE_FILL = "#ffffff"
ADJOINT_FILL = "#fdf1e6"
ERROR_FILL = "#fbe3e3"
NBSP = "\u00a0"  # keeps a shape such as [2, 3] on one line inside a table cell
EDGE_COLOURS = ("#1f5fa8", "#c2571a")  # operand slot 0, operand slot 1

# How each lifecycle step was produced, in the order the fixture runs them.
STEP_CALLS = {
    "one backward": "backward_with_seed(S, Retain)",
    "repeated backward": "backward_with_seed(S, Retain)",
    "zero_grad": "zero_grad()",
    "after zero and release": "backward_with_seed(S, Release)",
}


# --- Numbers and tensors for prose ---------------------------------------------


def code(tensor: TensorJson) -> str:
    """A rank-0, 1 or 2 tensor as nested-list text: ``[[1, 3, 5], [2, 4, 6]]``."""
    shape = tensor["shape"]
    if len(shape) == 0:
        return plain(tensor["values"][0])
    rows = ["[" + ", ".join(plain(v) for v in row) + "]" for row in tensor_rows(tensor)]
    if len(shape) == 1:
        return rows[0]
    if len(shape) == 2:
        return "[" + ", ".join(rows) + "]"
    raise ValueError(f"code() shows rank 0 to 2, not shape {shape_text(shape)}")


def tex(tensor: TensorJson) -> str:
    """A tensor as LaTeX: a number (rank 0), a tuple (rank 1) or a bracketed matrix (rank 2)."""
    shape = tensor["shape"]
    if len(shape) == 0:
        return plain(tensor["values"][0])
    if len(shape) == 1:
        # \left( ... \right) is one unbreakable box: MathJax never wraps a tuple mid-way.
        return "\\left(" + ",\\ ".join(plain(v) for v in tensor["values"]) + "\\right)"
    if len(shape) == 2:
        body = " \\\\ ".join(" & ".join(plain(v) for v in row) for row in tensor_rows(tensor))
        return f"\\begin{{bmatrix}} {body} \\end{{bmatrix}}"
    raise ValueError(f"tex() shows rank 0 to 2, not shape {shape_text(shape)}")


def node(forward: Trace, label: str) -> Mapping[str, Any]:
    """The forward-graph node of the fixture labelled ``label`` (``x``, ``add``, ...)."""
    return find_entry(forward["nodes"], "forward-graph node", label=label)


def value(forward: Trace, label: str) -> TensorJson:
    """The forward value of the node labelled ``label`` as a tensor."""
    entry = node(forward, label)
    return {"shape": entry["shape"], "values": entry["values"]}


def adjoint(reverse: Trace, label: str) -> TensorJson:
    """The pass adjoint of the node labelled ``label`` in the traced first pass."""
    entry = find_entry(reverse["nodes"], "reverse-pass node", label=label)
    if entry["pass_adjoint"] is None:
        raise ValueError(f"node {label!r} has no pass adjoint (untracked)")
    return entry["pass_adjoint"]


def edges_into(reverse: Trace, label: str) -> list[Mapping[str, Any]]:
    """The ledger rows whose operand is ``label``, in reverse-pass order."""
    return [edge for edge in reverse["edges"] if edge["parent_label"] == label]


def edge(reverse: Trace, consumer: str, slot: int) -> Mapping[str, Any]:
    """The ledger row of operand ``slot`` of the consumer labelled ``consumer``."""
    return find_entry(reverse["edges"], "ledger edge", consumer_label=consumer, operand_slot=slot)


def scaled(tensor: TensorJson, factor: float) -> TensorJson:
    """``tensor`` with every value multiplied by ``factor`` (for what-if answers)."""
    return {"shape": tensor["shape"], "values": [v * factor for v in tensor["values"]]}


def flat(tensor: TensorJson) -> str:
    """The values of a tensor of any rank in row-major order: ``0.5, -0.75, 1``."""
    return ", ".join(plain(v) for v in tensor["values"])


def check(outcomes: Trace, operation: str) -> Mapping[str, Any]:
    """The sampled VJP check of ``operation`` (``add``, ``broadcast``, ...)."""
    return find_entry(outcomes["checks"], "gradient check", operation=operation)


def _labelled_grid(caption: str, tensor: TensorJson, fill: str) -> str:
    """One card row: a small caption on the left and the tensor's grid on the right."""
    return card_field(caption, value_grid(tensor, fill))


# --- Figure 1: the forward graph -------------------------------------------------


def forward_graph_dot(forward: Trace, reverse: Trace) -> str:
    """DOT source of the fixture's graph: one card per tensor node, one arrow per operand use.

    Arrows run from operand to consumer (the forward direction) and are
    labelled with the operand slot, so the two uses of ``add`` by ``multiply``
    are two separate arrows. Each card shows the forward value and the pass
    adjoint of the traced first pass; the seed enters at the output.
    """
    adjoints = {entry["id"]: entry["pass_adjoint"] for entry in reverse["nodes"]}
    lines = dot_head("forward_graph", {"rankdir": "TB", "nodesep": 0.35, "ranksep": 0.45},
                     {"shape": "plaintext", "fontsize": 11}, {"fontsize": 10, "penwidth": 1.5})
    for entry in forward["nodes"]:
        tensor = {"shape": entry["shape"], "values": entry["values"]}
        rows = [
            card_field("shape", html_text(shape_text(entry["shape"]))),
            _labelled_grid("value", tensor, VALUE_FILL),
        ]
        if adjoints.get(entry["id"]) is not None:
            rows.append(_labelled_grid("pass adjoint", adjoints[entry["id"]], ADJOINT_FILL))
        title = f'{entry["id"]} · {entry["label"]}'
        lines.append(f'  n{entry["id"]} [label={card(title, rows, entry["operation"])}];')
    # Rows instead of one column, so the graph fits a laptop screen: each input
    # chain before the first node that joins two parents is a row, and the
    # join with everything after it (and the seed) is the last row.
    parents: dict[int, list[int]] = {}
    for use in forward["operand_uses"]:
        parents.setdefault(use["consumer"], []).append(use["parent"])
    ids = [entry["id"] for entry in forward["nodes"]]
    join = next((node for node in ids if len(set(parents.get(node, ()))) > 1), None)
    if join is not None:
        root: dict[int, int] = {}
        for node in ids:
            if node < join:
                root[node] = root[parents[node][0]] if node in parents else node
        rows = [[node for node in ids if root.get(node) == start] for start in sorted(set(root.values()))]
        rows.append([node for node in ids if node >= join])
        for row in rows:
            extra = " seed;" if row is rows[-1] else ""
            lines.append(f'  {{ rank=same; {" ".join(f"n{node};" for node in row)}{extra} }}')
        for upper, lower in zip(rows, rows[1:]):
            lines.append(f"  n{upper[0]} -> n{lower[0]} [style=invis];")  # one row under the other
    # A consumer that reads the same operand through several slots gets its
    # arrows spread apart (over the top for the first slot, under the bottom
    # for the last: the two cards sit side by side), so the repeated use is
    # visibly two arrows.
    pair_counts = Counter((use["parent"], use["consumer"]) for use in forward["operand_uses"])
    for use in forward["operand_uses"]:
        colour = EDGE_COLOURS[use["operand_slot"] % len(EDGE_COLOURS)]
        ports = ""
        if pair_counts[(use["parent"], use["consumer"])] > 1:
            side = "n" if use["operand_slot"] == 0 else "s"
            ports = f', tailport="{side}", headport="{side}"'
        lines.append(
            f'  n{use["parent"]} -> n{use["consumer"]} '
            f'[label=" slot {use["operand_slot"]}", color="{colour}", fontcolor="{colour}"{ports}];'
        )
    output = forward["nodes"][-1]["id"]
    seed = reverse["seed"]
    lines.append(
        f'  seed [label="seed S = {dot_text(code(seed))}", shape=note, fontsize=10, '
        'style=filled, fillcolor="#fdf1e6"];'
    )
    lines.append(f'  n{output} -> seed [dir=back, style=dashed, color="#555555"];')
    lines.append("}")
    return "\n".join(lines)


def forward_graph_figure(forward: Trace, reverse: Trace) -> str:
    """Figure 1: eight tensor nodes with shapes, values and pass adjoints, eight operand uses."""
    caption = (
        f'The shared fixture as the tape recorded it, {len(forward["nodes"])} tensor nodes in '
        f'topological order and {len(forward["operand_uses"])} operand uses, one arrow each '
        "(blue for slot 0, orange for slot 1). Each card shows the forward value and, shaded, the pass "
        "adjoint of the first reverse pass with the seed S."
    )
    return graphviz(forward_graph_dot(forward, reverse), caption, "forward-graph")


# --- Figure 2: the reverse ledger --------------------------------------------------


def ledger_table(reverse: Trace) -> str:
    """Figure 2: one row per operand edge, in the order the reverse pass applied it."""
    header = [
        "Step",
        "Consumer $c(e)$, slot",
        "Operand",
        "Rule $\\mathrm{VJP}_e$",
        "Upstream $\\overline{c(e)}$",
        "Contribution",
        "Shape",
    ]
    rows = []
    for edge in reverse["edges"]:
        contribution = edge["contribution"]
        rows.append(
            [
                str(edge["reverse_index"]),
                f'{edge["consumer_label"]}, {edge["operand_slot"]}',
                edge["parent_label"],
                edge["rule"],
                f'${tex(edge["upstream"])}$',
                f"${tex(contribution)}$" if contribution is not None else "none (untracked)",
                f'`{shape_text(edge["parent_shape"], NBSP)}`',
            ]
        )
    return table(header, rows, "The reverse ledger of the first pass, one row per operand use", "reverse-ledger")


# --- Figure 3: the lifecycle ---------------------------------------------------------


def _state_card(state: Mapping[str, Any]) -> str:
    """An HTML-like label: one lifecycle step, the call that produced it, both stored gradients."""
    rows = [
        _labelled_grid("x gradient", state["x_gradient"], VALUE_FILL),
        _labelled_grid("bias gradient", state["bias_gradient"], VALUE_FILL),
    ]
    return card(state["step"], rows, STEP_CALLS.get(state["step"], ""))


def _rejection_card(release: Mapping[str, Any]) -> str:
    """An HTML-like label: the pass over the released graph, its error and the state verdict."""
    unchanged = "unchanged, bit for bit" if release["gradients_unchanged"] else "CHANGED"
    evidence = release["evidence"]
    rows = [
        card_field("error", f'<B>{html_text(release["kind"])}</B>'),
        card_field("names", f'{html_text(evidence["operation"])} node {html_text(str(evidence["node"]))}'),
        card_field("both gradients", html_text(unchanged)),
    ]
    return card("backward again", rows, "backward_with_seed(S, Retain)", fill=ERROR_FILL)


def lifecycle_dot(outcomes: Trace) -> str:
    """DOT source of the lifecycle: four stored states in call order, then the rejected pass.

    The first three cards sit in one row; the release pass and the rejected
    pass sit below, right to left, so the sequence reads as a U.
    """
    states = outcomes["lifecycle"]
    if len(states) != 4:
        raise ValueError(f"expected four lifecycle states, the trace has {len(states)}")
    lines = dot_head("lifecycle", {"rankdir": "TB", "nodesep": 0.5, "ranksep": 0.45},
                     {"shape": "plaintext", "fontsize": 11}, {"color": "#555555", "penwidth": 1.4})
    for index, state in enumerate(states):
        lines.append(f"  s{index} [label={_state_card(state)}];")
    lines.append(f'  s4 [label={_rejection_card(outcomes["release"])}];')
    lines += [
        "  { rank=same; s0; s1; s2; }",
        "  { rank=same; s4; s3; }",
        "  s0 -> s1;",
        "  s1 -> s2;",
        "  s2 -> s3;",
        "  s4 -> s3 [dir=back];",  # drawn from s3 to s4, laid out with s4 on the left
        "  s1 -> s4 [style=invis];",
    ]
    lines.append("}")
    return "\n".join(lines)


def lifecycle_figure(outcomes: Trace) -> str:
    """Figure 3: stored gradients of x and bias through the lifecycle, and the released-graph error."""
    states = outcomes["lifecycle"]
    restored = states[0]["x_gradient"] == states[3]["x_gradient"] and (
        states[0]["bias_gradient"] == states[3]["bias_gradient"]
    )
    caption = (
        "Stored gradients of x and bias after each call of the lifecycle, in call order. "
        "A repeated pass adds a second, identical fresh pass; zero_grad clears; the release pass "
        + ("restores the first state exactly" if restored else "does NOT restore the first state")
        + ", then drops the saved contexts, so one more pass is rejected before anything changes."
    )
    return graphviz(lifecycle_dot(outcomes), caption, "lifecycle")


# --- Tables: detach, checks, errors -------------------------------------------------


def detach_table(detach: Mapping[str, Any]) -> str:
    """Table: the detach example's inputs, value and gradients."""
    detached = detach["detached_gradient"]
    rows = [
        ["expression", f'`{detach["expression"]}`'],
        [f'parameter $p$, shape `{shape_text(detach["p"]["shape"])}`', f'${tex(detach["p"])}$'],
        ["rank-0 constant $c$", plain(detach["c"])],
        ["value", fixed(detach["value"])],
        ["stored gradient of $p$", f'${tex(detach["p_gradient"])}$'],
        ["gradient of `detach(p)`", "none (untracked)" if detached is None else f"${tex(detached)}$"],
    ]
    product = "tracked" if detach["product_tracked"] else "untracked, no edges"
    rows.append(["`detach(p)*c`", product])
    return table(["Quantity", "Value"], rows, "The detach example: one live path, one detached path", "detach")


def detach_edges_table(detach: Mapping[str, Any]) -> str:
    """Table: every edge the detach example's traced pass applied, in reverse order."""
    rows = [
        [str(step), f'`{e["consumer"]}`', str(e["slot"]), f'`{e["operand"]}`',
         "yes" if e["contributed"] else "no (untracked operand)"]
        for step, e in enumerate(detach["edges"])
    ]
    operands = {e["operand"] for e in detach["edges"]}
    if "c" in operands or "detach(p)" in operands:
        raise ValueError("the detach trace has an edge to c or detach(p); the page says it has none")
    caption = (f"The {len(rows)} edges of the detach example's pass: none reaches `c` or "
               "`detach(p)`, because their product keeps no edges")
    return table(["Step", "Consumer", "Slot", "Operand", "Contribution computed"], rows, caption,
                 "detach-edges")


def asymmetric_table(asymmetric: Mapping[str, Any]) -> str:
    """Table: the product of two different tensors, tape against hand and a swapped rule."""
    def vector(values: Sequence[float]) -> str:
        return "$\\left(" + ",\\ ".join(plain(v) for v in values) + "\\right)$"

    rows = []
    for name, key in (("$g_x$", "x_gradient"), ("$g_{\\mathrm{bias}}$", "bias_gradient")):
        tape = asymmetric[key]["values"]
        by_hand = asymmetric[f"{key}_by_hand"]
        swapped = asymmetric[f"{key}_if_swapped"]
        rows.append([name, vector(tape), vector(by_hand), vector(swapped),
                     "yes" if tape == by_hand else "NO"])
    caption = (f"`{asymmetric['expression']}` with seed S: the tape, the hand derivation, and what "
               "a rule multiplying by its own operand would give")
    return table(["Gradient", "Tape", "By hand", "Wrong operand", "Tape = hand"], rows, caption,
                 "asymmetric-product")


def strides_table(strides: Sequence[Mapping[str, Any]]) -> str:
    """Table: three layouts of the chapter and the storage offset of each element, row-major."""
    rows = [
        [entry["what"], f'`{shape_text(entry["shape"])}`', f'`{list(entry["strides"])}`',
         str(entry["offset"]), f'`{list(entry["offsets"])}`']
        for entry in strides
    ]
    return table(["Layout", "Shape", "Strides", "Offset", "Storage offset of each element"], rows,
                 "Strides and offsets: a transposed view, the spread of the mean's VJP, and where "
                 "sum_to_shape adds each upstream element", "stride-offsets")


def checks_table(outcomes: Trace) -> str:
    """Table: the seven sampled VJP checks, each against central differences of seed · forward(p)."""
    header = [
        "VJP",
        "Reversed expression",
        "Seed shape",
        "Sampled flat indices",
        "Largest scaled error",
        "Verdict",
    ]
    rows = []
    for entry in outcomes["checks"]:
        flats = ", ".join(str(coordinate["flat_index"]) for coordinate in entry["coordinates"])
        rows.append(
            [
                entry["operation"],
                f'`{entry["expression"]}`',
                f'`{shape_text(entry["seed"]["shape"], NBSP)}`',
                flats,
                sci(max_scaled_error(entry), 2),
                "pass" if entry["passed"] else "FAIL",
            ]
        )
    first = outcomes["checks"][0]
    caption = (
        f"The seven VJP checks against central differences, with step {shortest(first['step'])}, "
        f"tolerance {shortest(first['tolerance'])} on the scaled error, up to {first['requested_samples']} "
        "sampled coordinates each and a seed that is not all ones"
    )
    return table(header, rows, caption, "vjp-checks")


def _evidence_text(evidence: Mapping[str, Any]) -> str:
    """``key = value`` pairs of an error's evidence; shapes and coordinates as lists."""
    parts = []
    for key, item in evidence.items():
        if isinstance(item, float):
            text = shortest(item)
        elif isinstance(item, list):
            text = shape_text(item)
        else:
            text = str(item)
        parts.append(f"{key.replace('_', ' ')} = `{text}`")
    return "; ".join(parts)


def _request_text(case: Mapping[str, Any]) -> str:
    """The request label, followed by the error kind when the two differ."""
    if case["label"] == case["kind"]:
        return f'`{case["kind"]}`'
    return f'`{case["label"]}`, error `{case["kind"]}`'


def errors_table(outcomes: Trace) -> str:
    """Table: each rejected request, its error kind, evidence, message and the state verdict."""
    header = ["Request and error kind", "Evidence", "Message", "State unchanged"]
    rows = [
        [
            _request_text(case),
            _evidence_text(case["evidence"]),
            case["message"],
            "yes, bit for bit" if case["gradients_unchanged"] else "NO",
        ]
        for case in outcomes["errors"]
    ]
    return table(header, rows, "Four rejected requests and the state they leave behind", "rejected-requests")
