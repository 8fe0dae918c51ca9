"""Figure macros of chapter 3: the two traced merge rounds on "aaa" | "aba",
the leading candidates of every round on the book's training documents, and
the compression curve: bytes per token on training and validation text as
the number of merges grows.

Every value comes from the demo's trace (``chapters/03-learn-bpe-merges/demo.cpp``),
which reruns the library's counting, tie rule and replacement and checks each
corpus round against the trainer's rules.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from tools.figures import (
    dot_head,
    find_entry,
    fixed,
    graphviz,
    hex_bytes,
    html_text,
    label_table,
    matplotlib_svg,
    svg_figure,
    table,
)

Trace = Mapping[str, Any]

STAGE_FILL = "#eaf2fb"
ROUND_FILL = "#fff4e0"
WINNER_FILL = "#d9f0d3"
MERGED_FILL = "#c6dbef"


def pair_text(entry: Mapping[str, Any]) -> str:
    """A pair as ``(97,98)``."""
    return f'({entry["left"]},{entry["right"]})'


def corpus_round(trace: Trace, rank: int) -> Mapping[str, Any]:
    """One traced round of training on the book's corpus."""
    return trace["corpus_rounds"][rank]


def candidate(round_: Mapping[str, Any], left: int, right: int) -> Mapping[str, Any]:
    """The traced candidate (left, right) of a round."""
    return find_entry(round_["candidates"], f'candidate of round {round_["rank"]}', left=left, right=right)


def decided_by(round_: Mapping[str, Any]) -> str:
    """Why the winner won: a larger count, or the tie rule on the left or the right ID."""
    winner, *rest = round_["candidates"]
    tied = [entry for entry in rest if entry["count"] == winner["count"]]
    if not tied:
        return "largest count"
    runner = tied[0]
    if runner["left"] != winner["left"]:
        return f'tie at {winner["count"]}: smaller left ID ({winner["left"]} < {runner["left"]})'
    return f'tie at {winner["count"]}: same left ID, smaller right ID ({winner["right"]} < {runner["right"]})'


def tie_ranks(trace: Trace) -> list[int]:
    """The corpus ranks whose winner was decided by the tie rule."""
    return [r["rank"] for r in trace["corpus_rounds"] if decided_by(r) != "largest count"]


def _stage_node(name: str, index: int, documents: Sequence[str], stage: Sequence[Sequence[int]]) -> str:
    """One stage: each document's token IDs, merged IDs (256 and up) shaded."""
    rows = [f'<TR><TD COLSPAN="4" BGCOLOR="{STAGE_FILL}"><B>stage {index}</B></TD></TR>']
    for document, tokens in zip(documents, stage):
        cells = "".join(
            f'<TD BGCOLOR="{MERGED_FILL if token >= 256 else "#ffffff"}">{token}</TD>' for token in tokens
        )
        rows.append(f'<TR><TD ALIGN="LEFT"><I>{html_text(document)}</I></TD>{cells}</TR>')
    return f"  {name} [label=<{label_table(rows)}>];"


def _round_node(name: str, round_: Mapping[str, Any]) -> str:
    """One round: every candidate with its overlapping count, the winner starred, then the merge."""
    rows = [f'<TR><TD COLSPAN="3" BGCOLOR="{ROUND_FILL}"><B>rank {round_["rank"]}: candidates</B></TD></TR>',
            "<TR><TD><I>pair</I></TD><TD><I>count</I></TD><TD><I>chosen</I></TD></TR>"]
    for entry in round_["candidates"]:
        fill = WINNER_FILL if entry["winner"] else "#ffffff"
        mark = "★ yes" if entry["winner"] else "no"
        rows.append(f'<TR><TD BGCOLOR="{fill}">{pair_text(entry)}</TD><TD BGCOLOR="{fill}">{entry["count"]}</TD>'
                    f'<TD BGCOLOR="{fill}">{mark}</TD></TR>')
    rows.append(
        f'<TR><TD COLSPAN="3" ALIGN="LEFT">new ID {round_["token"]} = bytes {hex_bytes(round_["bytes"])}<BR ALIGN="LEFT"/>'
        f'count {round_["count"]}, replacements {round_["replacements"]}<BR ALIGN="LEFT"/></TD></TR>'
    )
    return f"  {name} [label=<{label_table(rows)}>];"


def fixture_figure(trace: Trace) -> str:
    """Figure: stage 0 -> round 0 -> stage 1 -> round 1 -> stage 2 for the two tiny documents."""
    fixture = trace["fixture"]
    lines = dot_head("merges", {"rankdir": "LR", "nodesep": 0.3, "ranksep": 0.35, "bgcolor": "transparent"},
                     {"shape": "plaintext", "fontsize": 10}, {"color": "#555555", "fontsize": 9})
    for index, stage in enumerate(fixture["stages"]):
        lines.append(_stage_node(f"stage{index}", index, fixture["documents"], stage))
    for round_ in fixture["rounds"]:
        rank = round_["rank"]
        lines.append(_round_node(f"round{rank}", round_))
        lines.append(f'  stage{rank} -> round{rank} [label=" count"];')
        lines.append(f'  round{rank} -> stage{rank + 1} [label=" replace"];')
    lines.append("}")
    first = fixture["rounds"][0]
    caption = (
        f'Two rounds on "aaa" and "aba", kept as two documents. Rank 0 counts ({first["left"]},{first["right"]}) '
        f'{first["count"]} times but replaces it {first["replacements"]} time; rank 1 breaks a three-way tie at '
        "count 1 by the smaller left ID. Shaded IDs are learned tokens."
    )
    return graphviz("\n".join(lines), caption, "merge-rounds")


