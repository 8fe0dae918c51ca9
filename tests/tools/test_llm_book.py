"""Tests of the book's Sphinx extension, book/_ext/llm_book.py, on a small Sphinx project.

The ``{listing}`` directive checks its ``path#region`` exactly as the
``listing()`` macro does (issue 7, item 2) and turns a missing or malformed
option into a Sphinx error at the page's line, never a crash (item 5); the
source pages it publishes stay inside the HTML output folder; listings the
renderer placed in a list item, a block quote or an admonition build.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from test_render import make_repository, renderer

from tools import regions

EXTENSION_DIR = Path(__file__).resolve().parents[2] / "book" / "_ext"
CONF = f"""
import sys
sys.path.insert(0, {str(EXTENSION_DIR)!r})
extensions = ["myst_parser", "llm_book", "llm_links"]
myst_enable_extensions = ["colon_fence"]
source_suffix = {{".md": "markdown"}}
"""
#: Sphinx 5.3, MyST and docutils warn about their own deprecated internals; not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::PendingDeprecationWarning")
SOURCE = "// region: answer\nint answer() {\n  return 42;\n}\n// endregion: answer\n"


@pytest.fixture(autouse=True)
def fresh_cache() -> None:
    """Each test parses region files afresh."""
    regions.clear_cache()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository (LLM_SOURCE_DIR) with src/answer.cpp, and a Sphinx source folder in it."""
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "answer.cpp").write_text(SOURCE)
    (root / "tools").mkdir()
    book = root / "book"
    book.mkdir()
    (book / "conf.py").write_text(CONF)
    (book / "index.md").write_text("# Empty\n")
    monkeypatch.setenv("LLM_SOURCE_DIR", str(root))
    monkeypatch.setattr(sys, "path", list(sys.path))  # the extension adds the repository to it
    return book


def build(book: Path, page: str) -> tuple[int, Path]:
    """Build ``page`` as index.md with ``sphinx-build -W``; return the status and the output folder."""
    from sphinx.cmd.build import build_main  # imported here, where its deprecation warnings are filtered

    (book / "index.md").write_text(page)
    output = book.parent / "build" / "html"
    status = build_main(["-W", "--keep-going", "-q", "-E", "-b", "html", "-d", str(book.parent / "build" / "doctrees"), str(book), str(output)])
    return status, output


def raw_listing(reference: str, options: str, code: str = "int answer() {\n  return 42;\n}") -> str:
    """A page holding one ``{listing}`` directive written by hand, as an author could."""
    return f"# Page\n\n```{{listing}} {reference}\n{options}\n\n{code}\n```\n"


def test_a_listing_without_its_lines_option_is_an_error_not_a_key_error(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _ = build(project, raw_listing("src/answer.cpp#answer", ':caption: "The answer"'))
    err = capsys.readouterr().err
    assert status != 0
    assert "index.md:3: ERROR: listing src/answer.cpp#answer: the :lines: option is missing" in err
    assert "KeyError" not in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (":lines: 2-4", "listing src/answer.cpp#answer: the :caption: option is missing"),
        (':caption: "A"\n:lines: two-four', "listing src/answer.cpp#answer: :lines: 'two-four' is not a line number N or a range N-M"),
        (':caption: "A"\n:lines: 4-2', "listing src/answer.cpp#answer: :lines: '4-2' is not an increasing range of line numbers"),
        (':caption: "A"\n:lines: 2-3', "listing src/answer.cpp#answer: 2 line numbers for 3 lines"),
    ],
)
def test_malformed_options_are_errors_at_the_page_line(project: Path, capsys: pytest.CaptureFixture[str], options: str, message: str) -> None:
    status, _ = build(project, raw_listing("src/answer.cpp#answer", options))
    err = capsys.readouterr().err
    assert status != 0
    assert f"index.md:3: ERROR: {message}" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("reference", "message"),
    [
        ("../outside.cpp#answer", "region reference path '../outside.cpp' leaves the repository"),
        ("src/link.cpp#answer", "region reference path 'src/link.cpp' leaves the repository through a symbolic link"),
        ("/etc/hostname#answer", "region reference path '/etc/hostname' is absolute"),
        ("src/answer.cpp#other", "unknown region 'other' in src/answer.cpp; its regions are: answer"),
        ("src/loop.cpp#answer", "region reference path 'src/loop.cpp' cannot be resolved"),
    ],
)
def test_a_listing_path_is_checked_as_the_macro_checks_it(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], reference: str, message: str
) -> None:
    root = project.parent
    (tmp_path / "outside.cpp").write_text(SOURCE)
    (root / "src" / "link.cpp").symlink_to(tmp_path / "outside.cpp")
    (root / "src" / "loop.cpp").symlink_to("loop.cpp")
    before = sorted(path for path in tmp_path.rglob("*") if not path.is_relative_to(root / "build"))
    status, output = build(project, raw_listing(reference, ':caption: "A"\n:lines: 2-4'))
    err = capsys.readouterr().err
    assert status != 0
    assert f"index.md:3: ERROR: listing {reference}: {message}" in err and "Traceback" not in err
    # No source page for the rejected path, inside or outside (the page's own source is published).
    published = sorted(str(p.relative_to(output / "_source")) for p in (output / "_source").rglob("*.html"))
    assert published in ([], ["book/index.md.html"]), published
    after = sorted(path for path in tmp_path.rglob("*") if not path.is_relative_to(root / "build"))
    assert after == before  # nothing written outside the build folder


def test_a_listing_publishes_its_source_page_under_the_canonical_path(project: Path) -> None:
    status, output = build(project, raw_listing("src/../src/answer.cpp#answer", ':caption: "A"\n:lines: 2-4'))
    assert status == 0
    assert (output / "_source" / "src" / "answer.cpp.html").is_file()
    html = (output / "index.html").read_text()
    assert 'href="_source/src/answer.cpp.html#L-2"' in html and "src/answer.cpp#answer</span></code>" in html


def test_listings_placed_in_a_list_a_quote_and_an_admonition_build(project: Path, tmp_path: Path) -> None:
    listing = '{{ listing("src/answer.cpp#answer", "The answer") }}'
    body = f"- In a list:\n  {listing}\n\n> {listing}\n\n```{{note}}\n{listing}\n```\n"
    repository, run_dir = make_repository(tmp_path / "chapter", body)
    page = renderer(repository, run_dir).render()
    (project.parent / "src" / "answer.cpp").write_text((repository / "src" / "answer.cpp").read_text())
    status, output = build(project, page.replace("{term}`adjoint`", "adjoint"))
    assert status == 0
    html = (output / "index.html").read_text()
    opening = '<div class="llm-listing docutils container" id="listing-answer'  # llm_links numbers -2, -3
    assert html.count(opening) == 3
    list_item = html[html.index("<li><p>In a list:</p>"):]
    assert list_item.index(opening) < list_item.index("</li>")
    quote = html[html.index("<blockquote>"):]
    assert quote.index(opening) < quote.index("</blockquote>")
    note = html[html.index('<div class="admonition note">'):]
    assert note.index(opening) < note.index("</div>\n")
