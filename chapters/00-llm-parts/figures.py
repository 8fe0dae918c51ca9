"""Figures of chapter 00, drawn from the book's own data, not from a demo run.

Chapter 00 has no demo (``llm_chapter(NO_DEMO)``). Its map is built from two
sources that the rest of the build also reads:

* ``model_parts.json`` beside this file: the parts of a decoder-only model,
  their groups, how data flows between them, and the chapters that build each
  part;
* ``tools/chapters.py``: the seven parts of the book and which chapters are
  written (a folder ``chapters/NN-slug/`` holding ``chapter.md``).

A chapter number in a figure or table links to that chapter's page when the
chapter is written and is plain text until then, like ``chapter_ref``.

* :func:`model_map` -- loads and checks the data (every chapter 1-40 builds a part,
  the worked prompt's shapes name known sizes);
* :func:`prompt_ids` and :func:`prompt_table` -- the worked prompt's token IDs
  and its shape at every part of the forward path (the IDs themselves are
  checked against the book's tokenizer by tests/text/chapter00_prompt_test.cpp);
* :func:`system_figure` -- the whole model: input, decoder blocks, output,
  learning, and what sits underneath;
* :func:`block_figure` -- inside one decoder block;
* :func:`parts_table` -- every part with its purpose and its chapters;
* :func:`book_parts_table` -- the seven parts of the book and their chapters;
* :func:`library_table` -- the library's folders and the headers they hold now.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

from tools import chapters as course
from tools.figures import current, graphviz, html_text, table

DATA_FILE = Path(__file__).resolve().parent / "model_parts.json"
ROOT = Path(__file__).resolve().parents[2]

GROUP_FILL = {
    "input": "#eef3fb",
    "block": "#e7f2e4",
    "output": "#fdf1e6",
    "learning": "#f6ecf7",
    "support": "#f4f4f4",
}
PENDING_TEXT = "#777777"
EDGE_STYLE = {
    None: 'color="#333333"',
    "generation": 'color="#b35c00", style=dashed, constraint=false',
    "state": 'color="#555555", style=dotted',
}


# NamedTuple, not a dataclass: tools/render.py loads this module without
# registering it in sys.modules, which dataclasses need.
class Part(NamedTuple):
    """One part of the model and the chapters that build it."""

    id: str
    group: str
    name: str
    purpose: str
    chapters: tuple[int, ...]


class ModelMap(NamedTuple):
    """The checked content of model_parts.json plus the written chapters."""

    groups: dict[str, dict[str, Any]]
    parts: dict[str, Part]
    block_sequence: tuple[str, ...]
    flow: tuple[dict[str, Any], ...]
    library: tuple[dict[str, str], ...]
    written: dict[int, str]
    prompt: dict[str, Any]

    def sizes(self) -> dict[str, str]:
        """The value of each shape letter for the worked prompt: T and V are
        numbers, d stays a letter (the width chapter 32 chooses)."""
        return {"T": str(len(self.prompt["token_ids"])), "V": str(self.prompt["vocabulary"]), "d": "d",
                "bytes": str(len(self.prompt["text"].encode("utf-8")))}

    def shape(self, letters: list[str], numbers: bool = True) -> str:
        """``[T, d]``, or with the prompt's numbers ``[18, d]``."""
        sizes = self.sizes()
        return "[" + ", ".join(sizes[letter] if numbers else letter for letter in letters) + "]"

    def parts_of(self, group: str) -> list[Part]:
        return [part for part in self.parts.values() if part.group == group]

    def chapters_of(self, node: str) -> tuple[int, ...]:
        """The chapters of a part, or of the block group for the node ``block``."""
        if node == "block":
            return tuple(self.groups["block"].get("chapters", ()))
        return self.parts[node].chapters


