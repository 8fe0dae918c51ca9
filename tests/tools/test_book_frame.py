"""Tests of the book-as-a-book pieces that need no browser and no Sphinx build:
figure label measurements (tools/html_static.py), readable figure defaults
(tools/figures.py), search sections, exercise and glossary links
(book/_ext/llm_html.py), the print view's link rewriting (book/_ext/llm_print.py)
and the EPUB's package marks and archive (tools/print_book.py)."""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

import pytest
from docutils import nodes
from docutils.core import publish_doctree

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "book" / "_ext"))

import llm_book  # noqa: E402
import llm_html  # noqa: E402
import llm_print  # noqa: E402

from tools import figures, html_static, print_book  # noqa: E402

GRAPHVIZ = """<?xml version="1.0"?>
<svg width="400pt" height="100pt" viewBox="0.00 0.00 400.00 100.00" xmlns="http://www.w3.org/2000/svg">
<g id="graph0" class="graph" transform="scale(0.5 0.5) rotate(0) translate(4 96)">
<text text-anchor="middle" x="20" y="20" font-family="Helvetica" font-size="14.00">node</text>
<text text-anchor="middle" x="20" y="40" font-family="Helvetica" font-size="10.00">edge label</text>
<text text-anchor="middle" x="20" y="60" font-family="Helvetica" font-size="6.00"> </text>
</g></svg>"""

MATPLOTLIB = """<svg xmlns="http://www.w3.org/2000/svg" width="460.8pt" height="230.4pt" viewBox="0 0 460.8 230.4">
<g><text style="font: 10px 'DejaVu Sans'; text-anchor: middle" x="1" y="2">0.5</text>
<text style="font-size: 12px; font-family: 'DejaVu Sans'" x="1" y="2">title</text></g></svg>"""


def test_graphviz_labels_are_measured_with_the_drawing_scale(tmp_path: Path) -> None:
    path = tmp_path / "diagram.svg"
    path.write_text(GRAPHVIZ)
    metrics = html_static.svg_text_metrics(path)
    # The smallest non-empty label is 10 units, drawn at scale 0.5: 5 units of a 400-unit drawing.
    assert (metrics.least_font, metrics.view_width) == (5.0, 400.0)
    assert (metrics.natural_width, metrics.natural_height) == pytest.approx((400 * 4 / 3, 100 * 4 / 3))
    assert metrics.label_px(800) == pytest.approx(10.0)
    assert metrics.width_for_label(9) == pytest.approx(720.0)


def test_matplotlib_labels_are_measured_from_their_style(tmp_path: Path) -> None:
    path = tmp_path / "plot.svg"
    path.write_text(MATPLOTLIB)
    metrics = html_static.svg_text_metrics(path)
    assert metrics.least_font == 10.0 and metrics.view_width == pytest.approx(460.8)
    assert metrics.label_px(358) == pytest.approx(10 * 358 / 460.8)


def test_a_drawing_without_text_has_no_metrics(tmp_path: Path) -> None:
    path = tmp_path / "empty.svg"
    path.write_text('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><path d="M0 0"/></svg>')
    assert html_static.svg_text_metrics(path) is None


def test_the_figure_frame_asks_for_the_width_that_keeps_labels_readable(tmp_path: Path) -> None:
    path = tmp_path / "plot.svg"
    path.write_text(MATPLOTLIB)
    style, tall = llm_html.figure_style(path)
    assert style == "--llm-min-width-wide: 415px; --llm-min-width-narrow: 369px"
    assert tall is False


def test_small_dot_font_sizes_are_raised_and_larger_ones_kept() -> None:
    dot = 'digraph { graph [fontsize=8]; node [fontsize="9.5"]; edge [fontsize=12]; a -> b [fontsize=7]; }'
    assert figures.readable_dot(dot) == (
        'digraph { graph [fontsize=10]; node [fontsize="10"]; edge [fontsize=12]; a -> b [fontsize=10]; }'
    )


def test_plots_write_text_no_smaller_than_the_least_size() -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, axis = pyplot.subplots(figsize=(3, 2))
    axis.plot([0, 1], [0, 1])
    axis.set_title("tiny", fontsize=6)
    svg = figures.matplotlib_svg(figure)
    pyplot.close(figure)
    assert "<text" in svg and "font: 10px" in svg and "font: 6px" not in svg


def test_search_text_is_cut_into_sections_and_glossary_entries() -> None:
    doctree = publish_doctree(
        "Intro text.\n\nFirst\n=====\n\nAlpha words.\n\nInner\n-----\n\nBeta words.\n\n"
        ".. glossary::\n\n   softmax\n      Turns scores into probabilities.\n"
    )
    # docutils has no glossary directive; build the entry as Sphinx does.
    item = nodes.definition_list_item("", nodes.term("", "softmax", ids=["term-softmax"]),
                                      nodes.definition("", nodes.paragraph("", "Turns scores into probabilities.")))
    doctree += nodes.definition_list("", item)
    sections = llm_html.section_texts(doctree)
    titles = [(identifier, title) for identifier, title, _ in sections]
    assert ("first", "First") in titles and ("inner", "Inner") in titles
    assert ("term-softmax", "softmax") in titles
    inner = next(text for identifier, _, text in sections if identifier == "inner")
    assert inner == "Inner Beta words."
    first = next(text for identifier, _, text in sections if identifier == "first")
    assert "Beta" not in first


