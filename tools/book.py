"""The book's Sphinx step: staged sources -> ``build/html``, complete every time.

cmake/LlmBook.cmake runs this instead of ``sphinx-build`` itself::

    python3 -m tools.book html --source build/book --output build/html \\
        --doctrees build/sphinx-doctrees --stamp build/html.stamp --lock build/build.lock

It runs ``python3 -m sphinx -W --keep-going -q -b html`` with three guarantees
that a bare incremental ``sphinx-build`` does not give:

One Sphinx at a time
    The step holds the build directory's lock (tools/buildlock.py; an
    enclosing ``make`` already holds it), so two builds never write the same
    environment and HTML at once. A waiting build says whom it waits for.
A complete search index
    Sphinx 5.3 rebuilds ``searchindex.js`` incrementally: it loads the old
    index and adds the pages it rewrites, but the index entries of every page
    it does not rewrite are lost (so search misses the whole API reference
    after a one-line chapter edit). The step therefore passes ``-a``: Sphinx
    still reads only the changed sources (its environment is incremental),
    but writes every page, so the index is built from all of them, exactly
    as in a clean build. Writing the pages costs a few seconds; a no-op
    ``make book`` does not run this step at all.
Recovery from an interrupted or failed run
    A marker file (``OUTPUT.incomplete``, beside the output folder) is written
    before Sphinx starts and removed only after it succeeds, and the stamp is
    written last. If the marker is still there when the step starts, the
    previous run was interrupted (Ctrl-C, a kill) or failed: its HTML may be
    half-written and its environment may not hold the warnings that failed
    it, so the output folder and the doctrees are deleted and Sphinx builds
    from scratch. On failure the stamp is removed, so the next ``make book``
    reruns the step.

The step prints one progress line, ``sphinx: ... ok (N s)``, or Sphinx's
warnings (each ``file:line: WARNING: ...``) and ``sphinx: ... FAILED``.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from tools.buildlock import hold
from tools.fileio import atomic_write_bytes


def marker_for(output: Path) -> Path:
    """The marker that says a Sphinx run into ``output`` has not finished."""
    return output.parent / f"{output.name}.incomplete"


def sphinx_command(python: str, source: Path, output: Path, doctrees: Path) -> list[str]:
    """The sphinx-build command line: warnings are errors, every page is written (``-a``)."""
    return [
        python, "-m", "sphinx", "-W", "--keep-going", "-q", "-a", "-b", "html",
        "-d", str(doctrees), str(source), str(output),
    ]  # fmt: skip


def build_html(
    source: Path,
    output: Path,
    doctrees: Path,
    stamp: Path,
    python: str = sys.executable,
    report: Callable[[str], None] = print,
) -> int:
    """Run Sphinx from ``source`` into ``output``; touch ``stamp`` on success.

    Returns:
        Sphinx's exit status (0 on success); 130 if interrupted.
    """
    marker = marker_for(output)
    started = time.monotonic()
    if marker.exists():
        report(
            "sphinx: the previous Sphinx run did not finish (interrupted or failed); "
            f"rebuilding {_display(output)} from scratch"
        )
        shutil.rmtree(output, ignore_errors=True)
        shutil.rmtree(doctrees, ignore_errors=True)
    stamp.unlink(missing_ok=True)
    atomic_write_bytes(marker, b"")
    process = subprocess.Popen(sphinx_command(python, source, output, doctrees))
    try:
        status = process.wait()
    except KeyboardInterrupt:
        # The terminal's Ctrl-C reached Sphinx too; let it stop, keep the marker.
        process.send_signal(signal.SIGINT)
        process.wait()
        report("sphinx: interrupted; the next make book rebuilds the HTML from scratch")
        return 130
    if status != 0:
        report(f"sphinx: HTML book ... FAILED (sphinx-build exit status {status}); see the warnings above")
        return status
    marker.unlink()
    atomic_write_bytes(stamp, b"")
    report(f"sphinx: HTML book ... ok ({time.monotonic() - started:.1f} s) -> {_display(output / 'index.html')}")
    return 0


def _display(path: Path) -> str:
    """``path`` relative to the working directory when it lies below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface of ``python3 -m tools.book``."""
    parser = argparse.ArgumentParser(prog="python3 -m tools.book", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    html = commands.add_parser("html", help="build the HTML book with Sphinx")
    html.add_argument("--source", type=Path, required=True, help="the staged Sphinx source (build/book)")
    html.add_argument("--output", type=Path, required=True, help="the HTML folder (build/html)")
    html.add_argument("--doctrees", type=Path, required=True, help="Sphinx's environment (build/sphinx-doctrees)")
    html.add_argument("--stamp", type=Path, required=True, help="touched after a successful build")
    html.add_argument("--lock", type=Path, required=True, help="the build directory's lock (build/build.lock)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    arguments = build_parser().parse_args(argv)
    try:
        with hold(arguments.lock, "sphinx"):
            return build_html(arguments.source, arguments.output, arguments.doctrees, arguments.stamp)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
