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
  out of the search index (they were listed as results of their own).
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any, Iterable

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.domains.cpp import CPPDomain
from sphinx.ext.graphviz import graphviz, html_visit_graphviz
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.writers.html5 import HTML5Translator

#: A number written with an exponent: ``1.5e-7``, ``-2.0E+10``.
EXPONENT_NUMBER = re.compile(r"[-+−]?\d+(?:\.\d+)?[eE][-+−]?\d+")

#: The file the build writes the pages' plain text into (under ``_static``).
SEARCH_TEXT_FILE = "search-text-data.js"


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
        super().visit_image(node)
        if isinstance(node.parent, nodes.figure):
            self.body.append(full_size_link(node["uri"]))

    # docutils 0.19 opens a list wrapper before the first of several citations
    # only if it has no previous sibling, but always closes one after the last:
    # with sphinxcontrib-bibtex's entries that is one </div> too many, which
    # closed the page's <article> early. One <div> per citation, always balanced.
    def visit_citation(self, node: nodes.Element) -> None:
        self.body.append(self.starttag(node, "div", classes=[node.tagname], role="doc-biblioentry"))

    def depart_citation(self, node: nodes.Element) -> None:
        self.body.append("</div>\n")


def visit_graphviz(translator: Any, node: graphviz) -> None:
    """Sphinx's Graphviz writer, followed by a full-size link to the SVG.

    The alt text (``:alt:`` of the directive, the caption otherwise) is escaped
    and also given to the ``<object>`` as its accessible name; without one,
    Sphinx would put the DOT source in its fallback text.
    """
    alt = node.get("alt") or _caption_text(node) or "diagram"
    node["alt"] = html.escape(alt)
    start = len(translator.body)
    try:
        html_visit_graphviz(translator, node)
    except nodes.SkipNode:
        for index in range(start, len(translator.body)):
            piece = translator.body[index]
            match = re.match(r'<object data="([^"]+)" type="image/svg\+xml"', piece)
            if match:
                translator.body[index] = piece.replace(
                    "<object ", f'<object role="img" aria-label="{html.escape(alt)}" ', 1
                )
                translator.body.append(full_size_link(match.group(1)))
                break
        raise


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
    """Classes the stylesheet needs: ``symbol-table``, and ``llm-nowrap`` around
    exponent numbers in table cells."""
    for table in doctree.findall(nodes.table):
        cells = header_cells(table)
        if cells and cells[0].lower() == "symbol":
            table["classes"].append("symbol-table")
        for entry in table.findall(nodes.entry):
            for text in list(entry.findall(nodes.Text)):
                if isinstance(text.parent, (nodes.literal, nodes.math, nodes.raw)):
                    continue
                _wrap_numbers(text)


def _wrap_numbers(text: nodes.Text) -> None:
    """Replaces ``text`` by pieces where each exponent number sits in an ``llm-nowrap`` span."""
    source = str(text)
    matches = list(EXPONENT_NUMBER.finditer(source))
    if not matches:
        return
    pieces: list[nodes.Node] = []
    position = 0
    for match in matches:
        if match.start() > position:
            pieces.append(nodes.Text(source[position : match.start()]))
        pieces.append(nodes.inline(match.group(0), match.group(0), classes=["llm-nowrap"]))
        position = match.end()
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
    parts: list[str] = []

    def walk(node: nodes.Node) -> None:
        if isinstance(node, SKIPPED_FOR_SEARCH):
            if isinstance(node, nodes.raw) and "llm-listing-body" in node.astext():
                parts.append(listing_code_text(node.astext()))
            elif isinstance(node, nodes.math):
                parts.append("…")
            return
        if isinstance(node, nodes.Text):
            parts.append(str(node))
            return
        for child in node.children:
            walk(child)
        if isinstance(node, (nodes.paragraph, nodes.title, nodes.literal_block, nodes.entry, nodes.term)):
            parts.append(" ")

    walk(doctree)
    return re.sub(r"\s+", " ", "".join(parts)).strip()


def listing_code_text(raw_html: str) -> str:
    """The code of a listing's raw HTML, without its line-number column."""
    match = re.search(r'<div class="highlight"><pre>(.*?)</pre>', raw_html, re.S)
    if not match:
        return ""
    return html.unescape(re.sub(r"<[^>]+>", "", match.group(1)))


def collect_search_text(app: Sphinx, doctree: nodes.document) -> None:
    """Stores the page's plain text in the environment (doctree-read)."""
    texts = getattr(app.env, "llm_search_text", {})
    texts[app.env.docname] = page_text(doctree)
    app.env.llm_search_text = texts


def purge_search_text(app: Sphinx, env: Any, docname: str) -> None:
    getattr(env, "llm_search_text", {}).pop(docname, None)


def merge_search_text(app: Sphinx, env: Any, docnames: set[str], other: Any) -> None:
    texts = getattr(env, "llm_search_text", {})
    texts.update({name: text for name, text in getattr(other, "llm_search_text", {}).items() if name in docnames})
    env.llm_search_text = texts


def write_search_text(app: Sphinx, exception: Exception | None) -> None:
    """Writes ``_static/search-text-data.js``: every page's text, for the search page."""
    if exception is not None or app.builder.format != "html":
        return
    texts = {name: text for name, text in sorted(getattr(app.env, "llm_search_text", {}).items())
             if name in app.env.all_docs}
    target = Path(app.outdir) / "_static" / SEARCH_TEXT_FILE
    content = "window.LLM_SEARCH_TEXT = " + json.dumps(texts, ensure_ascii=False, separators=(",", ":")) + ";\n"
    if not target.exists() or target.read_text(encoding="utf-8") != content:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")


def search_page_scripts(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """The search page loads the pages' text and the fetch shim that serves it."""
    if pagename == "search":
        app.add_js_file(SEARCH_TEXT_FILE, priority=100)
        app.add_js_file("search-text.js", priority=101)


def doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    mark_tables(doctree)
    collect_search_text(app, doctree)


def setup(app: Sphinx) -> dict[str, Any]:
    app.set_translator("html", BookHTMLTranslator, override=True)
    app.add_node(graphviz, override=True, html=(visit_graphviz, None))
    app.add_post_transform(UniqueIds)
    app.add_domain(BookCPPDomain, override=True)
    app.connect("doctree-read", doctree_read)
    app.connect("env-purge-doc", purge_search_text)
    app.connect("env-merge-info", merge_search_text)
    app.connect("html-page-context", search_page_scripts)
    app.connect("build-finished", write_search_text)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True, "env_version": 1}
