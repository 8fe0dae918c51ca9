"""Sphinx extension: the HTML frame around the book's content (docs/html.md).

* Figures can be opened at full size: every image and Graphviz diagram is
  followed by a link to its SVG file; a Graphviz figure's alt text also becomes
  the ``<object>``'s accessible name.
* Tables lay out as a reader expects: a table whose first header cell is
  "Symbol" gets the class ``symbol-table`` (a narrow symbol column, a wide
  meaning column, see book.css), and a number with an exponent inside any
  table cell never wraps (``1.5e-7`` stays on one line).
* No duplicate HTML ids: Furo's wrapper around tables and display math copies
  the wrapped node's ids, and Breathe gives every class's "Public Members"
  rubric the same id; the copies are removed or numbered.
* Search works from ``file://``: Sphinx's search page fetches each result's
  page to cut a snippet, which a browser refuses for ``file://`` URLs. The
  build writes every page's plain text (without math source or listing line
  numbers) into ``_static/search-text.js``, and ``book/_static/search-text.js``
  answers those fetches from it. Function and template parameters are left
  out of the search index (they were listed as results of their own). The
  text is kept per section, so a result opens the section that matches.
* Figures stay readable: every SVG figure is measured (its smallest label and
  its width, tools/html_static.py) and given the least width at which that
  label is 9 px on a laptop and 8 px on a phone; a figure that needs more
  than its column scrolls sideways in its own box.
* Navigation: an exercise links to its answer and back; a glossary entry's
  "Chapter N" is a link, and each entry lists the chapters that use the term;
  figures, tables and labelled equations are numbered per chapter
  ("Figure 12.3") so the text can cite them with ``{numref}`` and ``{eq}``.
* Lighter pages: jQuery and underscore, which no script of the book uses,
  are neither loaded nor published.
* Source everywhere: every page links to its source (the highlighted page
  of the file it was made from) and to that file in the repository
  (``llm_repository_url``, set by ``make book REPOSITORY_URL=...``).
"""

from __future__ import annotations

import html
import json
import os
import re
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.domains.cpp import CPPDomain
from sphinx.ext.graphviz import graphviz, html_visit_graphviz
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxRole
from sphinx.writers.html5 import HTML5Translator

#: A number written with an exponent: ``1.5e-7``, ``-2.0E+10``.
EXPONENT_NUMBER = re.compile(r"[-+−]?\d+(?:\.\d+)?[eE][-+−]?\d+")

#: The file the build writes the pages' plain text into (under ``_static``).
SEARCH_TEXT_FILE = "search-text-data.js"

#: The least size of a figure's smallest label, in CSS pixels: on a laptop
#: (1280 px) and on a phone (390 px). tools/check_html.py checks the same numbers.
LEAST_LABEL_PX_WIDE = 9.0
LEAST_LABEL_PX_NARROW = 8.0
#: Figures are at most this tall on a laptop (book.css: max-height 42rem).
FIGURE_MAX_HEIGHT_PX = 672.0

#: Scripts Sphinx 5 loads on every page that no script of the book uses.
UNUSED_SCRIPTS = ("jquery.js", "underscore.js", "_sphinx_javascript_frameworks_compat.js")


def _repository_tools() -> Any:
    """tools/html_static.py from the repository (the SVG label measurements)."""
    root = str(Path(os.environ.get("LLM_SOURCE_DIR", Path(__file__).resolve().parents[2])))
    if root not in sys.path:
        sys.path.insert(0, root)
    from tools import html_static

    return html_static


@lru_cache(maxsize=None)
def _svg_metrics(path: str) -> Any:
    return _repository_tools().svg_text_metrics(Path(path))


def figure_style(svg: Path) -> tuple[str, bool]:
    """The inline style that keeps ``svg``'s smallest label readable, and whether
    the figure may be taller than the usual height cap to do so.

    The style sets ``--llm-min-width-wide`` and ``--llm-min-width-narrow``
    (book.css makes them the image's min-width): the rendered width at which
    the smallest label is LEAST_LABEL_PX_WIDE / _NARROW pixels. Returns
    ("", False) for a file without text or that cannot be read.
    """
    try:
        metrics = _svg_metrics(str(svg))
    except OSError:
        return "", False
    if metrics is None or metrics.least_font <= 0:
        return "", False
    wide = metrics.width_for_label(LEAST_LABEL_PX_WIDE)
    narrow = metrics.width_for_label(LEAST_LABEL_PX_NARROW)
    capped = FIGURE_MAX_HEIGHT_PX * metrics.natural_width / metrics.natural_height if metrics.natural_height else wide
    tall = wide > capped + 0.5
    return f"--llm-min-width-wide: {wide:.0f}px; --llm-min-width-narrow: {narrow:.0f}px", tall


