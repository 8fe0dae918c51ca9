"""Sphinx extension: the links that connect the book's pages (docs/html.md).

* **API entries name the chapters that use them.** Every C++ entity of the API
  reference ends with "Used in Chapter 13 · Chapter 16": the chapters with a
  ``{cpp:...}`` role naming it, or a listing that shows its declaration or
  its definition. Nothing is kept by hand: the build records each chapter
  page's listings (file and line numbers) and roles while reading it, and
  Doxygen's XML says where each entity is declared (``docs/Doxyfile``) and
  defined (``docs/Doxyfile.definitions``, headers and sources). A new chapter
  gets its backlinks by being built.
* **Source pages link back.** The highlighted page of a source file lists
  the chapter listings cut from it, each a link to the listing, and
  highlights the line range a listing's caption link names
  (``?lines=12-30#L-12``; book/_static/book.js). Its line numbers sit in
  their own column, outside the copied code, and are not tab stops.
* Listing anchors are unique on a page (a region listed twice gets
  ``listing-name-2``).

This module builds on llm_book (the repository root, the checked source paths
its listing directive recorded) and llm_book never imports it, so the two
extensions load in either order without an import circle.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from docutils import nodes
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import CppLexer
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util import logging

# llm_links reads what llm_book recorded, never the other way round.
from llm_book import checked_source_path, source_page, source_root

logger = logging.getLogger(__name__)

#: A chapter page: ``chapters/16-model-autodiff-ops``.
CHAPTER_DOC = re.compile(r"chapters/(\d\d)-[a-z0-9-]+")


@dataclass(frozen=True)
class ListingRecord:
    """One listing on a page: the file it is cut from, its lines, its anchor and caption."""

    path: str
    lines: tuple[int, ...]
    anchor: str
    caption: str


def parse_lines(spec: str) -> tuple[int, ...]:
    """``12-14,20`` -> ``(12, 13, 14, 20)``."""
    numbers: list[int] = []
    for part in spec.split(","):
        first, _, last = part.partition("-")
        numbers.extend(range(int(first), int(last or first) + 1))
    return tuple(numbers)


def chapter_label(docname: str) -> str | None:
    """``Chapter 16`` for a chapter page, None for any other page."""
    match = CHAPTER_DOC.fullmatch(docname)
    return f"Chapter {int(match.group(1))}" if match else None


# -- reading: listings and roles per page ---------------------------------------


def record_page(app: Sphinx, doctree: nodes.document) -> None:
    """Records the page's listings and C++ roles, and numbers repeated listing anchors."""
    env = app.env
    listings: list[ListingRecord] = []
    seen: dict[str, int] = {}
    for container in doctree.findall(nodes.container):
        if "llm_source" not in container:
            continue
        ids = container["ids"]
        if ids:
            count = seen.get(ids[0], 0) + 1
            seen[ids[0]] = count
            if count > 1:
                ids[0] = f"{ids[0]}-{count}"
        listings.append(ListingRecord(
            container["llm_source"], parse_lines(container["llm_lines"]),
            ids[0] if ids else "", container.get("llm_caption", ""),
        ))
    roles = {
        normalize_target(node["reftarget"])
        for node in doctree.findall(addnodes.pending_xref)
        if node.get("refdomain") == "cpp"
    }
    has_api = any(node.get("domain") == "cpp" for node in doctree.findall(addnodes.desc))
    _store(env, "llm_page_listings", env.docname, listings)
    _store(env, "llm_page_roles", env.docname, roles)
    _store(env, "llm_api_pages", env.docname, has_api)


def _store(env: Any, attribute: str, docname: str, value: Any) -> None:
    table = getattr(env, attribute, None)
    if table is None:
        table = {}
        setattr(env, attribute, table)
    table[docname] = value


def purge_page(app: Sphinx, env: Any, docname: str) -> None:
    for attribute in ("llm_page_listings", "llm_page_roles", "llm_api_pages"):
        getattr(env, attribute, {}).pop(docname, None)


def merge_pages(app: Sphinx, env: Any, docnames: set[str], other: Any) -> None:
    for attribute in ("llm_page_listings", "llm_page_roles", "llm_api_pages"):
        mine = getattr(env, attribute, None)
        if mine is None:
            mine = {}
            setattr(env, attribute, mine)
        mine.update({doc: value for doc, value in getattr(other, attribute, {}).items() if doc in docnames})


