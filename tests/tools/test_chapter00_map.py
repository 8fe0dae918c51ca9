"""Tests of chapter 00's map data (chapters/00-llm-parts/figures.py).

The map is drawn from model_parts.json; loading it checks that every chapter
number is in the course and that every chapter from 1 to 40 builds a part, so
a wrong map fails the page instead of drawing a wrong figure.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import types
from pathlib import Path
from typing import Any, Callable

import pytest

from tools import figures

REPOSITORY = Path(__file__).resolve().parents[2]
CHAPTER = "00-llm-parts"


def load_map_module(tmp_path: Path, edit: Callable[[dict[str, Any]], Any] | None = None) -> types.ModuleType:
    """A copy of chapter 00 in a temporary repository, its data edited by ``edit``."""
    root = tmp_path / "repo"
    folder = root / "chapters" / CHAPTER
    shutil.copytree(REPOSITORY / "chapters" / CHAPTER, folder)
    (root / "chapters" / "06-bigram-baseline").mkdir()
    (root / "chapters" / "06-bigram-baseline" / "chapter.md").write_text("# 06\n")
    if edit is not None:
        data = json.loads((folder / "model_parts.json").read_text())
        edit(data)
        (folder / "model_parts.json").write_text(json.dumps(data))
    spec = importlib.util.spec_from_file_location("chapter00_figures_test", folder / "figures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    figures.begin(figures.RenderContext(slug=CHAPTER, asset_dir=tmp_path / "assets", asset_prefix=CHAPTER))
    return module


def part(data: dict[str, Any], part_id: str) -> dict[str, Any]:
    """The entry of part ``part_id`` in the map's data."""
    return next(entry for entry in data["parts"] if entry["id"] == part_id)


def test_the_committed_map_builds_every_chapter_and_links_written_ones(tmp_path: Path) -> None:
    module = load_map_module(tmp_path)
    model = module.model_map()
    mapped = {number for entry in model.parts.values() for number in entry.chapters}
    assert set(range(1, 40)) <= mapped | set(model.groups["block"]["chapters"])
    assert module.chapter_link(model, 6) == "[6](06-bigram-baseline.md)"
    assert module.chapter_link(model, 23) == "23"
    dot = module.system_figure(model)
    assert 'HREF="../chapters/06-bigram-baseline.html" TARGET="_top"' in dot
    assert "../chapters/23-" not in dot


def test_a_chapter_that_builds_no_part_fails(tmp_path: Path) -> None:
    module = load_map_module(tmp_path, lambda data: part(data, "sampler")["chapters"].remove(36))
    with pytest.raises(ValueError, match=r"chapters \[36\] build no part of the model"):
        module.model_map()


def test_a_chapter_outside_the_course_fails(tmp_path: Path) -> None:
    module = load_map_module(tmp_path, lambda data: part(data, "checkpoint").update(chapters=[41]))
    with pytest.raises(ValueError, match=r"chapter 41 is not in the course"):
        module.model_map()


def test_a_flow_between_unknown_parts_fails(tmp_path: Path) -> None:
    module = load_map_module(tmp_path, lambda data: data["flow"].append({"from": "text", "to": "decoder"}))
    with pytest.raises(ValueError, match=r"flow text -> decoder names unknown part 'decoder'"):
        module.model_map()
