"""Run a chapter's demo, verify its output against expected.txt, or sync it.

A chapter lives in ``chapters/<slug>/`` (``14-scalar-autodiff``: the chapter
number is the slug's leading digits) and commits the exact bytes its demo
prints as ``expected.txt``. The build runs the demo into a run directory
(``build/chapters/<slug>/``) and compares; the four commands are:

``run``
    Start ``EXE --trace DIR/trace.json`` with stdin on ``/dev/null`` and the
    repository root as working directory, under a time limit. Only a run that
    exits with status 0 in time and writes its trace is accepted: its stdout
    becomes ``DIR/output.txt`` (atomically). The previous ``output.txt``,
    ``trace.json`` and ``verified.stamp`` are removed before the demo starts,
    so a failed, hung or interrupted run never leaves stale accepted output.
    A hung demo is killed with its whole process group.
``verify``
    Compare ``DIR/output.txt`` with ``expected.txt`` byte for byte. Equal and
    valid UTF-8: touch ``DIR/verified.stamp`` (and write a depfile naming
    expected.txt, with ``--depfile``). Different: remove the stamp, print a
    unified diff with notes on what a diff hides (line endings, trailing
    whitespace, bytes that are not UTF-8) and the command that accepts the
    new output. A missing expected.txt is reported with the command that
    creates it. Never writes expected.txt.
``sync``
    Run the demo twice (each into a temporary directory, as ``check`` does)
    and write its output into ``expected.txt`` (atomically, only if the bytes
    differ), printing the diff. The second run differs from the first where
    output often depends by mistake on when or where a program ran: its clock
    is 397 days and 7 hours later (``faketime``), its time zone is UTC+05:45
    and its environment is 4 KiB larger, which moves the stack (addresses move
    anyway under the usual address-space randomization). It refuses, leaving
    expected.txt as it was, when a run fails, when the two runs print
    different bytes (a printed address, a time or date, an unordered
    container: output no later run can match; the message names the first
    differing line), or when the output is not valid UTF-8 (naming the byte
    offset and line). What two runs on one machine cannot show is not
    refused: output that depends on the machine (its CPU, its user or host
    name, files outside the repository) or on a random value the two runs
    happen to share.
``check``
    For ctest: ``run`` into a temporary directory, then compare with
    expected.txt, touching nothing in ``chapters/`` or ``build/``.

Every command exits 0 on success and 1 on failure; progress goes to stdout
(one line per step), failures to stderr. ``--root`` points the tools at
another repository root (the tests use a temporary one).

Usage (from the repository root)::

    python3 -m tools.demo run    --chapter SLUG --executable EXE --run-dir DIR --timeout S
    python3 -m tools.demo verify --chapter SLUG --run-dir DIR [--depfile FILE]
    python3 -m tools.demo sync   --chapter SLUG --executable EXE --timeout S
    python3 -m tools.demo check  --chapter SLUG --executable EXE --timeout S
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tools import stale
from tools.fileio import atomic_write_bytes, atomic_write_text, repository_root
from tools.textdiff import first_difference, unified_diff, utf8_problem

OUTPUT_NAME = "output.txt"
TRACE_NAME = "trace.json"
STAMP_NAME = "verified.stamp"
EXPECTED_NAME = "expected.txt"
#: How many of a failed demo's last stderr lines the failure message shows.
STDERR_TAIL_LINES = 20
#: Seconds to wait for a killed demo's pipes to close.
_KILL_GRACE_SECONDS = 5.0
#: How the second run of ``sync`` differs from the first, so that output that
#: depends on when or where the demo ran differs between the two: the clock
#: (libfaketime's ``faketime``, Debian package faketime) and the time zone are
#: shifted, and the environment grows by a 4 KiB variable, which moves the
#: stack even on a system that turned address-space randomization off.
#: 397 days, 7 hours and 13 minutes, in the seconds form libfaketime parses
#: reliably (it misreads some combined forms such as "+397d 7h").
SHIFTED_SECONDS = ((397 * 24 + 7) * 60 + 13) * 60
SHIFTED_CLOCK = ("faketime", "-f", f"+{SHIFTED_SECONDS}")
SHIFTED_TIME_ZONE = "<+0545>-5:45"
SHIFT_DESCRIPTION = (
    "the second run sees the clock 397 days, 7 hours and 13 minutes later, the time zone "
    "UTC+05:45 and its stack at another address"
)

_SLUG = re.compile(r"(?P<number>[0-9]+)-[a-z0-9]+(?:-[a-z0-9]+)*")


class DemoError(Exception):
    """A failed step of a chapter's demo; ``str()`` is the complete message to print."""


