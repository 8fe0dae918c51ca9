"""Sphinx extension for the EPUB (``make epub``; book/conf.py loads it for the
``epub`` builder only).

* Math: EPUB readers do not run MathJax. The ``llm_mathml`` math renderer
  writes each formula's TeX into ``<span class="llm-tex" data-display="0|1">``;
  tools/print_book.py converts every placeholder to MathML with the book's
  MathJax in Chromium and marks those pages in the package document.
* Graphviz diagrams are ``<img>`` elements (readers show SVG images; few
  show ``<object>``).
* The book has no source pages in the EPUB: links into ``_source/`` (listing
  captions, line numbers) become plain text.
* Answers are open (``<details open>``): a reader without the element shows
  the text, one with it shows it too.
"""

from __future__ import annotations

import html
import re
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.ext.graphviz import graphviz
from sphinx.transforms.post_transforms import SphinxPostTransform


def _placeholder(tex: str, display: bool) -> str:
    return f'<span class="llm-tex" data-display="{int(display)}">{html.escape(tex, quote=False)}</span>'


def visit_math(translator: Any, node: nodes.math) -> None:
    translator.body.append(_placeholder(node.astext(), False))
    raise nodes.SkipNode


def visit_displaymath(translator: Any, node: nodes.math_block) -> None:
    identifier = f' id="{node["ids"][0]}"' if node.get("ids") else ""
    number = ""
    if node.get("number"):
        from sphinx.util.math import get_node_equation_number

        number = f'<span class="eqno">({get_node_equation_number(translator, node)})</span>'
    parts = [part for part in node.astext().split("\n\n") if part.strip()]
    tex = parts[0] if len(parts) == 1 else "\\begin{aligned}" + " \\\\ ".join(parts) + "\\end{aligned}"
    translator.body.append(f'<div class="math"{identifier}>{number}{_placeholder(tex, True)}</div>\n')
    raise nodes.SkipNode


def visit_graphviz_epub(translator: Any, node: graphviz) -> None:
    """Sphinx's Graphviz writer, with its ``<object>`` replaced by an ``<img>``."""
    from llm_html import rewrite_graphviz_object

    alt = node.get("alt") or "diagram"

    def rewrite(piece: str, match: re.Match[str]) -> str:
        whole = re.search(r"<object\b.*?</object>", piece, re.S)
        image = f'<img src="{match.group(1)}" alt="{html.escape(alt, quote=True)}" class="graphviz"/>'
        return piece.replace(whole.group(0), image) if whole else piece

    rewrite_graphviz_object(translator, node, rewrite)


_SOURCE_LINK = re.compile(r'<a\b[^>]*\bhref="[^"]*_source/[^"]*"[^>]*>(.*?)</a>', re.S)


class UnlinkSources(SphinxPostTransform):
    """Links into ``_source/`` become their text: the EPUB has no source pages."""

    builders = ("epub",)
    default_priority = 900

    def run(self, **kwargs: Any) -> None:
        for reference in list(self.document.findall(nodes.reference)):
            if "_source/" in reference.get("refuri", ""):
                reference.replace_self(reference.children or [nodes.Text(reference.astext())])
        for raw in list(self.document.findall(nodes.raw)):
            if "_source/" in raw.astext():
                raw.children = [nodes.Text(_SOURCE_LINK.sub(r"\1", raw.astext()))]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_html_math_renderer("llm_mathml", (visit_math, None), (visit_displaymath, None))
    app.add_node(graphviz, override=True, epub=(visit_graphviz_epub, None))
    app.add_post_transform(UnlinkSources)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