def full_size_link(uri: str) -> str:
    """The HTML of the link under a figure that opens its image file."""
    return (
        f'<a class="llm-full-size reference external" href="{html.escape(uri)}">'
        "Open full size</a>"
    )


class BookHTMLTranslator(HTML5Translator):
    """The HTML5 writer with a full-size link under every figure's image, and
    balanced ``<div>``s around citations."""

    def visit_image(self, node: nodes.Element) -> None:
        in_figure = isinstance(node.parent, nodes.figure)
        source = node.get("candidates", {}).get("*", node["uri"])
        start = len(self.body)
        if in_figure:
            self.body.append('<div class="llm-figure-scroll">')
        super().visit_image(node)
        if in_figure:
            path = Path(self.builder.srcdir) / source
            style, tall = figure_style(path) if path.suffix == ".svg" else ("", False)
            for index in range(start, len(self.body)):
                if self.body[index].startswith("<img "):
                    extra = f' style="{style}"' if style else ""
                    if tall:
                        extra += ' data-llm-tall="true"'
                    self.body[index] = self.body[index].replace("<img ", f"<img{extra} ", 1)
            self.body.append("</div>")
            self.body.append(full_size_link(node["uri"]))

    # docutils 0.19 opens a list wrapper before the first of several citations
    # only if it has no previous sibling, but always closes one after the last:
    # with sphinxcontrib-bibtex's entries that is one </div> too many, which
    # closed the page's <article> early. One <div> per citation, always balanced.
    def visit_citation(self, node: nodes.Element) -> None:
        self.body.append(self.starttag(node, "div", classes=[node.tagname], role="doc-biblioentry"))

    def depart_citation(self, node: nodes.Element) -> None:
        self.body.append("</div>\n")


def rewrite_graphviz_object(translator: Any, node: graphviz, rewrite: Any, after: Any = None) -> None:
    """Runs Sphinx's Graphviz writer, then replaces the ``<object>`` piece it wrote
    by ``rewrite(piece, match)``, where ``match`` holds the SVG's address (group 1),
    and appends ``after(match)`` behind the diagram's box."""
    start = len(translator.body)
    try:
        html_visit_graphviz(translator, node)
    except nodes.SkipNode:
        for index in range(start, len(translator.body)):
            match = re.search(r'<object data="([^"]+)" type="image/svg\+xml"', translator.body[index])
            if match:
                translator.body[index] = rewrite(translator.body[index], match)
                if after is not None:
                    translator.body.append(after(match))
                break
        raise


def visit_graphviz(translator: Any, node: graphviz) -> None:
    """Sphinx's Graphviz writer, followed by a full-size link to the SVG.

    The alt text (``:alt:`` of the directive, the caption otherwise) is escaped
    and also given to the ``<object>`` as its accessible name; without one,
    Sphinx would put the DOT source in its fallback text. The object gets the
    least width that keeps its labels readable (:func:`figure_style`).
    """
    alt = node.get("alt") or _caption_text(node) or "diagram"
    node["alt"] = html.escape(alt)

    def rewrite(piece: str, match: re.Match[str]) -> str:
        svg = Path(translator.builder.outdir) / "_images" / Path(match.group(1)).name
        style, tall = figure_style(svg)
        extra = f' style="{style}"' if style else ""
        if tall:
            extra += ' data-llm-tall="true"'
        return piece.replace("<object ", f'<object role="img" aria-label="{html.escape(alt)}"{extra} ', 1)

    rewrite_graphviz_object(translator, node, rewrite, lambda match: full_size_link(match.group(1)))


