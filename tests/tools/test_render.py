"""Tests of tools/render.py: chapter pages, macros, and errors located in chapter.md."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tools import api_roles, figures, render, standard
from tools.regions import RegionError

#: What the chapter standard asks of some sections (docs/authoring.md).
STANDARD_CONTENT = {
    "prediction": "The {term}`adjoint` of the output is the seed.\n",
    "exercises": "```{try-it} Assign instead of add\nEdit.\n```\n\n```{try-it} Seed with ones\nEdit.\n```\n",
    "handoff": "```{key-ideas}\n- one\n- two\n- three\n```\n",
}
SECTIONS = "\n\n".join(
    f"(ch99-{kind})=\n## {kind.title()}\n\n{STANDARD_CONTENT.get(kind, '')}" for kind in standard.SECTION_KINDS
)
SOURCE = """\
int before();
// region: answer
int answer() {
  return 42;
}
// endregion: answer
"""


def make_repository(tmp_path: Path, body: str, *, verified: bool = True) -> tuple[Path, Path]:
    """A repository with chapter 99 whose chapter.md is ``body`` + the nine sections."""
    root = tmp_path / "repo"
    chapter = root / "chapters" / "99-test-chapter"
    chapter.mkdir(parents=True)
    (root / "tools").mkdir()
    (root / "src").mkdir()
    (root / "src" / "answer.cpp").write_text(SOURCE)
    (chapter / "chapter.md").write_text(f"# Test chapter\n\n{body}\n\n{SECTIONS}")
    run_dir = root / "build" / "chapters" / "99-test-chapter"
    run_dir.mkdir(parents=True)
    (run_dir / "output.txt").write_text("value=1.000000000000\n")
    (run_dir / "trace.json").write_text(json.dumps({"loss": 0.6931471805599453, "tiny": 1e-20}))
    if verified:
        time.sleep(0.01)
        (run_dir / "verified.stamp").write_text("")
    return root, run_dir


def renderer(root: Path, run_dir: Path) -> render.ChapterRenderer:
    output = root / "build" / "book" / "chapters" / "99-test-chapter.md"
    return render.ChapterRenderer("99-test-chapter", run_dir, output, root=root)


def test_listing_keeps_original_line_numbers_and_links_the_region(tmp_path: Path) -> None:
    root, run_dir = make_repository(tmp_path, '{{ listing("src/answer.cpp#answer", "The answer") }}')
    page = renderer(root, run_dir).render()
    assert "```{listing} src/answer.cpp#answer\n:caption: \"The answer\"\n:lines: 3-5\n\nint answer() {\n  return 42;\n}\n```" in page


def test_caption_with_a_colon_is_quoted_for_myst(tmp_path: Path) -> None:
    root, run_dir = make_repository(tmp_path, '{{ listing("src/answer.cpp#answer", "Step 1: the \\"answer\\"") }}')
    page = renderer(root, run_dir).render()
    assert ':caption: "Step 1: the \\"answer\\""\n' in page


def test_output_and_trace_values_use_the_demo_formats(tmp_path: Path) -> None:
    root, run_dir = make_repository(tmp_path, "{{ output() }}\nloss={{ trace.loss | fixed }} tiny={{ trace.tiny | shortest }}")
    page = renderer(root, run_dir).render()
    assert "value=1.000000000000\n```" in page
    assert "loss=0.693147180560 tiny=1e-20" in page


def test_unknown_region_names_the_chapter_line(tmp_path: Path) -> None:
    root, run_dir = make_repository(tmp_path, 'text\n\n{{ listing("src/answer.cpp#missing", "x") }}')
    with pytest.raises(RegionError) as caught:
        renderer(root, run_dir).render()
    assert str(caught.value).startswith("chapters/99-test-chapter/chapter.md:5:")
    assert "missing" in str(caught.value)


def test_unverified_output_is_refused(tmp_path: Path) -> None:
    root, run_dir = make_repository(tmp_path, "{{ output() }}", verified=False)
    with pytest.raises(render.RenderError, match=r"chapter.md:3: .*not verified"):
        renderer(root, run_dir).render()


def test_output_newer_than_its_verification_is_refused(tmp_path: Path) -> None:
    root, run_dir = make_repository(tmp_path, "{{ output() }}")
    stamp = run_dir / "verified.stamp"
    os.utime(stamp, (stamp.stat().st_mtime - 10, stamp.stat().st_mtime - 10))
    with pytest.raises(render.RenderError, match="not verified"):
        renderer(root, run_dir).render()


def test_undefined_trace_key_names_the_chapter_line(tmp_path: Path) -> None:
    root, run_dir = make_repository(tmp_path, "one\ntwo\n{{ trace.nothing_here }}")
    with pytest.raises(render.RenderError, match=r"chapter.md:5: UndefinedError"):
        renderer(root, run_dir).render()


def test_template_syntax_error_names_the_chapter_line(tmp_path: Path) -> None:
    root, run_dir = make_repository(tmp_path, "{{ listing( }}")
    with pytest.raises(render.RenderError, match=r"chapter.md:3: template syntax error"):
        renderer(root, run_dir).render()


def test_missing_section_is_an_error(tmp_path: Path) -> None:
    root, run_dir = make_repository(tmp_path, "")
    chapter = root / "chapters" / "99-test-chapter" / "chapter.md"
    chapter.write_text(chapter.read_text().replace("(ch99-history)=\n", ""))
    with pytest.raises(render.RenderError, match=r"chapter.md:1: missing section 'history'"):
        renderer(root, run_dir).render()


def test_sections_out_of_order_name_the_line(tmp_path: Path) -> None:
    root, run_dir = make_repository(tmp_path, "(ch99-formula)=\n## Formula first\n")
    with pytest.raises(render.RenderError, match=r"chapter.md:7: section 'prediction' is out of order"):
        renderer(root, run_dir).render()


def test_main_writes_page_and_depfile_and_removes_a_stale_page_on_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root, run_dir = make_repository(tmp_path, '{{ listing("src/answer.cpp#answer", "The answer") }}')
    page = root / "build" / "book" / "chapters" / "99-test-chapter.md"
    depfile = run_dir / "page.d"
    arguments = ["--chapter", "99-test-chapter", "--run-dir", str(run_dir), "--output", str(page), "--depfile", str(depfile)]
    original_root = render.repository_root
    render.repository_root = lambda: root  # type: ignore[assignment]
    try:
        assert render.main(arguments) == 0
        assert page.exists()
        assert str(root / "src" / "answer.cpp") in depfile.read_text()
        assert "1 listing, 0 figures" in capsys.readouterr().out
        (root / "src" / "answer.cpp").write_text(SOURCE.replace("// endregion: answer", "// endregion: other"))
        from tools import regions

        regions.clear_cache()
        assert render.main(arguments) == 1
        assert not page.exists()
        error = capsys.readouterr().err
        assert "src/answer.cpp:6:" in error and "'other'" in error and "'answer'" in error
    finally:
        render.repository_root = original_root  # type: ignore[assignment]


@pytest.mark.parametrize(
    ("value", "fixed", "sci", "shortest"),
    [
        (0.0, "0.000000000000", "0.000000000000e0", "0.0"),
        (1 / 12, "0.083333333333", "8.333333333333e-2", "0.08333333333333333"),
        (1e-20, "0.000000000000", "1.000000000000e-20", "1e-20"),
        (1.5e16, "15000000000000000.000000000000", "1.500000000000e16", "1.5e16"),
        (-0.0, "-0.000000000000", "-0.000000000000e0", "-0.0"),
        (float("inf"), "inf", "inf", "inf"),
        (float("nan"), "NaN", "NaN", "NaN"),
    ],
)
def test_number_formats_match_the_demos(value: float, fixed: str, sci: str, shortest: str) -> None:
    assert figures.fixed(value) == fixed
    assert figures.sci(value) == sci
    assert figures.shortest(value) == shortest


def test_table_caption_with_inline_code_opens_a_tilde_fence(tmp_path: Path) -> None:
    figures.begin(figures.RenderContext(slug="99-test", asset_dir=tmp_path, asset_prefix="99-test"))
    text = figures.table(["a", "b"], [["`x`", "1"]], "Values of `x`", "values")
    assert text.startswith("~~~{list-table} Values of `x`\n:header-rows: 1\n:name: 99-test-values\n")
    assert text.endswith("\n~~~\n")
    plain = figures.table(["a"], [["1"]], "Plain", "plain")
    assert plain.startswith("```{list-table} Plain\n")


def test_a_table_that_fits_a_phone_carries_the_class_check_html_measures(tmp_path: Path) -> None:
    figures.begin(figures.RenderContext(slug="99-test", asset_dir=tmp_path, asset_prefix="99-test"))
    text = figures.table(["a"], [["1"]], "Narrow", "narrow", fits_phone=True)
    assert text == "```{list-table} Narrow\n:header-rows: 1\n:name: 99-test-narrow\n:class: llm-fits-phone\n\n* - a\n* - 1\n```\n"


def test_misspelled_section_label_names_its_line(tmp_path: Path) -> None:
    root, run_dir = make_repository(tmp_path, "")
    chapter = root / "chapters" / "99-test-chapter" / "chapter.md"
    chapter.write_text(chapter.read_text().replace("(ch99-history)=", "(ch99-histroy)="))
    with pytest.raises(render.RenderError, match=r"chapter.md:\d+: unknown section 'histroy' \(did you mean 'history'\?\)"):
        renderer(root, run_dir).render()


def write_api_xml(directory: Path) -> Path:
    """A minimal Doxygen XML index: class llm::Scalar with member zero_grad, enum llm::Kind."""
    directory.mkdir()
    (directory / "index.xml").write_text(
        '<doxygenindex><compound refid="classllm_1_1Scalar" kind="class"><name>llm::Scalar</name>'
        '<member refid="a" kind="function"><name>zero_grad</name></member></compound>'
        '<compound refid="namespacellm" kind="namespace"><name>llm</name>'
        '<member refid="b" kind="enum"><name>Kind</name></member></compound></doxygenindex>'
    )
    (directory / "classllm_1_1Scalar.xml").write_text("<doxygen/>")
    (directory / "namespacellm.xml").write_text(
        '<doxygen><compounddef><sectiondef><memberdef kind="enum"><name>Kind</name>'
        "<enumvalue><name>EmptyAxis</name></enumvalue></memberdef></sectiondef></compounddef></doxygen>"
    )
    return directory


def test_api_roles_must_name_documented_entities(tmp_path: Path) -> None:
    names = api_roles.api_names(write_api_xml(tmp_path / "xml"))
    assert {"llm::Scalar", "llm::Scalar::zero_grad", "llm::Kind", "llm::Kind::EmptyAxis"} <= names
    good = "{cpp:func}`llm::Scalar::zero_grad` {cpp:func}`reset <llm::Scalar::zero_grad()>` {cpp:enumerator}`llm::Kind::EmptyAxis`"
    api_roles.check_api_roles(good, names, "chapter.md")
    message = r"chapter.md:2: \{cpp:func\}`llm::Scalar::zero_grads` names nothing in the API reference"
    with pytest.raises(render.RenderError, match=message + r" \(did you mean llm::Scalar::zero_grad\?\)"):
        api_roles.check_api_roles("text\n{cpp:func}`llm::Scalar::zero_grads`", names, "chapter.md")


def write_glossary(root: Path, *terms: str) -> None:
    """book/glossary.md defining ``terms``."""
    body = "".join(f"{term}\n  The definition of {term}.\n\n" for term in terms)
    (root / "book").mkdir(exist_ok=True)
    (root / "book" / "glossary.md").write_text(f"# Glossary\n\n```{{glossary}}\n:sorted:\n\n{body}```\n")


def test_glossary_terms_are_read_from_the_glossary_block(tmp_path: Path) -> None:
    write_glossary(tmp_path, "adjoint", "VJP")
    assert standard.glossary_terms(tmp_path / "book" / "glossary.md") == {"adjoint", "vjp"}


def test_a_term_missing_from_the_glossary_names_the_chapter_line(tmp_path: Path) -> None:
    root, run_dir = make_repository(tmp_path, "one\nthe {term}`adjiont` flows back")
    write_glossary(root, "adjoint")
    with pytest.raises(render.RenderError, match=r"chapter.md:4: \{term\}`adjiont` is not in the glossary \(book/glossary.md\) \(did you mean adjoint\?\)"):
        renderer(root, run_dir).render()


def test_a_term_with_its_own_text_resolves_by_its_target(tmp_path: Path) -> None:
    root, run_dir = make_repository(tmp_path, "the {term}`adjoints <Adjoint>` flow back")
    write_glossary(root, "adjoint")
    assert "{term}`adjoints <Adjoint>`" in renderer(root, run_dir).render()


def test_a_chapter_needs_exactly_one_key_ideas_box_in_its_handoff(tmp_path: Path) -> None:
    root, run_dir = make_repository(tmp_path, "")
    chapter = root / "chapters" / "99-test-chapter" / "chapter.md"
    text = chapter.read_text()
    chapter.write_text(text.replace("```{key-ideas}", "```{note}"))
    with pytest.raises(render.RenderError, match=r"exactly one \{key-ideas\} box \(found 0\)"):
        renderer(root, run_dir).render()
    chapter.write_text(text.replace("- three\n", "- three\n- four\n- five\n- six\n"))
    with pytest.raises(render.RenderError, match=r"chapter.md:\d+: the \{key-ideas\} box has 6 points"):
        renderer(root, run_dir).render()


def test_try_it_edits_are_counted_in_the_exercises_section(tmp_path: Path) -> None:
    root, run_dir = make_repository(tmp_path, "")
    chapter = root / "chapters" / "99-test-chapter" / "chapter.md"
    text = chapter.read_text()
    chapter.write_text(text.replace("```{try-it} Seed with ones", "```{note} Seed with ones"))
    with pytest.raises(render.RenderError, match=r"at least two \{try-it\} edits \(found 1\)"):
        renderer(root, run_dir).render()
    moved = text.replace("(ch99-prediction)=", "```{try-it} Too early\nEdit.\n```\n\n(ch99-prediction)=")
    chapter.write_text(moved)
    with pytest.raises(render.RenderError, match=r"chapter.md:5: a \{try-it\} edit belongs in the exercises section"):
        renderer(root, run_dir).render()


def test_chapters_13_to_16_meet_the_full_standard() -> None:
    for number in ("13", "14", "15", "16"):
        with pytest.raises(render.RenderError, match="exactly one {key-ideas} box"):
            standard.check_standard(f"(ch{number}-handoff)=\n## Next\n", number, "chapter.md", terms=None)


def test_term_names_are_checked_even_where_the_rest_of_the_standard_passes() -> None:
    with pytest.raises(render.RenderError, match="is not in the glossary"):
        standard.check_standard("{term}`tape`", "98", "chapter.md", terms={"adjoint"})


def test_chapter_ref_links_written_chapters_and_rejects_numbers_outside_the_course(tmp_path: Path) -> None:
    root, run_dir = make_repository(tmp_path, "{{ chapter_ref(99) }}")
    other = root / "chapters" / "15-tensor-tape"
    other.mkdir()
    (other / "chapter.md").write_text("# 15\n")
    chapter = root / "chapters" / "99-test-chapter" / "chapter.md"
    chapter.write_text(chapter.read_text().replace(
        "{{ chapter_ref(99) }}", '{{ chapter_ref(15) }}, {{ chapter_ref(15, "the tape") }} and {{ chapter_ref(23) }}'))
    page = renderer(root, run_dir).render()
    assert "[Chapter 15](15-tensor-tape.md), [the tape](15-tensor-tape.md) and Chapter 23" in page
    chapter.write_text(chapter.read_text().replace("chapter_ref(23)", "chapter_ref(41)"))
    with pytest.raises(render.RenderError, match=r"chapter.md:3: chapter_ref\(41\): chapter 41 is not in the course \(chapters 00-40\)"):
        renderer(root, run_dir).render()


NESTED_SOURCE = """\
// region: checked-answer
int answer(int x) {
  // region: checked-answer-validation
  if (x < 0) throw 1;
  if (x > 9) throw 2;
  // endregion: checked-answer-validation
  return 42 + x;
}
// endregion: checked-answer
// region: elsewhere
int elsewhere();
// endregion: elsewhere
"""


def test_listing_elides_an_inner_region_with_a_pointer_to_its_lines(tmp_path: Path) -> None:
    root, run_dir = make_repository(
        tmp_path, '{{ listing("src/nested.cpp#checked-answer", "Answer", elide=["checked-answer-validation"]) }}')
    (root / "src" / "nested.cpp").write_text(NESTED_SOURCE)
    page = renderer(root, run_dir).render()
    assert (":lines: 2-3,7-8\n\nint answer(int x) {\n  // ... checked-answer-validation: lines 4-5\n"
            "  return 42 + x;\n}\n```") in page


def test_eliding_a_region_outside_the_listing_names_the_chapter_line(tmp_path: Path) -> None:
    root, run_dir = make_repository(
        tmp_path, '{{ listing("src/nested.cpp#checked-answer", "Answer", elide=["elsewhere"]) }}')
    (root / "src" / "nested.cpp").write_text(NESTED_SOURCE)
    with pytest.raises(render.RenderError, match=r"chapter.md:3: listing .*cannot elide 'elsewhere'"):
        renderer(root, run_dir).render()