def normalize_target(target: str) -> str:
    """The entity a C++ role names: ``~llm::f(int)`` -> ``llm::f``; template arguments dropped."""
    target = target.strip().lstrip("~").split("(", 1)[0]
    while "<" in target:
        stripped = re.sub(r"<[^<>]*>", "", target)
        if stripped == target:
            break
        target = stripped
    return target.strip()


# -- where entities are declared and defined ----------------------------------------


@dataclass(frozen=True)
class Entity:
    """One documented entity: its qualified name and the source lines it occupies."""

    name: str
    ranges: tuple[tuple[str, int, int], ...]  # (repository path, first line, last line)


def _repository_path(file: str, root: Path) -> str:
    """Doxygen's path (stripped of ``src/``) as a path from the repository root."""
    return f"src/{file}" if (root / "src" / file).exists() else file


def _members(xml_dir: Path) -> Iterator[tuple[str, ElementTree.Element, str | None]]:
    """(qualified name, element, refid) of every compound, member and enumerator in ``xml_dir``."""
    index = ElementTree.parse(xml_dir / "index.xml").getroot()
    for compound in index.findall("compound"):
        path = xml_dir / f"{compound.get('refid')}.xml"
        if compound.get("kind") in ("file", "dir", "page") or not path.exists():
            continue
        definition = ElementTree.parse(path).getroot().find("compounddef")
        if definition is None:
            continue
        owner = definition.findtext("compoundname", "")
        if compound.get("kind") != "namespace":
            yield owner, definition, definition.get("id")
        for member in definition.iter("memberdef"):
            name = member.findtext("qualifiedname") or f"{owner}::{member.findtext('name', '')}"
            yield name, member, member.get("id")
            for value in member.findall("enumvalue"):
                yield f"{name}::{value.findtext('name', '')}", member, value.get("id")


def _location_key(name: str, element: ElementTree.Element) -> tuple[str, str, str] | None:
    location = element.find("location")
    if location is None:
        return None
    return name, location.get("file", ""), location.get("line", "")


def load_entities(declarations: Path, definitions: Path | None, root: Path) -> dict[str, Entity]:
    """Every documented entity by the refid Breathe puts on its signature.

    Ranges: the declaration line (from ``declarations``, the XML of the API
    reference) and, from ``definitions`` (headers and sources), the body.
    A class's range is its declaration line only, so a listing of one member
    does not count as using the class.
    """
    bodies: dict[tuple[str, str, str], list[tuple[str, int, int]]] = {}
    if definitions is not None and (definitions / "index.xml").exists():
        for name, element, _ in _members(definitions):
            key = _location_key(name, element)
            location = element.find("location")
            if key is None or element.tag == "compounddef":
                continue
            start, end = int(location.get("bodystart", "0")), int(location.get("bodyend", "-1"))
            if location.get("bodyfile") and start > 0 and end >= start:
                bodies.setdefault(key, []).append((_repository_path(location.get("bodyfile"), root), start, end))
    entities: dict[str, Entity] = {}
    for name, element, refid in _members(declarations):
        key = _location_key(name, element)
        if refid is None or key is None:
            continue
        ranges = [(_repository_path(key[1], root), int(key[2] or 0), int(key[2] or 0))]
        if element.tag == "memberdef":
            ranges.extend(bodies.get(key, []))
        entities[refid] = Entity(name, tuple(ranges))
    return entities


def usage(env: Any, entities: dict[str, Entity]) -> dict[str, list[tuple[str, str]]]:
    """refid -> [(chapter page, anchor)] of the chapters that use the entity, in chapter order.

    The anchor is the first listing on that page that shows the entity, or ''
    when only a role names it.
    """
    found: dict[str, dict[str, str]] = {}
    by_name: dict[str, list[str]] = {}
    for refid, entity in entities.items():
        by_name.setdefault(entity.name, []).append(refid)
    for docname, listings in sorted(getattr(env, "llm_page_listings", {}).items()):
        if chapter_label(docname) is None:
            continue
        for listing in listings:
            shown = set(listing.lines)
            for refid, entity in entities.items():
                if any(path == listing.path and any(first <= line <= last for line in shown)
                       for path, first, last in entity.ranges):
                    found.setdefault(refid, {}).setdefault(docname, listing.anchor)
    for docname, roles in sorted(getattr(env, "llm_page_roles", {}).items()):
        if chapter_label(docname) is None:
            continue
        for target in roles:
            for refid in by_name.get(target, []):
                found.setdefault(refid, {}).setdefault(docname, "")
    return {refid: sorted(pages.items()) for refid, pages in found.items()}


