"""Tests of the book's Sphinx extensions that need no Sphinx build:
book/_ext/llm_links.py (which chapters use an API entry) and
book/_ext/llm_html.py (table classes, search text)."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

from docutils import nodes
from docutils.core import publish_doctree

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "book" / "_ext"))

import llm_html  # noqa: E402
import llm_links  # noqa: E402

INDEX = """<doxygenindex>
  <compound refid="classllm_1_1Tape" kind="class"><name>llm::Tape</name></compound>
  <compound refid="namespacellm" kind="namespace"><name>llm</name></compound>
</doxygenindex>"""

TAPE = """<doxygen><compounddef id="classllm_1_1Tape" kind="class">
  <compoundname>llm::Tape</compoundname>
  <sectiondef><memberdef kind="function" id="{backward_id}">
    <name>backward</name><qualifiedname>llm::Tape::backward</qualifiedname>
    <location file="llm/tape.hpp" line="20" {backward_body}/>
  </memberdef></sectiondef>
  <location file="llm/tape.hpp" line="10" bodyfile="llm/tape.hpp" bodystart="10" bodyend="30"/>
</compounddef></doxygen>"""

NAMESPACE = """<doxygen><compounddef id="namespacellm" kind="namespace">
  <compoundname>llm</compoundname>
  <sectiondef><memberdef kind="function" id="{matmul_id}">
    <name>matmul</name><qualifiedname>llm::matmul</qualifiedname>
    <location file="llm/matmul.hpp" line="5" {matmul_body}/>
  </memberdef>
  <memberdef kind="enum" id="namespacellm_1aKind">
    <name>Kind</name><qualifiedname>llm::Kind</qualifiedname>
    <enumvalue id="namespacellm_1aKindEmpty"><name>Empty</name></enumvalue>
    <location file="llm/matmul.hpp" line="2"/>
  </memberdef></sectiondef>
</compounddef></doxygen>"""


def write_xml(folder: Path, ids: dict[str, str], bodies: dict[str, str]) -> Path:
    folder.mkdir(parents=True)
    (folder / "index.xml").write_text(INDEX)
    (folder / "classllm_1_1Tape.xml").write_text(TAPE.format(backward_id=ids["backward"], backward_body=bodies["backward"]))
    (folder / "namespacellm.xml").write_text(NAMESPACE.format(matmul_id=ids["matmul"], matmul_body=bodies["matmul"]))
    return folder


def entities(tmp_path: Path) -> dict[str, llm_links.Entity]:
    root = tmp_path / "repo"
    (root / "src" / "llm").mkdir(parents=True)
    for name in ("tape.hpp", "tape.cpp", "matmul.hpp", "matmul.cpp"):
        (root / "src" / "llm" / name).write_text("")
    # The API reference's XML (headers only) and the definitions' XML (headers
    # and sources: the ids may differ, the declaration's place does not).
    declarations = write_xml(tmp_path / "xml", {"backward": "tape_backward", "matmul": "matmul_a"},
                             {"backward": "", "matmul": ""})
    definitions = write_xml(
        tmp_path / "definitions-xml", {"backward": "tape_backward_2", "matmul": "matmul_b"},
        {"backward": 'bodyfile="llm/tape.cpp" bodystart="40" bodyend="55"',
         "matmul": 'bodyfile="llm/matmul.cpp" bodystart="7" bodyend="9"'},
    )
    return llm_links.load_entities(declarations, definitions, root)


def test_entities_carry_their_declaration_and_the_body_from_the_definitions(tmp_path: Path) -> None:
    found = entities(tmp_path)
    assert found["tape_backward"] == llm_links.Entity(
        "llm::Tape::backward", (("src/llm/tape.hpp", 20, 20), ("src/llm/tape.cpp", 40, 55))
    )
    assert found["classllm_1_1Tape"].ranges == (("src/llm/tape.hpp", 10, 10),)
    assert found["namespacellm_1aKindEmpty"].name == "llm::Kind::Empty"


def test_chapters_use_what_their_listings_show_or_their_roles_name(tmp_path: Path) -> None:
    listing = llm_links.ListingRecord("src/llm/tape.cpp", (38, 39, 40, 41), "listing-backward", "The pass")
    elsewhere = llm_links.ListingRecord("src/llm/matmul.cpp", (1, 2, 3), "listing-other", "Other")
    env = SimpleNamespace(
        llm_page_listings={"chapters/14-scalar": [listing], "chapters/16-model": [elsewhere], "api/tape": [listing]},
        llm_page_roles={"chapters/16-model": {"llm::Tape::backward", "llm::Kind::Empty"}},
    )
    table = llm_links.usage(env, entities(tmp_path))
    assert table["tape_backward"] == [("chapters/14-scalar", "listing-backward"), ("chapters/16-model", "")]
    assert table["namespacellm_1aKindEmpty"] == [("chapters/16-model", "")]
    assert "matmul_a" not in table  # lines 1-3 of matmul.cpp miss its body (7-9)
    assert "classllm_1_1Tape" not in table  # a member's listing does not use the class


def test_role_targets_are_normalized() -> None:
    assert llm_links.normalize_target("~llm::Tape::backward(double) const") == "llm::Tape::backward"
    assert llm_links.normalize_target("llm::Box<llm::Pair<int, int>>::get") == "llm::Box::get"
    assert llm_links.parse_lines("3-5,9") == (3, 4, 5, 9)
    assert llm_links.chapter_label("chapters/07-text-windows") == "Chapter 7"
    assert llm_links.chapter_label("api/index") is None


def test_symbol_tables_are_marked_and_exponent_numbers_do_not_wrap() -> None:
    doctree = publish_doctree(
        "+--------+---------------+\n| Symbol | Meaning       |\n+========+===============+\n"
        "| h      | step 1.5e-7   |\n+--------+---------------+\n"
    )
    llm_html.mark_tables(doctree)
    table = next(iter(doctree.findall(nodes.table)))
    assert "symbol-table" in table["classes"]
    spans = [node.astext() for node in doctree.findall(nodes.inline) if "llm-nowrap" in node["classes"]]
    assert spans == ["1.5e-7"]


def test_a_table_ending_in_the_message_column_is_marked_and_others_are_not() -> None:
    doctree = publish_doctree(
        "+---------+---------+\n| request | message |\n+=========+=========+\n| a       | b       |\n+---------+---------+\n\n"
        "+---------+---------+\n| message | request |\n+=========+=========+\n| a       | b       |\n+---------+---------+\n"
    )
    llm_html.mark_tables(doctree)
    marked = ["llm-message-table" in table["classes"] for table in doctree.findall(nodes.table)]
    assert marked == [True, False]


def test_search_text_drops_math_source_and_listing_line_numbers() -> None:
    doctree = publish_doctree("The step :math:`h_{\\max}` is small.\n")
    listing = (
        '<div class="llm-listing-body"><pre class="llm-linenos" aria-hidden="true"><a>12</a>\n<a>13</a></pre>'
        '<div class="highlight-cpp notranslate"><div class="highlight"><pre><span class="k">int</span> a = 1 &lt; 2;\n</pre></div></div></div>'
    )
    doctree += nodes.raw("", listing, format="html")
    text = llm_html.page_text(doctree)
    assert text == "The step … is small. int a = 1 < 2;"
