"""Tests of the sandbox chapter.md is rendered in (issue 7, item 2).

The template reaches the macros, the trace and the chapter's figure
functions, and nothing else: every escape into Python's internals is refused
with an error at the chapter.md line, nothing is executed, and the page, its
HTML page and its figure files are removed, as for any failed render.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from test_render import make_repository, renderer

from tools import regions, render, sandbox

SLUG = "99-test-chapter"
LABEL = f"chapters/{SLUG}/chapter.md"
REFUSED = "(chapter text may read the trace and call the macros, nothing else)"
FIGURES = '''\
import os
from tools.figures import fixed, table

LABELS = {"first": "alpha"}
_PRIVATE = "hidden"


def summary(values, names):
    return f"{len(values)} values, first {fixed(values[0])}, named {names['first']}"


def values_table(values):
    return table(["i", "value"], [[i, fixed(v)] for i, v in enumerate(values)], "Values", "values")


def lookup(names, key):
    return names[key]
'''


@pytest.fixture(autouse=True)
def fresh_cache() -> None:
    """Each test parses region files afresh."""
    regions.clear_cache()


def chapter_with_figures(tmp_path: Path, body: str) -> tuple[Path, Path]:
    """make_repository's chapter 99 with a figures.py and a trace holding a list and a dict."""
    root, run_dir = make_repository(tmp_path, body)
    (root / "chapters" / SLUG / "figures.py").write_text(FIGURES)
    (run_dir / "trace.json").write_text(json.dumps({"samples": [0.5, 0.25], "names": {"first": "alpha"}}))
    return root, run_dir


def outputs(root: Path) -> tuple[Path, Path, Path]:
    """The page, its HTML page and its figure folder, each made as a previous build left them."""
    page = root / "build" / "book" / "chapters" / f"{SLUG}.md"
    html = root / "build" / "html" / "chapters" / f"{SLUG}.html"
    assets = page.parent / SLUG
    assets.mkdir(parents=True)
    (assets / "old-figure.svg").write_text("<svg/>")
    page.write_text("previous page")
    html.parent.mkdir(parents=True)
    html.write_text("previous html")
    return page, html, assets


def run_main(root: Path, run_dir: Path, monkeypatch: pytest.MonkeyPatch, *extra: str) -> int:
    """``tools.render`` in-process, as the build calls it, with ``root`` as the repository."""
    monkeypatch.setattr(render, "repository_root", lambda: root)
    page, html = outputs(root)[:2]
    arguments = ["--chapter", SLUG, "--run-dir", str(run_dir), "--output", str(page), "--stale", str(html)]
    return render.main([*arguments, *extra])


def assert_cleaned_up(root: Path) -> None:
    """No page, HTML page, figure folder or temporary file is left behind."""
    chapters = root / "build" / "book" / "chapters"
    assert not (chapters / f"{SLUG}.md").exists()
    assert not (chapters / SLUG).exists()
    # The HTML page of the last accepted build is withdrawn: a notice says why (tools/stale.py).
    notice = (root / "build" / "html" / "chapters" / f"{SLUG}.html").read_text()
    assert "Chapter 99 is not built" in notice and "previous html" not in notice
    assert list(chapters.iterdir()) == []


def test_the_cycler_attack_reaches_nothing_and_names_the_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    attack = '{{ cycler.__init__.__globals__.os.popen("touch pwned").read() }}'
    root, run_dir = chapter_with_figures(tmp_path, "Some text.\n" + attack)
    monkeypatch.chdir(root)
    assert run_main(root, run_dir, monkeypatch) == 1
    assert capsys.readouterr().err == (
        f"error: {LABEL}:4: the sandbox refused: access to attribute '__init__' of 'type' object "
        f"is unsafe. {REFUSED}\nchapter 99: render ... FAILED\n"
    )
    assert not (root / "pwned").exists() and not (tmp_path / "pwned").exists()
    assert_cleaned_up(root)


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("''.__class__.__mro__", f"the sandbox refused: access to attribute '__class__' of 'str' object is unsafe. {REFUSED}"),
        ("listing.__self__.root", f"the sandbox refused: access to attribute '__self__' of 'method' object is unsafe. {REFUSED}"),
        ('"{0.__class__}".format(trace)', f"the sandbox refused: access to attribute '__class__' of 'dict' object is unsafe. {REFUSED}"),
        ("figures.summary.__globals__", f"the sandbox refused: access to attribute '__globals__' of 'function' object is unsafe. {REFUSED}"),
        ("figures._PRIVATE", "UndefinedError: 'tools.sandbox.FigureMacros object' has no attribute '_PRIVATE'"),
        ("figures._origin", f"the sandbox refused: access to attribute '_origin' of 'FigureMacros' object is unsafe. {REFUSED}"),
        ("figures.os.system", "UndefinedError: 'tools.sandbox.FigureMacros object' has no attribute 'os'"),
        ("figures.table.__module__", f"the sandbox refused: access to attribute '__module__' of 'function' object is unsafe. {REFUSED}"),
        ("lipsum(1000000)", "UndefinedError: 'lipsum' is undefined"),
        ('"x" * 100000000', f"the sandbox refused: the template asked for a sequence of 100000000 items; the sandbox allows 1000000 {REFUSED}"),
        ("range(10 ** 9) | list", "OverflowError: Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000)."),
    ],
)
def test_escapes_into_python_are_refused_at_their_line(
    tmp_path: Path, expression: str, message: str
) -> None:
    root, run_dir = chapter_with_figures(tmp_path, "{{ " + expression + " }}")
    with pytest.raises(render.RenderError) as caught:
        renderer(root, run_dir).render()
    assert str(caught.value) == f"{LABEL}:3: {message}"