def _xml_dirs(app: Sphinx) -> tuple[Path, Path]:
    """Doxygen's declaration and definition XML folders (none without Breathe: an empty usage table)."""
    projects = getattr(app.config, "breathe_projects", None) or {}
    declarations = Path(projects.get(getattr(app.config, "breathe_default_project", ""), Path(app.outdir) / "no-doxygen-xml"))
    if not declarations.is_absolute():
        declarations = Path(app.confdir) / declarations
    return declarations, declarations.parent / "definitions-xml"


def current_usage(app: Sphinx) -> dict[str, list[tuple[str, str]]]:
    """The usage table for this build (computed once per build)."""
    cached = getattr(app, "_llm_usage", None)
    if cached is None:
        declarations, definitions = _xml_dirs(app)
        entities = load_entities(declarations, definitions, source_root()) if (declarations / "index.xml").exists() else {}
        cached = usage(app.env, entities)
        app._llm_usage = cached
    return cached


def outdated_api_pages(app: Sphinx, env: Any) -> list[str]:
    """API pages are written again when the chapters' use of the API changed (env-get-updated)."""
    app._llm_usage = None
    table = current_usage(app)
    if getattr(env, "llm_usage_written", None) == table:
        return []
    env.llm_usage_written = table
    return sorted(doc for doc, has_api in getattr(env, "llm_api_pages", {}).items() if has_api)


