"""Each error type writes its constructor out (src/llm/error.hpp, "Typed errors").

A type that inherits ``KindedError``'s constructor (``using
KindedError::KindedError;``) shows ``Kind`` and ``Evidence`` in the API
reference, names Sphinx cannot resolve, where a written constructor shows the
area's own enum and evidence struct.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "src" / "llm"
ERROR_CLASS = re.compile(r"^class (\w+) : public KindedError<(\w+)> \{$", re.MULTILINE)


def error_classes() -> dict[str, str]:
    """Each class over KindedError in the library's headers -> the header's text from its declaration on."""
    found = {}
    for header in sorted(LIBRARY.rglob("*.hpp")):
        text = header.read_text(encoding="utf-8")
        for match in ERROR_CLASS.finditer(text):
            found[f"{header.relative_to(ROOT)}: {match.group(1)}"] = text[match.end():].split("\n};", 1)[0]
    return found


def test_every_error_type_over_kinded_error_writes_its_constructor() -> None:
    classes = error_classes()
    assert len(classes) > 20, sorted(classes)
    inheriting = sorted(name for name, body in classes.items() if "using KindedError::KindedError;" in body)
    assert inheriting == []
    for name, body in classes.items():
        error_type = name.rsplit(" ", 1)[1]
        assert re.search(rf"explicit {error_type}\(\w+ kind,\s+\w+ evidence = \{{\}}\)", body), name