def _caption_text(node: nodes.Node) -> str:
    """The caption of the figure around ``node``, as plain text ('' without one)."""
    parent = node.parent
    if isinstance(parent, nodes.figure):
        for child in parent.children:
            if isinstance(child, nodes.caption):
                return child.astext()
    return ""


# -- tables ------------------------------------------------------------------


def header_cells(table: nodes.table) -> list[str]:
    """The text of the first header row's cells ([] for a table without a header)."""
    for head in table.findall(nodes.thead):
        for row in head.findall(nodes.row):
            return [entry.astext().strip() for entry in row.findall(nodes.entry)]
    return []


def mark_tables(doctree: nodes.document) -> None:
    """Classes the stylesheet needs: ``symbol-table``; ``llm-message-table`` for a
    table whose last column is the library's ``message`` (on a phone a long name
    in a message may break, as a quoted parameter name has no break of its own);
    and ``llm-nowrap`` around exponent numbers in table cells."""
    for table in doctree.findall(nodes.table):
        cells = header_cells(table)
        if cells and cells[0].lower() == "symbol":
            table["classes"].append("symbol-table")
        if cells and cells[-1].lower() == "message":
            table["classes"].append("llm-message-table")
        for entry in table.findall(nodes.entry):
            for text in list(entry.findall(nodes.Text)):
                if isinstance(text.parent, (nodes.literal, nodes.math, nodes.raw)):
                    continue
                _wrap_numbers(text)


def _wrap_numbers(text: nodes.Text) -> None:
    """Replaces ``text`` by pieces where each exponent number sits in an ``llm-nowrap`` span."""
    replace_matches(text, EXPONENT_NUMBER,
                    lambda match: nodes.inline(match.group(0), match.group(0), classes=["llm-nowrap"]))


def replace_matches(text: nodes.Text, pattern: re.Pattern[str], make: Any) -> None:
    """Replaces the Text node ``text`` by its pieces, each match of ``pattern``
    turned into the node ``make(match)`` returns (None: the match stays text)."""
    source = str(text)
    pieces: list[nodes.Node] = []
    position = 0
    for match in pattern.finditer(source):
        node = make(match)
        if node is None:
            continue
        if match.start() > position:
            pieces.append(nodes.Text(source[position : match.start()]))
        pieces.append(node)
        position = match.end()
    if not pieces:
        return
    if position < len(source):
        pieces.append(nodes.Text(source[position:]))
    parent = text.parent
    index = parent.index(text)
    parent.remove(text)
    for offset, piece in enumerate(pieces):
        parent.insert(index + offset, piece)


class UniqueIds(SphinxPostTransform):
    """Removes the ids Furo's table and math wrappers copy from what they wrap, and numbers
    repeated Breathe rubric ids, so that every id on a page is unique.

    Runs after Furo's wrapping transform (priority 500).
    """

    formats = ("html",)
    default_priority = 520

    def run(self, **kwargs: Any) -> None:
        for wrapper in self.document.findall(nodes.container):
            if not {"table-wrapper", "math-wrapper"} & set(wrapper["classes"]):
                continue
            # The wrapped table keeps its ids: Sphinx numbers tables by them.
            inner = {i for child in wrapper.children if isinstance(child, nodes.Element) for i in child["ids"]}
            wrapper["ids"] = [i for i in wrapper["ids"] if i not in inner]
        seen: dict[str, int] = {}
        for element in self.document.findall(nodes.Element):
            renamed = []
            for identifier in element.get("ids", []):
                if identifier.startswith("breathe-section-title-") and identifier in seen:
                    seen[identifier] += 1
                    identifier = f"{identifier}-{seen[identifier]}"
                seen.setdefault(identifier, 1)
                renamed.append(identifier)
            if "ids" in element:
                element["ids"] = renamed


# -- search --------------------------------------------------------------------


class BookCPPDomain(CPPDomain):
    """The C++ domain without function and template parameters in the search
    index and the object inventory (they stay linkable on their pages)."""

    def get_objects(self) -> Iterable[tuple[str, str, str, str, str, int]]:
        for entry in super().get_objects():
            if entry[2] not in ("functionParam", "templateParam"):
                yield entry


#: Nodes whose text a search snippet leaves out: math source, DOT source,
#: listing line numbers and code inside raw HTML are handled separately.
SKIPPED_FOR_SEARCH = (nodes.math, nodes.math_block, nodes.comment, nodes.system_message,
                      nodes.raw, nodes.target, graphviz, addnodes.toctree)


