"""Sphinx extension for the book's pages.

* ``listing`` directive: a C++ region rendered by tools/render.py, shown with
  its ORIGINAL line numbers (regions may skip the marker lines of nested
  regions, so numbers can jump) and a caption linking to the source line.
  Listings are numbered with the page's captioned code blocks (its demo
  output): "Listing 12.3", with a permalink, so a reader can cite one.
  Line numbers sit outside the code's ``<pre>``, so the copy button copies
  code only. Its ``path#region`` is checked exactly as the ``listing()``
  macro checks it (tools/regions.py: inside the repository, no symbolic link
  out, an existing region); a bad reference or a missing or malformed option
  is a Sphinx error at the page's line, never a crash.
* ``answer`` directive: content collapsed in ``<details>`` until opened.
* Source pages: every file shown in a listing is published, highlighted with
  line anchors, at ``_source/<path>.html``; listings link into it (the page
  itself is drawn and published by llm_links). Only paths the listing
  directive accepted are published, under their canonical
  repository-relative name, so no page is read or written outside the
  repository and the HTML output folder.
* ``api-header`` directive: the API reference of one public header, built from
  Doxygen's XML as one Breathe directive per class, function, enum and typedef
  declared there (Breathe's own ``doxygenfile`` re-declares the namespace for
  every file, which Sphinx rejects as duplicates).
* ``key-ideas`` directive: the box of three to five points that ends every
  chapter, with links to the glossary and the notation page.
* ``try-it`` directive: an edit the reader makes to the code, and what
  ``make chapter-NN`` then shows.
* ``book-parts`` directive: the table of contents of the written chapters,
  one toctree per part (tools/chapters.py names the parts), so a part appears
  as soon as its first chapter is written.
* Offline MathJax: copies the parts of Debian's MathJax 2 (libjs-mathjax) that
  the TeX-AMS_CHTML configuration loads into ``_static/mathjax``.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import xml.etree.ElementTree as ElementTree
from collections import Counter
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import CppLexer
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective


logger = logging.getLogger(__name__)

MATHJAX_SOURCE = Path("/usr/share/javascript/mathjax")
MATHJAX_PARTS = (
    "MathJax.js",
    "config/TeX-AMS_CHTML.js",
    "extensions",
    "jax/input/TeX",
    "jax/output/CommonHTML",
    "jax/element",
    "fonts/HTML-CSS/TeX/woff",
)


def source_root() -> Path:
    """The repository root, passed by the build in LLM_SOURCE_DIR."""
    return Path(os.environ.get("LLM_SOURCE_DIR", Path(__file__).resolve().parents[2]))


def parse_line_spec(spec: str) -> list[int]:
    """``12-14,20`` -> ``[12, 13, 14, 20]``.

    Raises:
        ValueError: unless every part is ``N`` or ``N-M`` with ``1 <= N <= M``.
    """
    numbers: list[int] = []
    for part in spec.split(","):
        match = re.fullmatch(r"\s*([0-9]{1,9})\s*(?:-\s*([0-9]{1,9})\s*)?", part)
        if match is None:
            raise ValueError(f"'{part.strip()}' is not a line number N or a range N-M")
        first, last = int(match.group(1)), int(match.group(2) or match.group(1))
        if not 1 <= first <= last:
            raise ValueError(f"'{part.strip()}' is not an increasing range of line numbers")
        numbers.extend(range(first, last + 1))
    return numbers


def _regions_module() -> Any:
    """tools/regions.py from the repository: the one check of a ``path#region`` reference."""
    import importlib
    import sys

    root = str(source_root())
    if root not in sys.path:
        sys.path.insert(0, root)
    return importlib.import_module("tools.regions")


def checked_source_path(path: str) -> str | None:
    """``path`` if it names a file inside the repository (no ``..`` or symbolic link out), else None.

    The canonical repository-relative form is returned, so a page name built
    from it stays inside ``_source/``.
    """
    regions = _regions_module()
    try:
        return regions.locate_source(path, source_root())[1]
    except regions.RegionError:
        return None


