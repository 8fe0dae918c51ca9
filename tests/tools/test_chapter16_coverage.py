"""Tests of chapter 16's rule-coverage table (chapters/16-model-autodiff-ops/figures.py).

The page says which reverse rules a handwritten calculation checks. The
table that says it is built from the names of the tensors the fixtures
actually compared, and it refuses to render a claim the run did not back,
so the statement "every rule is checked twice" cannot come back unnoticed.
"""

from __future__ import annotations

import copy
import importlib.util
import types
from pathlib import Path
from typing import Any

import pytest

from tools import figures

REPOSITORY = Path(__file__).resolve().parents[2]
CHAPTER = "16-model-autodiff-ops"
RULES = ["matmul-left", "matmul-right", "gather_rows", "exp", "log", "silu", "log_softmax", "indexed_mean_nll"]


def load_figures(tmp_path: Path) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("chapter16_figures_test", REPOSITORY / "chapters" / CHAPTER / "figures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    figures.begin(figures.RenderContext(slug=CHAPTER, asset_dir=tmp_path / "assets", asset_prefix=CHAPTER))
    return module


# The compared-tensor names of a run, as the fixtures record them.
TRACE: dict[str, Any] = {
    "gradchecks": {"checks": [{"operation": rule, "passed": True} for rule in RULES]},
    "baseline": {"compared": ["loss-logit gradient", "gradient through SiLU", "gathered-row gradient",
                              "embedding gradient", "weight gradient"]},
    "asymmetric": {"baseline": {"compared": ["logit gradient through indexed_mean_nll",
                                             "logit gradient through log_softmax",
                                             "asymmetric gradient through SiLU", "asymmetric weight gradient"]}},
}


def test_exp_and_log_are_the_rules_checked_numerically_only(tmp_path: Path) -> None:
    module = load_figures(tmp_path)
    assert module.numerical_only_rules(TRACE) == ["exp", "log"]
    assert len(module.handwritten_rules(TRACE)) == 6
    text = module.coverage_table(TRACE)
    assert "* - `exp`\n  - none\n  - pass" in text
    assert "asymmetric chain (logit gradient through log_softmax)" in text


def test_a_comparison_the_run_did_not_make_fails_the_page(tmp_path: Path) -> None:
    module = load_figures(tmp_path)
    trace = copy.deepcopy(TRACE)
    trace["asymmetric"]["baseline"]["compared"].remove("logit gradient through log_softmax")
    with pytest.raises(ValueError, match="did not compare 'logit gradient through log_softmax'"):
        module.coverage_table(trace)


def test_a_checked_rule_without_a_coverage_entry_fails_the_page(tmp_path: Path) -> None:
    module = load_figures(tmp_path)
    trace = copy.deepcopy(TRACE)
    trace["gradchecks"]["checks"].append({"operation": "tanh", "passed": True})
    with pytest.raises(ValueError, match="no handwritten-coverage entry for the checked rule 'tanh'"):
        module.coverage_table(trace)
