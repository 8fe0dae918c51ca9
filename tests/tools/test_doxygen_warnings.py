"""docs/Doxyfile fails on an undocumented public name, naming its file and line.

`make book` runs Doxygen with docs/Doxyfile (cmake/LlmDoxygen.cmake); these
tests run the same file on a small tree of their own.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import REPOSITORY_ROOT

pytestmark = pytest.mark.skipif(shutil.which("doxygen") is None, reason="doxygen is not installed")

HEADER_START = '''// A public header of a small tree.
#pragma once

/// The library.
namespace llm {

'''


def run_doxygen(root: Path, header: str) -> subprocess.CompletedProcess[str]:
    """Runs Doxygen with the project's Doxyfile on ``root/src/llm/probe.hpp``."""
    (root / "src" / "llm").mkdir(parents=True, exist_ok=True)
    (root / "src" / "llm" / "probe.hpp").write_text(HEADER_START + header + "\n}  // namespace llm\n")
    environment = dict(os.environ, LLM_SOURCE_DIR=str(root), LLM_DOXYGEN_OUTPUT=str(root / "doxygen"))
    return subprocess.run(
        ["doxygen", str(REPOSITORY_ROOT / "docs" / "Doxyfile")],
        cwd=root, env=environment, capture_output=True, text=True, check=False,
    )


def test_a_documented_header_passes(tmp_path: Path) -> None:
    result = run_doxygen(tmp_path, "/// Twice `x`.\n/// @param x any value\nint twice(int x);\n")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert (tmp_path / "doxygen" / "xml" / "index.xml").is_file()


def test_an_undocumented_public_function_fails_naming_file_and_line(tmp_path: Path) -> None:
    result = run_doxygen(tmp_path, "/// Twice `x`.\nint twice(int x);\n\nint thrice(int x);\n")
    assert result.returncode != 0
    header = tmp_path / "src" / "llm" / "probe.hpp"
    assert result.stderr.strip() == (
        f"{header}:10: error: Member thrice(int x) (function) of namespace llm is not documented."
    )


def test_an_undocumented_member_of_a_documented_class_fails(tmp_path: Path) -> None:
    result = run_doxygen(tmp_path, "/// A box.\nclass Box {\n public:\n  int size() const;\n};\n")
    assert result.returncode != 0
    assert result.stderr.strip() == (
        f"{tmp_path / 'src' / 'llm' / 'probe.hpp'}:10: error: Member size() const (function) of class "
        "llm::Box is not documented."
    )


def test_a_parameter_left_out_of_documented_parameters_fails(tmp_path: Path) -> None:
    result = run_doxygen(
        tmp_path, "/// Clamps `x`.\n/// @param x any value\nint clamp(int x, int limit);\n"
    )
    assert result.returncode != 0
    assert result.stderr == (  # Doxygen names the line where the comment starts
        f"{tmp_path / 'src' / 'llm' / 'probe.hpp'}:8: error: The following parameter of "
        "llm::clamp(int x, int limit) is not documented:\n  parameter 'limit'\n"
    )
