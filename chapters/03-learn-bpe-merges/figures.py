"""Figure macros of chapter 3: the two traced merge rounds on "aaa" | "aba",
and the leading candidates of every round on the book's training documents.

Every value comes from the demo's trace (``chapters/03-learn-bpe-merges/demo.cpp``),
which reruns the library's counting, tie rule and replacement and checks each
corpus round against the trainer's rules.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from tools.figures import dot_head, find_entry, graphviz, hex_bytes, html_text, label_table, table

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