def page_text(doctree: nodes.Node) -> str:
    """The plain text of a page for search snippets: words, code and table
    cells; no TeX, no DOT, no line numbers; whitespace collapsed."""
    return " ".join(text for _, _, text in section_texts(doctree) if text)


def formula_words(latex: str) -> list[str]:
    """The words a formula spells out (``\\mathrm{softmax}`` gives ``softmax``):
    runs of three or more letters that are not a TeX command's name."""
    return re.findall(r"(?<![\\A-Za-z])[A-Za-z]{3,}", latex)


def section_math_words(doctree: nodes.Node) -> dict[str, str]:
    """For each section id, the words of its formulas, space-separated.

    Search snippets show a formula as "…", yet Sphinx's index holds its words;
    the search page matches a query against these too, so a term written only
    in a formula (chapter 37's softmax) still lands on the section that has it.
    """
    words: dict[str, list[str]] = {}
    for formula in doctree.findall(lambda node: isinstance(node, (nodes.math, nodes.math_block))):
        section = formula.parent
        while section is not None and not (isinstance(section, nodes.section) and section["ids"]):
            section = section.parent
        identifier = section["ids"][0] if section is not None else ""
        words.setdefault(identifier, []).extend(formula_words(formula.astext()))
    return {identifier: " ".join(dict.fromkeys(found)) for identifier, found in words.items() if found}


def section_texts(doctree: nodes.Node) -> list[tuple[str, str, str]]:
    """The page's text cut into its sections: ``(id, title, text)`` in page order.

    A section's own text excludes its subsections. Each glossary entry counts
    as a section of its own (id ``term-...``, titled with its term), so a
    search lands on the entry. Text before the first section has id ``""``.
    """
    pieces: list[tuple[str, str, list[str]]] = [("", "", [])]
    stack: list[int] = [0]

    def begin(identifier: str, title: str) -> None:
        pieces.append((identifier, title, []))
        stack.append(len(pieces) - 1)

    def walk(node: nodes.Node) -> None:
        parts = pieces[stack[-1]][2]
        if isinstance(node, SKIPPED_FOR_SEARCH):
            if isinstance(node, nodes.raw) and "llm-listing-body" in node.astext():
                parts.append(listing_code_text(node.astext()))
            elif isinstance(node, nodes.math):
                parts.append("…")
            return
        if isinstance(node, nodes.Text):
            parts.append(str(node))
            return
        opened = False
        if isinstance(node, nodes.section) and node["ids"]:
            title = next((child.astext() for child in node.children if isinstance(child, nodes.title)), "")
            begin(node["ids"][0], title)
            opened = True
        elif isinstance(node, nodes.definition_list_item):
            term = next((child for child in node.children if isinstance(child, nodes.term)), None)
            if term is not None and any(i.startswith("term-") for i in term["ids"]):
                begin(next(i for i in term["ids"] if i.startswith("term-")), term.astext())
                opened = True
        for child in node.children:
            walk(child)
        if isinstance(node, (nodes.paragraph, nodes.title, nodes.literal_block, nodes.entry, nodes.term)):
            pieces[stack[-1]][2].append(" ")
        if opened:
            stack.pop()

    walk(doctree)
    result = []
    for identifier, title, parts in pieces:
        text = re.sub(r"\s+", " ", "".join(parts)).strip()
        if text or identifier:
            result.append((identifier, title, text))
    return result


def listing_code_text(raw_html: str) -> str:
    """The code of a listing's raw HTML, without its line-number column."""
    match = re.search(r'<div class="highlight"><pre>(.*?)</pre>', raw_html, re.S)
    if not match:
        return ""
    return html.unescape(re.sub(r"<[^>]+>", "", match.group(1)))


def collect_search_text(app: Sphinx, doctree: nodes.document) -> None:
    """Stores the page's sections' text in the environment (doctree-read)."""
    texts = getattr(app.env, "llm_search_text", {})
    math = section_math_words(doctree)
    texts[app.env.docname] = [(identifier, title, text, math.get(identifier, ""))
                              for identifier, title, text in section_texts(doctree)]
    app.env.llm_search_text = texts


