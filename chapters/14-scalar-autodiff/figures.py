"""Figures of chapter 14, drawn from the demo's trace (``chapter-14-demo --trace``).

* :func:`graph_figure` -- the reused-square graph: one card per node and one
  arrow per operand use (``trace.reused_square``).
* :func:`ledger_table` -- the reverse ledger, one row per operand edge in the
  order the reverse pass processed it (``trace.reused_square.edges``).
* :func:`stored_states_figure` -- stored gradients after each call of the
  repeat / zero / restore sequence (``trace.reused_square.stored_states``).
* :func:`checks_table` -- detach, the nonlinear chain and the numerical
  cross-check (``trace.detach``, ``trace.nonlinear``, ``trace.gradcheck``).
* :func:`rejections_table` -- the three rejected requests (``trace.typed_errors``).

Every number shown comes from the trace; nothing is typed by hand.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from tools.figures import card, card_field, dot_head, dot_text, fixed, graphviz, html_text, plain, sci, shortest, table

Trace = Mapping[str, Any]

# What each operation name of the trace means on a node card.
OPERATION_TEXT = {
    "parameter": "tracked parameter",
    "constant": "constant",
    "detached": "detached copy",
    "add": "addition",
    "mul": "multiplication",
    "neg": "negation",
    "sub": "subtraction",
    "exp": "exp",
    "tanh": "tanh",
}

# The stored-state snapshots of the fixture, in the order they were taken,
# with the call that produced each one.
STATE_TEXT = {
    "first": ("first pass", "loss.backward()"),
    "repeated": ("repeated pass", "loss.backward()"),
    "zeroed": ("zeroed", "loss.zero_grad()"),
    "after_zero": ("restored", "loss.backward()"),
}

EDGE_COLOURS = ("#1f5fa8", "#c2571a")  # operand use 0, operand use 1


def optional_fixed(value: float | None) -> str:
    """``value`` as the demo prints it, or ``none`` for an untracked (null) entry."""
    return "none" if value is None else fixed(value)


def binary_exponent(value: float) -> int:
    """The exponent k of ``value == 2**k``; raises ValueError if it is not a power of two."""
    mantissa, exponent = math.frexp(value)
    if mantissa != 0.5:
        raise ValueError(f"{value!r} is not a power of two")
    return exponent - 1


def _card(node: Mapping[str, Any]) -> str:
    """An HTML-like Graphviz label: one node's name, order, operation, value and pass adjoint."""
    rows = [
        ("forward order", str(node["index"])),
        ("operation", OPERATION_TEXT.get(node["operation"], node["operation"])),
        ("primal value", fixed(node["value"])),
        ("pass adjoint", optional_fixed(node["pass_adjoint"])),
    ]
    return card(node["name"], [card_field(key, html_text(value), key_size=10) for key, value in rows])


def graph_dot(reused: Trace) -> str:
    """DOT source of one traced graph (the reused square or the asymmetric example).

    Nodes are stacked top to bottom in forward order; each operand edge
    points from the operand to the result that read it, the direction values
    flow (book/notation.md). The reverse pass walks the arrows backward. The
    seed enters at the output from below.
    """
    lines = dot_head("scalar_graph", {"rankdir": "TB", "nodesep": 0.4, "ranksep": 0.7},
                     {"shape": "plaintext", "fontsize": 11}, {"fontsize": 10})
    for node in reused["nodes"]:
        lines.append(f'  n{node["index"]} [label={_card(node)}];')
    output = reused["nodes"][-1]
    lines.append(f'  seed [label="seed s = {dot_text(plain(reused["seed"]))}", shape=note, fontsize=10];')
    # Drawn from the output to the seed so that the seed sits below it; dir=back points the arrow at the output.
    lines.append(f'  n{output["index"]} -> seed [dir=back, style=dashed, color="#555555"];')
    for edge in reused["edges"]:
        colour = EDGE_COLOURS[edge["operand_slot"] % len(EDGE_COLOURS)]
        label = f'operand use {edge["operand_slot"]}\\nreverse step {edge["reverse_index"]}'
        lines.append(
            f'  n{edge["operand_index"]} -> n{edge["result_index"]} '
            f'[label="{label}", color="{colour}", fontcolor="{colour}", penwidth=1.6];'
        )
    lines.append("}")
    return "\n".join(lines)


