"""Tests of tools/demo.py with tiny fake demos written as shell scripts.

Every test works in a temporary repository root passed with ``--root``, so no
test reads or writes the real chapters/ or build/.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import DEMO_SLUG as SLUG  # the root and run_dir fixtures are conftest.py's

from tools import demo, stale

EXPECTED_LABEL = f"chapters/{SLUG}/expected.txt"
WRITE_TRACE = """printf '{"steps": [1, 2]}\\n' > "$2"\n"""


def fake_demo(directory: Path, body: str, name: str = "demo.sh") -> Path:
    """An executable shell script; it is called as ``demo.sh --trace PATH``."""
    script = directory / name
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(0o755)
    return script


def withdrawn(html: Path) -> bool:
    """Whether ``html`` is the notice tools/stale.py puts where a failed chapter's page was."""
    text = html.read_text()
    return "stale" not in text and f"{stale.NOTICE_TITLE}</h1>" in text


def expected(root: Path) -> Path:
    """The chapter's expected.txt."""
    return root / "chapters" / SLUG / "expected.txt"


def run(root: Path, executable: Path, run_dir: Path, timeout: float = 10) -> int:
    """``tools.demo run`` in-process; returns the exit status."""
    return demo.main(
        [
            "run",
            "--root", str(root),
            "--chapter", SLUG,
            "--executable", str(executable),
            "--run-dir", str(run_dir),
            "--timeout", str(timeout),
        ]
    )  # fmt: skip


def command(name: str, root: Path, run_dir: Path) -> int:
    """``tools.demo verify`` in-process; returns the exit status."""
    return demo.main([name, "--root", str(root), "--chapter", SLUG, "--run-dir", str(run_dir)])


# --- run --------------------------------------------------------------------


