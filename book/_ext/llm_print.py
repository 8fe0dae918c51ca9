"""Sphinx extension: the whole book on one page, for printing (``print.html``).

Like the Rust Book's ``print.html``, the HTML build ends by writing one page
that holds the front page, every chapter in order, the glossary and the
notation page (the API reference is left out: it is long, generated, and
every listing's caption already names the file it comes from). It is made
from the same doctrees as the chapter pages, so it is never out of date:

* each page's ids get the prefix ``<page>--`` (``chapters-12-stable-softmax--answers``),
  so that no id repeats, and every link between the included pages is turned
  into a link inside the print page; links to other pages (the API
  reference, source pages) stay links to those files;
* each chapter starts on a new printed page (``div.llm-print-document``,
  book.css), and a part's caption is printed before its first chapter;
* the answers are open (book.js opens every ``<details>`` of the print view,
  and of any page the reader prints), code and tables wrap when printed.

``make pdf`` prints this page with headless Chromium (tools/print_book.py).
"""

from __future__ import annotations

import posixpath
import re
from typing import Any, Iterator

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util.console import darkgreen  # type: ignore[attr-defined]
from sphinx.util.nodes import inline_all_toctrees

#: The page name of the print view.
PRINT_PAGE = "print"
#: Pages left out of the print view (with everything they include).
LEFT_OUT = ("api/index",)


def id_prefix(docname: str) -> str:
    """The prefix of every id of ``docname`` in the print view: ``chapters-12-x--``."""
    return re.sub(r"[^a-z0-9]+", "-", docname.lower()).strip("-") + "--"


def document_id(docname: str) -> str:
    """The id of the start of ``docname`` in the print view."""
    return id_prefix(docname) + "top"


def _rebase(uri: str, docname: str) -> str:
    """A relative ``uri`` written on page ``docname``, made relative to the book's root."""
    if not uri or uri.startswith(("#", "/")) or re.match(r"^[a-z][a-z0-9+.-]*:", uri):
        return uri
    path, hash_, fragment = uri.partition("#")
    path, query, rest = path.partition("?")
    rebased = posixpath.normpath(posixpath.join(posixpath.dirname(docname), path)) if path else path
    return rebased + query + rest + hash_ + fragment


_HREF = re.compile(r'(\s(?:href|src|data)=")([^"]*)(")')


def _rebase_links(node: nodes.Element, docname: str) -> None:
    """The links of one included page are relative to that page (those written at
    reading time, and those Sphinx resolved from the page, its ``refdoc``):
    made relative to the book's root."""
    for element in node.findall(nodes.Element):
        if isinstance(element, nodes.reference) and element.get("refuri") and not element["refuri"].startswith("#"):
            element["refuri"] = _rebase(element["refuri"], docname)
        if isinstance(element, nodes.raw) and "html" in element.get("format", ""):
            text = _HREF.sub(lambda m: m.group(1) + _rebase(m.group(2), docname) + m.group(3), element.astext())
            element.children = [nodes.Text(text)]


def _prefix_ids(node: nodes.Node, docname: str, stop: type | None = None) -> None:
    """Prefixes the ids of one included page, and its same-page links, after resolution."""
    prefix = id_prefix(docname)

    def walk(element: nodes.Node) -> None:
        if stop is not None and isinstance(element, stop):
            return
        if not isinstance(element, nodes.Element):
            return
        if element.get("ids"):
            element["ids"] = [prefix + identifier for identifier in element["ids"]]
        if element.get("refid"):
            element["refid"] = prefix + element["refid"]
        if element.get("backrefs"):
            element["backrefs"] = [prefix + identifier for identifier in element["backrefs"]]
        refuri = element.get("refuri", "") if isinstance(element, nodes.reference) else ""
        if refuri.startswith("#") and len(refuri) > 1:
            element["refuri"] = "#" + prefix + refuri[1:]
        if isinstance(element, nodes.raw) and 'href="#' in element.astext():
            text = re.sub(r'href="#([^"]+)"', lambda m: f'href="#{prefix}{m.group(1)}"', element.astext())
            element.children = [nodes.Text(text)]
        for child in element.children:
            walk(child)

    walk(node)


def _local_link(refuri: str, included: set[str], suffix: str) -> str | None:
    """``chapters/12-x.html#answers`` -> ``#chapters-12-x--answers`` when that page is included."""
    path, _, fragment = refuri.partition("#")
    if not path.endswith(suffix):
        return None
    docname = path[: -len(suffix)]
    if docname not in included:
        return None
    return "#" + (id_prefix(docname) + fragment if fragment else document_id(docname))


