"""One build at a time in a build directory: an advisory lock in ``BUILD/build.lock``.

Two ``make book`` runs in the same tree would otherwise run the same demos,
renders and Sphinx into the same files at once: Ninja's logs, the rendered
pages, Sphinx's environment and HTML would be written by both. So every
Makefile target that builds in ``BUILD`` first takes an exclusive
``flock(2)`` on ``BUILD/build.lock``; a second build finds it held, says
which build holds it and that it waits, and continues when the first ends.
The kernel releases the lock when its holder exits, however it exits, so an
interrupted or killed build never leaves a stale lock behind.

Two ways to hold it:

``python3 -m tools.buildlock --fd 9 --lock-file BUILD/build.lock --what 'make book'``
    The Makefile's recipes open the lock file as the shell's descriptor 9
    (``exec 9>>BUILD/build.lock``) and run this to lock it: the lock belongs
    to that open file, so it stays held by the recipe's shell, and the
    commands it starts, until the recipe ends. The recipe then exports
    ``LLM_BUILD_LOCK=BUILD/build.lock`` so that the steps it runs know.
:func:`hold`
    A context manager for a Python step that may also run outside ``make``
    (tools/book.py, the Sphinx step): it takes the lock unless the
    environment variable ``LLM_BUILD_LOCK`` says an enclosing ``make``
    already holds this very file.

The lock file holds one line, ``PID WHAT``, naming its current holder, so a
waiting build can say whom it waits for.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

#: Set by the Makefile to the lock file its recipe holds.
HELD_VARIABLE = "LLM_BUILD_LOCK"


def _holder(lock_file: Path) -> str:
    """The ``PID WHAT`` line the current holder wrote, or a neutral phrase.

    Read through a new descriptor: the Makefile opens the lock for appending only.
    """
    text = ""
    for _ in range(3):  # the holder may be between taking the lock and naming itself
        try:
            text = lock_file.read_bytes()[:4096].decode("utf-8", errors="replace").strip()
        except OSError:
            break
        if text:
            break
        time.sleep(0.05)
    if not text:
        return "another build"
    pid, _, what = text.partition(" ")
    return f"{what or 'another build'} (pid {pid})"


def acquire(
    descriptor: int, lock_file: Path, what: str, pid: int, report: Callable[[str], None]
) -> None:
    """Lock the open ``descriptor`` of ``lock_file`` exclusively, waiting (and saying so) if held.

    Then record ``pid`` and ``what`` in the file as its holder.
    """
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        report(
            f"{what}: waiting for {_holder(lock_file)} to finish with {lock_file.parent}/ "
            f"(lock {lock_file}) ..."
        )
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        report(f"{what}: {lock_file.parent}/ is free, continuing")
    _name_holder(lock_file, f"{pid} {what}\n".encode())


def _name_holder(lock_file: Path, line: bytes) -> None:
    """Replace the holder line, through a descriptor of its own.

    The Makefile's descriptor appends, which would put the line after the old
    one; writing first and truncating after never leaves the file empty. A
    second descriptor of the file does not release the lock when it closes
    (``flock`` locks belong to the descriptor that took them).
    """
    descriptor = os.open(lock_file, os.O_WRONLY)
    try:
        os.pwrite(descriptor, line, 0)
        os.ftruncate(descriptor, len(line))
    finally:
        os.close(descriptor)


def already_held(lock_file: Path) -> bool:
    """Whether an enclosing ``make`` recipe holds ``lock_file`` (``LLM_BUILD_LOCK`` names it).

    The two names are compared as files (device and inode), so a build
    directory reached through a symbolic link is still recognised; taking the
    lock again would wait for the enclosing ``make`` forever.
    """
    held = os.environ.get(HELD_VARIABLE)
    if not held:
        return False
    try:
        return os.path.samefile(held, lock_file)
    except OSError:
        return False


@contextlib.contextmanager
def hold(lock_file: Path, what: str, report: Callable[[str], None] = print) -> Iterator[None]:
    """Hold the build lock ``lock_file`` for the ``with`` block (unless ``make`` holds it already).

    Args:
        lock_file: ``BUILD/build.lock``; created if missing.
        what: the holder's name in messages, e.g. ``sphinx``.
        report: receives the waiting and continuing messages.
    """
    if already_held(lock_file):
        yield
        return
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        acquire(descriptor, lock_file, what, os.getpid(), report)
        yield
    finally:
        os.close(descriptor)  # closing the only descriptor releases the lock


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface of ``python3 -m tools.buildlock``."""
    parser = argparse.ArgumentParser(
        prog="python3 -m tools.buildlock",
        description="Lock the build directory for the calling shell (see the Makefile).",
    )
    parser.add_argument("--fd", type=int, required=True, help="the shell's open descriptor of the lock file")
    parser.add_argument("--lock-file", type=Path, required=True, help="BUILD/build.lock")
    parser.add_argument("--what", required=True, help="who holds it, e.g. 'make book'")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Lock ``--fd`` for the parent shell; 0 once held, 1 if the descriptor is unusable."""
    arguments = build_parser().parse_args(argv)
    try:
        # The holder is the shell that owns the descriptor: this process's parent.
        acquire(arguments.fd, arguments.lock_file, arguments.what, os.getppid(), print)
    except OSError as error:
        print(f"{arguments.what}: cannot lock {arguments.lock_file}: {error.strerror}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
