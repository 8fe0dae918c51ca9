"""Checks of statements made by chapters 13 and 15 (issue 10: four wrong
statements, and the facts the pages and demos rest on).

Each test fails if a statement the teaching pass corrected comes back, or if
a fact a printed line asserts stops being true of the code.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHAPTER_13 = ROOT / "chapters" / "13-gradient-checking"
CHAPTER_15 = ROOT / "chapters" / "15-tensor-autodiff-core"


def region(path: Path, name: str) -> str:
    """The text between ``// region: name`` and ``// endregion: name``."""
    text = path.read_text(encoding="utf-8")
    match = re.search(rf"// region: {re.escape(name)}\n(.*?)// endregion: {re.escape(name)}\n", text, re.S)
    assert match, f"{path.name} has no region {name}"
    return match.group(1)


def words(path: Path) -> str:
    """The page's prose with line breaks folded, lower-cased."""
    return " ".join(path.read_text(encoding="utf-8").split()).lower()


def test_chapter_13_never_calls_its_checker_independent() -> None:
    # The two NLL paths share inputs, double arithmetic and std::exp: the
    # checker is a separate witness, not an independent one.
    text = words(CHAPTER_13 / "chapter.md")
    assert "independent witness" not in text
    assert "not an independent one" in text


def test_chapter_13_analytic_path_calls_no_course_probability_code() -> None:
    # The demo prints material_course_path_shared=false; that holds only while
    # the hand-derived gradient calls no llm:: function but the Tensor API.
    body = region(CHAPTER_13 / "fixtures.cpp", "hand-derived-nll-gradient")
    called = set(re.findall(r"llm::(\w+)\s*\(", body))
    allowed = {"Tensor", "shape_text"}
    assert called <= allowed, f"the analytic path calls course code: {sorted(called - allowed)}"
    assert "material_course_path_shared = false" in (CHAPTER_13 / "fixtures.hpp").read_text(encoding="utf-8")


def test_chapter_15_gives_the_detached_product_no_edge_to_the_constant() -> None:
    # detach(p)*c has two untracked operands: it is recorded untracked and
    # keeps no edges (tests/autograd/tensor_value_test.cpp checks the tape).
    text = words(CHAPTER_15 / "chapter.md")
    assert "the edge exists, but without a rule" not in text
    assert "keeps no edges at all: there is no edge to `c`" in text


def test_chapter_15_says_the_jacobian_transpose_is_not_the_transpose_operation() -> None:
    text = words(CHAPTER_15 / "chapter.md")
    assert "two different things are called a transpose here" in text


def test_chapter_15_demo_prints_the_reference_labels_of_its_rejected_requests() -> None:
    # The printed labels are the reference edition's; a rename would break
    # the byte-for-byte output only at run time, this fails at once.
    errors = (CHAPTER_15 / "errors.cpp").read_text(encoding="utf-8")
    labels = re.findall(r'rejected\("([a-z-]+)"', errors)
    assert labels == ["seed-shape", "non-finite-seed", "graph-released", "non-finite-accumulated-gradient"]