def source_page(path: str) -> str:
    """The page name under which a source file is published."""
    return f"_source/{path}"


class listing(nodes.container):
    """A source listing: numbered with the chapter's code blocks ("Listing 12.3",
    as its demo output is), written like any container."""


class listing_caption(nodes.paragraph):
    """A listing's caption line: its number, its text, the link to the source lines."""


def listing_title(node: listing) -> str:
    """The caption Sphinx numbers a listing by (a listing without one would go unnumbered)."""
    return node.get("llm_caption", "")


def visit_listing_caption(translator: Any, node: listing_caption) -> None:
    translator.visit_paragraph(node)
    translator.add_fignumber(node.parent)


def depart_listing_caption(translator: Any, node: listing_caption) -> None:
    translator.add_permalink_ref(node.parent, "Link to this listing")
    translator.depart_paragraph(node)


class ListingDirective(SphinxDirective):
    """``{listing} path#region`` with ``:caption:`` and ``:lines:``; content is the code."""

    required_arguments = 1
    has_content = True
    option_spec = {
        "caption": directives.unchanged_required,
        "lines": directives.unchanged_required,
    }

    def run(self) -> list[nodes.Node]:
        reference = self.arguments[0]
        for option in ("caption", "lines"):
            if option not in self.options:
                raise self.error(f"listing {reference}: the :{option}: option is missing")
        try:
            numbers = parse_line_spec(self.options["lines"])
        except ValueError as error:
            raise self.error(f"listing {reference}: :lines: {error}")
        code = "\n".join(self.content)
        if len(numbers) != len(self.content):
            raise self.error(f"listing {reference}: {len(numbers)} line numbers for {len(self.content)} lines")
        # The same check as the listing() macro's: inside the repository, an existing region.
        regions = _regions_module()
        page = self.get_source_info()[0] or self.env.docname
        try:
            region = regions.resolve_reference(reference, source_root(), page, self.lineno)
        except regions.RegionError as error:  # at this line, or at the source file's marker defect
            raise self.error(f"listing {reference}: {error.message if error.path == page else error}")
        path, name = region.path, region.name
        reference = region.reference

        sources = getattr(self.env, "llm_listing_sources", {})
        sources.setdefault(self.env.docname, set()).add(path)
        self.env.llm_listing_sources = sources

        target = self.env.app.builder.get_relative_uri(self.env.docname, source_page(path))
        container = listing(classes=["llm-listing"], ids=[f"listing-{name}"])
        caption_text, messages = self.state.inline_text(self.options["caption"], self.lineno)
        # What llm_links records for the API backlinks and the source page's list.
        container["llm_source"], container["llm_lines"] = path, self.options["lines"]
        container["llm_caption"] = "".join(node.astext() for node in caption_text)
        caption = listing_caption("", "", classes=["llm-listing-caption"])
        caption += caption_text
        caption += nodes.Text(" ")
        caption += nodes.reference(
            "", "", nodes.literal(reference, reference),
            refuri=f"{target}?lines={numbers[0]}-{numbers[-1]}#L-{numbers[0]}",
            classes=["llm-listing-source"],
        )
        container += caption
        container += messages

        linenos = "\n".join(
            f'<a href="{html.escape(target)}#L-{number}" tabindex="-1">{number}</a>' for number in numbers
        )
        body = highlight(code, CppLexer(), HtmlFormatter(nowrap=True))
        container += nodes.raw(
            "",
            '<div class="llm-listing-body">'
            f'<pre class="llm-linenos" aria-hidden="true">{linenos}</pre>'
            f'<div class="highlight-cpp notranslate"><div class="highlight"><pre>{body}</pre></div></div>'
            "</div>",
            format="html",
        )
        return [container]


class details(nodes.General, nodes.Element):
    """A collapsible block: ``<details><summary>...</summary>...</details>``."""


