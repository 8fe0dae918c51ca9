"""Figures of chapter 31, drawn from the demo's trace (``chapter-31-demo --trace``).

* :func:`block_figure` -- the block as a dataflow for one token: the stream
  on the two identity paths, the two normalized branches and the two sums,
  each node with that token's row (``trace.stages``);
* :func:`stage_table` -- every stage, every token (``trace.stages``);
* :func:`weights_table` -- the causal attention weights of both heads
  (``trace.weights``);
* :func:`order_table` -- the first residual stage in pre-norm order against
  the original post-norm order (``trace.stages``);
* :func:`wiring_table` -- three wiring bugs run on the identity fixture and
  on the asymmetric block (``trace.wiring_probes``).

Every number comes from the trace; nothing is typed by hand.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from tools.figures import graphviz, table

Trace = Mapping[str, Any]

FILL = {"stream": "#eef3fb", "norm": "#e7f2e4", "branch": "#fdf1e6", "sum": "#f4f4f4"}


def num(value: float) -> str:
    """A value as the page writes it: six decimals without trailing zeros, ``0`` for zero."""
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return "0" if text in ("0", "-0") else text


def vec(values: Sequence[float]) -> str:
    """``[0.010881, 1.989119, 0, 0]``: a row for prose, labels and tables."""
    return "[" + ", ".join(num(v) for v in values) + "]"


STAGES = (
    ("input", "x", "input"),
    ("attention_norm", "N_a", "attention norm"),
    ("attention_branch", "A", "attention branch"),
    ("after_attention", "x'", "after attention"),
    ("feed_forward_norm", "N_f", "feed-forward norm"),
    ("feed_forward_branch", "F", "feed-forward branch"),
    ("output", "y", "output"),
)


def block_figure(trace: Trace, token: int = 1) -> str:
    """Three rows of cards: the attention branch, the feed-forward branch, the output."""
    s = trace["stages"]

    def card(key: str, name: str, fill: str, extra: str = "") -> str:
        label = f"{name}\\n{vec(s[key][token])}"
        return f'  "{key}" [label="{label}", fillcolor="{fill}"{extra}];'

    dashed = ', style="rounded,filled,dashed"'
    lines = [
        "digraph block {",
        '  graph [rankdir=TB, fontname="Helvetica", fontsize=11, nodesep=0.3, ranksep=0.45];',
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];',
        '  edge [fontname="Helvetica", fontsize=9, arrowsize=0.6];',
        card("input", "x (stream in)", FILL["stream"]),
        card("attention_norm", "N_a = RMSNorm_a(x)", FILL["norm"], dashed),
        card("attention_branch", "A = MHA(N_a)", FILL["branch"], dashed),
        card("after_attention", "x' = x + A", FILL["sum"], ", peripheries=2"),
        card("feed_forward_norm", "N_f = RMSNorm_f(x')", FILL["norm"], dashed),
        card("feed_forward_branch", "F = SwiGLU(N_f)", FILL["branch"], dashed),
        card("output", "y = x' + F (stream out)", FILL["sum"], ", peripheries=2"),
        '  { rank=same; "input"; "attention_norm"; "attention_branch"; }',
        '  { rank=same; "after_attention"; "feed_forward_norm"; "feed_forward_branch"; }',
        '  "input" -> "attention_norm" [style=dashed];',
        '  "attention_norm" -> "attention_branch" [style=dashed, label="mixes rows 0..t"];',
        '  "attention_branch" -> "after_attention" [style=dashed];',
        '  "input" -> "after_attention" [label="identity", penwidth=1.6];',
        '  "after_attention" -> "feed_forward_norm" [style=dashed];',
        '  "feed_forward_norm" -> "feed_forward_branch" [style=dashed, label="row t only"];',
        '  "feed_forward_branch" -> "output" [style=dashed];',
        '  "after_attention" -> "output" [label="identity", penwidth=1.6];',
        "}",
    ]
    caption = (f"One block, token {token}'s row at every stage. Solid arrows are the identity paths, which carry "
               "the stream unchanged; dashed cards and arrows are the two branches, each reading a normalized copy; "
               "double borders are the residual sums.")
    alt = (f"Dataflow for token {token}: x = {vec(s['input'][token])} goes unchanged to the first sum and, "
           f"through RMSNorm ({vec(s['attention_norm'][token])}) and attention, becomes "
           f"A = {vec(s['attention_branch'][token])}; x' = {vec(s['after_attention'][token])}. "
           f"x' goes unchanged to the second sum and, through RMSNorm ({vec(s['feed_forward_norm'][token])}) "
           f"and SwiGLU, becomes F = {vec(s['feed_forward_branch'][token])}; y = {vec(s['output'][token])}.")
    return graphviz("\n".join(lines), caption, "block-flow", alt=alt)


def stage_table(trace: Trace) -> str:
    """Every stage's three rows."""
    s = trace["stages"]
    rows = [[f"{label} ${symbol}$", *[vec(row) for row in s[key]]] for key, symbol, label in STAGES]
    return table(["stage", "token 0", "token 1", "token 2"], rows,
                 "The worked block, stage by stage: every model-width value is [1, 3, 4]", "stages")


def weights_table(trace: Trace) -> str:
    """The causal weights, one row per head and query."""
    rows = []
    tokens = len(trace["stages"]["input"])
    for index, row in enumerate(trace["weights"]):
        head, query = divmod(index, tokens)
        cells = [num(v) if key <= query else f"{num(v)} (masked)" for key, v in enumerate(row)]
        rows.append([str(head), str(query), *cells])
    return table(["head", "query", "key 0", "key 1", "key 2"], rows,
                 "Attention weights [1, 2, 3, 3]: every later key gets exactly 0", "weights")


def order_table(trace: Trace) -> str:
    """x + MHA(RMSNorm(x)) against LayerNorm(x + MHA(x)), token by token."""
    s = trace["stages"]
    rows = [[str(t), vec(pre), vec(post)]
            for t, (pre, post) in enumerate(zip(s["after_attention"], s["post_norm_first_stage"]))]
    return table(["token", "pre-norm", "post-norm"], rows,
                 "The first residual stage in the two orders, same weights: pre-norm "
                 "$x + \\mathrm{MHA}(\\mathrm{RMSNorm}(x))$, post-norm $\\mathrm{LayerNorm}(x + \\mathrm{MHA}(x))$",
                 "order")


def wiring_table(trace: Trace) -> str:
    """Which wiring bug each fixture can see."""
    def cell(detects: bool, difference: float) -> str:
        return f"changes y (max {num(difference)})" if detects else "same bits"

    rows = [[p["bug"], cell(p["identity_detects"], p["identity_difference"]),
             cell(p["asymmetric_detects"], p["asymmetric_difference"])] for p in trace["wiring_probes"]]
    return table(["wiring bug", "identity fixture", "asymmetric block"], rows,
                 "Three wiring bugs against the output y: the printed fixture cannot see any of them", "wiring")


def tex_rows(rows: Sequence[Sequence[float]]) -> str:
    """Rows as the body of a LaTeX bmatrix: ``2 & 0 \\\\ 0 & 2``."""
    return " \\\\ ".join(" & ".join(num(v) for v in row) for row in rows)


def short_sci(value: float) -> str:
    """``2.8e-09``: a tiny magnitude with two significant digits."""
    return f"{value:.1e}"


def refusal_table(trace: Trace) -> str:
    """The nine refused requests: what was asked, the error kind, the library's message."""
    rows = [[r["request"], r["kind"], r["message"]] for r in trace["refusals"]]
    return table(["request", "kind", "message"], rows, "The requests the block refuses", "refusals")