def model_map() -> ModelMap:
    """Loads model_parts.json and checks it against the course.

    Raises:
        ValueError: for a chapter outside the course, an unknown group or part,
            a flow between unknown nodes, or a chapter (1-40) that builds no part.
    """
    current().dependencies.update({DATA_FILE, ROOT / "chapters"})
    data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    groups = {group["id"]: group for group in data["groups"]}
    parts: dict[str, Part] = {}
    for entry in data["parts"]:
        if entry["group"] not in groups:
            raise ValueError(f"{DATA_FILE.name}: part {entry['id']!r} names unknown group {entry['group']!r}")
        for number in entry["chapters"]:
            course.part_of(number)  # ValueError outside chapters 00-40
        parts[entry["id"]] = Part(entry["id"], entry["group"], entry["name"], entry["purpose"], tuple(entry["chapters"]))
    nodes = set(parts) | {"block"}
    for edge in data["flow"]:
        for end in (edge["from"], edge["to"]):
            if end not in nodes:
                raise ValueError(f"{DATA_FILE.name}: flow {edge['from']} -> {edge['to']} names unknown part {end!r}")
    prompt = data["prompt"]
    _check_prompt(prompt, nodes)
    for edge in data["flow"]:
        for letter in edge.get("shape", []):
            if letter not in SHAPE_LETTERS:
                raise ValueError(f"{DATA_FILE.name}: flow {edge['from']} -> {edge['to']} has shape letter "
                                 f"{letter!r}; use one of {sorted(SHAPE_LETTERS)}")
    for name in data["block_sequence"]:
        if name not in parts or parts[name].group != "block":
            raise ValueError(f"{DATA_FILE.name}: block_sequence names {name!r}, which is not a part of the block")
    built = {number for part in parts.values() for number in part.chapters}
    built |= set(groups["block"].get("chapters", ()))
    missing = [number for number in range(course.FIRST_CHAPTER + 1, course.LAST_CHAPTER + 1) if number not in built]
    if missing:
        raise ValueError(f"{DATA_FILE.name}: chapters {missing} build no part of the model; map each to a part")
    return ModelMap(
        groups,
        parts,
        tuple(data["block_sequence"]),
        tuple(data["flow"]),
        tuple(data["library"]),
        course.written_chapters(ROOT),
        prompt,
    )


SHAPE_LETTERS = {"T", "d", "V", "bytes"}


def _check_prompt(prompt: dict[str, Any], nodes: set[str]) -> None:
    """The worked prompt is consistent with itself and the map.

    Raises:
        ValueError: naming the data file, when the IDs and pieces disagree in
            number, the first ID is not BOS (0), an ID is outside the
            vocabulary, a piece differs from the text, or the path names an
            unknown part or shape letter.
    """
    ids, pieces = prompt["token_ids"], prompt["pieces"]
    if len(ids) != len(pieces) or not ids or ids[0] != 0 or pieces[0] != "BOS":
        raise ValueError(f"{DATA_FILE.name}: the prompt needs BOS (0) first and one piece per token ID")
    if any(not 0 <= token < prompt["vocabulary"] for token in ids):
        raise ValueError(f"{DATA_FILE.name}: a prompt token ID is outside the vocabulary of {prompt['vocabulary']}")
    if "".join(pieces[1:]) != prompt["text"]:
        raise ValueError(f"{DATA_FILE.name}: the prompt's pieces spell {''.join(pieces[1:])!r}, not {prompt['text']!r}")
    for step in prompt["path"]:
        if step["part"] not in nodes:
            raise ValueError(f"{DATA_FILE.name}: the prompt's path names unknown part {step['part']!r}")
        if not set(step["shape"]) <= SHAPE_LETTERS:
            raise ValueError(f"{DATA_FILE.name}: the prompt's path has a shape {step['shape']} with unknown letters")


# --- Links ---------------------------------------------------------------------


def chapter_link(model: ModelMap, number: int) -> str:
    """``[6](06-bigram-baseline.md)`` for a written chapter, ``6`` otherwise (MyST)."""
    slug = model.written.get(number)
    return f"[{number}]({slug}.md)" if slug else f"{number}"


