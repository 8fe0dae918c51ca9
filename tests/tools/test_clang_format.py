"""The C++ format check of ``make test`` and ``make format`` (tools/clang_format.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPOSITORY_ROOT

from tools import clang_format

pytestmark = pytest.mark.skipif(
    shutil.which("git") is None, reason="the check lists files with git"
)

FORMATTED = "int add(int a, int b) {\n  return a + b;\n}\n"
# Three faults .clang-format rewrites: the brace, the spacing, the indentation.
MISFORMATTED = "int add(int a, int b) {\n  return a + b;\n}\n\nint  twice( int a )\n{\n    return 2*a;\n}\n"


def run_tool(root: Path, *arguments: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
    """Runs ``python3 -m tools.clang_format`` on ``root`` as make would."""
    environment = dict(os.environ, PYTHONPATH=str(REPOSITORY_ROOT))
    if path is not None:
        environment["PATH"] = path
    return subprocess.run(
        [sys.executable, "-m", "tools.clang_format", *arguments, "--root", str(root)],
        cwd=REPOSITORY_ROOT, env=environment, capture_output=True, text=True, check=False,
    )


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    """A git checkout with the project's .clang-format, one formatted file and one not."""
    shutil.copy(REPOSITORY_ROOT / ".clang-format", tmp_path / ".clang-format")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "good.cpp").write_text(FORMATTED)
    (tmp_path / "src" / "bad.cpp").write_text(MISFORMATTED)
    (tmp_path / ".gitignore").write_text("build/\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "generated.cpp").write_text(MISFORMATTED)  # ignored: never checked
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", ".clang-format", ".gitignore", "src/good.cpp"], cwd=tmp_path, check=True)
    return tmp_path  # src/bad.cpp stays untracked: a new file is checked before it is committed


needs_pinned = pytest.mark.skipif(
    shutil.which("clang-format-14") is None and shutil.which("clang-format") is None,
    reason="clang-format 14 is not installed (make deps installs it)",
)


@needs_pinned
def test_check_fails_naming_the_misformatted_file_and_line(tree: Path) -> None:
    result = run_tool(tree, "--check")
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "format: src/bad.cpp:5: not formatted as .clang-format says",
        "format: 1 of 2 C++ files not formatted; run: make format",
    ]
    assert (tree / "src" / "bad.cpp").read_text() == MISFORMATTED  # the check changes nothing


@needs_pinned
def test_fix_rewrites_only_what_differs_and_names_it(tree: Path) -> None:
    good_before = (tree / "src" / "good.cpp").stat().st_mtime_ns
    result = run_tool(tree, "--fix")
    assert result.returncode == 0
    assert result.stdout.splitlines() == ["format: reformatted src/bad.cpp", "format: 1 of 2 C++ files changed"]
    assert (tree / "src" / "bad.cpp").read_text() == FORMATTED + "\nint twice(int a) {\n  return 2 * a;\n}\n"
    assert (tree / "src" / "good.cpp").stat().st_mtime_ns == good_before
    assert (tree / "build" / "generated.cpp").read_text() == MISFORMATTED
    again = run_tool(tree, "--check")
    assert again.returncode == 0, again.stderr
    assert again.stdout == "format: 2 C++ files formatted (clang-format 14)\n"


def test_another_clang_format_version_is_refused(tree: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    bin_directory = tmp_path_factory.mktemp("bin")
    fake = bin_directory / "clang-format"
    fake.write_text("#!/bin/sh\necho 'Ubuntu clang-format version 18.1.3'\n")
    fake.chmod(0o755)
    result = run_tool(tree, "--check", path=str(bin_directory))
    assert result.returncode == 2
    assert result.stderr == (
        f"format: the C++ formatting is pinned to clang-format 14; found {fake} (version 18). "
        "Install it: sudo apt-get install clang-format-14 (or make deps)\n"
    )


def test_first_difference_counts_from_one() -> None:
    assert clang_format.first_difference("a\nb\nc\n", "a\nB\nc\n") == 2
    assert clang_format.first_difference("a\n", "a\nb\n") == 2
