"""Figures of chapter 20, drawn from the demo's trace (``chapter-20-demo --trace``).

* :func:`block_figure` -- the block as a dataflow: the input into the gate
  and up projections, SiLU on the gate, the elementwise product and the down
  projection, each node with its traced [2, 3] or [2, 2] values
  (``trace.worked``);
* :func:`activation_figure` -- tanh, ReLU and SiLU on a grid computed by the
  demo (``trace.curves``);
* :func:`gradient_table` -- input and weight gradients for the identity
  worked example and for the asymmetric one (``trace.worked``,
  ``trace.asymmetric``).

Every number comes from the trace; nothing is typed by hand.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from tools.figures import fixed, graphviz, matplotlib_svg, plain, svg_figure, table, tensor_rows

Trace = Mapping[str, Any]

FILL = {"input": "#eef3fb", "gate": "#fdf1e6", "up": "#e7f2e4", "result": "#f4f4f4"}


def rows_text(tensor: Mapping[str, Any], digits: int = 3) -> str:
    """A [2, n] tensor as two bracketed rows for a graph label."""
    return "\\n".join("[" + ", ".join(fixed(value, digits) for value in row) + "]" for row in tensor_rows(tensor))


def matrix_tex(tensor: Mapping[str, Any], digits: int = 3) -> str:
    """A tensor as a LaTeX bmatrix, values with ``digits`` decimals (integers plain)."""
    def cell(value: float) -> str:
        return plain(value) if float(value).is_integer() else fixed(value, digits)
    rows = [" & ".join(cell(value) for value in row) for row in tensor_rows(tensor)]
    return "\\begin{bmatrix}" + " \\\\ ".join(rows) + "\\end{bmatrix}"


def block_figure(trace: Trace) -> str:
    """The worked pass as a left-to-right dataflow."""
    w = trace["worked"]
    node = '  "{0}" [label="{1}\\n{2}", fillcolor="{3}"];'
    lines = [
        "digraph block {",
        '  graph [rankdir=LR, fontname="Helvetica", fontsize=11, nodesep=0.3, ranksep=0.4];',
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];',
        '  edge [fontname="Helvetica", fontsize=9, arrowsize=0.6];',
        node.format("x", "input x [2, 2]", rows_text(w["input"]), FILL["input"]),
        node.format("a", "gate a = x W_gate", rows_text(w["gate_preactivation"]), FILL["gate"]),
        node.format("s", "SiLU(a)", rows_text(w["gate"]), FILL["gate"]),
        node.format("u", "up u = x W_up", rows_text(w["up"]), FILL["up"]),
        node.format("h", "h = SiLU(a) ⊙ u", rows_text(w["product"]), FILL["result"]),
        node.format("y", "output y = h W_down", rows_text(w["output"]), FILL["result"]),
        '  { rank=same; "a"; "u"; }',
        '  "x" -> "a"; "x" -> "u"; "a" -> "s"; "s" -> "h"; "u" -> "h"; "h" -> "y";',
        "}",
    ]
    caption = "The worked pass: two projections of the same input, one gated by SiLU, multiplied and projected back."
    alt = ("Dataflow from the input to a gate projection and an up projection, SiLU on the gate, their elementwise "
           f"product and the down projection; the output rows are {rows_text(w['output']).replace(chr(92) + 'n', ' and ')}.")
    return graphviz("\n".join(lines), caption, "block", alt=alt)


def activation_figure(trace: Trace) -> str:
    """The three activations on the demo's grid."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    c = trace["curves"]
    figure, axis = plt.subplots(figsize=(5.6, 3.4))
    axis.axhline(0, color="#cccccc", linewidth=0.8)
    axis.axvline(0, color="#cccccc", linewidth=0.8)
    axis.plot(c["x"], c["tanh"], color="#336699", label="tanh")
    axis.plot(c["x"], c["relu"], color="#777777", linestyle="--", label="ReLU")
    axis.plot(c["x"], c["silu"], color="#b35c00", linewidth=2, label="SiLU")
    low = min(range(len(c["silu"])), key=lambda k: c["silu"][k])
    axis.plot([c["x"][low]], [c["silu"][low]], "o", color="#b35c00")
    axis.annotate(f"SiLU({plain(c['x'][low])}) = {fixed(c['silu'][low], 3)}", (c["x"][low], c["silu"][low]),
                  textcoords="offset points", xytext=(8, -14), fontsize=9)
    axis.set_xlabel("pre-activation a")
    axis.set_ylabel("activation")
    axis.legend(loc="upper left")
    svg = matplotlib_svg(figure)
    plt.close(figure)
    alt = (f"tanh, ReLU and SiLU for a from {plain(c['x'][0])} to {plain(c['x'][-1])}; tanh saturates at -1 and 1, "
           f"ReLU is zero for negative a, SiLU follows a for large a and dips to its lowest sampled value "
           f"{fixed(c['silu'][low], 3)} at a = {plain(c['x'][low])} before returning to zero.")
    return svg_figure(svg, "Three hidden activations on the same grid: SiLU is smooth, passes small negative "
                      "values and grows like ReLU for large inputs.", "activations", alt=alt)


