"""Building blocks for the figure and table macros of chapter pages.

Every figure in the book is drawn from a demo's own run data (its JSON
trace); these helpers turn such data into MyST blocks that Sphinx renders:

* :func:`graphviz` -- a Graphviz diagram (``sphinx.ext.graphviz`` draws it as SVG),
* :func:`svg_figure` -- an SVG file written beside the page (plots from matplotlib),
* :func:`table` -- a ``list-table`` whose cells are formatted numbers,
* :func:`fixed`, :func:`sci`, :func:`shortest` -- the three number formats the
  demos print (Rust's ``{:.12}``, ``{:.12e}`` and ``{:?}``), so a figure shows
  exactly the digits of the verified output;
* the scaffolding the chapters' diagrams share: :func:`dot_head` and
  :func:`dot_cluster` (a DOT digraph in the book's style), :func:`card`,
  :func:`card_field` and :func:`value_grid` (Graphviz HTML-like node cards),
  :func:`label_table`; and :func:`find_entry`, :func:`max_scaled_error`,
  :func:`hex_bytes` for reading a trace.

A chapter folder may hold ``figures.py`` with chapter-specific macros built
from these helpers; tools/render.py exposes it to ``chapter.md`` as ``figures``.
"""

from __future__ import annotations

import io
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from tools.fileio import atomic_write_text


@dataclass
class RenderContext:
    """State of the page being rendered, shared with the figure macros.

    Attributes:
        slug: the chapter folder name, e.g. ``14-scalar-autodiff``.
        asset_dir: where figure files are written (beside the page).
        asset_prefix: the page-relative path of ``asset_dir``.
        dependencies: every file the page was built from (for the depfile).
        listings: number of listings emitted so far.
        figures: number of figures emitted so far.
        names: figure and table names used so far (each must be unique).
    """

    slug: str
    asset_dir: Path
    asset_prefix: str
    dependencies: set[Path] = field(default_factory=set)
    listings: int = 0
    figures: int = 0
    names: set[str] = field(default_factory=set)


_context: RenderContext | None = None


def begin(context: RenderContext) -> None:
    """Make ``context`` the page that figure macros write into."""
    global _context
    _context = context


def current() -> RenderContext:
    """The page being rendered. Raises RuntimeError outside a render."""
    if _context is None:
        raise RuntimeError("figure macros can only be called while a chapter page is rendered")
    return _context


def _claim_name(name: str) -> str:
    """Registers a figure/table name, which must be kebab-case and unique on the page."""
    if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name):
        raise ValueError(f"figure name {name!r} must be kebab-case")
    context = current()
    if name in context.names:
        raise ValueError(f"figure name {name!r} is used twice on this page")
    context.names.add(name)
    context.figures += 1
    return f"{context.slug}-{name}"


def option_text(text: str) -> str:
    """``text`` as a directive option value: MyST reads options as YAML, where an
    unquoted ``a: b`` would be a mapping, so the value is written double-quoted."""
    if "\n" in text:
        raise ValueError(f"a caption is one line, got {text!r}")
    return json.dumps(text, ensure_ascii=False)


def fence(body: str) -> str:
    """A backtick fence longer than any backtick run inside ``body``."""
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    return "`" * max(3, longest + 1)


#: The smallest font size a figure's label is drawn at, in points (1 pt = 4/3 CSS px at
#: natural size). The HTML frame shows a figure no smaller than keeps its smallest label
#: at 9 px on a laptop and 8 px on a phone (book/_ext/llm_html.py); labels of at least
#: this size let most figures fit their column at that scale. Smaller sizes a chapter
#: asks for are raised to it, in DOT source and in matplotlib figures alike.
LEAST_FONT_POINTS = 10.0

_DOT_FONTSIZE = re.compile(r"(\bfontsize\s*=\s*\"?)(\d+(?:\.\d+)?)")


def readable_dot(dot: str) -> str:
    """``dot`` with every ``fontsize`` below LEAST_FONT_POINTS raised to it, and
    Graphviz's default (14 pt) kept where none is given."""
    return _DOT_FONTSIZE.sub(
        lambda match: match.group(1) + (f"{LEAST_FONT_POINTS:g}" if float(match.group(2)) < LEAST_FONT_POINTS else match.group(2)),
        dot,
    )


