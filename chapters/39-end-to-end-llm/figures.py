"""Figures of chapter 39, drawn from the demo's trace (``chapter-39-demo --trace``).

* :func:`pipeline_figure` -- the run's stages as cards, each with its measured counts;
* :func:`grid_figure` -- every grid candidate's validation loss at each scored step,
  the chosen one drawn thick;
* :func:`grid_table` -- the same numbers, with each candidate's kept step;
* :func:`losses_figure` -- the batch loss of every update, then the test NLL of the
  decoder, of the tuned bigram and of the alpha = 1 bigram on the same slots;
* :func:`scores_table` -- the three test scores and their gaps to the decoder.

Every number comes from the trace; nothing is typed by hand.
"""

from __future__ import annotations

from typing import Any, Mapping

from tools.figures import card, card_field, dot_head, fixed, graphviz, html_text, matplotlib_svg, svg_figure, table

Trace = Mapping[str, Any]

DECODER = "#336699"
TUNED = "#b35c00"
ADD_ONE = "#777777"


def chosen(trace: Trace) -> Mapping[str, Any]:
    """The grid entry the run chose."""
    return trace["grid"][trace["chosen"]]


def candidate_name(candidate: Mapping[str, Any]) -> str:
    """A candidate as D/F/rate, e.g. ``D 16, F 32, rate 0.04``."""
    return f"D {candidate['width']}, F {candidate['feed_forward']}, rate {candidate['learning_rate']:g}"


def pipeline_figure(trace: Trace) -> str:
    """Corpus to generated text as one column of cards, each with the run's numbers.

    One column, so that the diagram is as narrow as its widest card and a
    390 px phone shows it whole at its natural size (two rows of three cards
    were 981 px wide there, scrolled sideways, with the second row out of view).
    """
    tokens = trace["encoded_tokens"]
    windows = trace["windows"]
    split = "/".join(str(n) for n in trace["documents"])
    lines = dot_head("end_to_end", {"rankdir": "TB", "nodesep": 0.25, "ranksep": 0.3},
                     {"shape": "plaintext", "fontsize": 11}, {"color": "#555555"})
    cards = [
        ("corpus", card("corpus + split", [card_field("documents", " / ".join(str(n) for n in trace["documents"]))], fill="#f4f4f4")),
        ("bpe", card("BPE (train only)", [card_field("vocabulary", str(trace["vocabulary"])),
                                          card_field("train tokens", str(tokens[0]))], fill="#f4f4f4")),
        ("train", card("grid, chosen on validation", [card_field("candidates", str(len(trace["grid"]))),
                                                      card_field("chosen", candidate_name(chosen(trace))),
                                                      card_field("parameters", str(trace["parameters"])),
                                                      card_field("kept step", str(trace["selected_step"]))],
                       fill="#eef3fb")),
        ("test", card("test, once", [card_field("windows", str(windows[2])),
                                     card_field("slots", str(trace["slots"]))], fill="#fdf1e6")),
        ("save", card("checkpoint", [card_field("bytes", str(trace["checkpoint"]["bytes"])),
                                     card_field("records", str(trace["checkpoint"]["records"]))],
                      fill="#e7f2e4")),
        ("gen", card("cached generation", [card_field("prompt", html_text(trace["generation"]["prompt"])),
                                           card_field("tokens", str(len(trace["generation"]["generated"]))),
                                           card_field("text", html_text(trace["generation"]["text"]))],
                     fill="#e7f2e4")),
    ]
    for name, label in cards:
        lines.append(f"  {name} [label={label}];")
    lines += ["  corpus -> bpe -> train -> test -> save -> gen;", "}"]
    return graphviz("\n".join(lines), "The whole run, stage by stage, with what each stage measured", "pipeline",
                    alt=(f"Six cards: the corpus split {split}; "
                         f"BPE learned on train, vocabulary {trace['vocabulary']}; "
                         f"{len(trace['grid'])} candidates trained and scored on validation, the chosen "
                         f"{candidate_name(chosen(trace))} decoder of {trace['parameters']} parameters kept at step "
                         f"{trace['selected_step']}; the test partition scored once over {windows[2]} windows; "
                         f"a {trace['checkpoint']['bytes']}-byte checkpoint; cached generation of "
                         f"{len(trace['generation']['generated'])} tokens after the prompt "
                         f"{trace['generation']['prompt']}: {trace['generation']['text']}."))


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
    decoder = trace["decoder"]["mean_nll"]
    tuned = trace["tuned_bigram"]["mean_nll"]
    add_one = trace["add_one_bigram"]["mean_nll"]

    def relation(baseline: float) -> str:
        return "below" if decoder < baseline else "above"

    alt = (f"The chosen decoder's batch loss falls from {fixed(losses[0], 3)} at update 1 to "
           f"{fixed(losses[-1], 3)} at update {len(losses)}. On test the decoder scores {fixed(decoder, 3)}, "
           f"{relation(tuned)} the tuned bigram's {fixed(tuned, 3)} and {relation(add_one)} the alpha = 1 "
           f"bigram's {fixed(add_one, 3)}.")
    caption = ("The chosen decoder's training loss per update (one batch each, hence the noise), then where the "
               "one test opening put the decoder and the two bigrams on the same slots.")
    return svg_figure(svg, caption, "losses", alt=alt)