def gradient_table(trace: Trace) -> str:
    """The four gradients for the worked (identity) and the asymmetric pass."""
    w, a = trace["worked"], trace["asymmetric"]
    keys = [("x", "input_gradient"), ("W_{\\text{gate}}", "gate_weight_gradient"),
            ("W_{\\text{up}}", "up_weight_gradient"), ("W_{\\text{down}}", "down_weight_gradient")]
    rows = [[f"$\\partial / \\partial {label}$", f"${matrix_tex(w[key])}$", f"${matrix_tex(a[key])}$"]
            for label, key in keys]
    header = ["gradient", f"worked: $x = {matrix_tex(w['input'])}$, upstream ${matrix_tex(w['upstream'])}$",
              f"asymmetric: $x = {matrix_tex(a['input'])}$, upstream ${matrix_tex(a['upstream'])}$"]
    return table(header, rows, "The gradients of both passes (three decimals)", "gradients")


def vector_text(values: Sequence[float], digits: int | None = 12) -> str:
    """``[-0.268941, 1.731059]`` with ``digits`` decimals, or ``[-1, 0, 1]`` with None."""
    return "[" + ", ".join(plain(value) if digits is None else fixed(value, digits) for value in values) + "]"


def row(tensor: Mapping[str, Any], index: int) -> list[float]:
    """Row ``index`` of a traced [n, m] tensor."""
    return tensor_rows(tensor)[index]


def closed_gate(trace: Trace, position: int = 0, feature: int = 1) -> dict[str, Any]:
    """What reaches a closed gate (pre-activation 0) in the worked pass: the hidden
    adjoint h̄ = ȳ W_down^T at (position, feature), its parts, the up value there
    and the printed gate-weight gradient entry (with x = I it is ā itself)."""
    worked, weights = trace["worked"], trace["weights"]
    upstream = tensor_rows(worked["upstream"])[position]
    down_row = tensor_rows(weights["down"])[feature]
    if tensor_rows(worked["gate_preactivation"])[position][feature] != 0:
        raise ValueError(f"the gate of position {position}, feature {feature} is not closed in this trace")
    if any(u * w for u, w in zip(upstream, down_row, strict=True)):
        raise ValueError("the closed gate receives an upstream in this trace; chapter 20's answer 2 says it does not")
    up = tensor_rows(worked["up"])[position][feature]
    return {
        "opened": plain(up * 0.5),
        "upstream": "[" + ", ".join(plain(value) for value in upstream) + "]",
        "down_row": "[" + ", ".join(plain(value) for value in down_row) + "]",
        "hidden_adjoint": plain(sum(u * w for u, w in zip(upstream, down_row, strict=True))),
        "up": plain(up),
        "gate_gradient": fixed(tensor_rows(worked["gate_weight_gradient"])[position][feature]),
    }