def visit_details(translator: Any, node: details) -> None:
    ids = node.get("ids", [])
    identifier = f' id="{html.escape(ids[0])}"' if ids else ""
    if translator.builder.name == "epub":  # an e-book shows its answers (llm_epub)
        identifier += ' open="open"'
    translator.body.append(
        f'<details class="answer"{identifier}><summary>{html.escape(node["summary"])}</summary>\n'
    )


def depart_details(translator: Any, node: details) -> None:
    translator.body.append("</details>\n")


def skip_details(translator: Any, node: details) -> None:
    """Non-HTML builders show the content without the collapsing wrapper."""


class AnswerDirective(SphinxDirective):
    """``{answer} Summary text``: content hidden until the reader opens it."""

    optional_arguments = 1
    final_argument_whitespace = True
    has_content = True

    def run(self) -> list[nodes.Node]:
        node = details(summary=self.arguments[0] if self.arguments else "Answer")
        self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


def doc_link(env: Any, target: str, text: str) -> addnodes.pending_xref:
    """A link to the document ``target`` (absolute, e.g. ``/glossary``) that Sphinx resolves."""
    return addnodes.pending_xref(
        "", nodes.inline(text, text), reftype="doc", refdomain="std", reftarget=target,
        refexplicit=True, refdoc=env.docname,
    )


class KeyIdeasDirective(SphinxDirective):
    """``{key-ideas}``: the chapter's three to five key points, closed by links to
    the glossary and the notation page (tools/render.py checks the count)."""

    has_content = True

    def run(self) -> list[nodes.Node]:
        box = nodes.admonition(classes=["key-ideas"])
        box += nodes.title("Key ideas", "Key ideas")
        self.state.nested_parse(self.content, self.content_offset, box)
        footer = nodes.paragraph("", "", classes=["key-ideas-links"])
        footer += nodes.Text("Terms and symbols: ")
        footer += doc_link(self.env, "/glossary", "glossary")
        footer += nodes.Text(" · ")
        footer += doc_link(self.env, "/notation", "notation")
        box += footer
        return [box]


class TryItDirective(SphinxDirective):
    """``{try-it} Title``: an edit to make in the code and what the build then shows."""

    required_arguments = 1
    final_argument_whitespace = True
    has_content = True

    def run(self) -> list[nodes.Node]:
        title = f"Try it: {self.arguments[0]}"
        box = nodes.admonition(classes=["try-it"])
        title_nodes, messages = self.state.inline_text(title, self.lineno)
        box += nodes.title(title, "", *title_nodes)
        box += messages
        self.state.nested_parse(self.content, self.content_offset, box)
        return [box]


def _chapters_module() -> Any:
    """tools/chapters.py from the repository (the book's parts and chapter numbers)."""
    import importlib
    import sys

    root = str(source_root())
    if root not in sys.path:
        sys.path.insert(0, root)
    return importlib.import_module("tools.chapters")


def chapter_documents(env: Any) -> list[str]:
    """The chapter pages Sphinx found, ``chapters/NN-slug``, in chapter order."""
    return sorted(doc for doc in env.found_docs if doc.startswith("chapters/") and doc.count("/") == 1)


class BookPartsDirective(SphinxDirective):
    """``{book-parts}``: one toctree per part that has a written chapter, captioned
    ``Part II · Tensors``; previous/next navigation follows this order."""

    def run(self) -> list[nodes.Node]:
        chapters = _chapters_module()
        documents = chapter_documents(self.env)
        # env-get-outdated rereads this page when the chapter pages change.
        self.env.llm_book_parts = (self.env.docname, documents)
        result: list[nodes.Node] = []
        for part in chapters.PARTS:
            members = [doc for doc in documents if part.contains(int(doc.split("/")[1][:2]))]
            if not members:
                continue
            toctree = addnodes.toctree()
            toctree["parent"] = self.env.docname
            toctree["entries"] = [(None, doc) for doc in members]
            toctree["includefiles"] = members
            toctree["maxdepth"] = 1
            toctree["caption"] = part.caption
            toctree["glob"] = False
            toctree["hidden"] = False
            toctree["includehidden"] = False
            toctree["numbered"] = 0
            toctree["titlesonly"] = False
            wrapper = nodes.compound(classes=["toctree-wrapper", "book-part"])
            wrapper += toctree
            result.append(wrapper)
        return result