def graph_figure(reused: Trace) -> str:
    """Figure 1: three node cards and every operand-use edge of the reused square."""
    nodes, edges = reused["nodes"], reused["edges"]
    caption = (
        f"The reused square after one reverse pass, with {len(nodes)} node cards and "
        f"{len(edges)} operand-use edges. Arrows point from an operand to the result that read it; "
        "the reverse pass sends contributions against them."
    )
    return graphviz(graph_dot(reused), caption, "reused-square-graph")


def ledger_table(reused: Trace) -> str:
    """Figure 2: the reverse ledger, one column per operand edge in the order the pass processed it.

    The table is transposed (fields as rows) so that all eight fields fit the
    page width and the pass reads left to right in time.
    """
    edges = reused["edges"]
    fields = [
        ("Consuming result $c(e)$", lambda edge: edge["result"]),
        ("Operand use", lambda edge: str(edge["operand_slot"])),
        ("Operand", lambda edge: edge["operand"]),
        ("Local derivative $d_e$", lambda edge: fixed(edge["local_derivative"])),
        ("Upstream adjoint $\\overline{c(e)}$", lambda edge: fixed(edge["upstream_adjoint"])),
        ("Contribution $\\overline{c(e)}\\,d_e$", lambda edge: fixed(edge["contribution"])),
        ("Operand adjoint before", lambda edge: optional_fixed(edge["operand_adjoint_before"])),
        ("Operand adjoint after", lambda edge: optional_fixed(edge["operand_adjoint_after"])),
    ]
    header = ["Reverse order", *(str(edge["reverse_index"]) for edge in edges)]
    rows = [[f"**{label}**", *(cell(edge) for edge in edges)] for label, cell in fields]
    return table(header, rows, "The reverse ledger of the first pass, one column per operand edge", "reverse-ledger")


def _state_card(state: Mapping[str, Any], names: Sequence[str]) -> str:
    """An HTML-like label: one snapshot's title, the call that produced it, and each stored gradient."""
    title, call = STATE_TEXT.get(state["state"], (state["state"], ""))
    rows = [card_field(name, html_text(fixed(state[name])), key_size=None) for name in names]
    return card(title, rows, subtitle=call)


def stored_states_dot(reused: Trace) -> str:
    """DOT source of the four stored-gradient snapshots as a U-shaped sequence.

    The first two sit side by side, the last two below them in reverse, so the
    restored state lands under the first pass; a dotted line joins the two when
    the trace shows them equal.
    """
    names = [node["name"] for node in reused["nodes"]]
    states = reused["stored_states"]
    if len(states) != 4:
        raise ValueError(f"expected four stored states, the trace has {len(states)}")
    lines = dot_head("stored_states", {"rankdir": "TB", "nodesep": 0.8, "ranksep": 0.5},
                     {"shape": "plaintext", "fontsize": 11}, {"color": "#555555", "penwidth": 1.4})
    for index, state in enumerate(states):
        lines.append(f"  s{index} [label={_state_card(state, names)}];")
    lines += [
        "  { rank=same; s0; s1; }",
        "  { rank=same; s3; s2; }",
        "  s0 -> s1;",
        "  s1 -> s2;",
        "  s3 -> s2 [dir=back];",  # drawn from s2 to s3, laid out with s3 on the left
    ]
    if all(states[0][name] == states[3][name] for name in names):
        lines.append('  s0 -> s3 [style=dotted, arrowhead=none, color="#1f5fa8", label=" equal", fontcolor="#1f5fa8", fontname="Helvetica", fontsize=10];')
    else:
        lines.append("  s0 -> s3 [style=invis];")
    lines.append("}")
    return "\n".join(lines)


