"""Figures of chapter 34, drawn from the demo's trace (``chapter-34-demo --trace``).

* :func:`gate_figure` -- the two frozen models, the one-time gate and the report;
* :func:`slots_figure` -- every test target slot's NLL under the decoder and the
  bigram, beside the uniform model's ln V (``trace.slots``);
* :func:`documents_table` -- per-document means and the two ways to average
  them (``trace.documents``, ``trace.report``).

Every number comes from the trace; nothing is typed by hand.
"""

from __future__ import annotations

from typing import Any, Mapping

from tools.figures import card, card_field, dot_head, fixed, graphviz, html_text, matplotlib_svg, svg_figure, table

Trace = Mapping[str, Any]

DECODER = "#336699"
BIGRAM = "#b35c00"


def gate_figure(trace: Trace) -> str:
    """Frozen inputs, the gate that opens once, the report and the refused second call."""
    r = trace["report"]
    lines = dot_head("final_gate", {"rankdir": "LR", "nodesep": 0.3, "ranksep": 0.4},
                     {"shape": "plaintext", "fontsize": 11}, {"color": "#555555"})
    decoder = card("selected decoder", [card_field("step", str(trace["selected_step"])),
                                        card_field("validation", fixed(trace["selected_validation_loss"], 6))],
                   fill="#eef3fb")
    bigram = card("add-one bigram", [card_field("fitted on", "train"),
                                     card_field("transitions", str(trace["baseline_transitions"]))], fill="#fdf1e6")
    gate = card("FinalEvaluator", [card_field("test windows", str(r["windows"])),
                                   card_field("gate openings", "0 → 1")], fill="#f4f4f4")
    report = card("report", [card_field("decoder", fixed(r["decoder_mean"], 6)),
                             card_field("bigram", fixed(r["bigram_mean"], 6))], fill="#e7f2e4")
    refused = card("second call", [card_field("", html_text("refused"), None)], fill="#ffffff", dashed=True)
    lines += [f"  decoder [label={decoder}];", f"  bigram [label={bigram}];", f"  gate [label={gate}];",
              f"  report [label={report}];", f"  refused [label={refused}];",
              "  decoder -> gate; bigram -> gate; gate -> report;",
              '  gate -> refused [style=dashed, label="already-evaluated", fontsize=10];', "}"]
    return graphviz("\n".join(lines), "Both models frozen before the gate; the gate opens once", "gate",
                    alt=f"The selected decoder (step {trace['selected_step']}) and the add-one bigram feed one "
                        f"FinalEvaluator over {r['windows']} test windows; it produces the report, decoder "
                        f"{fixed(r['decoder_mean'], 3)} and bigram {fixed(r['bigram_mean'], 3)} nats, and refuses "
                        "a second call.")


def slots_figure(trace: Trace) -> str:
    """Per-slot NLL of both models, in batch order, with ln V."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    slots = trace["slots"]
    xs = list(range(1, len(slots) + 1))
    figure, axis = plt.subplots(figsize=(5.8, 3.6))
    axis.plot(xs, [s["decoder_nll"] for s in slots], "o", color=DECODER, label="selected decoder")
    axis.plot(xs, [s["bigram_nll"] for s in slots], "s", color=BIGRAM, label="add-one bigram")
    axis.axhline(trace["uniform_nll"], color="#222222", linestyle="--", linewidth=1,
                 label=f"uniform: ln {trace['vocabulary']}")
    split = next(i for i, s in enumerate(slots) if s["document"] != slots[0]["document"])
    axis.axvline(split + 0.5, color="#999999", linewidth=0.8)
    axis.text(split / 2, 0.15, slots[0]["document"], ha="center", fontsize=10)
    axis.text(split + (len(slots) - split) / 2, 0.15, slots[-1]["document"], ha="center", fontsize=10)
    axis.set_xlabel("test target slot (batch order)")
    axis.set_ylabel("NLL of the target (nats)")
    axis.set_ylim(0, max(max(s["decoder_nll"], s["bigram_nll"]) for s in slots) * 1.4)
    axis.legend(loc="upper center", ncol=3, fontsize=10)
    svg = matplotlib_svg(figure)
    plt.close(figure)
    bigram_values = sorted({round(s["bigram_nll"], 6) for s in slots})
    alt = (f"{len(slots)} slots: the bigram's NLL takes only the values "
           f"{' and '.join(fixed(v, 3) for v in bigram_values)}, all above the dashed uniform line "
           f"{fixed(trace['uniform_nll'], 3)}; the decoder's NLL scatters from "
           f"{fixed(min(s['decoder_nll'] for s in slots), 3)} to {fixed(max(s['decoder_nll'] for s in slots), 3)} "
           "around that line.")
    caption = ("Each test target under both models. Every test transition runs the train cycle backwards, "
               "so the bigram gives each one only its pseudocount's share.")
    return svg_figure(svg, caption, "slots", alt=alt)


def documents_table(trace: Trace) -> str:
    """Per-document means, the token-weighted mean and the mean of document means."""
    docs = trace["documents"]
    r = trace["report"]
    rows = [[f"`{d['document']}`", str(int(d["targets"])), fixed(d["decoder_mean"], 6), fixed(d["bigram_mean"], 6)]
            for d in docs]
    rows.append(["token-weighted (printed)", str(r["targets"]), fixed(r["decoder_mean"], 6), fixed(r["bigram_mean"], 6)])
    rows.append(["mean of document means", f"{len(docs)} means",
                 fixed(sum(d["decoder_mean"] for d in docs) / len(docs), 6),
                 fixed(sum(d["bigram_mean"] for d in docs) / len(docs), 6)])
    return table(["documents", "targets", "decoder mean NLL", "bigram mean NLL"], rows,
                 "Two ways to average unequal documents; only the first counts every target once", "documents")
