"""Every render failure names its file and line and removes what it would have made (issue 7, item 4).

Each test starts from a previous good build (a page, its HTML page, a figure
file), makes one input bad, runs ``tools.render`` as the build does, and
checks the exact error and that nothing stale or half-written is left.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_render_sandbox import SLUG, LABEL, assert_cleaned_up, chapter_with_figures, run_main

from tools import regions


@pytest.fixture(autouse=True)
def fresh_cache() -> None:
    """Each test parses region files afresh."""
    regions.clear_cache()


def failure(root: Path, run_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    """Run the render step, which must fail and clean up; return its error line."""
    monkeypatch.chdir(root)
    assert run_main(root, run_dir, monkeypatch, *extra) == 1
    err = capsys.readouterr().err
    assert err.endswith("chapter 99: render ... FAILED\n")
    assert_cleaned_up(root)
    return err.splitlines()[0]


def test_a_chapter_md_that_is_not_utf8(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    root, run_dir = chapter_with_figures(tmp_path, "")
    chapter = root / "chapters" / SLUG / "chapter.md"
    chapter.write_bytes(b"# Title\n\nna\xefve\n" + chapter.read_bytes())
    assert failure(root, run_dir, monkeypatch, capsys) == (
        f"error: {LABEL}:3: not valid UTF-8: byte 0xef at byte offset 11; save the file as UTF-8"
    )


def test_a_lone_surrogate_from_the_trace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    root, run_dir = chapter_with_figures(tmp_path, "one\n{{ trace.name }}")
    (run_dir / "trace.json").write_text('{"name": "x\\ud800"}')
    assert failure(root, run_dir, monkeypatch, capsys) == (
        f"error: {LABEL}:4: ValueError: the expression's text holds a lone surrogate U+D800 at "
        "character 1; a page is UTF-8 text"
    )


def test_a_lone_surrogate_inside_a_figure_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    root, run_dir = chapter_with_figures(tmp_path, '{{ figures.values_table(["\\udfff"]) }}')
    figures_py = root / "chapters" / SLUG / "figures.py"
    figures_py.write_text(figures_py.read_text().replace("fixed(v)", "v"))
    assert failure(root, run_dir, monkeypatch, capsys) == (
        f"error: {LABEL}:3: ValueError: the block of figures.values_table() holds a lone surrogate "
        "U+DFFF at character 96; a page is UTF-8 text"
    )


def test_missing_doxygen_xml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    root, run_dir = chapter_with_figures(tmp_path, "")
    xml = root / "build" / "doxygen" / "xml"
    assert failure(root, run_dir, monkeypatch, capsys, "--api-xml", str(xml)) == (
        "error: build/doxygen/xml/index.xml:1: cannot read Doxygen's XML (No such file or directory); "
        "it is built by the api-xml step: make chapter-99"
    )


def test_broken_doxygen_xml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    root, run_dir = chapter_with_figures(tmp_path, "")
    xml = root / "build" / "doxygen" / "xml"
    xml.mkdir(parents=True)
    (xml / "index.xml").write_text("<doxygenindex>\n<compound>\n")
    assert failure(root, run_dir, monkeypatch, capsys, "--api-xml", str(xml)) == (
        "error: build/doxygen/xml:3: Doxygen's XML is not well-formed: no element found: line 3, column 0"
    )


def test_a_macro_that_recurses_without_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    root, run_dir = chapter_with_figures(tmp_path, "{% macro again() %}{{ again() }}{% endmacro %}\n{{ again() }}")
    assert failure(root, run_dir, monkeypatch, capsys) == (
        f"error: {LABEL}:3: RecursionError: the template or a macro recursed too deeply "
        "(a macro or include that calls itself?)"
    )


def test_an_exception_inside_a_figure_function_names_both_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    root, run_dir = chapter_with_figures(tmp_path, 'text\n{{ figures.lookup(trace.names, "second") }}')
    assert failure(root, run_dir, monkeypatch, capsys) == (
        f"error: {LABEL}:4: KeyError: 'second' (in chapters/{SLUG}/figures.py:17)"
    )


def test_a_figures_py_with_a_syntax_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    root, run_dir = chapter_with_figures(tmp_path, "")
    (root / "chapters" / SLUG / "figures.py").write_text("import math\ndef broken(:\n    pass\n")
    assert failure(root, run_dir, monkeypatch, capsys) == (
        f"error: chapters/{SLUG}/figures.py:2: SyntaxError: invalid syntax"
    )


def test_a_figures_py_that_raises_while_loading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    root, run_dir = chapter_with_figures(tmp_path, "")
    (root / "chapters" / SLUG / "figures.py").write_text("SCALE = 1\n\nRATIO = SCALE / 0\n")
    assert failure(root, run_dir, monkeypatch, capsys) == (
        f"error: chapters/{SLUG}/figures.py:3: ZeroDivisionError: division by zero"
    )


def test_verified_output_that_is_not_utf8(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    root, run_dir = chapter_with_figures(tmp_path, "{{ output() }}")
    output, stamp = run_dir / "output.txt", run_dir / "verified.stamp"
    output.write_bytes(b"ok\n\xff\n")
    stamp.touch()
    assert failure(root, run_dir, monkeypatch, capsys) == (
        f"error: build/chapters/{SLUG}/output.txt:2: not valid UTF-8: byte 0xff at byte offset 3; "
        "save the file as UTF-8"
    )


def test_a_trace_nested_too_deeply(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    root, run_dir = chapter_with_figures(tmp_path, "")
    (run_dir / "trace.json").write_text("[" * 100_000 + "]" * 100_000)
    assert failure(root, run_dir, monkeypatch, capsys) == (
        f"error: build/chapters/{SLUG}/trace.json:1: the demo's trace nests too deeply to read"
    )


def test_a_glossary_that_is_not_utf8(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    root, run_dir = chapter_with_figures(tmp_path, "")
    (root / "book").mkdir()
    (root / "book" / "glossary.md").write_bytes(b"# Glossary\n\n```{glossary}\nadjoint \x80\n```\n")
    assert failure(root, run_dir, monkeypatch, capsys) == (
        "error: book/glossary.md:4: not valid UTF-8: byte 0x80 at byte offset 34; save the file as UTF-8"
    )


def test_a_page_that_cannot_be_written_leaves_no_temporary_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    root, run_dir = chapter_with_figures(tmp_path, "")
    monkeypatch.chdir(root)
    page = root / "build" / "book" / "chapters" / f"{SLUG}.md"
    html = root / "build" / "html" / "chapters" / f"{SLUG}.html"
    html.parent.mkdir(parents=True)
    html.write_text("previous html")
    page.mkdir(parents=True)  # a directory where the page goes: the rename fails
    monkeypatch.setattr("tools.render.repository_root", lambda: root)
    from tools import render

    arguments = ["--chapter", SLUG, "--run-dir", str(run_dir), "--output", str(page), "--stale", str(html)]
    assert render.main(arguments) == 1
    assert capsys.readouterr().err == (
        f"error: build/book/chapters/{SLUG}.md: cannot write: Is a directory\nchapter 99: render ... FAILED\n"
    )
    assert "cannot write: Is a directory" in html.read_text() and "previous html" not in html.read_text()
    assert [path.name for path in page.parent.iterdir()] == [f"{SLUG}.md"]  # no temporary file beside it
