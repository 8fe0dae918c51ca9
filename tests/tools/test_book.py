"""Tests of the build lock and the Sphinx step (issue 7, item 7).

Two builds in one build directory take turns on ``build.lock``, the waiting
one saying whom it waits for; the Sphinx step writes its stamp only after a
success, rebuilds from scratch after an interrupted or failed run, and keeps
the search index as complete as a clean build's after an incremental one.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tools import book, buildlock

REPOSITORY = Path(__file__).resolve().parents[2]


def locked_shell(lock: Path, what: str, then: str) -> subprocess.Popen[str]:
    """A shell that locks ``lock`` as the Makefile's recipes do, prints 'locked', then runs ``then``."""
    script = (
        f"exec 9>>{lock} && {sys.executable} -m tools.buildlock --fd 9 --lock-file {lock} "
        f"--what '{what}' && echo locked && {then}"
    )
    return subprocess.Popen(["bash", "-c", script], cwd=REPOSITORY, stdout=subprocess.PIPE, text=True)


def test_a_second_build_waits_for_the_first_and_says_so(tmp_path: Path) -> None:
    lock = tmp_path / "build" / "build.lock"
    lock.parent.mkdir()
    first = locked_shell(lock, "make book", "sleep 1.5")
    assert first.stdout is not None and first.stdout.readline() == "locked\n"
    second = locked_shell(lock, "make test", "echo second-ran")
    output, _ = second.communicate(timeout=30)
    first.wait(timeout=30)
    assert output == (
        f"make test: waiting for make book (pid {first.pid}) to finish with {lock.parent}/ (lock {lock}) ...\n"
        f"make test: {lock.parent}/ is free, continuing\nlocked\nsecond-ran\n"
    )
    assert lock.read_text() == f"{second.pid} make test\n"


def test_the_lock_is_released_when_its_holder_is_killed(tmp_path: Path) -> None:
    lock = tmp_path / "build.lock"
    holder = locked_shell(lock, "make book", "sleep 60")
    assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
    holder.kill()
    holder.wait(timeout=10)
    messages: list[str] = []
    started = time.monotonic()
    with buildlock.hold(lock, "sphinx", report=messages.append):
        assert messages == [] and time.monotonic() - started < 5
        assert lock.read_text() == f"{os.getpid()} sphinx\n"


def test_hold_waits_for_a_holder_and_reports_it(tmp_path: Path) -> None:
    lock = tmp_path / "build.lock"
    holder = locked_shell(lock, "make book", "sleep 1")
    assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
    messages: list[str] = []
    started = time.monotonic()
    with buildlock.hold(lock, "sphinx", report=messages.append):
        waited = time.monotonic() - started
    holder.wait(timeout=10)
    assert waited > 0.5  # acquired only once the holder's "sleep 1" had ended
    assert messages == [
        f"sphinx: waiting for make book (pid {holder.pid}) to finish with {tmp_path}/ (lock {lock}) ...",
        f"sphinx: {tmp_path}/ is free, continuing",
    ]