def add_used_in(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Appends "Used in Chapter N ..." to every API entry some chapter uses (doctree-resolved)."""
    if not getattr(app.env, "llm_api_pages", {}).get(docname):
        return
    table = current_usage(app)
    for desc in doctree.findall(addnodes.desc):
        if desc.get("domain") != "cpp" or not desc.children:
            continue
        signature = desc.children[0]
        refids = [i for target in signature.findall(nodes.target) for i in target["ids"]]
        pages = next((table[refid] for refid in refids if refid in table), None)
        content = next((child for child in desc.children if isinstance(child, addnodes.desc_content)), None)
        if not pages or content is None:
            continue
        paragraph = nodes.paragraph("", "", classes=["llm-used-in"])
        paragraph += nodes.Text("Used in ")
        for position, (page, anchor) in enumerate(pages):
            if position:
                paragraph += nodes.Text(" · ")
            uri = app.builder.get_relative_uri(docname, page) + (f"#{anchor}" if anchor else "")
            label = chapter_label(page) or page
            paragraph += nodes.reference("", label, internal=True, refuri=uri)
        content.insert(0, paragraph)


# -- source pages ---------------------------------------------------------------------


def listings_of(env: Any, path: str) -> list[tuple[str, ListingRecord]]:
    """(page, listing) of every chapter listing cut from ``path``, in chapter order."""
    return [
        (docname, listing)
        for docname, listings in sorted(getattr(env, "llm_page_listings", {}).items())
        for listing in listings
        if listing.path == path
    ]


def lexer_for(path: str) -> Any:
    """The Pygments lexer for a source page: C++, Markdown (chapter pages), Python or CMake."""
    from pygments.lexers import CMakeLexer, MarkdownLexer, PythonLexer, TextLexer

    suffix = Path(path).suffix
    if suffix in (".hpp", ".cpp", ".inc", ".h"):
        return CppLexer()
    return {".md": MarkdownLexer, ".py": PythonLexer, ".cmake": CMakeLexer, ".txt": TextLexer}.get(suffix, TextLexer)()


def source_page_body(app: Sphinx, page: str, path: str, text: str) -> str:
    """The HTML body of a highlighted source page: the chapters that list it,
    then the code with line numbers in their own column.

    Each line is a ``span.llm-line`` with id ``L-<n>``; each number is a link
    to its line that is not a tab stop (the column is hidden from screen
    readers, the code itself is not).
    """
    code = highlight(text, lexer_for(path), HtmlFormatter(nowrap=True)).split("\n")
    if code and code[-1] == "":
        code.pop()
    lines = "".join(f'<span class="llm-line" id="L-{n}">{line}</span>\n' for n, line in enumerate(code, start=1))
    numbers = "\n".join(f'<a href="#L-{n}" tabindex="-1">{n}</a>' for n in range(1, len(code) + 1))
    by_chapter: dict[str, list[str]] = {}
    for docname, listing in listings_of(app.env, path):
        uri = app.builder.get_relative_uri(page, docname) + f"#{listing.anchor}"
        first, last = listing.lines[0], listing.lines[-1]
        here = f"?lines={first}-{last}#L-{first}"
        by_chapter.setdefault(docname, []).append(
            f'<a class="reference internal" href="{html.escape(uri)}">{html.escape(listing.caption)}</a> '
            f'(<a class="reference internal llm-line-range" href="{html.escape(here)}">lines {first}-{last}</a>)'
        )
    items = []
    for docname, entries in by_chapter.items():
        title = html.escape(app.env.titles[docname].astext()) if docname in app.env.titles else ""
        label = html.escape(chapter_label(docname) or docname)
        items.append(f'<li><span title="{title}">{label}</span>: ' + "; ".join(entries) + "</li>")
    shown = (
        '<div class="llm-source-listed"><p>Listed in the book:</p><ul>' + "".join(items) + "</ul></div>"
        if items else ""
    )
    from llm_html import repository_file_url

    remote = repository_file_url(app, path)
    elsewhere = f'<p class="llm-source-remote"><a class="reference external" href="{html.escape(remote)}">This file in the repository</a></p>' if remote else ""
    return (
        f"<h1>{html.escape(path)}</h1>{shown}{elsewhere}"
        '<div class="llm-listing-body llm-source">'
        f'<pre class="llm-linenos" aria-hidden="true">{numbers}</pre>'
        f'<div class="highlight-cpp notranslate"><div class="highlight"><pre>{lines}</pre></div></div>'
        "</div>"
    )


#: Library files published as source pages whether or not a chapter lists them.
LIBRARY_SOURCES = ("src/llm/**/*.hpp", "src/llm/**/*.cpp")


def published_sources(app: Sphinx) -> list[str]:
    """Every file with a source page: each listed file, every library file, and the
    file each page of the book is made from (``chapters/NN-slug/chapter.md``, ``book/*.md``)."""
    paths = set().union(*getattr(app.env, "llm_listing_sources", {}).values())
    root = source_root()
    for pattern in LIBRARY_SOURCES:
        paths.update(str(path.relative_to(root)) for path in root.glob(pattern) if path.is_file())
    for docname in app.env.found_docs:
        match = re.fullmatch(r"chapters/(\d\d-[a-z0-9-]+)", docname)
        candidate = f"chapters/{match.group(1)}/chapter.md" if match else f"book/{docname}.md"
        if (root / candidate).is_file():
            paths.add(candidate)
    return sorted(paths)


def collect_source_pages(app: Sphinx) -> Iterator[tuple[str, dict[str, Any], str]]:
    """Publishes each source file, highlighted, with ``L-<n>`` line anchors."""
    if app.builder.name != "html":
        return
    for recorded in published_sources(app):
        # Checked again: an environment pickled by an older build may hold any path.
        path = checked_source_path(recorded)
        if path is None or path != recorded:
            logger.warning("listing source %r is not a file inside the repository; not published", recorded)
            continue
        try:
            text = (source_root() / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            logger.warning("listing source %s cannot be read: %s", path, error)
            continue
        context = {
            "title": path,
            "body": source_page_body(app, source_page(path), path, text),
            "parents": [],
        }
        yield source_page(path), context, "page.html"


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("doctree-read", record_page)
    app.connect("env-purge-doc", purge_page)
    app.connect("env-merge-info", merge_pages)
    app.connect("env-get-updated", outdated_api_pages)
    app.connect("doctree-resolved", add_used_in)
    app.connect("html-collect-pages", collect_source_pages)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True, "env_version": 1}
