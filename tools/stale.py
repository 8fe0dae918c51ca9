"""Withdrawing the pages of a chapter whose build step failed.

When a step of ``make chapter-NN`` fails (the demo run, its verification, a
sync, the render), the pages built from the chapter's last accepted output
must not keep showing it: the build no longer accepts that output. The step
passes those pages with ``--stale`` and, on failure, calls :func:`withdraw`:

* the rendered Markdown page (``build/book/chapters/NN-slug.md``) is deleted,
  so the next build renders it afresh and Sphinx never reads a stale one;
* the chapter's HTML page (``build/html/chapters/NN-slug.html``), if a book
  was built, is replaced by a short notice. The table of contents, the other
  chapters' links and the search index of that book still point at the page
  until the next ``make book``; a reader who follows them reads why the
  chapter is missing, the error, and the command that brings it back,
  instead of a browser's "file not found" or output the build rejected.

The next ``make book`` that gets past the chapter writes every HTML page
again, the notice included.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Iterable
from pathlib import Path

from tools.fileio import atomic_write_text

#: The title every notice page carries (tests and the browser checks look for it).
NOTICE_TITLE = "is not built"


def withdraw(paths: Iterable[Path], reason: str) -> list[str]:
    """Delete each stale page; replace an existing HTML page by a notice saying why.

    Args:
        paths: the pages built from the failed chapter (``--stale`` arguments).
        reason: the failure message, shown on the notice page.

    Returns:
        One note per HTML page that now holds a notice, for the step to print.
    """
    notes = []
    for path in paths:
        if path.is_dir():
            continue
        if path.suffix == ".html" and path.exists():
            atomic_write_text(path, notice_page(path, reason))
            notes.append(
                f"{_display(path)} now says why the chapter is missing; "
                "make book rebuilds it once the chapter passes"
            )
        else:
            path.unlink(missing_ok=True)  # never leave a stale page that looks current
    return notes


def notice_page(page: Path, reason: str) -> str:
    """The HTML notice that stands in for the page ``page`` of a failed chapter."""
    match = re.match(r"([0-9]+)-", page.name)
    chapter = f"Chapter {int(match.group(1))}" if match else page.stem
    command = f"make chapter-{match.group(1)}" if match else "make book"
    index = _index_link(page)
    back = f'<p><a href="{html.escape(index)}">The book\'s contents</a></p>\n' if index else ""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(chapter)} {NOTICE_TITLE}</title>\n"
        "<style>body { font-family: sans-serif; max-width: 48rem; margin: 2rem auto; padding: 0 1rem; "
        "line-height: 1.5 } pre { white-space: pre-wrap; background: #f4f4f4; padding: 0.75rem; "
        "overflow-x: auto }</style>\n"
        "</head>\n<body>\n"
        f"<h1>{html.escape(chapter)} {NOTICE_TITLE}</h1>\n"
        "<p>Its last build step failed, so its page was withdrawn instead of being left to show "
        "output the build no longer accepts. The step reported:</p>\n"
        f"<pre>{html.escape(reason)}</pre>\n"
        f"<p>Fix the chapter and run <code>{command}</code>; then <code>make book</code> writes this "
        "page again.</p>\n"
        f"{back}</body>\n</html>\n"
    )


def _index_link(page: Path) -> str | None:
    """The relative link from ``page`` to the book's ``index.html``, if one is above it."""
    for directory in page.parents:
        if (directory / "index.html").is_file():
            return os.path.relpath(directory / "index.html", page.parent)
    return None


def _display(path: Path) -> str:
    """``path`` relative to the working directory when it lies below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)