def _chapter_cells(model: ModelMap, numbers: tuple[int, ...]) -> str:
    """One HTML-label cell per chapter; a written chapter's cell links to its page.

    Sphinx 5 embeds the SVG with ``<object>``, so a link inside it is resolved
    against the image's folder ``_images/``; the chapter pages are in
    ``chapters/`` beside it, and ``_top`` opens them in the whole window.
    """
    cells = []
    for number in numbers:
        slug = model.written.get(number)
        if slug:
            cells.append(
                f'<TD HREF="../chapters/{slug}.html" TARGET="_top" TITLE="Chapter {number}">'
                f'<FONT POINT-SIZE="10"><U>{number}</U></FONT></TD>'
            )
        else:
            cells.append(f'<TD TITLE="Chapter {number}, not written yet"><FONT POINT-SIZE="10" COLOR="{PENDING_TEXT}">{number}</FONT></TD>')
    return "".join(cells)


def _node_label(model: ModelMap, name: str, numbers: tuple[int, ...], note: str = "") -> str:
    width = max(1, len(numbers))
    note_row = f'<TR><TD COLSPAN="{width}"><FONT POINT-SIZE="9">{html_text(note)}</FONT></TD></TR>' if note else ""
    return (
        '<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="2" CELLPADDING="1">'
        f'<TR><TD COLSPAN="{width}"><B>{html_text(name)}</B></TD></TR>{note_row}'
        f"<TR>{_chapter_cells(model, numbers)}</TR></TABLE>>"
    )


def _edge(model: ModelMap, source: str, target: str, edge: dict[str, Any]) -> str:
    text = edge.get("label", "")
    if edge.get("shape"):
        text += f"\\n{model.shape(edge['shape'])}"
    label = f', label="{text}"' if text else ""
    return f'  "{source}" -> "{target}" [{EDGE_STYLE[edge.get("kind")]}{label}];'


# --- Figures -------------------------------------------------------------------


def system_figure(model: ModelMap) -> str:
    """The whole model: every part as a node listing its chapters, the decoder
    block collapsed to one node, and the flow between them."""
    lines = [
        "digraph model {",
        '  graph [rankdir=TB, fontname="Helvetica", fontsize=11, nodesep=0.25, ranksep=0.35, newrank=true];',
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11, margin="0.08,0.04"];',
        '  edge [fontname="Helvetica", fontsize=9, arrowsize=0.7];',
    ]
    for group_id, group in model.groups.items():
        lines.append(f'  subgraph "cluster_{group_id}" {{')
        lines.append(f'    label="{group["title"]}"; style="rounded"; color="#aaaaaa"; fontsize=10;')
        fill = GROUP_FILL.get(group_id, "#ffffff")
        if group_id == "block":
            label = _node_label(model, "Decoder block × L", model.chapters_of("block"), "opened in the next figure")
            lines.append(f'    "block" [label={label}, fillcolor="{fill}"];')
        else:
            for part in model.parts_of(group_id):
                lines.append(f'    "{part.id}" [label={_node_label(model, part.name, part.chapters)}, fillcolor="{fill}"];')
        lines.append("  }")
    for edge in model.flow:
        lines.append(_edge(model, edge["from"], edge["to"], edge))
    lines.append("}")
    sizes = model.sizes()
    return graphviz(
        "\n".join(lines),
        "The parts of a decoder-only model and the chapters that build them; an underlined number links to a "
        f"written chapter. Shapes are those of the worked prompt: T = {sizes['T']} positions, V = {sizes['V']} tokens, "
        "d features",
        "system-map",
    )


def block_figure(model: ModelMap) -> str:
    """Inside one decoder block: the stream passes through ``block_sequence``;
    each residual add also receives the stream from before its branch."""
    lines = [
        "digraph block {",
        '  graph [rankdir=LR, fontname="Helvetica", fontsize=11, nodesep=0.3, ranksep=0.3];',
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11, margin="0.08,0.04"];',
        '  edge [fontname="Helvetica", fontsize=9, arrowsize=0.7];',
        '  "in" [label="stream in", shape=plaintext, style=""];',
        '  "out" [label="stream out", shape=plaintext, style=""];',
    ]
    fill = GROUP_FILL["block"]
    previous, branch_start = "in", "in"
    for index, part_id in enumerate(model.block_sequence):
        part = model.parts[part_id]
        node = f"{part_id}-{index}"
        lines.append(f'  "{node}" [label={_node_label(model, part.name, part.chapters)}, fillcolor="{fill}"];')
        lines.append(f'  "{previous}" -> "{node}";')
        if part_id == "residual":
            # The skip connection: the stream from before the branch is added back.
            lines.append(f'  "{branch_start}" -> "{node}" [style=dashed, label="skip", constraint=false];')
            branch_start = node
        previous = node
    lines.append(f'  "{previous}" -> "out";')
    lines.append("}")
    return graphviz(
        "\n".join(lines),
        "One decoder block: two branches, each normalized first and added back to the stream",
        "decoder-block",
    )


