"""Figures of chapter 39, drawn from the demo's trace (``chapter-39-demo --trace``).

* :func:`pipeline_figure` -- the run's stages as cards, each with its measured counts;
* :func:`losses_figure` -- the batch loss of every update, then the test NLL of the
  decoder, of the tuned bigram and of the alpha = 1 bigram on the same slots;
* :func:`scores_table` -- the three test scores and their gaps to the decoder.

Every number comes from the trace; nothing is typed by hand.
"""

from __future__ import annotations

from typing import Any, Mapping

from tools.figures import card, card_field, dot_head, fixed, graphviz, matplotlib_svg, svg_figure, table

Trace = Mapping[str, Any]

DECODER = "#336699"
TUNED = "#b35c00"
ADD_ONE = "#777777"


def pipeline_figure(trace: Trace) -> str:
    """Corpus to generated text in two rows of cards, each with the run's numbers."""
    tokens = trace["encoded_tokens"]
    windows = trace["windows"]
    split = "/".join(str(n) for n in trace["documents"])
    lines = dot_head("end_to_end", {"rankdir": "TB", "nodesep": 0.25, "ranksep": 0.3},
                     {"shape": "plaintext", "fontsize": 11}, {"color": "#555555"})
    cards = [
        ("corpus", card("corpus + split", [card_field("documents", " / ".join(str(n) for n in trace["documents"]))], fill="#f4f4f4")),
        ("bpe", card("BPE (train only)", [card_field("vocabulary", str(trace["vocabulary"])),
                                          card_field("train tokens", str(tokens[0]))], fill="#f4f4f4")),
        ("train", card("train + select", [card_field("parameters", str(trace["parameters"])),
                                          card_field("selected step", str(trace["selected_step"]))],
                       fill="#eef3fb")),
        ("test", card("test, once", [card_field("windows", str(windows[2])),
                                     card_field("slots", str(trace["slots"]))], fill="#fdf1e6")),
        ("save", card("checkpoint", [card_field("bytes", str(trace["checkpoint"]["bytes"])),
                                     card_field("records", str(trace["checkpoint"]["records"]))],
                      fill="#e7f2e4")),
        ("gen", card("cached generation", [card_field("prompt", str(trace["generation"]["prompt_ids"])),
                                           card_field("generated", str(trace["generation"]["generated"]))],
                     fill="#e7f2e4")),
    ]
    for name, label in cards:
        lines.append(f"  {name} [label={label}];")
    lines += ["  { rank=same; corpus; bpe; train; }", "  { rank=same; test; save; gen; }",
              "  corpus -> bpe -> train;", "  train -> test;", "  test -> save -> gen;", "}"]
    return graphviz("\n".join(lines), "The whole run, stage by stage, with what each stage measured", "pipeline",
                    alt=(f"Six cards: the corpus split {split}; "
                         f"BPE learned on train, vocabulary {trace['vocabulary']}; "
                         f"a {trace['parameters']}-parameter decoder trained and selected at step "
                         f"{trace['selected_step']}; the test partition scored once over {windows[2]} windows; "
                         f"a {trace['checkpoint']['bytes']}-byte checkpoint; cached generation of "
                         f"{len(trace['generation']['generated'])} tokens."))


def losses_figure(trace: Trace) -> str:
    """Each update's batch loss, and the three test NLLs as horizontal lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    losses = trace["update_losses"]
    figure, axis = plt.subplots(figsize=(5.8, 3.6))
    axis.plot(range(1, len(losses) + 1), losses, "o-", color=DECODER, markersize=3,
              label="decoder, batch loss per update")
    lines = [(trace["decoder"]["mean_nll"], DECODER, "-", "decoder, test"),
             (trace["add_one_bigram"]["mean_nll"], ADD_ONE, ":", "bigram α = 1, test"),
             (trace["tuned_bigram"]["mean_nll"], TUNED, "--", f"bigram α = {trace['tuned_alpha']:g}, test")]
    for value, color, style, label in lines:
        axis.axhline(value, color=color, linestyle=style, linewidth=1.2, label=f"{label}: {fixed(value, 3)}")
    axis.set_xlabel("update")
    axis.set_ylabel("mean NLL (nats)")
    axis.legend(loc="upper right", fontsize=10)
    svg = matplotlib_svg(figure)
    plt.close(figure)
    alt = (f"The batch loss falls from {fixed(losses[0], 3)} at update 1 to {fixed(losses[-1], 3)} at update "
           f"{len(losses)}. On test the decoder scores {fixed(trace['decoder']['mean_nll'], 3)}, just below the "
           f"alpha = 1 bigram's {fixed(trace['add_one_bigram']['mean_nll'], 3)} and far above the tuned bigram's "
           f"{fixed(trace['tuned_bigram']['mean_nll'], 3)}.")
    caption = ("Training loss per update, then where the one test opening put the decoder and the two bigrams: "
               "the tuned bigram stays well below the tiny decoder.")
    return svg_figure(svg, caption, "losses", alt=alt)


def scores_table(trace: Trace) -> str:
    """The three test scores on the same slots, and each one's gap to the decoder."""
    decoder = trace["decoder"]["mean_nll"]
    rows = []
    models = [("selected decoder", "decoder"),
              (f"bigram, α = {trace['tuned_alpha']:g} (tuned on validation)", "tuned_bigram"),
              ("bigram, α = 1 (the earlier edition's)", "add_one_bigram")]
    for name, key in models:
        score = trace[key]
        rows.append([name, fixed(score["mean_nll"], 6), fixed(score["perplexity"], 3),
                     "" if key == "decoder" else fixed(score["mean_nll"] - decoder, 6)])
    return table(["model", "test mean NLL", "perplexity", "minus the decoder's"], rows,
                 f"The same {trace['slots']} test slots under three models", "scores")
