"""docs/adding-an-operation.md shows its worked example verbatim from the files the build compiles."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "adding-an-operation.md"
EXAMPLE = re.compile(r"<!-- example: (?P<path>[^ ]+) -->\n```cpp\n(?P<code>.*?)```", re.DOTALL)


def test_every_example_block_equals_its_file() -> None:
    examples = list(EXAMPLE.finditer(DOC.read_text(encoding="utf-8")))
    assert [match["path"] for match in examples] == [
        "docs/examples/sqrt_operation.hpp",
        "docs/examples/sqrt_operation.cpp",
    ]
    for match in examples:
        assert match["code"] == (ROOT / match["path"]).read_text(encoding="utf-8"), match["path"]
