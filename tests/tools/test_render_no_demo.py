"""Tests of a chapter without a demo (``llm_chapter(NO_DEMO)``) in tools/render.py.

Such a chapter renders without a run directory; the chapter standard still
applies in full, and ``output()`` or ``trace`` fails naming the chapter.md line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tools import render

from test_render import SECTIONS

SLUG = "99-test-chapter"


def make_chapter(tmp_path: Path, body: str) -> Path:
    """A repository whose chapter 99 has no demo: chapter.md only, no build/ at all."""
    root = tmp_path / "repo"
    chapter = root / "chapters" / SLUG
    chapter.mkdir(parents=True)
    (root / "tools").mkdir()
    (chapter / "chapter.md").write_text(f"# Test chapter\n\n{body}\n\n{SECTIONS}")
    return root


def no_demo_renderer(root: Path) -> render.ChapterRenderer:
    output = root / "build" / "book" / "chapters" / f"{SLUG}.md"
    return render.ChapterRenderer(SLUG, None, output, root=root, has_demo=False)


def test_a_chapter_without_a_demo_renders_without_a_run_directory(tmp_path: Path) -> None:
    root = make_chapter(tmp_path, "A map of {{ 2 + 3 }} parts.")
    page = no_demo_renderer(root).render()
    assert "A map of 5 parts." in page


def test_output_in_a_chapter_without_a_demo_names_the_line(tmp_path: Path) -> None:
    root = make_chapter(tmp_path, "one\n{{ output() }}")
    with pytest.raises(render.RenderError, match=r"chapter.md:4: output\(\): chapter 99 has no demo \(llm_chapter\(NO_DEMO\)"):
        no_demo_renderer(root).render()


def test_trace_in_a_chapter_without_a_demo_names_the_line(tmp_path: Path) -> None:
    root = make_chapter(tmp_path, "one\ntwo\n{{ trace.loss }}")
    with pytest.raises(render.RenderError, match=r"chapter.md:5: UndefinedError: trace: chapter 99 has no demo"):
        no_demo_renderer(root).render()


def test_the_chapter_standard_still_applies_without_a_demo(tmp_path: Path) -> None:
    root = make_chapter(tmp_path, "")
    chapter = root / "chapters" / SLUG / "chapter.md"
    chapter.write_text(chapter.read_text().replace("(ch99-run)=\n", ""))
    with pytest.raises(render.RenderError, match=r"missing section 'run'"):
        no_demo_renderer(root).render()


def test_a_chapter_with_a_demo_still_needs_its_run_directory(tmp_path: Path) -> None:
    root = make_chapter(tmp_path, "")
    with pytest.raises(ValueError, match="needs its run directory"):
        render.ChapterRenderer(SLUG, None, root / "page.md", root=root)


def test_main_renders_a_chapter_without_a_demo_and_refuses_a_missing_run_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_chapter(tmp_path, "Text.")
    page = root / "build" / "book" / "chapters" / f"{SLUG}.md"
    depfile = root / "build" / "chapters" / SLUG / "page.d"
    original_root = render.repository_root
    render.repository_root = lambda: root  # type: ignore[assignment]
    try:
        arguments = ["--chapter", SLUG, "--output", str(page), "--depfile", str(depfile)]
        assert render.main([*arguments, "--no-demo"]) == 0
        assert page.exists() and depfile.exists()
        assert str(root / "chapters" / SLUG / "chapter.md") in depfile.read_text()
        with pytest.raises(SystemExit):
            render.main(arguments)
        assert "--run-dir is required unless the chapter has no demo" in capsys.readouterr().err
    finally:
        render.repository_root = original_root  # type: ignore[assignment]