def purge_search_text(app: Sphinx, env: Any, docname: str) -> None:
    for attribute in ("llm_search_text", "llm_term_uses"):
        getattr(env, attribute, {}).pop(docname, None)


def merge_search_text(app: Sphinx, env: Any, docnames: set[str], other: Any) -> None:
    for attribute in ("llm_search_text", "llm_term_uses"):
        mine = getattr(env, attribute, None)
        if mine is None:
            mine = {}
            setattr(env, attribute, mine)
        mine.update({name: value for name, value in getattr(other, attribute, {}).items() if name in docnames})


def write_search_text(app: Sphinx, exception: Exception | None) -> None:
    """Writes ``_static/search-text-data.js``: every page's sections and their text,
    for the search page (``window.LLM_SEARCH_TEXT = {page: [[id, title, text, formula words], ...]}``)."""
    if exception is not None or app.builder.format != "html" or app.builder.name != "html":
        return
    texts = {name: [list(section) for section in sections]
             for name, sections in sorted(getattr(app.env, "llm_search_text", {}).items())
             if name in app.env.all_docs and isinstance(sections, list)}
    target = Path(app.outdir) / "_static" / SEARCH_TEXT_FILE
    content = "window.LLM_SEARCH_TEXT = " + json.dumps(texts, ensure_ascii=False, separators=(",", ":")) + ";\n"
    if not target.exists() or target.read_text(encoding="utf-8") != content:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")