# --- Chapters and paths -----------------------------------------------------


@dataclass(frozen=True)
class Chapter:
    """A chapter folder ``chapters/<slug>/`` of a repository.

    Attributes:
        root: the repository root.
        slug: the folder name, e.g. ``14-scalar-autodiff``.
        number: the slug's leading digits as written (``14``), as in ``make chapter-14``.
    """

    root: Path
    slug: str
    number: str

    @classmethod
    def find(cls, root: Path, slug: str) -> Chapter:
        """Return the chapter ``slug`` of the repository at ``root``.

        Raises:
            DemoError: if the slug is not ``NN-kebab-name`` or the folder does not exist.
        """
        match = _SLUG.fullmatch(slug)
        if match is None:
            raise DemoError(
                f"chapter slug '{slug}' is not of the form NN-kebab-name "
                "(e.g. 14-scalar-autodiff)"
            )
        chapter = cls(root=root, slug=slug, number=match.group("number"))
        if not chapter.directory.is_dir():
            raise DemoError(f"chapter {chapter.number}: no chapter folder {chapter.directory}")
        return chapter

    @property
    def directory(self) -> Path:
        """The chapter's folder."""
        return self.root / "chapters" / self.slug

    @property
    def expected(self) -> Path:
        """The committed expected output."""
        return self.directory / EXPECTED_NAME

    @property
    def expected_label(self) -> str:
        """``chapters/<slug>/expected.txt``, as messages name it."""
        return f"chapters/{self.slug}/{EXPECTED_NAME}"

    @property
    def sync_command(self) -> str:
        """The command that accepts the demo's current output."""
        return f"make chapter-{self.number} SYNC=1"

    def label(self, path: Path) -> str:
        """``path`` relative to the repository root if it lies inside, else absolute."""
        absolute = Path(os.path.abspath(path))
        try:
            return absolute.relative_to(os.path.abspath(self.root)).as_posix()
        except ValueError:
            return str(absolute)


#: Files a demo may leave beside its trace for programs to read (chapter 39's
#: checkpoint, which build/llm-generate loads). They are results of the run:
#: withdrawn with the output when a run fails or its output drifts, so no
#: program reads what an unverified run wrote.
ARTIFACT_PATTERN = "*.llmcp"


def _remove_artifacts(run_dir: Path) -> None:
    """Delete the files a demo left beside its trace (:data:`ARTIFACT_PATTERN`)."""
    for path in run_dir.glob(ARTIFACT_PATTERN):
        path.unlink(missing_ok=True)


def _remove_results(run_dir: Path) -> None:
    """Delete the accepted output, trace, stamp and artifacts of a run directory, if present."""
    for name in (OUTPUT_NAME, TRACE_NAME, TRACE_NAME + ".tmp", STAMP_NAME):
        (run_dir / name).unlink(missing_ok=True)
    _remove_artifacts(run_dir)


# --- Running a demo ---------------------------------------------------------


@dataclass(frozen=True)
class DemoRun:
    """What one execution of a demo produced.

    Attributes:
        returncode: the exit status (negative: killed by that signal), or None if it hung.
        stdout: every byte the demo wrote to stdout.
        stderr: every byte the demo wrote to stderr.
        elapsed: wall-clock seconds from start to exit (or to the kill).
    """

    returncode: int | None
    stdout: bytes
    stderr: bytes
    elapsed: float

    @property
    def line_count(self) -> int:
        """Lines of stdout, counting an unterminated last line."""
        unterminated = 1 if self.stdout and not self.stdout.endswith(b"\n") else 0
        return self.stdout.count(b"\n") + unterminated