@pytest.mark.parametrize("statement", ['{% include "/etc/passwd" %}', '{% import "figures.py" as f %}', '{% extends "../x.md" %}'])
def test_chapter_md_includes_no_other_file(tmp_path: Path, statement: str) -> None:
    root, run_dir = chapter_with_figures(tmp_path, statement)
    with pytest.raises(render.RenderError, match=rf"^{LABEL}:3: TemplateNotFound: chapter.md cannot include or import other files"):
        renderer(root, run_dir).render()


def test_figure_functions_and_constants_still_work_on_trace_lists_and_dicts(tmp_path: Path) -> None:
    body = (
        "{{ figures.summary(trace.samples, trace.names) }} / {{ figures.LABELS.first }} / "
        '{{ figures.lookup(trace.names, "first") }} / {{ figures.fixed(trace.samples[1]) }}\n\n'
        "{{ figures.values_table(trace.samples) }}"
    )
    root, run_dir = chapter_with_figures(tmp_path, body)
    page = renderer(root, run_dir).render()
    assert "2 values, first 0.500000000000, named alpha / alpha / alpha / 0.250000000000\n\n" in page
    assert (
        "```{list-table} Values\n:header-rows: 1\n:name: 99-test-chapter-values\n\n"
        "* - i\n  - value\n* - 0\n  - 0.500000000000\n* - 1\n  - 0.250000000000\n```\n"
    ) in page


def test_a_chapter_md_that_links_out_of_the_repository_is_not_read(tmp_path: Path) -> None:
    root, run_dir = chapter_with_figures(tmp_path, "")
    outside = tmp_path / "elsewhere.md"
    outside.write_text("secret")
    chapter = root / "chapters" / SLUG / "chapter.md"
    chapter.unlink()
    chapter.symlink_to(outside)
    with pytest.raises(render.RenderError) as caught:
        renderer(root, run_dir).render()
    assert str(caught.value) == (
        f"{LABEL}:1: a symbolic link that leaves the repository (it resolves to {outside}); "
        "chapter files are read only from inside the repository"
    )


def test_a_listing_through_a_link_out_of_the_repository_is_refused(tmp_path: Path) -> None:
    root, run_dir = chapter_with_figures(tmp_path, '{{ listing("src/link.cpp#answer", "Outside") }}')
    outside = tmp_path / "outside.cpp"
    outside.write_text((root / "src" / "answer.cpp").read_text())
    (root / "src" / "link.cpp").symlink_to(outside)
    with pytest.raises(regions.RegionError) as caught:
        renderer(root, run_dir).render()
    assert str(caught.value) == (
        f"{LABEL}:3: region reference path 'src/link.cpp' leaves the repository through a "
        f"symbolic link (it resolves to {outside})"
    )


# --- Issue 16, item 4: a time, size and memory limit, each naming the line ----


def test_nested_range_loops_stop_at_the_time_limit_naming_the_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Two nested range(100000) loops took about five minutes; three never ended.
    loops = "{% for x in range(100000) %}{% for y in range(100000) %}{% endfor %}{% endfor %}"
    root, run_dir = make_repository(tmp_path, f"Text.\n\n{loops}\n")
    monkeypatch.chdir(root)
    started = time.monotonic()
    assert run_main(root, run_dir, monkeypatch, "--time-limit", "1") == 1
    assert time.monotonic() - started < 10
    assert capsys.readouterr().err == (
        f"error: {LABEL}:5: the page was still rendering after 1 s (a loop over huge ranges?); the render "
        "step stops a page after 1 s\nchapter 99: render ... FAILED\n"
    )
    assert_cleaned_up(root)


@pytest.mark.parametrize(
    ("expression", "written"),
    [
        ("{{ trace.loss | string | center(10**7) }}", "10,000,000"),
        ('{{ "%010000000d" | format(trace.loss) }}', "10,000,000"),
        ("{% for i in range(100000) %}{% for j in range(100) %}text {% endfor %}{% endfor %}", "5"),
    ],
    ids=["center", "format", "literal-text-in-a-loop"],
)
def test_a_page_past_the_size_limit_fails_naming_the_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], expression: str, written: str
) -> None:
    root, run_dir = make_repository(tmp_path, f"Text.\n\n{expression}\n")
    monkeypatch.chdir(root)
    assert run_main(root, run_dir, monkeypatch) == 1
    assert capsys.readouterr().err == (
        f"error: {LABEL}:5: the page grew past 2,000,000 characters at this line (this line alone wrote "
        f"{written}); the largest chapter page is about 120,000. A loop over a huge range, or a filter such "
        "as center or format with a huge width?\nchapter 99: render ... FAILED\n"
    )
    assert_cleaned_up(root)


def test_text_that_doubles_in_a_loop_stops_at_the_memory_budget_naming_the_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    doubling = (
        '{% set text = namespace(value="x") %}'
        "{% for i in range(64) %}{% set text.value = text.value ~ text.value %}{% endfor %}"
    )
    root, run_dir = make_repository(tmp_path, f"Text.\n\n{doubling}\n")
    monkeypatch.chdir(root)
    small = 256 << 20  # a quarter of a GiB keeps the test light; the build allows 2 GiB
    monkeypatch.setattr(render, "RenderLimits", lambda seconds: sandbox.RenderLimits(seconds, small))
    assert run_main(root, run_dir, monkeypatch) == 1
    assert capsys.readouterr().err == (
        f"error: {LABEL}:5: MemoryError: the page needed more than the 2 GiB of memory the render step allows "
        "(a filter such as center or format with a huge width, or text that doubles in a loop?)\n"
        "chapter 99: render ... FAILED\n"
    )
    assert_cleaned_up(root)