def search_page_scripts(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """The search page loads the pages' text and the script that serves it, after
    Sphinx's searchtools.js (``defer``), so that it can tune its ranking."""
    if pagename == "search":
        app.add_js_file(SEARCH_TEXT_FILE, priority=100, defer="defer")
        app.add_js_file("search-text.js", priority=101, defer="defer")


# -- lighter pages ----------------------------------------------------------------------


def drop_unused_scripts(app: Sphinx) -> None:
    """Sphinx 5 loads jQuery, underscore and their shim on every page; nothing
    of the book uses them (builder-inited)."""
    files = getattr(app.builder, "script_files", None)
    if files is not None:
        files[:] = [f for f in files if not str(f).endswith(UNUSED_SCRIPTS)]


def remove_unused_scripts(app: Sphinx, exception: Exception | None) -> None:
    """Deletes the unused scripts Sphinx copied into ``_static`` (build-finished)."""
    if exception is not None or app.builder.format != "html":
        return
    for name in UNUSED_SCRIPTS:
        (Path(app.outdir) / "_static" / name).unlink(missing_ok=True)


# -- source and repository links -----------------------------------------------------------


def repository_url(app: Sphinx) -> str:
    """The repository's address without a trailing slash (``llm_repository_url``)."""
    return (getattr(app.config, "llm_repository_url", "") or "").rstrip("/")


def repository_file_url(app: Sphinx, path: str) -> str:
    """The address of ``path`` (relative to the repository root) in the repository:
    ``<url>/blob/<branch>/<path>`` on a forge, ``<url>/<path>`` for a local folder."""
    base = repository_url(app)
    if not base:
        return ""
    if base.startswith("file:"):
        return f"{base}/{path}"
    return f"{base}/blob/{getattr(app.config, 'llm_repository_branch', 'main')}/{path}"


def page_source_path(app: Sphinx, pagename: str) -> str | None:
    """The repository file a page is made from: a chapter's ``chapter.md``, or
    the page under ``book/``; None for generated pages."""
    match = re.fullmatch(r"chapters/(\d\d-[a-z0-9-]+)", pagename)
    if match:
        return f"chapters/{match.group(1)}/chapter.md"
    if pagename in app.env.all_docs and not pagename.startswith("_"):
        return f"book/{pagename}.md"
    return None


def page_context(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """Adds the source and repository links to every page (book/_templates/page.html)."""
    if app.builder.format != "html":
        return
    context["llm_repository_url"] = repository_url(app)
    context["llm_print_page"] = context["pathto"]("print") if app.builder.name == "html" else ""
    path = page_source_path(app, pagename)
    if path is None and pagename.startswith("_source/"):
        path = pagename.removeprefix("_source/")
        context["llm_repository_file"] = repository_file_url(app, path)
        return
    if path is None:
        return
    from llm_book import source_page

    context["llm_repository_file"] = repository_file_url(app, path)
    if app.builder.name == "html":
        context["llm_page_source"] = context["pathto"](source_page(path))


class RepositoryRole(SphinxRole):
    """``{repository}`README.md``` : a link to that file in the book's repository
    (``llm_repository_url``), shown as the path in code font."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        path = self.text.strip().lstrip("/")
        url = repository_file_url(self.env.app, path)
        literal = nodes.literal(path, path)
        if not url:
            return [literal], []
        return [nodes.reference("", "", literal, refuri=url, classes=["llm-repository-file"])], []


# -- numbered figures, tables and equations ------------------------------------------------


def number_by_chapter(app: Sphinx, env: Any) -> list[str]:
    """Numbers figures, tables, listings and equations page by page, with the
    chapter's number in front: "Figure 12.3", "(12.1)" (env-get-updated).

    Without numbered sections Sphinx counts them through the whole book
    (chapter 12's first table is "Table 36"); each page's items keep their
    order and are counted from 1.
    """
    for docname, kinds in getattr(env, "toc_fignumbers", {}).items():
        match = re.fullmatch(r"chapters/(\d\d)-[a-z0-9-]+", docname)
        prefix = (int(match.group(1)),) if match else ()
        for kind, numbers in kinds.items():
            ordered = sorted(numbers.items(), key=lambda item: item[1])
            for rank, (identifier, _) in enumerate(ordered, start=1):
                numbers[identifier] = (*prefix, rank)
    return []


# -- exercises and answers; glossary links ----------------------------------------------------


def _section_titled(doctree: nodes.Node, title: str) -> nodes.section | None:
    for section in doctree.findall(nodes.section):
        heading = next((child for child in section.children if isinstance(child, nodes.title)), None)
        if heading is not None and heading.astext().strip().lower() == title:
            return section
    return None


def link_exercises(doctree: nodes.document) -> None:
    """Exercise N links to its answer and the answer back to it; the k-th try-it
    box links to the k-th try-it answer (doctree-resolved, chapter pages)."""
    exercises, answers = _section_titled(doctree, "exercises"), _section_titled(doctree, "answers")
    if exercises is None or answers is None:
        return
    from llm_book import details

    answer_nodes = list(answers.findall(details))
    numbered = {}
    tries = []
    for node in answer_nodes:
        summary = node.get("summary", "")
        match = re.fullmatch(r"Exercise (\d+)", summary.strip())
        if match:
            numbered[int(match.group(1))] = node
        elif summary.strip().lower().startswith("try it"):
            tries.append(node)
    items = next((child for child in exercises.children if isinstance(child, nodes.enumerated_list)), None)
    if items is not None:
        first = int(items.get("start", 1))
        for offset, item in enumerate(child for child in items.children if isinstance(child, nodes.list_item)):
            number = first + offset
            answer = numbered.get(number)
            if answer is None:
                continue
            _link_pair(item, answer, f"exercise-{number}", f"answer-{number}", f"Exercise {number}")
    boxes = [node for node in exercises.findall(nodes.admonition) if "try-it" in node["classes"]]
    for index, (box, answer) in enumerate(zip(boxes, tries), start=1):
        title = next((child.astext() for child in box.children if isinstance(child, nodes.title)), "Try it")
        _link_pair(box, answer, f"try-it-{index}", f"try-it-answer-{index}", title)


def _link_pair(question: nodes.Element, answer: nodes.Element, question_id: str, answer_id: str, label: str) -> None:
    if question_id not in question["ids"]:
        question["ids"].append(question_id)
    if answer_id not in answer["ids"]:
        answer["ids"].append(answer_id)
    forward = nodes.reference("", "Answer ↓", refuri=f"#{answer_id}", internal=True, classes=["llm-to-answer"])
    target = question.children[-1] if question.children and isinstance(question.children[-1], nodes.paragraph) else None
    if target is None:
        target = nodes.paragraph()
        question += target
    target += nodes.Text(" ")
    target += forward
    back = nodes.paragraph("", "", classes=["llm-to-exercise-line"])
    back += nodes.reference("", f"↑ {label}", refuri=f"#{question_id}", internal=True, classes=["llm-to-exercise"])
    answer.insert(0, back)


CHAPTER_MENTION = re.compile(r"\bChapter (\d{1,2})\b")


def record_term_uses(app: Sphinx, doctree: nodes.document) -> None:
    """Which glossary terms a chapter links to (doctree-read)."""
    if not re.fullmatch(r"chapters/\d\d-[a-z0-9-]+", app.env.docname):
        return
    terms = {node["reftarget"].lower() for node in doctree.findall(addnodes.pending_xref)
             if node.get("reftype") == "term"}
    uses = getattr(app.env, "llm_term_uses", None)
    if uses is None:
        uses = app.env.llm_term_uses = {}
    uses[app.env.docname] = terms


def chapter_pages(env: Any) -> dict[int, str]:
    """Chapter number -> page name of the written chapters."""
    pages = {}
    for docname in env.found_docs:
        match = re.fullmatch(r"chapters/(\d\d)-[a-z0-9-]+", docname)
        if match:
            pages[int(match.group(1))] = docname
    return pages


def link_glossary(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """In a glossary entry, "Chapter 12" becomes a link, and the entry ends with
    the chapters that link to the term (doctree-resolved, glossary page)."""
    pages = chapter_pages(app.env)
    uses = getattr(app.env, "llm_term_uses", {})
    for item in doctree.findall(nodes.definition_list_item):
        term = next((child for child in item.children if isinstance(child, nodes.term)), None)
        definition = next((child for child in item.children if isinstance(child, nodes.definition)), None)
        if term is None or definition is None or not any(i.startswith("term-") for i in term["ids"]):
            continue
        for text in list(definition.findall(nodes.Text)):
            if isinstance(text.parent, (nodes.reference, nodes.literal, nodes.math)):
                continue
            _link_chapter_mentions(app, text, pages, docname)
        name = term.astext().strip().lower()
        users = sorted(int(page.split("/")[1][:2]) for page, terms in uses.items() if name in terms and page in app.env.all_docs)
        if users:
            line = nodes.paragraph("", "", classes=["llm-used-in"])
            line += nodes.Text("Used in ")
            for position, number in enumerate(users):
                if position:
                    line += nodes.Text(" · ")
                uri = app.builder.get_relative_uri(docname, pages[number])
                line += nodes.reference("", f"Chapter {number}", internal=True, refuri=uri)
            definition += line


def _link_chapter_mentions(app: Sphinx, text: nodes.Text, pages: dict[int, str], docname: str) -> None:
    def link(match: re.Match[str]) -> nodes.Node | None:
        number = int(match.group(1))
        if number not in pages:
            return None
        uri = app.builder.get_relative_uri(docname, pages[number])
        return nodes.reference("", match.group(0), internal=True, refuri=uri)

    replace_matches(text, CHAPTER_MENTION, link)


def doctree_resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    if re.fullmatch(r"chapters/\d\d-[a-z0-9-]+", docname):
        link_exercises(doctree)
    if docname == "glossary":
        link_glossary(app, doctree, docname)


def doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    mark_tables(doctree)
    collect_search_text(app, doctree)
    record_term_uses(app, doctree)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("llm_repository_url", "", "html")
    app.add_config_value("llm_repository_branch", "main", "html")
    app.add_role("repository", RepositoryRole())
    app.set_translator("html", BookHTMLTranslator, override=True)
    app.set_translator("epub", BookHTMLTranslator, override=True)
    app.add_node(graphviz, override=True, html=(visit_graphviz, None))
    app.add_post_transform(UniqueIds)
    app.add_domain(BookCPPDomain, override=True)
    app.connect("doctree-read", doctree_read)
    app.connect("env-purge-doc", purge_search_text)
    app.connect("env-merge-info", merge_search_text)
    app.connect("html-page-context", search_page_scripts)
    app.connect("html-page-context", page_context)
    app.connect("builder-inited", drop_unused_scripts)
    app.connect("env-get-updated", number_by_chapter, priority=900)
    app.connect("doctree-resolved", doctree_resolved)
    app.connect("build-finished", write_search_text)
    app.connect("build-finished", remove_unused_scripts)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True, "env_version": 2}