def stored_states_figure(reused: Trace) -> str:
    """Figure 3: stored gradients after each call of the fixture, in call order."""
    caption = (
        "Stored gradients of the reused square after each call. Every backward call adds one "
        "complete fresh pass, zero_grad clears them, and one more call restores the first state."
    )
    return graphviz(stored_states_dot(reused), caption, "stored-states")


def checks_table(detach: Trace, nonlinear: Trace, gradcheck: Trace) -> str:
    """Figure 4: what detach, the nonlinear chain and the numerical cross-check produced.

    One row per reported quantity, grouped by example, so the table stays narrow.
    """
    verdict = "pass" if gradcheck["passed"] else "FAIL"
    groups = [
        (
            f'detach, `{detach["expression"]}` at $x = {fixed(detach["input"])}$',
            [
                ("value", fixed(detach["value"])),
                ("stored gradient of $x$", fixed(detach["x_gradient"])),
                ("stored gradient of the detached copy", f'{optional_fixed(detach["detached_gradient"])} (untracked)'),
            ],
        ),
        (
            f'nonlinear chain, `{nonlinear["expression"]}` at $x = {fixed(nonlinear["input"])}$',
            [
                ("value", fixed(nonlinear["value"])),
                ("stored gradient of $x$", fixed(nonlinear["gradient"])),
            ],
        ),
        (
            f'central difference of `{gradcheck["expression"]}` at $x = {fixed(gradcheck["point"])}$',
            [
                ("requested step $h$", shortest(gradcheck["step"])),
                ("probes $x - h$, $x + h$", f'{shortest(gradcheck["minus_point"])}, {shortest(gradcheck["plus_point"])}'),
                ("analytic (reverse mode)", fixed(gradcheck["analytic"])),
                ("numerical", fixed(gradcheck["numerical"])),
                ("scaled error", sci(gradcheck["scaled_error"])),
                ("tolerance", sci(gradcheck["tolerance"])),
                ("verdict", verdict),
            ],
        ),
    ]
    rows = [
        [title if index == 0 else "", quantity, value]
        for title, quantities in groups
        for index, (quantity, value) in enumerate(quantities)
    ]
    return table(["Example", "Quantity", "Value"], rows,
                 "Detach, a nonlinear chain and the numerical cross-check", "scalar-checks")


def _evidence_text(evidence: Mapping[str, Any]) -> str:
    """``key = value`` pairs of an error's evidence, numbers in shortest form."""
    parts = []
    for key, value in evidence.items():
        text = shortest(value) if isinstance(value, float) else str(value)
        parts.append(f"{key.replace('_', ' ')} = {text}")
    return "; ".join(parts)


def rejections_table(typed_errors: Trace) -> str:
    """Figure 5: each rejected request, its error kind, evidence and the gradient-bits verdict."""
    header = ["Request", "Error kind", "Evidence", "Message", "Stored gradients unchanged"]
    rows = [
        [
            f'`{case["label"]}`',
            f'`{case["kind"]}`',
            _evidence_text(case["evidence"]),
            case["message"],
            "yes, bit for bit" if case["gradients_unchanged"] else "NO",
        ]
        for case in typed_errors["cases"]
    ]
    return table(header, rows, "Rejected requests and the state they leave behind", "rejected-requests")


# -- the asymmetric example and the bugs the symmetric one cannot catch --------


