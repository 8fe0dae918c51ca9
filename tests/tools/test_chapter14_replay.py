"""Tests of chapter 14's bug replay and asymmetric check (chapters/14-scalar-autodiff/figures.py).

The page shows what a swapped product rule and ``=`` for ``+=`` would make of
each traced pass, and refuses to render when the asymmetric example fails its
central-difference check. These tests feed the functions a hand-made trace of
``x*y + x`` at x = 2, y = 5, in the order the tape processes its edges.
"""

from __future__ import annotations

import copy
import importlib.util
import types
from pathlib import Path
from typing import Any

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]


def load_figures() -> types.ModuleType:
    path = REPOSITORY / "chapters" / "14-scalar-autodiff" / "figures.py"
    spec = importlib.util.spec_from_file_location("chapter14_figures_test", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def node(index: int, name: str, operation: str, value: float, adjoint: float) -> dict[str, Any]:
    return {"index": index, "name": name, "operation": operation, "value": value,
            "tracked": True, "pass_adjoint": adjoint}


def edge(step: int, result: int, result_operation: str, operand: int, value: float, local: float) -> dict[str, Any]:
    return {"reverse_index": step, "result_index": result, "result_operation": result_operation,
            "operand_index": operand, "operand_value": value, "local_derivative": local}


def check(analytic: float, numerical: float) -> dict[str, Any]:
    return {"analytic": analytic, "numerical": numerical, "passed": analytic == numerical,
            "scaled_error": abs(analytic - numerical) / max(1.0, abs(analytic), abs(numerical))}


# x*y + x: topology x, y, product, loss; loss's edges first, then product's.
ASYMMETRIC = {
    "expression": "x*y+x", "x": 2.0, "y": 5.0, "seed": 1.0,
    "nodes": [node(0, "x", "parameter", 2.0, 6.0), node(1, "y", "parameter", 5.0, 2.0),
              node(2, "product", "mul", 10.0, 1.0), node(3, "loss", "add", 12.0, 1.0)],
    "edges": [edge(0, 3, "add", 2, 10.0, 1.0), edge(1, 3, "add", 0, 2.0, 1.0),
              edge(2, 2, "mul", 0, 2.0, 5.0), edge(3, 2, "mul", 1, 5.0, 2.0)],
    "x_check": check(6.0, 6.0), "y_check": check(2.0, 2.0),
}


def test_replay_reproduces_the_traced_adjoints() -> None:
    assert load_figures().replay(ASYMMETRIC) == {"x": 6.0, "y": 2.0, "product": 1.0, "loss": 1.0}


def test_a_swapped_product_rule_gives_each_operand_its_own_value() -> None:
    swapped = load_figures().replay(ASYMMETRIC, swap_product=True)
    assert (swapped["x"], swapped["y"]) == (3.0, 5.0)


def test_assignment_keeps_only_the_last_contribution() -> None:
    assigned = load_figures().replay(ASYMMETRIC, assign=True)
    assert (assigned["x"], assigned["y"]) == (5.0, 2.0)


def test_the_page_refuses_a_failed_asymmetric_check() -> None:
    figures = load_figures()
    figures.check_asymmetric(ASYMMETRIC)
    broken = copy.deepcopy(ASYMMETRIC)
    broken["x_check"] = check(3.0, 6.0)
    with pytest.raises(ValueError, match="fails its gradient check in x: reverse mode gives 3.0"):
        figures.check_asymmetric(broken)