class print_document(nodes.container):
    """One included page of the print view (a ``div.llm-print-document``)."""


def assemble(app: Sphinx) -> tuple[nodes.document, set[str]]:
    """The front page with every included page inlined at its toctree, references
    resolved from the book's root, ids prefixed; returns it and the included pages."""
    env = app.env
    root = app.config.root_doc
    tree = env.get_doctree(root)
    for toctree in list(tree.findall(addnodes.toctree)):
        toctree["includefiles"] = [f for f in toctree["includefiles"] if f not in LEFT_OUT]
        toctree["entries"] = [(t, f) for t, f in toctree["entries"] if f not in LEFT_OUT]
        if toctree.get("caption") and toctree["includefiles"]:
            part = nodes.paragraph("", toctree["caption"], classes=["llm-print-part"])
            toctree.parent.insert(toctree.parent.index(toctree), part)
    included: set[str] = set()
    tree = inline_all_toctrees(app.builder, included, root, tree, darkgreen, [root])
    included.add(root)
    for start in list(tree.findall(addnodes.start_of_file)):
        docname = start["docname"]
        wrapper = print_document(classes=["llm-print-document"], docname=docname)
        wrapper.children = start.children
        for child in wrapper.children:
            child.parent = wrapper
        start.replace_self(wrapper)
    env.resolve_references(tree, PRINT_PAGE, app.builder)
    for wrapper in list(tree.findall(print_document)):
        _rebase_links(wrapper, wrapper["docname"])
        _prefix_ids(wrapper, wrapper["docname"])
        wrapper["ids"] = [document_id(wrapper["docname"])]
    for child in tree.children:
        _prefix_ids(child, root, stop=print_document)
    suffix = app.builder.out_suffix
    for reference in tree.findall(nodes.reference):
        local = _local_link(reference.get("refuri", ""), included, suffix)
        if local is not None:
            reference["refuri"] = local
    return tree, included


def collect_print_page(app: Sphinx) -> Iterator[tuple[str, dict[str, Any], str]]:
    """Writes ``print.html`` (html-collect-pages, after every page is written)."""
    if app.builder.name != "html":
        return
    builder = app.builder
    tree, included = assemble(app)
    numbers: dict[str, dict[str, tuple[int, ...]]] = {}
    for docname in included:
        for kind, table in app.env.toc_fignumbers.get(docname, {}).items():
            numbers.setdefault(kind, {}).update({id_prefix(docname) + key: value for key, value in table.items()})
    saved = (builder.fignumbers, builder.secnumbers, builder.imgpath, builder.current_docname)
    builder.fignumbers, builder.secnumbers = numbers, {}
    builder.imgpath, builder.current_docname = "_images", PRINT_PAGE
    try:
        for node in tree.findall(nodes.Element):
            node.document = tree
        body = _render(builder, tree)
    finally:
        builder.fignumbers, builder.secnumbers, builder.imgpath, builder.current_docname = saved
    context = {
        "title": f"{app.config.project} (the whole book)",
        "body": f'<div class="llm-print-book">{body}</div>',
        "parents": [],
    }
    yield PRINT_PAGE, context, "page.html"


def _render(builder: Any, tree: nodes.document) -> str:
    """The HTML of ``tree`` written by the book's HTML translator."""
    from docutils.io import StringOutput

    destination = StringOutput(encoding="utf-8")
    tree.settings = builder.docsettings
    builder.docwriter.write(tree, destination)
    builder.docwriter.assemble_parts()
    return builder.docwriter.parts["fragment"]


def visit_print_document(translator: Any, node: print_document) -> None:
    translator.visit_container(node)


def depart_print_document(translator: Any, node: print_document) -> None:
    translator.depart_container(node)


def print_page_mathjax(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """The print view loads MathJax like a page with formulas (Sphinx adds it only
    to pages whose own doctree has math; the print view has none of its own)."""
    if pagename != PRINT_PAGE or app.builder.name != "html":
        return
    from sphinx.ext.mathjax import install_mathjax

    equations = app.env.get_domain("math").data.get("has_equations", {})
    with_math = next((name for name, has in sorted(equations.items()) if has), None)
    if with_math is not None:
        install_mathjax(app, with_math, templatename, context, doctree)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_node(print_document, html=(visit_print_document, depart_print_document))
    app.connect("html-collect-pages", collect_print_page)
    app.connect("html-page-context", print_page_mathjax)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