def replay(pass_trace: Trace, swap_product: bool = False, assign: bool = False) -> dict[str, float]:
    """The pass adjoints of a traced pass, recomputed from its edges in the order they ran.

    With ``swap_product`` every multiplication edge uses the operand's own value
    as its local derivative (the product rule with its two derivatives
    swapped); with ``assign`` each contribution replaces the operand's adjoint
    instead of adding to it (``=`` for ``+=`` in the reverse walk). With
    neither, the replay must reproduce the traced adjoints; :func:`bug_table`
    checks that it does. Untracked operands receive nothing, as in the tape.
    """
    nodes = pass_trace["nodes"]
    adjoint = {node["index"]: 0.0 for node in nodes if node["tracked"]}
    adjoint[nodes[-1]["index"]] = pass_trace["seed"]
    for edge in sorted(pass_trace["edges"], key=lambda edge: edge["reverse_index"]):
        local = edge["local_derivative"]
        if swap_product and edge["result_operation"] == "mul":
            local = edge["operand_value"]
        contribution = adjoint[edge["result_index"]] * local
        operand = edge["operand_index"]
        if operand in adjoint:
            adjoint[operand] = contribution if assign else adjoint[operand] + contribution
    return {node["name"]: adjoint[node["index"]] for node in nodes if node["tracked"]}


def check_asymmetric(asymmetric: Trace) -> None:
    """Raises ValueError unless both gradients of the asymmetric example pass the central difference.

    This is the check that catches a swapped product rule, which leaves every
    printed line of the demo unchanged (all its tracked products are ``x*x``).
    """
    for name in ("x", "y"):
        check = asymmetric[f"{name}_check"]
        if not check["passed"]:
            raise ValueError(
                f"the asymmetric example {asymmetric['expression']} fails its gradient check in {name}: "
                f"reverse mode gives {shortest(check['analytic'])}, the central difference "
                f"{shortest(check['numerical'])} (scaled error {sci(check['scaled_error'])})"
            )


def asymmetric_graph_figure(asymmetric: Trace) -> str:
    """The asymmetric example's graph: four node cards, four operand-use edges."""
    check_asymmetric(asymmetric)
    caption = (
        f"The asymmetric example {asymmetric['expression'].replace('*', '·')} at x = {plain(asymmetric['x'])}, "
        f"y = {plain(asymmetric['y'])}, after one reverse pass. x is reached along two edges "
        "whose contributions differ."
    )
    return graphviz(graph_dot(asymmetric), caption, "asymmetric-product-graph")


def bug_table(reused: Trace, asymmetric: Trace, gradcheck: Trace) -> str:
    """Each gradient of both examples: traced, checked numerically, and replayed with two bugs.

    Raises ValueError when a correct replay disagrees with the traced adjoints,
    or when the asymmetric example fails its central-difference check.
    """
    check_asymmetric(asymmetric)
    rows = []
    examples = (
        ("`(x*x)+(x*x)`, $x = " + plain(reused["input"]) + "$", reused, {"x": gradcheck}),
        (f"`x*y+x`, $x = {plain(asymmetric['x'])}$, $y = {plain(asymmetric['y'])}$", asymmetric,
         {"x": asymmetric["x_check"], "y": asymmetric["y_check"]}),
    )
    for title, example, checks in examples:
        correct = replay(example)
        swapped = replay(example, swap_product=True)
        assigned = replay(example, assign=True)
        traced = {node["name"]: node["pass_adjoint"] for node in example["nodes"] if node["tracked"]}
        if correct != traced:
            raise ValueError(f"replaying the traced edges gives {correct}, the trace records {traced}")
        leaves = [node["name"] for node in example["nodes"] if node["operation"] == "parameter"]
        for index, name in enumerate(leaves):
            check = checks[name]
            rows.append([
                title if index == 0 else "",
                f"$\\bar {name}$",
                plain(traced[name]),
                plain(check["numerical"]),
                plain(swapped[name]) + ("" if swapped[name] == traced[name] else " (wrong)"),
                plain(assigned[name]) + ("" if assigned[name] == traced[name] else " (wrong)"),
            ])
    header = ["Example", "Gradient", "Reverse mode", "Central difference",
              "Product rule swapped", "`=` instead of `+=`"]
    return table(header, rows,
                 "Both examples' leaf gradients, and what two bugs would make of them "
                 "(replayed from the traced edges)", "bug-replay")
