"""Tests of ``tools.demo sync`` and of output no page can show (issue 7, items 3 and 4).

``sync`` runs the demo twice and writes expected.txt only from two identical
runs of valid UTF-8 text; ``verify`` notes and refuses output that is not
UTF-8, and records expected.txt in a depfile so that the build never needs
Ninja to know the file exists.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_demo import EXPECTED_LABEL, SLUG, WRITE_TRACE, command, expected, fake_demo, withdrawn, write_output

from tools import demo


def sync(root: Path, executable: Path) -> int:
    """``tools.demo sync`` in-process; returns the exit status."""
    arguments = ["sync", "--root", str(root), "--chapter", SLUG]
    return demo.main(arguments + ["--executable", str(executable), "--timeout", "10"])


def test_sync_runs_the_demo_twice_then_verify_passes(
    root: Path, run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    counter = tmp_path / "runs"
    executable = fake_demo(tmp_path, f"echo run >> {counter}\nprintf 'new\\n'\n" + WRITE_TRACE)
    expected(root).write_bytes(b"old\n")
    assert sync(root, executable) == 0
    out = capsys.readouterr().out
    assert out.startswith("chapter 14: sync run 1 ... ok (1 line, ")
    assert "\nchapter 14: sync run 2 ... ok (1 line, " in out
    assert "-old\n+new\n" in out and out.endswith("chapter 14: expected.txt updated\n")
    assert counter.read_text() == "run\nrun\n"
    assert expected(root).read_bytes() == b"new\n"
    write_output(run_dir, b"new\n")
    assert command("verify", root, run_dir) == 0
    assert sync(root, executable) == 0
    assert capsys.readouterr().out.endswith("chapter 14: expected.txt already matches\n")


def test_sync_creates_a_missing_expected(root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    executable = fake_demo(tmp_path, "printf 'first\\n'\n" + WRITE_TRACE)
    assert sync(root, executable) == 0
    assert expected(root).read_bytes() == b"first\n"
    assert capsys.readouterr().out.endswith("chapter 14: expected.txt created\n")


def test_sync_refuses_nondeterministic_output_naming_the_first_differing_line(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Like printf("%p", &local): the second line changes from run to run.
    counter = tmp_path / "runs"
    body = f"echo x >> {counter}\nprintf 'loss 1.0\\nat 0x%s\\nend\\n' \"$(wc -l < {counter})\"\n"
    executable = fake_demo(tmp_path, body + WRITE_TRACE)
    expected(root).write_bytes(b"keep\n")
    before = expected(root).stat()
    assert sync(root, executable) == 1
    err = capsys.readouterr().err
    assert err == (
        "chapter 14: sync ... REFUSED: the demo's output is nondeterministic: two runs printed "
        "different text, first at line 2: the first run printed 'at 0x1', the second 'at 0x2' "
        "(the second run sees the clock 397 days, 7 hours and 13 minutes later, the time zone "
        "UTC+05:45 and its stack at another address). Output that changes from run to run (an "
        "address, a time or date, the order of an unordered container) can never match "
        "expected.txt; make the demo print only what it computes. "
        f"{EXPECTED_LABEL} is unchanged.\n"
    )
    assert expected(root).read_bytes() == b"keep\n"
    assert expected(root).stat().st_mtime_ns == before.st_mtime_ns
    assert list(expected(root).parent.iterdir()) == [expected(root)]  # no temporary file left


def test_sync_refuses_output_that_only_one_run_ends_with_a_newline(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    counter = tmp_path / "runs"
    body = f"echo x >> {counter}\nprintf 'a\\nb'\n[ \"$(wc -l < {counter})\" = 2 ] && printf '\\n'\n"
    executable = fake_demo(tmp_path, body + WRITE_TRACE)
    assert sync(root, executable) == 1
    assert "first at line 2: only the second run ends it with a newline (the second run" in capsys.readouterr().err
    assert not expected(root).exists()


def test_sync_refuses_output_that_is_not_utf8_naming_offset_and_line(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    executable = fake_demo(tmp_path, "printf 'ok\\nvalue \\377\\n'\n" + WRITE_TRACE)
    expected(root).write_bytes(b"keep\n")
    assert sync(root, executable) == 1
    assert capsys.readouterr().err == (
        "chapter 14: sync ... REFUSED: the demo's output is not valid UTF-8: byte 0xff at byte "
        f"offset 9 (line 2); the book's pages are UTF-8 text. {EXPECTED_LABEL} is unchanged.\n"
    )
    assert expected(root).read_bytes() == b"keep\n"


def test_sync_refuses_a_failing_demo_and_keeps_expected(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    executable = fake_demo(tmp_path, "echo partial\necho boom >&2\nexit 3\n")
    expected(root).write_bytes(b"keep\n")
    assert sync(root, executable) == 1
    assert "exited with status 3" in capsys.readouterr().err
    assert expected(root).read_bytes() == b"keep\n"


def test_verify_notes_and_refuses_output_that_is_not_utf8(
    root: Path, run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected(root).write_bytes(b"a\nb\n")
    write_output(run_dir, b"a\nb\xc3\n")
    assert command("verify", root, run_dir) == 1
    err = capsys.readouterr().err
    assert "note: the demo output is not valid UTF-8: byte 0xc3 at byte offset 3 (line 2)\n" in err
    assert not (run_dir / "verified.stamp").exists()


def test_verify_refuses_non_utf8_output_even_when_expected_holds_the_same_bytes(
    root: Path, run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected(root).write_bytes(b"\xff\n")
    write_output(run_dir, b"\xff\n")
    assert command("verify", root, run_dir) == 1
    assert capsys.readouterr().err == (
        "chapter 14: demo output (build/chapters/14-scalar-autodiff/output.txt) "
        "is not valid UTF-8: byte 0xff at byte offset 0 (line 1); no page can show it. Make the "
        "demo print UTF-8 text, then run: make chapter-14 SYNC=1\n"
    )
    assert not (run_dir / "verified.stamp").exists()


def test_verify_writes_a_depfile_naming_expected(root: Path, run_dir: Path) -> None:
    expected(root).write_bytes(b"a\n")
    write_output(run_dir, b"a\n")
    depfile = run_dir / "verified.d"
    arguments = ["verify", "--root", str(root), "--chapter", SLUG, "--run-dir", str(run_dir)]
    assert demo.main([*arguments, "--depfile", str(depfile)]) == 0
    assert depfile.read_text() == f"{run_dir / 'verified.stamp'}: {expected(root)}\n"


def test_verify_without_expected_names_the_file_and_the_sync_command(
    root: Path, run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_output(run_dir, b"a\n")
    page, html = tmp_path / "page.md", tmp_path / "page.html"
    page.write_text("stale"), html.write_text("stale")
    depfile = run_dir / "verified.d"
    arguments = ["verify", "--root", str(root), "--chapter", SLUG, "--run-dir", str(run_dir)]
    assert demo.main([*arguments, "--depfile", str(depfile), "--stale", str(page), "--stale", str(html)]) == 1
    assert capsys.readouterr().err == (
        f"chapter 14: {EXPECTED_LABEL} does not exist; to create it from the demo's output "
        "run: make chapter-14 SYNC=1\n"
    )
    assert not page.exists() and withdrawn(html) and not depfile.exists()
    assert not (run_dir / "verified.stamp").exists()


# --- issue 16, item 4: the second run in another environment; a refused sync withdraws the page ---


@pytest.mark.parametrize(
    ("printed", "what"),
    [
        ("date +%s", "seconds since the epoch"),
        ("date +%Y-%m-%d", "the date"),
        ("date +%H:%M", "the local time of day"),
    ],
)
def test_sync_refuses_a_time_even_when_both_runs_fall_in_the_same_second(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], printed: str, what: str
) -> None:
    executable = fake_demo(tmp_path, f"printf 'loss 1.0\\n'\necho \"built at $({printed})\"\n" + WRITE_TRACE)
    expected(root).write_bytes(b"keep\n")
    assert sync(root, executable) == 1, what
    err = capsys.readouterr().err
    assert err.startswith(
        "chapter 14: sync ... REFUSED: the demo's output is nondeterministic: two runs printed different "
        "text, first at line 2: the first run printed 'built at "
    )
    assert "(the second run sees the clock 397 days, 7 hours and 13 minutes later" in err
    assert expected(root).read_bytes() == b"keep\n"


def test_the_second_run_alone_sees_the_shifted_environment(root: Path, tmp_path: Path) -> None:
    log = tmp_path / "environments"
    body = f'echo "TZ=${{TZ:-unset}} padding=${{#LLM_SYNC_SECOND_RUN}}" >> {log}\nprintf "same\\n"\n'
    executable = fake_demo(tmp_path, body + WRITE_TRACE)
    assert sync(root, executable) == 0
    first, second = log.read_text().splitlines()
    assert first.endswith("padding=0") and "TZ=<+0545>-5:45 padding=4096" == second


def test_a_refused_sync_withdraws_the_last_accepted_page(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    executable = fake_demo(tmp_path, 'printf "at %s\\n" "$(date +%s%N)"\n' + WRITE_TRACE)
    expected(root).write_bytes(b"keep\n")
    page, html = tmp_path / "page.md", tmp_path / "html" / "chapters" / f"{SLUG}.html"
    html.parent.mkdir(parents=True)
    page.write_text("stale"), html.write_text("stale")
    arguments = ["sync", "--root", str(root), "--chapter", SLUG, "--executable", str(executable), "--timeout", "10"]
    assert demo.main([*arguments, "--stale", str(page), "--stale", str(html)]) == 1
    assert "sync ... REFUSED" in capsys.readouterr().err
    assert not page.exists() and withdrawn(html) and "sync ... REFUSED" in html.read_text()
    assert expected(root).read_bytes() == b"keep\n"


def test_sync_without_faketime_says_which_package_to_install(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    executable = fake_demo(tmp_path, "printf 'x\\n'\n" + WRITE_TRACE)
    expected(root).write_bytes(b"keep\n")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert sync(root, executable) == 1
    assert capsys.readouterr().err == (
        "chapter 14: sync ... FAILED: the second run needs the program 'faketime' (Debian package "
        "faketime) to shift the demo's clock; install it with: make deps\n"
    )
    assert expected(root).read_bytes() == b"keep\n"
