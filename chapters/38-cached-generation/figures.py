"""Figures of chapter 38, drawn from the demo's trace (``chapter-38-demo --trace``).

* :func:`phases_figure` -- prefill and decode through both blocks' caches:
  tokens in, rows per layer, logits out (``trace.prefill``, ``trace.decode``);
* :func:`match_table` -- each phase's cached logits against the full
  decoder's last row, with the scores each computed (``trace.prefill``,
  ``trace.decode``);
* :func:`generation_table` -- the loaded model's generation steps, the call
  that produced each row of logits, the draw and the chosen token
  (``trace.loaded``, ``trace.eos``);
* :func:`refusal_table` -- the refused requests and their error kinds
  (``trace.errors``).

Every number comes from the trace; nothing is typed by hand.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from tools.figures import card, card_field, dot_head, fixed, graphviz, html_text, table

Trace = Mapping[str, Any]

PHASE_FILL = {"prefill": "#eef3fb", "decode": "#fdf1e6"}


def vec(values: Sequence[float], digits: int = 6) -> str:
    """``[1.768374, 0.208825]``: a list with ``digits`` decimals, negative zero as 0."""
    return "[" + ", ".join(fixed(0.0 if value == 0 else value, digits) for value in values) + "]"


def ints(values: Sequence[int]) -> str:
    """``[0, 1]``."""
    return "[" + ", ".join(str(value) for value in values) + "]"


def phases_figure(trace: Trace) -> str:
    """Prefill, then decode: the tokens fed, each layer's cache length after, the logits."""
    lines = dot_head("phases", {"rankdir": "LR", "nodesep": 0.3, "ranksep": 0.35},
                     {"shape": "plaintext", "fontsize": 10}, {"arrowsize": 0.6})
    names = []
    for phase_name, tokens in (("prefill", trace["prompt"]), ("decode", [trace["decode_token"]])):
        phase = trace[phase_name]
        fields = [card_field("tokens in", html_text(ints(tokens))),
                  card_field("positions", html_text(f"{phase['cache_before']} .. {phase['cache_after'] - 1}"))]
        for layer, length in enumerate(phase["layer_lengths"]):
            fields.append(card_field(f"block {layer} cache", html_text(f"{length} rows, {ints(phase['cache_shape'])}")))
        fields.append(card_field("scores", html_text(f"{phase['cached_scores']} (full: {phase['full_scores']})")))
        fields.append(card_field("logits", html_text(vec(phase["cached_logits"], 3))))
        names.append(phase_name)
        lines.append(f"  {phase_name} [label={card(phase_name, fields, fill=PHASE_FILL[phase_name])}];")
    lines.append("  prefill -> decode;")
    lines.append("}")
    p, d = trace["prefill"], trace["decode"]
    caption = ("The two phases of cached generation: the prompt fills every block's cache, then each decode "
               "step adds one row to each and reads them all.")
    alt = (f"Two cards. Prefill feeds tokens {ints(trace['prompt'])}, leaving each of the "
           f"{len(p['layer_lengths'])} block caches with {p['cache_after']} rows and computing {p['cached_scores']} "
           f"scores; decode feeds token {trace['decode_token']} at position {d['position']}, leaving "
           f"{d['cache_after']} rows per block and computing {d['cached_scores']} scores.")
    return graphviz("\n".join(lines), caption, "cached-phases", alt=alt)


def match_table(trace: Trace) -> str:
    """Cached logits against the full decoder's last row, per phase."""
    rows = []
    for name in ("prefill", "decode"):
        phase = trace[name]
        rows.append([name, f"`{vec(phase['cached_logits'])}`", f"`{vec(phase['full_logits'])}`",
                     f"`{fixed(phase['max_abs_difference'])}`", "yes" if phase["bit_identical"] else "no",
                     f"{phase['cached_scores']} / {phase['full_scores']}"])
    return table(["phase", "cached logits", "full decoder, last row", "max abs diff", "same bits",
                  "scores cached / full"], rows, "Each phase against the full decoder over the same prefix",
                 "phase-match")


def generation_table(trace: Trace) -> str:
    """Each generated token of both loaded runs: the call, the draw, the interval, the token."""
    rows = []
    for run in ("loaded", "eos"):
        for index, step in enumerate(trace[run]["steps"]):
            call = "prefill" if index == 0 else "decode"
            draw = "" if step["unit_draw"] is None else f"`{fixed(step['unit_draw'], 6)}`"
            start, end = step["interval"]
            rows.append([run, str(step["prefix_length"]), call, draw, f"`[{fixed(start, 6)}, {fixed(end, 6)})`",
                         str(step["token"])])
    return table(["run", "prefix length", "logits from", "unit draw", "chosen interval", "token"], rows,
                 "Generation from the trained checkpoint, with the cache", "generation-steps")


def refusal_table(trace: Trace) -> str:
    """The refused requests with the error each threw."""
    rows = [[f"`{entry['label']}`", f"`{entry['error']}`", "yes" if entry["refused_unchanged"] else "no"]
            for entry in trace["errors"]]
    return table(["request", "error (area/kind)", "cache unchanged"], rows,
                 "Requests the decoder cache refuses", "decoder-refusals")