def reread_parts_page(app: Sphinx, env: Any, added: set[str], changed: set[str], removed: set[str]) -> list[str]:
    """The page with ``{book-parts}`` is read again when a chapter page appears or goes."""
    recorded = getattr(env, "llm_book_parts", None)
    if recorded is None:
        return []
    docname, documents = recorded
    return [docname] if chapter_documents(env) != documents else []


def doxygen_xml() -> Path:
    """Doxygen's XML directory, passed by the build in LLM_DOXYGEN_XML."""
    return Path(os.environ.get("LLM_DOXYGEN_XML", "../doxygen/xml"))


def header_entities(xml_dir: Path, header: str) -> tuple[list[str], list[Path]]:
    """Breathe directives (MyST) for every entity of namespace ``llm`` declared in ``header``.

    Returns the directives in declaration order and the XML files they were read
    from. Overloaded functions are named with their parameter lists.
    """
    index = ElementTree.parse(xml_dir / "index.xml").getroot()
    used = [xml_dir / "index.xml"]
    found: list[tuple[int, str]] = []

    for compound in index.findall("compound"):
        name = compound.findtext("name", "")
        kind = compound.get("kind")
        if kind not in ("class", "struct", "concept"):
            continue
        if name.count("::") != 1 or not name.startswith("llm::"):
            continue
        path = xml_dir / f"{compound.get('refid')}.xml"
        location = ElementTree.parse(path).getroot().find("compounddef/location")
        if location is not None and location.get("file") == header:
            used.append(path)
            options = "" if kind == "concept" else ":members:\n"
            found.append((int(location.get("line", "0")), f"```{{doxygen{kind}}} {name}\n{options}```"))

    namespace_path = xml_dir / "namespacellm.xml"
    members = ElementTree.parse(namespace_path).getroot().iter("memberdef")
    in_header = [m for m in members if m.find("location") is not None and m.find("location").get("file") == header]
    used.append(namespace_path)
    # Overloads are counted across the namespace: llm::softmax is a kernel in
    # one header and a tape operation in another, and each needs its parameters.
    everywhere = ElementTree.parse(namespace_path).getroot().iter("memberdef")
    overloads = Counter(m.findtext("name") for m in everywhere if m.get("kind") == "function")
    for member in in_header:
        kind, name = member.get("kind"), member.findtext("name")
        line = int(member.find("location").get("line", "0"))
        if kind == "function":
            signature = f"llm::{name}"
            if overloads[name] > 1:
                signature += member.findtext("argsstring", "").split(")")[0] + ")"
            found.append((line, f"```{{doxygenfunction}} {signature}\n```"))
        elif kind in ("enum", "typedef", "variable"):
            found.append((line, f"```{{doxygen{kind}}} llm::{name}\n```"))
    return [directive for _, directive in sorted(found)], used


class ApiHeaderDirective(SphinxDirective):
    """``{api-header} llm/tensor/tensor.hpp``: everything the header declares, via Breathe,
    under links to the header's source page and its ``.cpp`` file's, if it has one."""

    required_arguments = 1

    def source_links(self, header: str) -> nodes.paragraph:
        paragraph = nodes.paragraph("", "", classes=["llm-api-source"])
        paragraph += nodes.Text("Source: ")
        header_path = f"src/{header}"
        paths = [header_path] + [
            candidate for candidate in (header_path.removesuffix(".hpp") + ".cpp",)
            if candidate != header_path and (source_root() / candidate).is_file()
        ]
        for position, path in enumerate(paths):
            if position:
                paragraph += nodes.Text(" · ")
            uri = self.env.app.builder.get_relative_uri(self.env.docname, source_page(path))
            paragraph += nodes.reference("", "", nodes.literal(Path(path).name, Path(path).name), refuri=uri)
        return paragraph

    def run(self) -> list[nodes.Node]:
        header = self.arguments[0]
        directives_, used = header_entities(doxygen_xml(), header)
        if not directives_:
            raise self.error(f"api-header: Doxygen's XML declares nothing in {header}")
        for path in used:
            self.env.note_dependency(str(path))
        section = nodes.section(ids=[nodes.make_id(f"api-{header}")])
        section += nodes.title(header, "", nodes.literal(header, header))
        section += self.source_links(header)
        text = "\n\n".join(directives_)
        from docutils.statemachine import StringList

        self.state.nested_parse(StringList(text.splitlines(), source=header), 0, section)
        return [section]


