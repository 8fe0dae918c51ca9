"""The library's areas include each other downward only (CONTRIBUTING.md).

``src/llm/`` is split into areas, one folder each, on floors: a file of an
area may include headers of its own area, of an area on a lower floor, and
the shared headers at ``src/llm/`` itself (``error.hpp``, ``format.hpp``...),
never a header of an area on its own floor or above. An include that runs
upward makes the two areas one knot: neither can be read, built or tested
without the other. The includes are read from the source text, so a header
that only one ``.cpp`` includes counts as much as one in a header.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "src" / "llm"

# Each area's floor; an area includes strictly lower floors only. Keep in
# step with the picture in CONTRIBUTING.md.
FLOORS: dict[str, int] = {
    "tensor": 0,
    "text": 0,
    "autograd": 1,
    "nn": 2,
    "attention": 3,
    "models": 4,
    "generation": 5,
    "training": 5,
    "evaluation": 6,
}

# Upward includes that stand today, each (file, included header), with the
# reason. The test fails when a listed include disappears, so the list is
# shortened as soon as one is mended.
# (Empty: the last one, models/neural_ngram.hpp reading training/mini_batches.hpp,
# was mended by moving the n-gram's batch loss to training/neural_ngram_loss.hpp.)
KNOWN_UPWARD: dict[tuple[str, str], str] = {}

INCLUDE = re.compile(r'^\s*#\s*include\s+"(llm/[^"]+)"', re.MULTILINE)


def area_of(relative: str) -> str | None:
    """The area of a path below src/llm (``llm/nn/linear.hpp`` -> ``nn``), None at the top."""
    parts = Path(relative).parts
    parts = parts[parts.index("llm") + 1:]
    return parts[0] if len(parts) > 1 else None


def upward_includes(library: Path, floors: dict[str, int]) -> list[tuple[str, str]]:
    """Every (file, header) pair where a file includes an area on its floor or above.

    Paths are relative to the folder above ``src`` (``src/llm/models/x.hpp``).
    A top-level header (``src/llm/error.hpp``) may include top-level headers only.
    """
    found = []
    for path in sorted(library.rglob("*")):
        if path.suffix not in {".hpp", ".cpp", ".inc", ".h"}:
            continue
        relative = path.relative_to(library.parent.parent).as_posix()
        own = area_of(relative)
        for header in INCLUDE.findall(path.read_text(encoding="utf-8")):
            other = area_of(header)
            if other is None or other == own:
                continue
            if own is None or floors[other] >= floors[own]:
                found.append((relative, header))
    return found


def test_every_area_has_a_floor() -> None:
    areas = {path.name for path in LIBRARY.iterdir() if path.is_dir()}
    assert areas, f"no areas found below {LIBRARY}"
    missing = sorted(areas - FLOORS.keys())
    assert not missing, f"src/llm/ areas without a floor in {__file__}: {missing}"
    gone = sorted(FLOORS.keys() - areas)
    assert not gone, f"floors listed for areas that no longer exist: {gone}"


def test_includes_run_downward() -> None:
    found = upward_includes(LIBRARY, FLOORS)
    new = [pair for pair in found if pair not in KNOWN_UPWARD]
    assert not new, "upward includes (an area may include lower floors only):\n" + "\n".join(
        f"  {file}: #include \"{header}\" ({area_of(file)} is floor {FLOORS[area_of(file)]}, "
        f"{area_of(header)} is floor {FLOORS[area_of(header)]})"
        for file, header in new
    )
    mended = [pair for pair in KNOWN_UPWARD if pair not in found]
    assert not mended, f"no longer upward, drop them from KNOWN_UPWARD: {mended}"


def test_the_check_finds_an_upward_include(tmp_path: Path) -> None:
    library = tmp_path / "src" / "llm"
    (library / "tensor").mkdir(parents=True)
    (library / "nn").mkdir()
    (library / "tensor" / "shape.hpp").write_text('#include "llm/error.hpp"\n')
    (library / "nn" / "linear.hpp").write_text('#include "llm/tensor/shape.hpp"\n')
    (library / "tensor" / "tensor.cpp").write_text('  #  include "llm/nn/linear.hpp"\n')
    (library / "error.hpp").write_text('#include "llm/nn/linear.hpp"\n')
    assert upward_includes(library, {"tensor": 0, "nn": 2}) == [
        ("src/llm/error.hpp", "llm/nn/linear.hpp"),
        ("src/llm/tensor/tensor.cpp", "llm/nn/linear.hpp"),
    ]