def test_a_step_inside_a_locked_make_does_not_wait_for_its_own_make(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lock = tmp_path / "build.lock"
    holder = locked_shell(lock, "make book", "sleep 30")
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        monkeypatch.setenv(buildlock.HELD_VARIABLE, str(tmp_path / "." / "build.lock"))
        messages: list[str] = []
        with buildlock.hold(lock, "sphinx", report=messages.append):
            assert messages == []
    finally:
        holder.kill()
        holder.wait()


# --- The Sphinx step ----------------------------------------------------------

FAKE_SPHINX = """\
#!/bin/sh
# Stands in for "python3 -m sphinx ...": logs its arguments and what it found, then
# acts as told by the file 'behaviour' (ok, fail or hang).
here=$(dirname "$0")
shift 2  # -m sphinx
eval "output=\\${$#}"
echo "args: $*" >> "$here/log"
[ -e "$output/leftover" ] && echo "found leftover" >> "$here/log"
mkdir -p "$output" && echo "<html>" > "$output/index.html"
case $(cat "$here/behaviour") in
  fail) echo "index.md:3: WARNING: broken" >&2; exit 2 ;;
  hang) exec sleep 60 ;;
esac
"""


@pytest.fixture
def step(tmp_path: Path) -> dict[str, Path]:
    """A build folder and a fake Sphinx in place of the interpreter."""
    fake = tmp_path / "fake-python"
    fake.write_text(FAKE_SPHINX)
    fake.chmod(0o755)
    build = tmp_path / "build"
    (build / "book").mkdir(parents=True)
    return {"fake": fake, "log": tmp_path / "log", "behaviour": tmp_path / "behaviour",
            "source": build / "book", "output": build / "html", "doctrees": build / "sphinx-doctrees",
            "stamp": build / "html.stamp"}  # fmt: skip


def run_step(step: dict[str, Path], behaviour: str, messages: list[str]) -> int:
    """``tools.book html`` with the fake Sphinx behaving as ``behaviour``."""
    step["behaviour"].write_text(behaviour)
    return book.build_html(
        step["source"], step["output"], step["doctrees"], step["stamp"], python=str(step["fake"]), report=messages.append
    )


def test_a_successful_run_writes_every_page_then_the_stamp(step: dict[str, Path]) -> None:
    messages: list[str] = []
    assert run_step(step, "ok", messages) == 0
    assert step["stamp"].is_file() and not book.marker_for(step["output"]).exists()
    assert step["log"].read_text() == (
        f"args: -W --keep-going -q -a -b html -d {step['doctrees']} {step['source']} {step['output']}\n"
    )
    assert len(messages) == 1 and messages[0].startswith("sphinx: HTML book ... ok (")


def test_a_failed_run_leaves_no_stamp_and_the_next_run_starts_from_scratch(step: dict[str, Path]) -> None:
    messages: list[str] = []
    assert run_step(step, "ok", messages) == 0
    assert run_step(step, "fail", messages) == 2
    assert not step["stamp"].exists() and book.marker_for(step["output"]).exists()
    assert messages[-1] == "sphinx: HTML book ... FAILED (sphinx-build exit status 2); see the warnings above"
    (step["output"] / "leftover").write_text("half-written")
    step["doctrees"].mkdir()
    (step["doctrees"] / "environment.pickle").write_text("stale")
    assert run_step(step, "ok", messages) == 0
    assert messages[-2] == (
        "sphinx: the previous Sphinx run did not finish (interrupted or failed); "
        f"rebuilding {book._display(step['output'])} from scratch"
    )
    assert "found leftover" not in step["log"].read_text()
    assert not step["doctrees"].exists() and step["stamp"].is_file()


def test_an_interrupted_run_is_redone_from_scratch(step: dict[str, Path]) -> None:
    step["behaviour"].write_text("hang")
    code = (
        "import sys; from pathlib import Path; from tools import book; "
        f"sys.exit(book.build_html(Path({str(step['source'])!r}), Path({str(step['output'])!r}), "
        f"Path({str(step['doctrees'])!r}), Path({str(step['stamp'])!r}), python={str(step['fake'])!r}))"
    )
    process = subprocess.Popen([sys.executable, "-c", code], cwd=REPOSITORY, start_new_session=True,
                               stdout=subprocess.PIPE, text=True)  # fmt: skip
    deadline = time.monotonic() + 20
    while not (step["output"] / "index.html").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGINT)  # Ctrl-C reaches the whole process group
    output, _ = process.communicate(timeout=30)
    assert process.returncode == 130
    assert output == "sphinx: interrupted; the next make book rebuilds the HTML from scratch\n"
    assert not step["stamp"].exists() and book.marker_for(step["output"]).exists()
    messages: list[str] = []
    assert run_step(step, "ok", messages) == 0
    assert messages[0].startswith("sphinx: the previous Sphinx run did not finish")


# --- The search index with the real Sphinx -----------------------------------

PAGES = {
    "index.rst": "Book\n====\n\n.. toctree::\n\n   alpha\n   beta\n   gamma\n",
    "alpha.rst": "Alpha\n=====\n\n.. index:: adjoint; seed\n\nThe adjoint of the output is the seed.\n",
    "beta.rst": "Beta\n====\n\n.. index:: tape\n\nA tape records every operation.\n\nUnused\n------\n\nMore words here.\n",
    "gamma.rst": "Gamma\n=====\n\n.. index:: broadcast\n\nBroadcasting repeats a tensor along an axis.\n",
}


def search_index(path: Path) -> dict[str, object]:
    """The JSON object of a ``searchindex.js``."""
    text = path.read_text(encoding="utf-8")
    return json.loads(text[len("Search.setIndex(") : -1])


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_an_incremental_build_keeps_the_search_index_as_complete_as_a_clean_build(tmp_path: Path) -> None:
    def build(folder: Path) -> None:
        with_output = {"source": folder / "source", "output": folder / "html",
                       "doctrees": folder / "doctrees", "stamp": folder / "html.stamp"}  # fmt: skip
        assert book.build_html(**with_output, report=lambda message: None) == 0

    incremental, clean = tmp_path / "incremental", tmp_path / "clean"
    for folder in (incremental, clean):
        (folder / "source").mkdir(parents=True)
        (folder / "source" / "conf.py").write_text("project = 'index test'\n")
        for name, text in PAGES.items():
            (folder / "source" / name).write_text(text)
    build(incremental)
    edited = PAGES["alpha.rst"].replace("of the output", "of the final output")
    time.sleep(0.01)
    (incremental / "source" / "alpha.rst").write_text(edited)
    (clean / "source" / "alpha.rst").write_text(edited)
    build(incremental)
    build(clean)
    after_edit, after_clean = search_index(incremental / "html" / "searchindex.js"), search_index(clean / "html" / "searchindex.js")
    assert after_edit == after_clean
    assert after_edit["docnames"] == ["alpha", "beta", "gamma", "index"]
    assert set(after_edit["indexentries"]) == {"adjoint", "seed", "tape", "broadcast"}  # type: ignore[arg-type]
    assert "final" in after_edit["terms"] and "broadcast" in after_edit["terms"]  # type: ignore[operator]