def unlink_file_references(app: Sphinx, env: Any, node: Any, contnode: nodes.Node) -> nodes.Node | None:
    """Doxygen turns a header's name in a comment (``model_ops.hpp``) into a link to
    a file page (``model__ops_8hpp``, or ``model__ops_8hpp_source`` when the file
    itself has no comment); the book has no file pages, so the name stays plain text."""
    target = node.get("reftarget", "").removesuffix("_source")
    if node.get("reftype") == "ref" and (target.endswith("_8hpp") or target.endswith("_8cpp")):
        return contnode
    return None


def purge_sources(app: Sphinx, env: Any, docname: str) -> None:
    getattr(env, "llm_listing_sources", {}).pop(docname, None)


def merge_sources(app: Sphinx, env: Any, docnames: set[str], other: Any) -> None:
    sources = getattr(env, "llm_listing_sources", {})
    sources.update(getattr(other, "llm_listing_sources", {}))
    env.llm_listing_sources = sources
    if getattr(other, "llm_book_parts", None) is not None:
        env.llm_book_parts = other.llm_book_parts


def copy_mathjax(app: Sphinx, exception: Exception | None) -> None:
    """Copies the offline MathJax 2 files the pages load (unchanged files are skipped)."""
    if exception is not None or app.builder.format != "html":
        return
    if not (MATHJAX_SOURCE / "MathJax.js").exists():
        logger.warning("offline MathJax not found at %s; install Debian's libjs-mathjax", MATHJAX_SOURCE)
        return
    destination = Path(app.outdir) / "_static" / "mathjax"
    for part in MATHJAX_PARTS:
        source = MATHJAX_SOURCE / part
        if source.is_dir():
            shutil.copytree(source, destination / part, dirs_exist_ok=True, copy_function=_copy_if_newer)
        else:
            (destination / part).parent.mkdir(parents=True, exist_ok=True)
            _copy_if_newer(str(source), str(destination / part))


def _copy_if_newer(source: str, destination: str) -> str:
    target = Path(destination)
    if not target.exists() or target.stat().st_mtime < Path(source).stat().st_mtime:
        shutil.copy2(source, destination)
    return destination


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("listing", ListingDirective)
    app.add_directive("answer", AnswerDirective)
    app.add_directive("api-header", ApiHeaderDirective)
    app.add_directive("key-ideas", KeyIdeasDirective)
    app.add_directive("try-it", TryItDirective)
    app.add_directive("book-parts", BookPartsDirective)
    app.connect("env-get-outdated", reread_parts_page)
    app.add_node(
        details,
        html=(visit_details, depart_details),
        epub=(visit_details, depart_details),
        latex=(skip_details, skip_details),
        text=(skip_details, skip_details),
        man=(skip_details, skip_details),
        texinfo=(skip_details, skip_details),
    )
    # Listings share the "Listing N.M" numbers of captioned code blocks (book/conf.py's numfig_format).
    app.add_enumerable_node(listing, "code-block", listing_title)
    app.add_node(listing_caption, html=(visit_listing_caption, depart_listing_caption),
                 epub=(visit_listing_caption, depart_listing_caption))
    app.connect("env-purge-doc", purge_sources)
    app.connect("env-merge-info", merge_sources)
    app.connect("missing-reference", unlink_file_references)
    app.connect("build-finished", copy_mathjax)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True, "env_version": 2}
