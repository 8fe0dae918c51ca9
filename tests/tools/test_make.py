"""The Makefile: its reading of SYNC (issue 16, item 4), and the *_ARGS variables, passed word by word."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def make(*arguments: str) -> subprocess.CompletedProcess[str]:
    """``make`` in the repository root, with this suite's arguments."""
    return subprocess.run(["make", "--no-print-directory", *arguments], cwd=ROOT, capture_output=True, text=True)


@pytest.mark.parametrize(
    ("value", "on"),
    [("1", True), ("yes", True), ("true", True), ("YES", True), ("0", False), ("no", False), ("false", False),
     ("", False)],
)
def test_sync_values_read_as_on_or_off(value: str, on: bool) -> None:
    result = make("-s", "--eval", "show-sync: ; @echo '[$(SYNC_ON)]'", "show-sync", f"SYNC={value}")
    assert result.returncode == 0, result.stderr
    assert result.stdout == ("[1]\n" if on else "[]\n")


@pytest.mark.parametrize("value", ["maybe", "2", "1 2", "y"])
def test_any_other_sync_value_stops_make_chapter_before_anything_runs(tmp_path: Path, value: str) -> None:
    build = tmp_path / "build"
    result = make("chapter-14", f"SYNC={value}", f"BUILD={build}")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.endswith(
        f"*** SYNC='{value}' is neither on nor off: write SYNC=1 (or yes, true) to accept the demo's output, "
        "or leave SYNC out.  Stop.\n"
    )
    assert not build.exists()  # nothing configured, built or run


def test_other_targets_ignore_sync(tmp_path: Path) -> None:
    result = make("help", "SYNC=maybe")
    assert result.returncode == 0 and "make chapter-NN SYNC=1" in result.stdout


@pytest.mark.parametrize(
    ("value", "words"),
    [("--benchmark_filter=decoder_(step|forward)", ["--benchmark_filter=decoder_(step|forward)"]),
     ("--restart  --stop-after 100", ["--restart", "--stop-after", "100"]),
     ("--config it's.json *.cpp ;x $HOME", ["--config", "it's.json", "*.cpp", ";x", "$HOME"]),
     ("", [])],
)
def test_shell_words_hands_each_word_to_the_program_as_typed(value: str, words: list[str]) -> None:
    # $$ in the value is make's escape for one $, as a user writes it on make's command line.
    result = make("-s", "--eval", 'show-words: ; @for word in $(call shell_words,$(WORDS)); do echo "<$$word>"; done',
                  "show-words", f"WORDS={value.replace('$', '$$')}")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "".join(f"<{word}>\n" for word in words)


@pytest.mark.parametrize("target, variable", [("bench", "BENCH_ARGS"), ("train", "TRAIN_ARGS"),
                                              ("generate", "GENERATE_ARGS"), ("train-anchor", "ANCHOR_ARGS")])
def test_args_variables_are_quoted_word_by_word(target: str, variable: str) -> None:
    result = make("-n", target, f"{variable}=--benchmark_filter=a|b --two")  # -n: print, run nothing
    assert result.returncode == 0, result.stderr
    assert " '--benchmark_filter=a|b' '--two'" in result.stdout