def scores_table(trace: Trace) -> str:
    """The three test scores on the same slots, and each one's gap to the decoder.

    Three columns, the perplexity in brackets after the mean NLL (it wraps
    under it on a narrow column), so that the table fits a 390 px phone; with
    a column of its own the table was 409 px wide there.
    """
    decoder = trace["decoder"]["mean_nll"]
    rows = []
    models = [("chosen decoder", "decoder"),
              (f"bigram, α = {trace['tuned_alpha']:g} (tuned on validation)", "tuned_bigram"),
              ("bigram, α = 1 (the earlier edition's)", "add_one_bigram")]
    for name, key in models:
        score = trace[key]
        rows.append([name, f"{fixed(score['mean_nll'], 6)} ({fixed(score['perplexity'], 3)})",
                     "" if key == "decoder" else fixed(score["mean_nll"] - decoder, 6)])
    return table(["model", "test mean NLL (perplexity)", "minus the decoder's"], rows,
                 f"The same {trace['slots']} test slots under three models", "scores", fits_phone=True)


def grid_figure(trace: Trace) -> str:
    """Validation loss of every candidate at each scored step; the chosen one thick."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(5.8, 3.6))
    styles = ["o:", "s--", "s-", "^--", "^-"]
    for index, candidate in enumerate(trace["grid"]):
        steps = [c["step"] for c in candidate["checkpoints"]][1:]
        losses = [c["validation"] for c in candidate["checkpoints"]][1:]
        thick = index == trace["chosen"]
        axis.plot(steps, losses, styles[index % len(styles)], markersize=4, linewidth=2.4 if thick else 1.0,
                  label=candidate_name(candidate) + (" (chosen)" if thick else ""))
    axis.set_xlabel("update")
    axis.set_ylabel("validation mean NLL (nats)")
    axis.set_xticks([c["step"] for c in trace["grid"][0]["checkpoints"]][1:])
    axis.legend(loc="upper right", fontsize=10)
    svg = matplotlib_svg(figure)
    plt.close(figure)
    best = chosen(trace)
    alt = (f"Validation loss after each scored step for {len(trace['grid'])} candidates (step 0, near "
           f"{fixed(trace['grid'][0]['checkpoints'][0]['validation'], 2)} for all, is left out). "
           f"The chosen {candidate_name(best)} reaches the lowest value, "
           f"{fixed(best['selected_validation'], 3)} at step {best['selected_step']}.")
    caption = ("The grid on validation: each candidate scored every "
               f"{trace['grid'][0]['checkpoints'][1]['step']} updates; the lowest kept value chooses the "
               "configuration. The test partition is not used.")
    return svg_figure(svg, caption, "grid", alt=alt)


def grid_table(trace: Trace) -> str:
    """Each candidate's validation loss at every scored step, and the state it keeps.

    A column per candidate, a row per step and a last row with the step each
    candidate keeps; the parameter counts and the chosen candidate in the
    caption. So the table fits a 390 px phone: a row per candidate, with a
    column per step and one for the kept loss to six places, was 578 px wide
    there (the text quotes the chosen and the runner-up's kept losses to six
    places). The kept loss is not set in bold: a bold number widened each
    column past the phone's width.
    """
    grid = trace["grid"]
    steps = [c["step"] for c in grid[0]["checkpoints"]]
    header = ["step"] + [candidate_name(candidate) for candidate in grid]
    rows = []
    for row, step in enumerate(steps):
        cells = []
        for candidate in grid:
            checkpoint = candidate["checkpoints"][row]
            if checkpoint["step"] != step:
                raise ValueError(f"{candidate_name(candidate)}: scored step {checkpoint['step']} where the grid has {step}")
            cells.append(fixed(checkpoint["validation"], 4))
        rows.append([str(step), *cells])
    rows.append(["kept step", *[str(candidate["selected_step"]) for candidate in grid]])
    parameters = ", ".join(str(candidate["parameters"]) for candidate in grid)
    caption = (f"Validation mean NLL of every candidate at every scored step, and the step whose state it keeps. "
               f"Parameters, left to right: {parameters}; chosen: {candidate_name(grid[trace['chosen']])}")
    return table(header, rows, caption, "grid-scores", fits_phone=True)