def graphviz(dot: str, caption: str, name: str, alt: str | None = None) -> str:
    """A Graphviz figure from DOT source, as a MyST ``graphviz`` directive.

    Font sizes below LEAST_FONT_POINTS are raised to it (:func:`readable_dot`).

    Args:
        dot: a complete ``digraph``/``graph`` in the DOT language.
        caption: the figure caption (one line of MyST inline text).
        name: kebab-case name, unique on the page; the label is ``<slug>-<name>``.
        alt: the text a screen reader reads for the diagram (one line, plain
            text); the caption without its markup when omitted.
    """
    label = _claim_name(name)
    ticks = fence(dot)
    alt_text = alt if alt is not None else plain_text(caption)
    return (
        f"{ticks}{{graphviz}}\n:caption: {option_text(caption)}\n:name: {label}\n:align: center\n"
        f":alt: {option_text(alt_text)}\n\n{readable_dot(dot).rstrip()}\n{ticks}\n"
    )


def plain_text(text: str) -> str:
    """MyST inline text without its markup, for alt text: ``$h_-$`` -> ``h_-``."""
    text = re.sub(r"\{[a-z:]+\}`([^`<]*?)(?:\s*<[^`]*>)?`", r"\1", text)  # roles
    return re.sub(r"[`*$]", "", text).strip()


def svg_figure(svg: str, caption: str, name: str, *, alt: str) -> str:
    """Writes ``svg`` beside the page and returns a MyST figure showing it.

    ``alt`` describes what the plot shows, for a reader who cannot see it
    (one line of plain text: what is plotted against what, and what it shows);
    it is required, since a plot's caption rarely says what it looks like.
    """
    label = _claim_name(name)
    if not alt.strip() or "\n" in alt:
        raise ValueError(f"figure {name!r}: alt text must be one non-empty line, got {alt!r}")
    context = current()
    path = context.asset_dir / f"{name}.svg"
    atomic_write_text(path, svg)
    return (
        f"```{{figure}} {context.asset_prefix}/{name}.svg\n:name: {label}\n:align: center\n"
        f":alt: {option_text(alt)}\n\n{caption}\n```\n"
    )


def table(header: Sequence[str], rows: Iterable[Sequence[Any]], caption: str, name: str,
          fits_phone: bool = False) -> str:
    """A MyST ``list-table`` with one header row; cells are MyST inline text.

    ``fits_phone``: the table is laid out to fit a 390 px phone without
    scrolling; it gets the class ``llm-fits-phone``, and ``make check-html``
    fails if it scrolls there.
    """
    label = _claim_name(name)
    if "\n" in caption:
        raise ValueError(f"table {name!r}: a caption is one line, got {caption!r}")
    lines = [":header-rows: 1", f":name: {label}"] + ([":class: llm-fits-phone"] if fits_phone else []) + [""]
    for row in [list(header), *map(list, rows)]:
        if len(row) != len(header):
            raise ValueError(f"table {name!r}: row {row!r} has {len(row)} cells, header has {len(header)}")
        lines.append(f"* - {row[0]}")
        lines.extend(f"  - {cell}" for cell in row[1:])
    body = "\n".join(lines)
    # CommonMark forbids backticks in a backtick fence's info string, so a
    # caption with inline code opens a tilde fence instead.
    marker = "~" if "`" in caption else "`"
    longest = max((len(run) for run in re.findall(f"{re.escape(marker)}+", body)), default=0)
    ticks = marker * max(3, longest + 1)
    return f"{ticks}{{list-table}} {caption}\n{body}\n{ticks}\n"


def matplotlib_svg(figure: Any) -> str:
    """SVG text of a matplotlib figure, byte-identical across runs.

    The date metadata is dropped and element ids are derived from a fixed salt,
    so an unchanged plot rewrites an unchanged file. Labels are written as SVG
    text (``svg.fonttype: none``: searchable, selectable, and measurable by
    the HTML frame and ``make check-html``), none smaller than
    LEAST_FONT_POINTS.
    """
    import matplotlib
    from matplotlib.text import Text

    for text in figure.findobj(Text):
        if text.get_text().strip() and text.get_fontsize() < LEAST_FONT_POINTS:
            text.set_fontsize(LEAST_FONT_POINTS)
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": "llm-from-scratch", "svg.fonttype": "none"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
    return buffer.getvalue()


