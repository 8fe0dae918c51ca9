"""File helpers shared by the build tools: atomic writes and the repository root.

Every file the build produces is written atomically: the new content goes to a
temporary file in the same directory, is flushed to disk, and is renamed over
the target with ``os.replace``. A reader (make, Sphinx, a person) therefore sees
either the old file or the complete new one, never a half-written file, even if
the tool is killed in the middle of a write.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def repository_root() -> Path:
    """Return the repository root: the directory that contains ``tools/``.

    The answer depends only on where this file lives, not on the current
    working directory.
    """
    return Path(__file__).resolve().parent.parent


def atomic_write_bytes(path: Path | str, data: bytes) -> None:
    """Replace the file at ``path`` with ``data`` atomically.

    Args:
        path: the file to write; missing parent directories are created.
        data: the exact bytes the file will hold.

    The file keeps the permission bits of the file it replaces; a new file
    gets the usual ``0o666`` minus the process umask.

    Raises:
        OSError: if the directory cannot be created or the file cannot be
            written or renamed; the target is then left as it was and the
            temporary file is removed.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = _mode_for(target)
    descriptor, temporary_name = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
    )
    temporary = Path(temporary_name)
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    _fsync_directory(target.parent)


def atomic_write_text(path: Path | str, text: str) -> None:
    """Replace the file at ``path`` with ``text`` encoded as UTF-8, atomically.

    Line endings are written exactly as they appear in ``text`` (no newline
    translation), so the bytes on disk are ``text.encode("utf-8")``.

    Args:
        path: the file to write; missing parent directories are created.
        text: the file's new content.

    Raises:
        OSError: as for :func:`atomic_write_bytes`.
        UnicodeEncodeError: if ``text`` holds lone surrogates.
    """
    atomic_write_bytes(path, text.encode("utf-8"))


def _mode_for(target: Path) -> int:
    """The permission bits a new version of ``target`` should carry."""
    try:
        return target.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _fsync_directory(directory: Path) -> None:
    """Flush a directory entry change (the rename) to disk, where supported."""
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
