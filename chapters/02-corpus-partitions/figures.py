"""Figure macros of chapter 2: the frozen partitions, a faulty split's audit,
and the typed error of each broken invariant.

Every value comes from the demo's trace (``chapters/02-corpus-partitions/demo.cpp``):
the documents of each partition, the plain set audit of the worked six-document
splits, and the validator's error for each mutated copy of the book's manifest.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from tools.figures import graphviz, html_text, table

Trace = Mapping[str, Any]

PARTITIONS = ("train", "validation", "test")
FILL = {"train": "#eaf2fb", "validation": "#fff4e0", "test": "#eef7ea"}
BORDER = {"train": "#4a78a8", "validation": "#b7791f", "test": "#3d7a35"}
PURPOSE = {
    "train": "learns: tokenizer merges, model counts and weights",
    "validation": "chooses: compares models, never fits them",
    "test": "reports: scored once, after every choice",
}


def documents(trace: Trace, partition: str) -> list[Mapping[str, Any]]:
    """The traced documents of one partition, in corpus order."""
    return list(trace["partitions"][partition])


def groups(trace: Trace, partition: str) -> list[str]:
    """The provenance groups of one partition, in order of first appearance."""
    seen: list[str] = []
    for document in documents(trace, partition):
        if document["provenance_group"] not in seen:
            seen.append(document["provenance_group"])
    return seen


def _card(document: Mapping[str, Any], partition: str) -> str:
    """One document as an HTML-like table: id, language, group, sizes."""
    return (
        f'<<TABLE BORDER="1" CELLBORDER="0" CELLSPACING="0" CELLPADDING="3" BGCOLOR="#ffffff" '
        f'COLOR="{BORDER[partition]}">'
        f'<TR><TD><B>{html_text(document["id"])}</B></TD></TR>'
        f'<TR><TD><FONT POINT-SIZE="9">language {html_text(document["language"])} · '
        f'{document["bytes"]} bytes, {document["scalars"]} scalars</FONT></TD></TR>'
        "</TABLE>>"
    )


def partitions_figure(trace: Trace) -> str:
    """Figure: three peer clusters of whole-document cards, each pair of translations side by side."""
    lines = [
        "digraph partitions {",
        '  graph [rankdir=TB, nodesep=0.2, ranksep=0.25, bgcolor="transparent", newrank=true, '
        'fontname="Helvetica"];',
        '  node [shape=plaintext, fontname="Helvetica", fontsize=10];',
        '  edge [dir=none, style=dashed, color="#777777", fontname="Helvetica", fontsize=8];',
    ]
    for partition in PARTITIONS:
        docs = documents(trace, partition)
        lines.append(
            f'  subgraph cluster_{partition} {{ label="{partition}: {len(docs)} documents\\n{PURPOSE[partition]}"; '
            f'style="rounded,filled"; fillcolor="{FILL[partition]}"; color="{BORDER[partition]}"; fontsize=11;'
        )
        for group in groups(trace, partition):
            members = [d for d in docs if d["provenance_group"] == group]
            for document in members:
                node = document["id"].replace("-", "_")
                lines.append(f"    {node} [label={_card(document, partition)}];")
            names = [m["id"].replace("-", "_") for m in members]
            lines.append(f'    subgraph {{ rank=same; {"; ".join(names)}; }}')
            for left, right in zip(names, names[1:]):
                lines.append(f'    {left} -> {right} [label=" {group}"];')
        lines.append("  }")
    # Stack the group rows of each cluster vertically.
    for partition in PARTITIONS:
        heads = [
            next(d for d in documents(trace, partition) if d["provenance_group"] == g)["id"].replace("-", "_")
            for g in groups(trace, partition)
        ]
        for upper, lower in zip(heads, heads[1:]):
            lines.append(f"  {upper} -> {lower} [style=invis];")
    lines.append("}")
    counts = ", ".join(f"{len(documents(trace, p))} {p}" for p in PARTITIONS)
    caption = (
        f"The book's corpus after the frozen split: {counts}. A dashed line joins the two versions of one "
        "scene, which share a provenance group and therefore a partition. The Russian texts have more bytes "
        "than scalars because each Cyrillic letter takes two bytes (chapter 1)."
    )
    return graphviz("\n".join(lines), caption, "corpus-partitions")


def _ids(ids: Sequence[str]) -> str:
    """A list of ids as inline code, or an em dash for an empty list."""
    return ", ".join(f"`{i}`" for i in ids) if ids else "—"


def worked_audit_table(trace: Trace) -> str:
    """Table: the tempting and the repaired six-document split, audited with set operations."""
    header = ["Split", "train", "validation", "test", "Not in any partition", "validation ∩ test",
              "Validator"]
    rows = []
    for entry in trace["worked_audit"]:
        audit = entry["audit"]
        verdict = "accepted" if entry["error"] is None else f'`{entry["error"]["kind"]}`: {entry["error"]["message"]}'
        rows.append([entry["name"], _ids(entry["train"]), _ids(entry["validation"]), _ids(entry["test"]),
                     _ids(audit["missing"]), _ids(audit["validation_test"]), verdict])
    return table(header, rows, "The worked six-document split before and after the repair", "worked-audit")


def broken_manifests_table(trace: Trace) -> str:
    """Table: each mutation of the book's manifest and the typed error that rejects it."""
    rows = [[entry["change"], f'`{entry["kind"]}`', entry["message"]] for entry in trace["broken_manifests"]]
    return table(["Change to a copy of splits.json", "Error kind", "Message"], rows,
                 "One broken invariant at a time, each caught by the check that owns it", "broken-manifests")
