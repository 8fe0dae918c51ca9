"""Applies or checks the repository's C++ formatting (``.clang-format``).

``make format`` runs ``--fix``: it rewrites every C++ file whose text differs
from clang-format's output and prints each file it changed. ``make test``
runs ``--check`` as the ctest ``format-check``: it changes nothing and fails
naming each unformatted file and the first line that differs, e.g.::

    format: src/llm/tensor/layout.cpp:42: not formatted as .clang-format says
    format: 1 of 178 C++ files not formatted; run: make format

The files are the C++ sources (``*.cpp``, ``*.hpp``, ``*.inc``) that git
tracks, plus the untracked ones it does not ignore, so a new file is checked
before it is committed; outside a git checkout, every such file under
``src/``, ``chapters/``, ``tests/`` and ``bench/``.

The version is pinned: clang-format 14 (Debian bookworm's ``clang-format-14``),
found as ``clang-format-14`` or as a ``clang-format`` that reports version 14.
Each major version formats some constructs differently, so a check run with
another one would flag files that version 14 formatted correctly; any other
version is refused with the package to install.

Command line (from the repository root)::

    python3 -m tools.clang_format --check
    python3 -m tools.clang_format --fix
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

#: The clang-format major version the tree is formatted with.
PINNED_MAJOR = 14
#: The Debian package that provides it.
PINNED_PACKAGE = "clang-format-14"
#: The suffixes of the files it formats.
SUFFIXES = (".cpp", ".hpp", ".inc")
#: Where to look outside a git checkout.
SOURCE_DIRECTORIES = ("src", "chapters", "tests", "bench")


class FormatError(Exception):
    """A reason the check cannot run at all (no clang-format 14, unreadable file)."""


def find_clang_format() -> str:
    """The path of a clang-format 14 executable.

    Raises:
        FormatError: naming what was found instead, and the package to install.
    """
    found: list[str] = []
    for name in (f"clang-format-{PINNED_MAJOR}", "clang-format"):
        path = shutil.which(name)
        if path is None:
            continue
        major = _major_version(path)
        if major == PINNED_MAJOR:
            return path
        found.append(f"{path} (version {major if major is not None else 'unknown'})")
    seen = "; found " + ", ".join(found) if found else "; none is on PATH"
    raise FormatError(
        f"the C++ formatting is pinned to clang-format {PINNED_MAJOR}{seen}. "
        f"Install it: sudo apt-get install {PINNED_PACKAGE} (or make deps)"
    )


def _major_version(path: str) -> int | None:
    """The major version ``path --version`` reports, or None if it says none."""
    try:
        text = subprocess.run([path, "--version"], capture_output=True, text=True, check=False).stdout
    except OSError:
        return None
    match = re.search(r"version (\d+)\.", text)
    return int(match.group(1)) if match else None


def cpp_files(root: Path) -> list[Path]:
    """The C++ files to format, relative to ``root``, sorted."""
    patterns = [f"*{suffix}" for suffix in SUFFIXES]
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", *patterns],
            cwd=root, capture_output=True, check=True,
        ).stdout.decode().split("\0")
        paths = {Path(name) for name in listed if name}
    except (OSError, subprocess.CalledProcessError):
        paths = {
            path.relative_to(root)
            for directory in SOURCE_DIRECTORIES
            for suffix in SUFFIXES
            for path in (root / directory).rglob(f"*{suffix}")
        }
    # A file deleted in the working tree but still in the index is not there to format.
    return sorted(path for path in paths if (root / path).is_file() and not (root / path).is_symlink())


def first_difference(current: str, formatted: str) -> int:
    """The 1-based line number where ``current`` first differs from ``formatted``."""
    current_lines = current.splitlines()
    formatted_lines = formatted.splitlines()
    for number, (have, want) in enumerate(zip(current_lines, formatted_lines), start=1):
        if have != want:
            return number
    return min(len(current_lines), len(formatted_lines)) + 1


def formatted_text(clang_format: str, root: Path, path: Path) -> tuple[str, str]:
    """The file's current text and clang-format's output for it."""
    try:
        current = (root / path).read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise FormatError(f"{path}: cannot read it as UTF-8 text ({error})") from error
    result = subprocess.run(
        [clang_format, f"--assume-filename={path}", "--style=file"],
        input=current, capture_output=True, text=True, cwd=root, check=False,
    )
    if result.returncode != 0:
        raise FormatError(f"{path}: clang-format failed: {result.stderr.strip()}")
    return current, result.stdout


def run(root: Path, fix: bool, clang_format: str | None = None) -> int:
    """Checks (or, with ``fix``, rewrites) every C++ file under ``root``.

    Returns:
        0 when every file is formatted (after rewriting, with ``fix``), 1 when
        the check found unformatted files, 2 when it could not run.
    """
    try:
        executable = clang_format or find_clang_format()
        if not (root / ".clang-format").is_file():
            raise FormatError(f"{root}: there is no .clang-format to format with")
        files = cpp_files(root)
        with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1)) as pool:
            results = list(pool.map(lambda path: formatted_text(executable, root, path), files))
    except FormatError as error:
        print(f"format: {error}", file=sys.stderr)
        return 2
    unformatted = [(path, current, formatted)
                   for path, (current, formatted) in zip(files, results) if current != formatted]
    if fix:
        for path, _current, formatted in unformatted:
            (root / path).write_text(formatted, encoding="utf-8")
            print(f"format: reformatted {path}")
        print(f"format: {len(unformatted)} of {len(files)} C++ files changed")
        return 0
    for path, current, formatted in unformatted:
        print(f"format: {path}:{first_difference(current, formatted)}: "
              "not formatted as .clang-format says", file=sys.stderr)
    if unformatted:
        print(f"format: {len(unformatted)} of {len(files)} C++ files not formatted; run: make format",
              file=sys.stderr)
        return 1
    print(f"format: {len(files)} C++ files formatted (clang-format {PINNED_MAJOR})")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``--check`` or ``--fix``, optionally ``--root``."""
    parser = argparse.ArgumentParser(prog="python3 -m tools.clang_format", description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="change nothing; fail naming unformatted files")
    mode.add_argument("--fix", action="store_true", help="rewrite unformatted files and name them")
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="the repository root (default: .)")
    arguments = parser.parse_args(argv)
    return run(arguments.root.resolve(), fix=arguments.fix)


if __name__ == "__main__":
    sys.exit(main())
