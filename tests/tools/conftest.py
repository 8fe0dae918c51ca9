"""Shared setup of the tools/ test suites: the repository root is importable, and
the temporary chapter the tools.demo suites work in (test_demo.py, test_demo_sync.py,
test_stale.py) is a fixture every suite can request."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPOSITORY_ROOT = Path(__file__).resolve().parents[2]
if str(REPOSITORY_ROOT) not in sys.path:
    sys.path.insert(0, str(REPOSITORY_ROOT))

#: The chapter folder the tools.demo suites create in their temporary repository.
DEMO_SLUG = "14-scalar-autodiff"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A repository root with an empty chapter folder."""
    root = tmp_path / "repo"
    (root / "chapters" / DEMO_SLUG).mkdir(parents=True)
    return root


@pytest.fixture
def run_dir(root: Path) -> Path:
    """The chapter's run directory under the temporary build/."""
    return root / "build" / "chapters" / DEMO_SLUG
