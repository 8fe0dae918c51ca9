"""Static checks of the built HTML book, without a browser (tools/check_html.py runs them).

Over every ``.html`` file under the output folder:

* every local link (``a href``) and resource (``img src``, ``script src``,
  ``link href``, ``object data``) names a file that exists, and every
  ``#fragment`` names an id of its target page;
* no page has two elements with the same id, and no end tag closes an
  element it does not match (a stray ``</div>`` once closed a page's
  ``<article>`` halfway);
* nothing inside an ``aria-hidden="true"`` block is a keyboard tab stop (a
  link or button there needs ``tabindex="-1"``).

Each problem is a :class:`Problem` naming the page and what is wrong.

:func:`svg_text_metrics` measures a figure's SVG file: its smallest label and
its size, from which the HTML frame (book/_ext/llm_html.py) sets the least
width a figure is shown at and ``make check-html`` computes the rendered size
of that label.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

#: (tag, attribute) pairs that name a local file the page needs.
RESOURCE_ATTRIBUTES = {("a", "href"), ("img", "src"), ("script", "src"), ("link", "href"), ("object", "data")}

#: Elements that are tab stops unless tabindex is negative.
FOCUSABLE = {"a", "button", "input", "select", "textarea"}

#: Elements whose end tag may be left out: an end tag of an ancestor closes them.
OPTIONAL_END = {"p", "li", "dt", "dd", "tr", "td", "th", "thead", "tbody", "option", "colgroup", "caption"}

#: HTML void elements: they never get an end tag.
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


@dataclass(frozen=True)
class Problem:
    """One defect of one page."""

    page: str
    check: str
    message: str

    def __str__(self) -> str:
        return f"{self.page}: {self.check}: {self.message}"


@dataclass
class PageScan:
    """What one page contains: its ids, its references, and tab stops in hidden blocks."""

    ids: list[str] = field(default_factory=list)
    references: list[tuple[str, str, str]] = field(default_factory=list)  # (tag, attribute, value)
    hidden_tab_stops: list[str] = field(default_factory=list)
    unbalanced: list[str] = field(default_factory=list)


class _Scanner(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.scan = PageScan()
        self._stack: list[tuple[str, bool]] = []  # (tag, hidden)

    def _hidden(self) -> bool:
        return bool(self._stack) and self._stack[-1][1]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if "id" in values:
            self.scan.ids.append(values["id"])
        if tag == "a" and "name" in values:
            self.scan.ids.append(values["name"])
        for attribute in ("href", "src", "data"):
            if (tag, attribute) in RESOURCE_ATTRIBUTES and attribute in values:
                if tag == "link" and values.get("rel") not in ("stylesheet", "index", "search", "next", "prev"):
                    continue
                self.scan.references.append((tag, attribute, values[attribute]))
        hidden = self._hidden() or values.get("aria-hidden") == "true"
        focusable = tag in FOCUSABLE and (tag != "a" or "href" in values)
        if hidden and focusable and not values.get("tabindex", "").startswith("-"):
            self.scan.hidden_tab_stops.append(f"<{tag} {' '.join(f'{k}={v!r}' for k, v in attrs)[:120]}>")
        if tag not in VOID:
            self._stack.append((tag, hidden))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        for index in range(len(self._stack) - 1, -1, -1):
            if self._stack[index][0] == tag:
                closed = [name for name, _ in reversed(self._stack[index + 1 :]) if name not in OPTIONAL_END]
                if closed:
                    self.scan.unbalanced.append(f"</{tag}> closes <{'>, <'.join(closed)}> early")
                del self._stack[index:]
                return
        self.scan.unbalanced.append(f"</{tag}> without a matching <{tag}>")


def scan_page(path: Path) -> PageScan:
    """The ids, references and hidden tab stops of one HTML file."""
    scanner = _Scanner()
    scanner.feed(path.read_text(encoding="utf-8", errors="replace"))
    scanner.close()
    return scanner.scan


def check_book(html_dir: Path) -> tuple[list[Problem], int]:
    """Runs the static checks over every page under ``html_dir``.

    Returns the problems and the number of local references checked.
    """
    pages = sorted(html_dir.rglob("*.html"))
    scans = {path.resolve(): scan_page(path) for path in pages}
    id_sets = {path: set(scan.ids) for path, scan in scans.items()}
    problems: list[Problem] = []
    checked = 0
    for path, scan in scans.items():
        name = str(path.relative_to(html_dir.resolve()))
        for identifier, count in sorted(Counter(scan.ids).items()):
            if count > 1:
                problems.append(Problem(name, "duplicate id", f'id="{identifier}" appears {count} times'))
        for element in scan.hidden_tab_stops:
            problems.append(Problem(name, "tab stop in aria-hidden block", element))
        for message in scan.unbalanced[:5]:
            problems.append(Problem(name, "unbalanced tag", message))
        for tag, attribute, value in scan.references:
            parts = urlsplit(value)
            if parts.scheme or value.startswith("//"):
                continue  # external: http(s), mailto, data
            target = path if not parts.path else (path.parent / unquote(parts.path)).resolve()
            checked += 1
            if not target.exists():
                problems.append(Problem(name, "broken link", f"<{tag} {attribute}={value!r}>: no file {target}"))
                continue
            fragment = unquote(parts.fragment)
            if fragment and tag == "a" and target.suffix == ".html":
                ids = id_sets.get(target)
                if ids is None:
                    ids = set(scan_page(target).ids)
                    id_sets[target] = ids
                if fragment not in ids:
                    problems.append(Problem(name, "broken anchor", f"<a href={value!r}>: no id {fragment!r} in {target.name}"))
    return problems, checked


# -- figure labels -------------------------------------------------------------------

#: CSS pixels per unit of an SVG length.
_UNITS = {"": 1.0, "px": 1.0, "pt": 4 / 3, "pc": 16.0, "in": 96.0, "cm": 96 / 2.54, "mm": 96 / 25.4}
_LENGTH = re.compile(r"\s*([\d.]+)\s*(px|pt|pc|in|cm|mm)?\s*$")
_SVG_TAG = re.compile(r"<svg\b[^>]*>", re.S)
_TEXT = re.compile(r"<text\b([^>]*)>(.*?)</text>", re.S)
_FONT_SIZES = (
    re.compile(r'font-size="([\d.]+)(px|pt)?"'),
    re.compile(r"font-size:\s*([\d.]+)(px|pt)?"),
    re.compile(r"font:\s*(?:(?:italic|oblique|normal|bold|bolder|lighter|small-caps|\d00)\s+)*([\d.]+)(px|pt)"),
)
_GRAPH_SCALE = re.compile(r'<g id="graph0"[^>]*transform="scale\(([\d.]+)')


@dataclass(frozen=True)
class SvgTextMetrics:
    """The labels and size of one SVG figure.

    Attributes:
        least_font: the smallest label's font size in the SVG's own units
            (scaled by the drawing's top-level scale).
        view_width: the width of the SVG's coordinate system (its viewBox).
        natural_width, natural_height: its size in CSS pixels when shown unscaled.
    """

    least_font: float
    view_width: float
    natural_width: float
    natural_height: float

    def label_px(self, rendered_width: float) -> float:
        """The smallest label's size in CSS pixels when the figure is ``rendered_width`` px wide."""
        return self.least_font * rendered_width / self.view_width

    def width_for_label(self, pixels: float) -> float:
        """The rendered width at which the smallest label is ``pixels`` CSS pixels."""
        return pixels * self.view_width / self.least_font


def _length_px(value: str | None) -> float | None:
    match = _LENGTH.match(value or "")
    return float(match.group(1)) * _UNITS[match.group(2) or ""] if match else None


def svg_text_metrics(path: Path) -> SvgTextMetrics | None:
    """The smallest label and the size of the SVG file at ``path``.

    Reads the font sizes Graphviz (``font-size="11.00"``) and matplotlib
    (``style="font: 10px 'DejaVu Sans'"``) write on their ``<text>`` elements.
    Returns None for a drawing without text labels or without a readable size.
    Raises OSError if the file cannot be read.
    """
    text = path.read_text(encoding="utf-8", errors="replace")
    tag = _SVG_TAG.search(text)
    if tag is None:
        return None
    attributes = dict(re.findall(r'([\w:-]+)="([^"]*)"', tag.group(0)))
    width, height = _length_px(attributes.get("width")), _length_px(attributes.get("height"))
    view = [float(v) for v in re.split(r"[\s,]+", attributes.get("viewBox", "").strip()) if v] or None
    if view is not None and len(view) == 4:
        view_width, view_height = view[2], view[3]
        width = width or view_width
        height = height or view_height
    elif width and height:
        view_width = width / _UNITS[_LENGTH.match(attributes["width"]).group(2) or ""]
    else:
        return None
    sizes: list[float] = []
    for match in _TEXT.finditer(text):
        if not re.sub(r"<[^>]+>", "", match.group(2)).strip():
            continue  # an empty label draws nothing
        for pattern in _FONT_SIZES:
            for size, unit in pattern.findall(match.group(1) + match.group(2)):
                sizes.append(float(size) * (4 / 3 if unit == "pt" else 1.0))
    if not sizes or not width or not height:
        return None
    scale = _GRAPH_SCALE.search(text)
    least = min(sizes) * (float(scale.group(1)) if scale else 1.0)
    return SvgTextMetrics(least, view_width, width, height)