def _non_finite(value: float) -> str | None:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return None


def fixed(value: float, digits: int = 12) -> str:
    """``value`` with ``digits`` decimals, as the demos print it (Rust ``{:.12}``)."""
    return _non_finite(value) or f"{value:.{digits}f}"


def sci(value: float, digits: int = 12) -> str:
    """``value`` in exponent form without exponent padding (Rust ``{:.12e}``): ``8.3e-2``."""
    special = _non_finite(value)
    if special:
        return special
    mantissa, exponent = f"{value:.{digits}e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def shortest(value: float) -> str:
    """The shortest text that reads back as ``value`` (Rust ``{:?}``): ``0.1``, ``1e-20``."""
    special = _non_finite(value)
    if special:
        return special
    text = repr(float(value))
    if "e" in text:
        mantissa, exponent = text.split("e")
        return f"{mantissa.removesuffix('.0')}e{int(exponent)}"
    return text


def plain(value: float) -> str:
    """``value`` for prose and math: ``8`` for an integral value, else :func:`shortest`."""
    if math.isfinite(value) and value == int(value) and abs(value) < 2**53:
        return str(int(value))
    return shortest(value)


def shape_text(shape: Sequence[int], space: str = " ") -> str:
    """A shape as the book writes it: ``[2, 3]``, ``[]`` for rank zero.

    Tables pass ``space="\u00a0"`` (no-break space) so that a shape never wraps.
    """
    return "[" + f",{space}".join(str(extent) for extent in shape) + "]"


def tensor_rows(tensor: Mapping[str, Any]) -> list[list[float]]:
    """A trace tensor ``{"shape", "values"}`` as rows: one row for rank 0 and 1,
    the last axis as columns otherwise."""
    shape, values = list(tensor["shape"]), list(tensor["values"])
    if len(shape) < 2:
        return [values]
    width = shape[-1]
    return [values[start : start + width] for start in range(0, len(values), width)] if width else [[]]


def dot_text(text: str) -> str:
    """``text`` escaped for a double-quoted DOT string."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


def html_text(text: str) -> str:
    """``text`` escaped for a Graphviz HTML-like label."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# --- Reading a trace ---------------------------------------------------------------


def find_entry(entries: Iterable[Mapping[str, Any]], what: str, **match: Any) -> Mapping[str, Any]:
    """The first of ``entries`` whose fields equal ``match``: ``find_entry(checks, "check", operation="add")``.

    Raises:
        KeyError: naming ``what`` and ``match`` when no entry has those fields.
    """
    for entry in entries:
        if all(entry[key] == value for key, value in match.items()):
            return entry
    wanted = ", ".join(f"{key} {value!r}" for key, value in match.items())
    raise KeyError(f"the trace has no {what} with {wanted}")


def max_scaled_error(check: Mapping[str, Any]) -> float:
    """The largest scaled error over a gradient check's sampled coordinates
    (the ``coordinates`` list of chapters/common/demo_trace.hpp)."""
    return max(coordinate["scaled_error"] for coordinate in check["coordinates"])


def hex_bytes(values: Sequence[int], separator: str = " ") -> str:
    """Bytes as two lowercase hexadecimal digits each: ``20 d0``."""
    return separator.join(f"{value:02x}" for value in values)


# --- Graphviz scaffolding ----------------------------------------------------------

#: The font of every diagram.
DOT_FONT = "Helvetica"
#: Attributes whose values are written quoted even when they are one word.
_QUOTED_ATTRIBUTES = frozenset({"fontname", "color", "fillcolor", "fontcolor", "bgcolor", "label"})
#: A DOT ID that needs no quotes: a word or a number.
_DOT_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
#: The fill of a node card and of its title row (chapters 14-16).
CARD_FILL = "#eef3fb"
CARD_HEADER_FILL = "#c9daf2"


