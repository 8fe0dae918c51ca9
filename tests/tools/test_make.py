"""The Makefile: its reading of SYNC (issue 16, item 4), the *_ARGS variables, passed word by word,
and the programs behind make generate and make train alone on stdout."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def make(*arguments: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``make`` in the repository root, with this suite's arguments."""
    return subprocess.run(["make", "--no-print-directory", *arguments], cwd=ROOT, capture_output=True, text=True,
                          env=env)


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


def _executable(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(0o755)


@pytest.mark.parametrize("target, program", [("generate", "llm-generate"), ("train", "llm-train")])
def test_the_program_is_alone_on_stdout_and_the_build_speaks_on_stderr(tmp_path: Path, target: str, program: str) -> None:
    # A cmake that configures nothing and builds as ninja does when all is up to date.
    tools = tmp_path / "bin"
    tools.mkdir()
    _executable(tools / "cmake", '#!/bin/sh\necho "ninja: no work to do."\n')
    build = tmp_path / "build"
    build.mkdir()
    _executable(build / program, f'#!/bin/sh\necho "{program} ran"\n')
    checkpoint = tmp_path / "checkpoint.llmcp"
    checkpoint.write_bytes(b"")
    env = {**os.environ, "PATH": f"{tools}:{os.environ['PATH']}"}
    result = make(target, f"BUILD={build}", f"CHECKPOINT={checkpoint}", env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{program} ran\n"
    assert "ninja: no work to do." in result.stderr


def test_make_train_anchor_builds_with_its_output_on_stderr() -> None:
    lines = make("-n", "train-anchor").stdout.splitlines()
    builds = [line for line in lines if line.startswith("cmake --build ") or "cmake -S . -B" in line]
    assert len(builds) == 2 and all(line.endswith(">&2") for line in builds), builds