def test_ok_run_writes_output_and_trace(
    root: Path, run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    executable = fake_demo(tmp_path, "printf 'alpha\\nbeta\\n'\n" + WRITE_TRACE)
    assert run(root, executable, run_dir) == 0
    assert (run_dir / "output.txt").read_bytes() == b"alpha\nbeta\n"
    assert (run_dir / "trace.json").read_text() == '{"steps": [1, 2]}\n'
    out = capsys.readouterr().out
    assert out.startswith("chapter 14: run ... ok (2 lines, ") and out.endswith(" s)\n")


def test_demo_runs_in_repository_root_with_stdin_closed(
    root: Path, run_dir: Path, tmp_path: Path
) -> None:
    body = 'pwd\nif read line; then echo "read: $line"; else echo "stdin at eof"; fi\n'
    executable = fake_demo(tmp_path, body + WRITE_TRACE)
    assert run(root, executable, run_dir) == 0
    assert (run_dir / "output.txt").read_text() == f"{root}\nstdin at eof\n"


def test_nonzero_exit_is_a_failure_showing_stderr(
    root: Path, run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    errors = "for i in $(seq 1 30); do echo err-$i >&2; done\n"
    body = "echo partial\n" + WRITE_TRACE + errors + "exit 3\n"
    executable = fake_demo(tmp_path, body)
    assert run(root, executable, run_dir) == 1
    err = capsys.readouterr().err
    assert "chapter 14: run ... FAILED" in err
    assert f"the demo {executable} exited with status 3" in err
    assert "last 20 lines of its stderr:" in err
    assert "err-30" in err and "err-11" in err and "err-10\n" not in err
    assert not (run_dir / "output.txt").exists()
    assert not (run_dir / "trace.json").exists()


def test_death_by_signal_names_the_signal(
    root: Path, run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    executable = fake_demo(tmp_path, "echo before\necho dying >&2\nkill -SEGV $$\n")
    assert run(root, executable, run_dir) == 1
    err = capsys.readouterr().err
    assert "was killed by signal SIGSEGV" in err
    assert "dying" in err
    assert not (run_dir / "output.txt").exists()


def test_hang_is_killed_after_the_timeout(
    root: Path, run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pid_file = tmp_path / "child.pid"
    body = f"echo started\nsleep 30 &\necho $! > {pid_file}\nwait\n"
    executable = fake_demo(tmp_path, body)
    started = time.monotonic()
    assert run(root, executable, run_dir, timeout=1) == 1
    assert time.monotonic() - started < 8
    err = capsys.readouterr().err
    assert "hung: still running after 1 s; if it needs longer, raise the limit with DEMO_TIMEOUT=SECONDS" in err
    assert not (run_dir / "output.txt").exists()
    assert_process_gone(int(pid_file.read_text()))


def assert_process_gone(pid: int) -> None:
    """The demo's child process was killed with its group (it is gone or a zombie)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return
        if state in ("Z", "X"):
            return
        time.sleep(0.05)
    pytest.fail(f"process {pid} of the hung demo is still running")


def test_missing_trace_is_a_failure(
    root: Path, run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    executable = fake_demo(tmp_path, "echo fine\n")
    assert run(root, executable, run_dir) == 1
    assert "exited with status 0 but wrote no trace" in capsys.readouterr().err
    assert not (run_dir / "output.txt").exists()


def test_invalid_trace_is_a_failure(
    root: Path, run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    executable = fake_demo(tmp_path, "echo fine\necho '{oops' > \"$2\"\n")
    assert run(root, executable, run_dir) == 1
    assert "that is not valid JSON" in capsys.readouterr().err
    assert not (run_dir / "output.txt").exists()
    assert not (run_dir / "trace.json").exists()


def test_missing_executable_is_a_failure(
    root: Path, run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(root, tmp_path / "no-such-demo", run_dir) == 1
    err = capsys.readouterr().err
    assert "cannot be started" in err and "make chapter-14" in err


def test_failed_run_deletes_stale_accepted_output(
    root: Path, run_dir: Path, tmp_path: Path
) -> None:
    good = fake_demo(tmp_path, "echo good\n" + WRITE_TRACE, name="good.sh")
    assert run(root, good, run_dir) == 0
    expected(root).write_bytes(b"good\n")
    assert command("verify", root, run_dir) == 0
    assert (run_dir / "verified.stamp").exists()

    bad = fake_demo(tmp_path, "echo bad\n" + WRITE_TRACE + "exit 1\n", name="bad.sh")
    assert run(root, bad, run_dir) == 1
    for name in ("output.txt", "trace.json", "verified.stamp"):
        assert not (run_dir / name).exists(), name


def test_stale_trace_does_not_satisfy_a_new_run(root: Path, run_dir: Path, tmp_path: Path) -> None:
    good = fake_demo(tmp_path, "echo good\n" + WRITE_TRACE, name="good.sh")
    assert run(root, good, run_dir) == 0
    no_trace = fake_demo(tmp_path, "echo good\n", name="no-trace.sh")
    assert run(root, no_trace, run_dir) == 1


# --- verify and sync ----------------------------------------------------------


def write_output(run_dir: Path, data: bytes) -> None:
    """Pretend a run accepted ``data``."""
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "output.txt").write_bytes(data)


def test_verify_equal_touches_stamp(
    root: Path, run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected(root).write_bytes(b"a\nb\n")
    write_output(run_dir, b"a\nb\n")
    assert command("verify", root, run_dir) == 0
    assert (run_dir / "verified.stamp").exists()
    assert capsys.readouterr().out == "chapter 14: verify ... ok\n"


def test_drift_prints_unified_diff_and_leaves_expected_untouched(
    root: Path, run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected(root).write_bytes(b"loss 1.0\nstep 1\nstep 2\n")
    write_output(run_dir, b"loss 1.0\nstep 1\nstep 3\n")
    (run_dir / "verified.stamp").touch()
    before = expected(root).stat()
    assert command("verify", root, run_dir) == 1
    err = capsys.readouterr().err
    assert f"--- {EXPECTED_LABEL}\n" in err
    assert "+++ demo output (build/chapters/14-scalar-autodiff/output.txt)\n" in err
    assert "-step 2\n+step 3\n" in err
    assert err.endswith(
        f"chapter 14: output drifted from {EXPECTED_LABEL}; "
        "to accept the demo's output run: make chapter-14 SYNC=1\n"
    )
    assert expected(root).read_bytes() == b"loss 1.0\nstep 1\nstep 2\n"
    assert expected(root).stat().st_mtime_ns == before.st_mtime_ns
    assert not (run_dir / "verified.stamp").exists()


def test_drift_withdraws_the_checkpoint_the_run_left(root: Path, run_dir: Path) -> None:
    """A program must not read a checkpoint whose run's output was refused (chapter 39, llm-generate)."""
    expected(root).write_bytes(b"a\n")
    write_output(run_dir, b"b\n")
    (run_dir / "checkpoint.llmcp").write_bytes(b"rejected model")
    (run_dir / "notes.txt").write_text("kept")
    assert command("verify", root, run_dir) == 1
    assert not (run_dir / "checkpoint.llmcp").exists()
    assert (run_dir / "notes.txt").read_text() == "kept"
    assert (run_dir / "output.txt").read_bytes() == b"b\n"


def test_trailing_newline_drift_is_shown(
    root: Path, run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected(root).write_bytes(b"a\nb\n")
    write_output(run_dir, b"a\nb")
    assert command("verify", root, run_dir) == 1
    err = capsys.readouterr().err
    assert "-b\n+b\n\\ No newline at end of file\n" in err
    assert "note: expected.txt ends with a newline and the demo output does not" in err


def test_crlf_drift_is_noted(root: Path, run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected(root).write_bytes(b"a\n")
    write_output(run_dir, b"a\r\n")
    assert command("verify", root, run_dir) == 1
    assert "the demo output has CRLF" in capsys.readouterr().err


def test_trailing_whitespace_drift_is_made_visible(
    root: Path, run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected(root).write_bytes(b"a\nvalue=1 \n")
    write_output(run_dir, b"a\nvalue=1\n")
    assert command("verify", root, run_dir) == 1
    err = capsys.readouterr().err
    assert "note: line 2 differs only in trailing whitespace: expected.txt has 'value=1 ', the demo output has 'value=1'" in err


def test_failed_verify_deletes_the_pages_built_from_the_output(
    root: Path, run_dir: Path, tmp_path: Path
) -> None:
    expected(root).write_bytes(b"old\n")
    write_output(run_dir, b"new\n")
    page, html = tmp_path / "page.md", tmp_path / "page.html"
    page.write_text("stale"), html.write_text("stale")
    arguments = ["verify", "--root", str(root), "--chapter", SLUG, "--run-dir", str(run_dir)]
    assert demo.main([*arguments, "--stale", str(page), "--stale", str(html)]) == 1
    assert not page.exists()
    assert withdrawn(html) and "output drifted from" in html.read_text()
    assert expected(root).read_bytes() == b"old\n"


def test_verify_without_expected_says_how_to_create_it(
    root: Path, run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_output(run_dir, b"a\n")
    assert command("verify", root, run_dir) == 1
    err = capsys.readouterr().err
    assert f"{EXPECTED_LABEL} does not exist" in err and "make chapter-14 SYNC=1" in err
    assert not expected(root).exists()


def test_verify_without_output(
    root: Path, run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected(root).write_bytes(b"a\n")
    assert command("verify", root, run_dir) == 1
    assert "no demo output build/chapters/14-scalar-autodiff/output.txt" in capsys.readouterr().err


# --- check, slugs and the module entry point --------------------------------


def check(root: Path, executable: Path) -> int:
    """``tools.demo check`` in-process; returns the exit status."""
    arguments = ["check", "--root", str(root), "--chapter", SLUG]
    return demo.main(arguments + ["--executable", str(executable), "--timeout", "10"])


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` and its content."""
    return {str(path): path.read_bytes() for path in root.rglob("*") if path.is_file()}


def test_check_passes_and_writes_nothing(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected(root).write_bytes(b"same\n")
    executable = fake_demo(tmp_path, "echo same\n" + WRITE_TRACE)
    before = snapshot(root)
    assert check(root, executable) == 0
    assert snapshot(root) == before
    assert capsys.readouterr().out.endswith("chapter 14: check ... ok\n")


def test_check_fails_on_drift_and_writes_nothing(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected(root).write_bytes(b"same\n")
    executable = fake_demo(tmp_path, "echo different\n" + WRITE_TRACE)
    before = snapshot(root)
    assert check(root, executable) == 1
    assert snapshot(root) == before
    assert "-same\n+different\n" in capsys.readouterr().err


@pytest.mark.parametrize("slug", ["scalar-autodiff", "14_scalar", "14-Scalar", "../14-x"])
def test_malformed_slug(
    root: Path, run_dir: Path, slug: str, capsys: pytest.CaptureFixture[str]
) -> None:
    arguments = ["--root", str(root), "--chapter", slug, "--run-dir", str(run_dir)]
    status = demo.main(["verify", *arguments])
    assert status == 1
    assert "is not of the form NN-kebab-name" in capsys.readouterr().err


def test_unknown_chapter(root: Path, run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    arguments = ["--root", str(root), "--chapter", "99-nope", "--run-dir", str(run_dir)]
    status = demo.main(["verify", *arguments])
    assert status == 1
    assert "chapter 99: no chapter folder" in capsys.readouterr().err


def test_module_entry_point(root: Path, run_dir: Path, tmp_path: Path) -> None:
    executable = fake_demo(tmp_path, "echo hi\n" + WRITE_TRACE)
    expected(root).write_bytes(b"ho\n")
    common = ["--root", str(root), "--chapter", SLUG]
    repository = Path(demo.__file__).resolve().parent.parent
    environment = {**os.environ, "PYTHONPATH": str(repository)}

    def tool(*arguments: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "tools.demo", *arguments],
            cwd=repository,
            env=environment,
            capture_output=True,
            text=True,
            check=False,
        )

    ran = tool("run", *common, "--executable", str(executable), "--timeout", "10",
               "--run-dir", str(run_dir))  # fmt: skip
    assert (ran.returncode, ran.stderr) == (0, "")
    assert ran.stdout.startswith("chapter 14: run ... ok (1 line, ")
    verified = tool("verify", *common, "--run-dir", str(run_dir))
    assert verified.returncode == 1 and verified.stdout == ""
    assert "-ho\n+hi\n" in verified.stderr