def execute(
    command: Sequence[str], cwd: Path, timeout: float, environment: Mapping[str, str] | None = None
) -> DemoRun:
    """Run ``command`` in its own process group with stdin on /dev/null.

    Args:
        command: the program and its arguments.
        cwd: the working directory.
        timeout: seconds before the whole process group is killed (the run then hung).
        environment: the program's environment (default: this process's).

    Raises:
        OSError: if the program cannot be started.
    """
    started = time.monotonic()
    process = subprocess.Popen(
        list(command),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env=None if environment is None else dict(environment),
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
        return DemoRun(process.returncode, stdout, stderr, time.monotonic() - started)
    except subprocess.TimeoutExpired:
        elapsed = time.monotonic() - started
        _kill_group(process)
        stdout, stderr = _drain(process)
        return DemoRun(None, stdout, stderr, elapsed)
    except BaseException:  # e.g. Ctrl-C: the demo is in its own session, so stop it here
        _kill_group(process)
        process.wait()
        raise


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL the process group this module started for ``process``."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _drain(process: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
    """Collect a killed process's remaining output, unless an escaped child holds its pipes."""
    try:
        return process.communicate(timeout=_KILL_GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
        process.wait()
        return b"", b"(stderr unavailable: a process escaped the demo's process group)\n"


def failure_reason(run: DemoRun, timeout: float) -> str | None:
    """Why a run is not accepted (None if it exited 0 in time)."""
    code = run.returncode
    if code is None:
        return (
            f"hung: still running after {timeout:g} s; if it needs longer, raise the limit "
            "with DEMO_TIMEOUT=SECONDS (e.g. make book DEMO_TIMEOUT=300)"
        )
    if code < 0:
        return f"was killed by signal {_signal_name(-code)}"
    if code > 0:
        reason = f"exited with status {code}"
        if code > 128 and _signal_name(code - 128, default=""):
            reason += f" (a shell's report of a child killed by {_signal_name(code - 128)})"
        return reason
    return None


def _signal_name(number: int, default: str | None = None) -> str:
    """``SIGSEGV`` for 11; ``default`` (or ``signal N``) for an unknown number."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}" if default is None else default


def _trace_problem(chapter: Chapter, trace: Path) -> str | None:
    """Why the trace a successful run left is unusable (None if it is a JSON document)."""
    if not trace.is_file():
        return (
            f"exited with status 0 but wrote no trace {chapter.label(trace)} "
            "(a demo started with --trace PATH must write it; see chapters/common/demo_trace.hpp)"
        )
    try:
        json.loads(trace.read_bytes())
    except (ValueError, UnicodeDecodeError) as error:
        return f"wrote a trace {chapter.label(trace)} that is not valid JSON ({error})"
    return None


def _tail(data: bytes, count: int = STDERR_TAIL_LINES) -> list[str]:
    """The last ``count`` lines of ``data``, decoded leniently."""
    return data.decode("utf-8", errors="replace").splitlines()[-count:]


def _failure_message(chapter: Chapter, executable: Path, reason: str, run: DemoRun | None) -> str:
    """The complete message for a demo whose output is refused, ending with its stderr."""
    demo = chapter.label(executable)
    lines = [f"chapter {chapter.number}: run ... FAILED: the demo {demo} {reason}"]
    if run is not None:
        tail = _tail(run.stderr)
        if not tail:
            lines.append("(it wrote nothing to stderr)")
        else:
            count = "line" if len(tail) == 1 else f"{len(tail)} lines"
            lines.append(f"last {count} of its stderr:")
            lines.extend(f"    {line}" for line in tail)
    return "\n".join(lines)


def run_demo(
    chapter: Chapter, executable: Path, run_dir: Path, timeout: float, shifted: bool = False
) -> DemoRun:
    """Run the chapter's demo and accept its stdout as ``run_dir/output.txt``.

    The previous output, trace and stamp are removed first; the new output is
    written only if the demo exits 0 within ``timeout`` seconds and leaves a
    JSON trace at ``run_dir/trace.json``. With ``shifted`` the demo runs in
    the second environment of ``sync`` (:data:`SHIFTED_CLOCK`,
    :data:`SHIFTED_TIME_ZONE`).

    Raises:
        DemoError: if the demo cannot start, exits non-zero, dies by a signal,
            hangs (it is killed), or writes no valid trace; the message names
            the chapter and executable and shows the end of its stderr.
    """
    executable = Path(os.path.abspath(executable))
    run_dir = Path(os.path.abspath(run_dir))
    trace = run_dir / TRACE_NAME
    run_dir.mkdir(parents=True, exist_ok=True)
    _remove_results(run_dir)
    command, environment = [str(executable), "--trace", str(trace)], None
    if shifted:
        command, environment = _shifted(chapter, executable, command)
    try:
        run = execute(command, chapter.root, timeout, environment)
    except OSError as error:
        reason = (
            f"cannot be started ({error.strerror}); build it with make chapter-{chapter.number}"
        )
        raise DemoError(_failure_message(chapter, executable, reason, None)) from error
    reason = failure_reason(run, timeout) or _trace_problem(chapter, trace)
    if reason is not None:
        _remove_results(run_dir)
        raise DemoError(_failure_message(chapter, executable, reason, run))
    atomic_write_bytes(run_dir / OUTPUT_NAME, run.stdout)
    return run


def _shifted(chapter: Chapter, executable: Path, command: list[str]) -> tuple[list[str], dict[str, str]]:
    """``command`` and an environment for the second sync run: clock, time zone and stack shifted."""
    if shutil.which(SHIFTED_CLOCK[0]) is None:
        raise DemoError(
            f"chapter {chapter.number}: sync ... FAILED: the second run needs the program "
            f"'{SHIFTED_CLOCK[0]}' (Debian package faketime) to shift the demo's clock; "
            "install it with: make deps"
        )
    if not os.access(executable, os.X_OK):  # faketime would report it less clearly
        reason = f"cannot be started (no such executable); build it with make chapter-{chapter.number}"
        raise DemoError(_failure_message(chapter, executable, reason, None))
    environment = {**os.environ, "TZ": SHIFTED_TIME_ZONE, "LLM_SYNC_SECOND_RUN": "x" * 4096}
    return [*SHIFTED_CLOCK, *command], environment


def run_progress(chapter: Chapter, run: DemoRun) -> str:
    """``chapter 14: run ... ok (10 lines, 0.02 s)``."""
    lines = "1 line" if run.line_count == 1 else f"{run.line_count} lines"
    return f"chapter {chapter.number}: run ... ok ({lines}, {run.elapsed:.2f} s)"


# --- Comparing outputs ------------------------------------------------------


def _read_output(chapter: Chapter, output: Path) -> bytes:
    """The demo's accepted output, or a DemoError saying how to produce it."""
    if not output.is_file():
        raise DemoError(
            f"chapter {chapter.number}: no demo output {chapter.label(output)}; "
            f"run the demo first: make chapter-{chapter.number}"
        )
    return output.read_bytes()


def compare(chapter: Chapter, output: Path, output_label: str) -> None:
    """Compare the demo output file with the chapter's expected.txt byte for byte.

    Raises:
        DemoError: if expected.txt or the output is missing, if the bytes
            differ (the message holds the unified diff, its notes and the
            sync command), or if the output is not valid UTF-8 (no page can
            show it, even when expected.txt holds the same bytes).
    """
    if not chapter.expected.is_file():
        raise DemoError(
            f"chapter {chapter.number}: {chapter.expected_label} does not exist; "
            f"to create it from the demo's output run: {chapter.sync_command}"
        )
    actual = _read_output(chapter, output)
    diff = unified_diff(chapter.expected.read_bytes(), actual, chapter.expected_label, output_label)
    if diff:
        raise DemoError(
            diff
            + f"chapter {chapter.number}: output drifted from {chapter.expected_label}; "
            f"to accept the demo's output run: {chapter.sync_command}"
        )
    problem = utf8_problem(actual)
    if problem is not None:
        raise DemoError(
            f"chapter {chapter.number}: {output_label} is not valid UTF-8: "
            f"{problem}; no page can show it. Make the demo print UTF-8 text, then run: "
            f"{chapter.sync_command}"
        )


def verify(chapter: Chapter, run_dir: Path, depfile: Path | None = None) -> str:
    """Verify ``run_dir/output.txt``: touch ``verified.stamp`` if equal, else remove it and the artifacts.

    Args:
        chapter: the chapter whose expected.txt is the reference.
        run_dir: the run directory holding output.txt.
        depfile: if given, a Make-style depfile naming expected.txt is written
            there after a success, so the build notices an edit or removal of
            expected.txt without declaring it as an input.

    Returns:
        The progress line.

    Raises:
        DemoError: as :func:`compare`; expected.txt is never written.
    """
    output = run_dir / OUTPUT_NAME
    stamp = run_dir / STAMP_NAME
    try:
        compare(chapter, output, f"demo output ({chapter.label(output)})")
    except DemoError:
        stamp.unlink(missing_ok=True)
        _remove_artifacts(run_dir)
        raise
    atomic_write_bytes(stamp, b"")
    if depfile is not None:
        atomic_write_text(depfile, f"{_make_escape(stamp)}: {_make_escape(chapter.expected)}\n")
    return f"chapter {chapter.number}: verify ... ok"


def _make_escape(path: Path) -> str:
    """An absolute path as a Make-style depfile writes it (backslashes, spaces, ``#`` escaped)."""
    text = os.path.abspath(path)
    return text.replace("\\", "\\\\").replace(" ", "\\ ").replace("#", "\\#")


def sync(
    chapter: Chapter, executable: Path, timeout: float, progress: Callable[[str], None] = print
) -> str:
    """Run the demo twice and write its output into the chapter's expected.txt if the bytes differ.

    Returns:
        The diff (if any) followed by the progress line.

    Raises:
        DemoError: if a run fails, the two runs print different bytes, or the
            output is not valid UTF-8; expected.txt is then untouched.
    """
    outputs = []
    for run_number in (1, 2):
        with tempfile.TemporaryDirectory(prefix=f"llm-sync-{chapter.slug}-") as directory:
            run = run_demo(chapter, executable, Path(directory), timeout, shifted=run_number == 2)
            progress(run_progress(chapter, run).replace(": run ...", f": sync run {run_number} ..."))
            outputs.append(run.stdout)
    refused = f"chapter {chapter.number}: sync ... REFUSED"
    kept = f"{chapter.expected_label} is unchanged"
    difference = first_difference(outputs[0], outputs[1])
    if difference is not None:
        raise DemoError(
            f"{refused}: the demo's output is nondeterministic: two runs printed different "
            f"text, first at {difference} ({SHIFT_DESCRIPTION}). Output that changes from run "
            f"to run (an address, a time or date, the order of an unordered container) can never "
            f"match expected.txt; make the demo print only what it computes. {kept}."
        )
    problem = utf8_problem(outputs[0])
    if problem is not None:
        raise DemoError(
            f"{refused}: the demo's output is not valid UTF-8: {problem}; the book's pages "
            f"are UTF-8 text. {kept}."
        )
    actual = outputs[0]
    if not chapter.expected.is_file():
        atomic_write_bytes(chapter.expected, actual)
        return f"chapter {chapter.number}: expected.txt created"
    expected = chapter.expected.read_bytes()
    if expected == actual:
        return f"chapter {chapter.number}: expected.txt already matches"
    output_label = f"demo output (two runs of {chapter.label(executable)})"
    diff = unified_diff(expected, actual, chapter.expected_label, output_label)
    atomic_write_bytes(chapter.expected, actual)
    return diff + f"chapter {chapter.number}: expected.txt updated"


def check(
    chapter: Chapter, executable: Path, timeout: float, progress: Callable[[str], None] = print
) -> None:
    """Run the demo into a temporary directory and compare with expected.txt (for ctest).

    Args:
        chapter: the chapter whose expected.txt is the reference.
        executable: the demo program.
        timeout: seconds before the demo counts as hung.
        progress: receives each progress line (the run's, then the check's).

    Raises:
        DemoError: if the run fails or the output differs; nothing in the
            repository is written either way.
    """
    with tempfile.TemporaryDirectory(prefix=f"llm-check-{chapter.slug}-") as directory:
        run = run_demo(chapter, executable, Path(directory), timeout)
        progress(run_progress(chapter, run))
        output = Path(directory) / OUTPUT_NAME
        compare(chapter, output, f"demo output (fresh run of {chapter.label(executable)})")
    progress(f"chapter {chapter.number}: check ... ok")


# --- Command line -----------------------------------------------------------


def _positive_seconds(text: str) -> float:
    """argparse type: a positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of seconds") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"the timeout must be positive, not {text}")
    return value


def _command_run(arguments: argparse.Namespace, chapter: Chapter) -> None:
    """``run``: execute the demo and accept its output."""
    run = run_demo(chapter, arguments.executable, arguments.run_dir, arguments.timeout)
    if run.stderr:
        print(f"chapter {chapter.number}: the demo wrote to stderr:", file=sys.stderr)
        sys.stderr.write(run.stderr.decode("utf-8", errors="replace"))
    print(run_progress(chapter, run))


def _command_verify(arguments: argparse.Namespace, chapter: Chapter) -> None:
    """``verify``: compare the run's output with expected.txt."""
    print(verify(chapter, arguments.run_dir, arguments.depfile))


def _command_sync(arguments: argparse.Namespace, chapter: Chapter) -> None:
    """``sync``: run the demo twice and write its output into expected.txt."""
    print(sync(chapter, arguments.executable, arguments.timeout))


def _command_check(arguments: argparse.Namespace, chapter: Chapter) -> None:
    """``check``: run into a temporary directory and compare."""
    check(chapter, arguments.executable, arguments.timeout)


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface of ``python3 -m tools.demo``."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--chapter", required=True, metavar="SLUG", help="e.g. 14-scalar-autodiff")
    common.add_argument(
        "--root",
        type=Path,
        default=repository_root(),
        help="repository root (default: the directory holding tools/)",
    )
    executable = argparse.ArgumentParser(add_help=False)
    executable.add_argument("--executable", type=Path, required=True, help="the demo program")
    executable.add_argument(
        "--timeout",
        type=_positive_seconds,
        required=True,
        help="seconds before the demo counts as hung",
    )
    run_dir = argparse.ArgumentParser(add_help=False)
    run_dir.add_argument("--run-dir", type=Path, required=True, help="e.g. build/chapters/SLUG")
    stale_pages = argparse.ArgumentParser(add_help=False)
    stale_pages.add_argument(
        "--stale",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="a page built from this chapter's output, withdrawn if the step fails so that "
        "no page keeps showing output the build no longer accepts (tools/stale.py; repeatable)",
    )

    parser = argparse.ArgumentParser(
        prog="python3 -m tools.demo", description="Run, verify, sync or check a chapter's demo."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    for name, parents, handler, summary in (
        ("run", [common, executable, run_dir, stale_pages], _command_run, "run the demo, accept its output"),
        ("verify", [common, run_dir, stale_pages], _command_verify, "compare output.txt with expected.txt"),
        ("sync", [common, executable, stale_pages], _command_sync, "run the demo twice, write expected.txt"),
        ("check", [common, executable], _command_check, "run and compare, writing nothing"),
    ):
        command = commands.add_parser(name, parents=parents, help=summary)
        command.set_defaults(handler=handler)
        if name == "verify":
            command.add_argument(
                "--depfile", type=Path, help="write a depfile naming expected.txt here on success"
            )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 ok, 1 failure)."""
    arguments = build_parser().parse_args(argv)
    try:
        chapter = Chapter.find(arguments.root, arguments.chapter)
        arguments.handler(arguments, chapter)
    except DemoError as error:
        notes = stale.withdraw(getattr(arguments, "stale", []), str(error))
        sys.stdout.flush()
        print(error, file=sys.stderr)
        for note in notes:
            print(f"chapter {arguments.chapter.split('-')[0]}: {note}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
