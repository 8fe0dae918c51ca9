"""Tests of the sandbox chapter.md is rendered in (issue 7, item 2).

The template reaches the macros, the trace and the chapter's figure
functions, and nothing else: every escape into Python's internals is refused
with an error at the chapter.md line, nothing is executed, and the page, its
HTML page and its figure files are removed, as for any failed render.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_render import make_repository, renderer

from tools import regions, render

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