def dot_attributes(attributes: Mapping[str, Any]) -> str:
    """``rankdir=LR, fontname="Helvetica"``: DOT attributes in the given order, quoted where needed."""
    parts = []
    for key, value in attributes.items():
        text = str(value)
        if isinstance(value, str) and (key in _QUOTED_ATTRIBUTES or not _DOT_ID.fullmatch(value)):
            text = f'"{dot_text(value)}"'
        parts.append(f"{key}={text}")
    return ", ".join(parts)


def dot_head(
    name: str,
    graph: Mapping[str, Any],
    node: Mapping[str, Any],
    edge: Mapping[str, Any] | None = None,
) -> list[str]:
    """The opening lines of a DOT digraph in the book's style, each default set in the book's font.

    The caller appends its nodes and edges, then ``"}"``.
    """
    lines = [f"digraph {name} {{"]
    for kind, attributes in (("graph", graph), ("node", node), ("edge", edge)):
        if attributes is not None:
            lines.append(f"  {kind} [{dot_attributes({**attributes, 'fontname': DOT_FONT})}];")
    return lines


def dot_cluster(name: str, label: str, body: Iterable[str], color: str = "#aaaaaa") -> list[str]:
    """A rounded, labelled cluster around ``body`` (node lines): ``subgraph cluster_<name> { ... }``."""
    return [
        f'  subgraph cluster_{name} {{ label="{dot_text(label)}"; style="rounded"; color="{color}";',
        *body,
        "  }",
    ]


def label_table(rows: Iterable[str], cellpadding: int = 4, attributes: str = "") -> str:
    """An HTML-like Graphviz table of ``<TR>`` rows with one-pixel cell borders (no outer border)."""
    extra = f" {attributes}" if attributes else ""
    return (
        f'<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="{cellpadding}"{extra}>'
        f'{"".join(rows)}</TABLE>'
    )


def value_grid(
    values: Mapping[str, Any], fill: str = "#ffffff", cell: Callable[[float], str] | None = None, width: int = 24
) -> str:
    """A trace tensor as an HTML-like table, one cell per element, rows along the first axis.

    ``cell`` formats a value (default :func:`plain`); ``width`` is each cell's width in points.
    """
    format_value = cell or plain
    rows = (
        "<TR>"
        + "".join(f'<TD ALIGN="RIGHT" WIDTH="{width}">{html_text(format_value(v))}</TD>' for v in row)
        + "</TR>"
        for row in tensor_rows(values)
    )
    return label_table(rows, cellpadding=3, attributes=f'BGCOLOR="{fill}"')


def card_field(key: str, value_html: str, key_size: int | None = 9) -> str:
    """One row of a node card: a small key on the left, a value (HTML) on the right."""
    key_html = html_text(key) if key_size is None else f'<FONT POINT-SIZE="{key_size}">{html_text(key)}</FONT>'
    return f'<TR><TD ALIGN="LEFT" VALIGN="MIDDLE">{key_html}</TD><TD ALIGN="RIGHT">{value_html}</TD></TR>'


def card(
    title: str,
    rows: Sequence[str],
    subtitle: str | None = None,
    fill: str = CARD_FILL,
    header_fill: str = CARD_HEADER_FILL,
    dashed: bool = False,
) -> str:
    """A node card as an HTML-like label ``<<TABLE ...>>``: a bold title (and a
    monospace subtitle) over ``rows`` (:func:`card_field`)."""
    border = 'STYLE="DASHED" ' if dashed else ""
    subtitle_html = (
        f'<BR/><FONT POINT-SIZE="9" FACE="Courier">{html_text(subtitle)}</FONT>' if subtitle is not None else ""
    )
    return (
        f'<<TABLE {border}BORDER="1" CELLBORDER="0" CELLSPACING="0" CELLPADDING="4" BGCOLOR="{fill}">'
        f'<TR><TD COLSPAN="2" BGCOLOR="{header_fill}"><B>{html_text(title)}</B>{subtitle_html}</TD></TR>'
        f'{"".join(rows)}</TABLE>>'
    )