def corpus_rounds_table(trace: Trace) -> str:
    """Table: each corpus rank, its winner, the next candidates, and what decided the round."""
    rows = []
    for round_ in trace["corpus_rounds"]:
        winner, *rest = round_["candidates"]
        rows.append([
            str(round_["rank"]),
            f"`{pair_text(winner)}` = `{hex_bytes(round_['bytes'])}`",
            str(winner["count"]),
            ", ".join(f'`{pair_text(entry)}` {entry["count"]}' for entry in rest),
            decided_by(round_),
        ])
    return table(["Rank", "Winner = bytes", "Count", "Next candidates", "Decided by"], rows,
                 "Every round on the training documents: the winner and the three candidates after it",
                 "corpus-rounds")


# --- Compression -------------------------------------------------------------------

CURVE_ROWS = (8, 16, 32, 64, 128, 256, 512)
APART = 0.02  # bytes per token: a gap between the partitions that no longer closes


def merged_text(values: Sequence[int]) -> str:
    """A learned token's bytes as quoted text, so that spaces show: UTF-8
    where it is UTF-8, ``\\xNN`` for a byte that is not."""
    return '"' + bytes(values).decode("utf-8", "backslashreplace") + '"'


def bytes_per_token(trace: Trace, merges: int) -> tuple[float, float]:
    """(training, validation) bytes per content token after ``merges`` merges."""
    curve = trace["compression"]
    return (curve["train_bytes"] / curve["train_tokens"][merges],
            curve["validation_bytes"] / curve["validation_tokens"][merges])


def compression_facts(trace: Trace) -> dict[str, Any]:
    """Numbers the page quotes about the curve, each read off the trace."""
    curve = trace["compression"]
    merges = curve["merges"]
    learned = len(merges)
    if curve["train_tokens"][8] != trace["training_tokens_after"]:
        raise ValueError("the compression curve's 8-merge point differs from the printed training")
    singles = [m["rank"] for m in merges if m["count"] == 1]
    # Where the partitions part for good: from this number of merges on,
    # training text is ahead by more than APART bytes per token every time.
    gap = [bytes_per_token(trace, k)[0] - bytes_per_token(trace, k)[1] for k in range(learned + 1)]
    apart_from = min(k for k in range(learned + 1) if all(value > APART for value in gap[k:]))
    return {
        "learned": learned,
        "first_single": singles[0] if singles else None,
        "singles": len(singles),
        "all_single_after": bool(singles) and len(singles) == learned - singles[0],
        "last": bytes_per_token(trace, learned),
        "apart_from": apart_from,
        "together_within": max((abs(gap[k]) for k in range(apart_from)), default=0.0),
    }


def compression_plot(trace: Trace) -> str:
    """Bytes per token of the training and the validation documents against
    the number of merges (log scale), the chapter's eight marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curve = trace["compression"]
    learned = len(curve["merges"])
    ks = list(range(1, learned + 1))
    train = [bytes_per_token(trace, k)[0] for k in ks]
    validation = [bytes_per_token(trace, k)[1] for k in ks]
    figure, axis = plt.subplots(figsize=(6.4, 3.4))
    axis.plot(ks, train, color="#336699", linewidth=1.4, label="training documents (counted)")
    axis.plot(ks, validation, color="#b35c00", linewidth=1.4, label="validation documents (only encoded)")
    eight = bytes_per_token(trace, 8)
    axis.plot([8, 8], eight, "o", color="#333333", markersize=4)
    axis.annotate("the chapter's 8 merges", (8, eight[0]), textcoords="offset points", xytext=(6, 10), fontsize=8)
    axis.set_xscale("log", base=2)
    axis.set_xlabel("merges learned from the training documents (log scale)")
    axis.set_ylabel("bytes per token")
    axis.grid(True, linewidth=0.3)
    axis.legend(loc="upper left", fontsize=8)
    svg = matplotlib_svg(figure)
    plt.close(figure)
    points = "; ".join(f"{k} merges: {fixed(bytes_per_token(trace, k)[0], 2)} and {fixed(bytes_per_token(trace, k)[1], 2)}"
                       for k in CURVE_ROWS if k <= learned)
    alt = ("Two curves of bytes per token against the number of merges, 1 to "
           f"{learned} on a log scale, for the training documents and for the validation documents. "
           f"They run together at first and part as the merges grow; training then validation: {points}.")
    return svg_figure(svg, "Bytes per token of the training and the validation documents as merges are added",
                      "compression", alt=alt)


def compression_table(trace: Trace) -> str:
    """Selected points of the curve with the merge learned last and its count."""
    curve = trace["compression"]
    rows = []
    for k in CURVE_ROWS:
        if k > len(curve["merges"]):
            continue
        last = curve["merges"][k - 1]
        train, validation = bytes_per_token(trace, k)
        rows.append([str(k), str(256 + k), fixed(train, 2), fixed(validation, 2),
                     f"`{merged_text(last['bytes'])}`", str(last["count"])])
    header = ["merges", "trainer vocabulary", "training bytes/token", "validation bytes/token", "merge learned last", "its count"]
    return table(header, rows, "Compression after selected numbers of merges", "compression-table")


def early_merge(trace: Trace, text: str) -> str:
    """``text`` as a code span, after checking that it is one of the merges
    learned before the partitions part (so the page's examples stay true)."""
    apart = compression_facts(trace)["apart_from"]
    early = [merged_text(m["bytes"]) for m in trace["compression"]["merges"][:apart]]
    shown = f'"{text}"'
    if shown not in early:
        raise ValueError(f"{shown!r} is not among the first {apart} merges: {early}")
    return f"`{shown}`"