def parts_table(model: ModelMap) -> str:
    """Every part: its group, what it does, and the chapters that build it."""
    rows = []
    for group_id, group in model.groups.items():
        for part in model.parts_of(group_id):
            links = ", ".join(chapter_link(model, number) for number in part.chapters)
            rows.append([group["title"].split(":")[0].split(",")[0], part.name, part.purpose, links])
    return table(["Where", "Part", "What it does", "Chapters"], rows, "Every part of the map and the chapters that build it", "parts")


def book_parts_table(model: ModelMap) -> str:
    """The seven parts of the book (tools/chapters.py) with their chapters."""
    rows = []
    for part in course.PARTS:
        numbers = range(part.first, part.last + 1)
        written = [number for number in numbers if number in model.written]
        links = ", ".join(chapter_link(model, number) for number in numbers)
        rows.append([part.caption, links, f"{len(written)} of {len(numbers)}"])
    return table(["Part", "Chapters", "Written"], rows, "The seven parts of the book", "book-parts")


def written_count(model: ModelMap) -> int:
    """How many chapters of the course are written."""
    return len(model.written)


def library_table(model: ModelMap) -> str:
    """The library's folders (model_parts.json ``library``) and the headers each
    holds now, read from the repository, so the table grows with the code."""
    rows = []
    for entry in model.library:
        folder = ROOT / entry["folder"]
        current().dependencies.add(folder if folder.is_dir() else folder.parent)
        headers = sorted(path.name for path in folder.glob("*.hpp")) if folder.is_dir() else []
        present = ", ".join(f"`{name}`" for name in headers) if headers else "not written yet"
        rows.append([f"`{entry['folder']}/`", entry["holds"], present])
    return table(["Folder", "What it holds", "Headers so far"], rows, "Where each part lives in the library", "library")


# --- The worked prompt --------------------------------------------------------------


def prompt_ids(model: ModelMap) -> str:
    """The prompt's token IDs as ``[0, 117, ...]``."""
    return "[" + ", ".join(str(token) for token in model.prompt["token_ids"]) + "]"


def prompt_pieces(model: ModelMap) -> str:
    """Each token with the bytes it stands for, quoted so that spaces show:
    ``BOS``, ``"s"``, ..., ``"e "``."""
    return " ".join(f"`{piece}`" if piece == "BOS" else f'`"{piece}"`' for piece in model.prompt["pieces"])


def prompt_table(model: ModelMap) -> str:
    """The worked prompt at every part of the forward path: what the part
    holds, its shape in letters, and with the prompt's numbers."""
    rows = []
    for step in model.prompt["path"]:
        node = step["part"]
        name = "Decoder block × L" if node == "block" else model.parts[node].name
        letters = "bytes" if step["shape"] == ["bytes"] else model.shape(step["shape"], numbers=False)
        numbers = f"{model.sizes()['bytes']} bytes" if step["shape"] == ["bytes"] else model.shape(step["shape"])
        rows.append([name, step["holds"], f"${letters}$" if letters != "bytes" else letters, f"`{numbers}`"])
    caption = f"The prompt \"{model.prompt['text']}\" on its way through the forward path"
    return table(["Part", "What it holds", "Shape", "For this prompt"], rows, caption, "prompt-shapes")


def prompt_length(model: ModelMap) -> int:
    """T, the number of positions of the worked prompt, BOS included."""
    return len(model.prompt["token_ids"])
