"""The Python modules of tools/ and book/_ext import each other without a circle.

An import circle makes a module's names depend on which module was loaded
first (Sphinx loads the extensions in the order of conf.py); each side must
then import lazily inside a function, which hides the dependency. The graph
is read from the source with ``ast``, so a lazy import counts too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def import_graph(directory: Path, package: str | None) -> dict[str, set[str]]:
    """Module name -> the modules of the same folder it imports (anywhere in its body)."""
    modules = {path.stem: path for path in directory.glob("*.py") if path.stem != "__init__"}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        imported: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module is not None:
                names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            else:
                continue
            for full in names:
                local = full.removeprefix(f"{package}.") if package else full
                if local in modules and local != name:
                    imported.add(local)
        graph[name] = imported
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle as ``[a, b, ..., a]``, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    path: list[str] = []

    def visit(name: str) -> list[str] | None:
        state[name] = 1
        path.append(name)
        for other in sorted(graph[name]):
            if state.get(other) == 1:
                return path[path.index(other):] + [other]
            if other not in state:
                found = visit(other)
                if found:
                    return found
        path.pop()
        state[name] = 2
        return None

    for name in sorted(graph):
        if name not in state:
            found = visit(name)
            if found:
                return found
    return None


@pytest.mark.parametrize("folder, package", [("book/_ext", None), ("tools", "tools")])
def test_no_import_circle(folder: str, package: str | None) -> None:
    graph = import_graph(ROOT / folder, package)
    assert graph, f"no modules found in {folder}"
    cycle = find_cycle(graph)
    assert cycle is None, f"{folder}: import circle {' -> '.join(cycle or [])}"


def test_the_check_finds_a_circle(tmp_path: Path) -> None:
    (tmp_path / "first.py").write_text("import second\n")
    (tmp_path / "second.py").write_text("def late():\n    from first import x\n")
    (tmp_path / "third.py").write_text("import first\n")
    assert find_cycle(import_graph(tmp_path, None)) == ["first", "second", "first"]


def test_llm_links_builds_on_llm_book_not_the_reverse() -> None:
    graph = import_graph(ROOT / "book" / "_ext", None)
    assert "llm_book" in graph["llm_links"]
    assert "llm_links" not in graph["llm_book"]