def test_an_exercise_links_to_its_answer_and_back() -> None:
    doctree = nodes.document(None, None)
    exercises = nodes.section("", nodes.title("", "Exercises"), ids=["exercises"])
    items = nodes.enumerated_list("", nodes.list_item("", nodes.paragraph("", "Why?")),
                                  nodes.list_item("", nodes.paragraph("", "How?")))
    exercises += items
    box = nodes.admonition("", nodes.title("", "Try it: drop the shift"), classes=["try-it"])
    exercises += box
    answers = nodes.section("", nodes.title("", "Answers"), ids=["answers"])
    first, second = llm_book.details(summary="Exercise 1"), llm_book.details(summary="Exercise 2")
    tried = llm_book.details(summary="Try it: the shift dropped")
    answers += [first, second, tried]
    doctree += [exercises, answers]
    llm_html.link_exercises(doctree)
    links = [(node["refuri"], node.astext()) for node in doctree.findall(nodes.reference)]
    assert ("#answer-1", "Answer ↓") in links and ("#answer-2", "Answer ↓") in links
    assert ("#exercise-1", "↑ Exercise 1") in links and ("#try-it-1", "↑ Try it: drop the shift") in links
    assert first["ids"] == ["answer-1"] and items.children[1]["ids"] == ["exercise-2"]
    assert tried["ids"] == ["try-it-answer-1"] and box["ids"] == ["try-it-1"]


def test_print_view_rebases_links_and_keeps_ids_apart() -> None:
    assert llm_print.id_prefix("chapters/12-stable-softmax") == "chapters-12-stable-softmax--"
    assert llm_print._rebase("../_source/src/a.hpp.html?lines=1-2#L-1", "chapters/12-x") == "_source/src/a.hpp.html?lines=1-2#L-1"
    assert llm_print._rebase("../glossary.html#term-x", "chapters/12-x") == "glossary.html#term-x"
    assert llm_print._rebase("https://example.org/a", "chapters/12-x") == "https://example.org/a"
    assert llm_print._rebase("#local", "chapters/12-x") == "#local"
    included = {"chapters/12-x", "glossary"}
    assert llm_print._local_link("glossary.html#term-x", included, ".html") == "#glossary--term-x"
    assert llm_print._local_link("chapters/12-x.html", included, ".html") == "#chapters-12-x--top"
    assert llm_print._local_link("api/tensor.html#f", included, ".html") is None


def test_epub_pages_with_mathml_are_marked_and_zipped_with_mimetype_first(tmp_path: Path) -> None:
    (tmp_path / "mimetype").write_text("application/epub+zip")
    (tmp_path / "a.xhtml").write_text('<html><body><math xmlns="http://www.w3.org/1998/Math/MathML"/></body></html>')
    (tmp_path / "b.xhtml").write_text("<html><body>no math</body></html>")
    (tmp_path / "content.opf").write_text(
        '<manifest><item id="a" href="a.xhtml" media-type="application/xhtml+xml" />\n'
        '<item id="b" href="b.xhtml" media-type="application/xhtml+xml" />\n'
        '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav" /></manifest>'
    )
    assert print_book.mark_mathml_pages(tmp_path) == 1
    opf = (tmp_path / "content.opf").read_text()
    assert '<item properties="mathml" id="a" href="a.xhtml"' in opf and 'id="b" href="b.xhtml" media-type' in opf
    output = tmp_path / "book.epub"
    print_book.zip_epub(tmp_path, output)
    with zipfile.ZipFile(output) as archive:
        assert archive.namelist()[0] == "mimetype"
        assert archive.getinfo("mimetype").compress_type == zipfile.ZIP_STORED
    assert print_book._with_alttext('<math display="block"><mi>x</mi></math>', "x < 1") == (
        '<math alttext="x &lt; 1" display="block"><mi>x</mi></math>'
    )


def test_search_lands_on_a_section_whose_formula_names_the_term() -> None:
    assert llm_html.formula_words(r"o_t = \mathrm{softmax}\!\left(\frac{q K^\top}{\sqrt{D_h}}\right) V") == ["softmax"]
    doctree = publish_doctree("First\n=====\n\nWords only.\n\nSecond\n======\n\nThe rule :math:`\\operatorname{softmax}(x)`.\n")
    assert llm_html.section_math_words(doctree) == {"second": "softmax"}
    second = next(text for identifier, _, text in llm_html.section_texts(doctree) if identifier == "second")
    assert "softmax" not in second  # the snippet still shows the formula as "…"
