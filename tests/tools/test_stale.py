"""A failed chapter step withdraws the chapter's pages (tools/stale.py; issue 16, item 4).

After ``make chapter-14`` fails, the links of the last built book (its
contents page, chapter 13's page, the search index) still point at chapter
14's HTML page. That page must then say why the chapter is missing and what
brings it back, never show the output the build no longer accepts, and never
be a broken link.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_demo import SLUG, expected, write_output

from tools import demo, stale


def built_book(tmp_path: Path) -> Path:
    """A built HTML book: contents, chapters 13 and 14, and a search index naming chapter 14."""
    html = tmp_path / "html"
    (html / "chapters").mkdir(parents=True)
    (html / "index.html").write_text(f'<a href="chapters/13-gradient-checking.html">13</a><a href="chapters/{SLUG}.html">14</a>')
    (html / "chapters" / "13-gradient-checking.html").write_text(f'<a href="{SLUG}.html#reverse">Chapter 14</a>')
    (html / "chapters" / f"{SLUG}.html").write_text("<p>value=1.000000000000 (accepted last time)</p>")
    (html / "searchindex.js").write_text(f'Search.setIndex({{"docnames": ["chapters/{SLUG}"]}})')
    return html


def links(page: Path) -> list[Path]:
    """The files the relative links of ``page`` point at."""
    return [(page.parent / target).resolve() for target in re.findall(r'href="([^"#?]+)', page.read_text())]


def test_a_failed_verify_leaves_every_link_of_the_book_at_a_page_that_says_why(
    root: Path, run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    html = built_book(tmp_path)
    page = tmp_path / "book" / f"{SLUG}.md"
    page.parent.mkdir()
    page.write_text("the page of the last accepted output")
    expected(root).write_bytes(b"value=1.000000000000\n")
    write_output(run_dir, b"value=2.000000000000\n")
    chapter_html = html / "chapters" / f"{SLUG}.html"
    arguments = ["verify", "--root", str(root), "--chapter", SLUG, "--run-dir", str(run_dir)]
    assert demo.main([*arguments, "--stale", str(page), "--stale", str(chapter_html)]) == 1

    captured = capsys.readouterr()
    assert captured.out == (
        f"chapter 14: {chapter_html} now says why the chapter is missing; make book rebuilds it once the chapter passes\n"
    )
    assert not page.exists()
    notice = chapter_html.read_text()
    assert "<title>Chapter 14 is not built</title>" in notice
    assert "accepted last time" not in notice
    assert "-value=1.000000000000\n+value=2.000000000000" in notice  # the step's own message, escaped
    assert "make chapter-14 SYNC=1" in notice and "<code>make chapter-14</code>" in notice
    # Every link of the old book still resolves, and the notice leads back to the contents.
    for source in (html / "index.html", html / "chapters" / "13-gradient-checking.html", chapter_html):
        for target in links(source):
            assert target.is_file(), f"{source.name} links to a missing {target}"
    assert links(chapter_html) == [(html / "index.html").resolve()]
    assert (html / "searchindex.js").read_text().count(SLUG) == 1  # it names a page that exists


def test_without_a_built_book_nothing_is_created(tmp_path: Path) -> None:
    missing = tmp_path / "html" / "chapters" / f"{SLUG}.html"
    page = tmp_path / f"{SLUG}.md"
    page.write_text("old")
    assert stale.withdraw([page, missing], "reason") == []
    assert not page.exists() and not missing.exists() and not missing.parent.exists()


def test_the_notice_escapes_the_message(tmp_path: Path) -> None:
    html = built_book(tmp_path)
    chapter_html = html / "chapters" / f"{SLUG}.html"
    stale.withdraw([chapter_html], "chapter.md:3: <script>alert(1)</script> & more")
    text = chapter_html.read_text()
    assert "<script>" not in text and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; more" in text
