"""flake8 with the repository's .flake8 fails a deliberately bad file, naming each defect.

The ctest ``flake8`` (CMakeLists.txt) runs the same check over tools/,
book/_ext, tests/tools and chapters/, where it must pass."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def flake8(*arguments: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """``python3 -m flake8`` with the repository's configuration."""
    command = [sys.executable, "-m", "flake8", "--config", str(ROOT / ".flake8"), *arguments]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True)


def test_a_bad_figure_module_fails_naming_each_defect(tmp_path: Path) -> None:
    bad = tmp_path / "figures.py"
    long_line = "LABEL = '" + "x" * 160 + "'"  # 170 characters: the longest allowed
    bad.write_text(
        "import json\n"  # imported, never used
        "from tools.figures import table\n\n\n"
        f"{long_line}\n"
        f"{long_line.replace('LABEL', 'LABELS')}\n"  # one character too long
        "def caption(trace):\n"  # one blank line where two belong
        "    return f'the caption'\n"  # an f-string without a placeholder
        "\n\n"
        "def rows(trace):\n"
        "    return [undefined_name]\n"
    )
    result = flake8(bad.name, cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "figures.py:1:1: F401 'json' imported but unused",
        "figures.py:2:1: F401 'tools.figures.table' imported but unused",
        "figures.py:6:171: E501 line too long (171 > 170 characters)",
        "figures.py:7:1: E302 expected 2 blank lines, found 0",
        "figures.py:8:12: F541 f-string is missing placeholders",
        "figures.py:12:13: F821 undefined name 'undefined_name'",
    ]
