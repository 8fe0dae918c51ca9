"""Tagged regions: the named spans of C++ source that chapters show as listings.

A region is marked by two plain line comments, each on a line of its own::

    // region: scalar-reverse-pass
    ...code...
    // endregion: scalar-reverse-pass

Syntax
    A marker is a line whose content after leading whitespace is
    ``// region: NAME`` or ``// endregion: NAME``. One space after ``//`` and
    after the colon is the canonical form; any run of spaces or tabs (or none)
    is accepted there. NAME is kebab-case, ``[a-z0-9]+(-[a-z0-9]+)*``, unique
    within its file, and the end marker repeats it, so a crossed or
    mismatched pair is caught. A line that looks like a marker (``//``,
    optional spaces, then ``region:`` or ``endregion:``) but whose name is
    missing or not kebab-case is an error, never silently ignored.

Nesting
    Regions may nest. The marker lines of inner regions never appear in a
    listing; the code between them does.

Listings
    A region's listing is the lines strictly between its markers, minus inner
    marker lines, with trailing whitespace stripped and leading and trailing
    blank lines dropped (blank lines inside are kept, as empty strings). Tabs
    are expanded to 8-column tab stops (``str.expandtabs(8)``) before anything
    else, so indentation is measured in columns and the listing holds the
    expanded text. The listing is then dedented by the smallest indentation
    of its non-blank lines. Each listing line keeps its original 1-based line
    number, so a page can print it and link to the source line. Files may use
    LF, CRLF or CR line endings (counted as compilers count them); a UTF-8
    byte-order mark is ignored.

Indentation
    A region indents with spaces or with tabs, not both: a line whose
    indentation mixes the two, or a region where some lines indent with tabs
    and others with spaces, is an error at that line, because its listing
    would shift with the reader's tab width. (The C++ sources indent with
    spaces.) Any other white space in the indentation of a non-blank line (a
    no-break space, a form feed, a vertical tab) is an error at that line
    naming the character: it has no column width to dedent by. A line that
    holds only such white space (a form feed as a page break) is blank.

References
    A chapter refers to a region as ``path/from/root.cpp#name``, for example
    ``src/llm/autograd/scalar.cpp#scalar-reverse-pass``. The path must stay
    inside the repository after ``..`` and symbolic links are resolved; a
    path that cannot be resolved at all (a symbolic-link loop, a NUL byte, a
    name too long) is a defect of the reference like any other.

Errors
    Every defect raises :class:`RegionError` naming a file and a line: a
    defect of a reference (unknown file, unknown region, absolute path, a path
    that leaves the repository) is located at the referring line of the
    chapter; a defect of the markers (duplicate name, end without start,
    mismatched end name, unclosed region, malformed marker, empty region,
    mixed tabs and spaces, other white space as indentation) is located in
    the source file. There is never an
    empty listing. Parsing takes time linear in the file's size, whatever its
    content (one very long line, a long run of spaces, CR line endings).

Checking the tree
    ``check`` parses every ``*.cpp`` and ``*.hpp`` under ``src/`` and
    ``chapters/``; a file that is a symbolic link leading out of the
    repository is an error, never read.

Command line (from the repository root)::

    python3 -m tools.regions check [--stamp FILE]   # parse src/ and chapters/
    python3 -m tools.regions show PATH#NAME         # print one listing
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath

from tools.fileio import atomic_write_bytes, repository_root
from tools.markers import _LINE_BREAK, _NAME, TAB_WIDTH, Region, RegionError, _quote, parse_regions

__all__ = [
    "SOURCE_SUFFIXES", "TAB_WIDTH", "Region", "RegionError", "check_tree", "clear_cache", "locate_source",
    "main", "parse_file", "parse_regions", "resolve_reference", "source_files",
]  # fmt: skip

#: The file suffixes :func:`check_tree` parses.
SOURCE_SUFFIXES = (".cpp", ".hpp")

# --- Reading files and resolving references ---------------------------------

_cache: dict[tuple[Path, str], dict[str, Region]] = {}


def clear_cache() -> None:
    """Forget every file parsed so far (the cache lives for one process)."""
    _cache.clear()


def parse_file(file: Path, path_label: str) -> dict[str, Region]:
    """Read and parse one source file, caching the result for this process.

    Args:
        file: the file on disk.
        path_label: its path as errors report it (relative to the repository root).

    Raises:
        RegionError: located in the file, if it cannot be read, is not UTF-8,
            or has a marker defect (see :func:`parse_regions`).
    """
    key = (file.resolve(), path_label)
    if key not in _cache:
        _cache[key] = parse_regions(path_label, _read_source(file, path_label))
    return _cache[key]


def _read_source(file: Path, path_label: str) -> str:
    """The file's text, decoded as UTF-8, or a RegionError located in it."""
    try:
        data = file.read_bytes()
    except OSError as error:
        raise RegionError(path_label, None, f"cannot read the file: {error.strerror}") from error
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = len(_LINE_BREAK.findall(data[: error.start].decode("utf-8"))) + 1
        raise RegionError(
            path_label,
            line,
            f"not valid UTF-8 (byte 0x{data[error.start]:02x} at byte offset {error.start})",
        ) from error


def resolve_reference(ref: str, root: Path, referrer: str, referrer_line: int) -> Region:
    """Return the region a chapter names as ``path/from/root.cpp#name``.

    Args:
        ref: the reference, a path relative to ``root``, ``#``, a region name.
        root: the repository root.
        referrer: the referring file (e.g. ``chapters/14-x/chapter.md``) for errors.
        referrer_line: the 1-based line of the reference in ``referrer``.

    Raises:
        RegionError: located at ``referrer:referrer_line`` when the reference
            lacks a ``#``, has an empty or ill-formed part, is absolute, leaves
            the repository (through ``..`` or a symbolic link), cannot be
            resolved (a symbolic-link loop, a NUL byte, a name too long),
            names a file that does not exist, or names a region the file
            lacks (the message lists the file's regions); located in the
            referenced file when that file has a marker defect or cannot be
            read.
    """
    path_text, name = _split_reference(ref, referrer, referrer_line)
    file, label = locate_source(path_text, root, referrer, referrer_line)
    regions = parse_file(file, label)
    if name not in regions:
        raise RegionError(referrer, referrer_line, _unknown_region_message(name, label, regions))
    return regions[name]


def _split_reference(ref: str, referrer: str, referrer_line: int) -> tuple[str, str]:
    """Split ``path#name`` into its two validated parts."""
    path_text, hash_sign, name = ref.strip().partition("#")
    usage = "write it as path/from/root.cpp#region-name"
    if not hash_sign:
        raise RegionError(referrer, referrer_line, f"region reference '{ref}' has no '#'; {usage}")
    if not path_text:
        raise RegionError(
            referrer, referrer_line, f"region reference '{ref}' has no file path; {usage}"
        )
    if not name:
        raise RegionError(
            referrer, referrer_line, f"region reference '{ref}' has no region name; {usage}"
        )
    if not _NAME.fullmatch(name):
        raise RegionError(
            referrer,
            referrer_line,
            f"region reference '{ref}': '{name}' is not a kebab-case region name",
        )
    return path_text, name


def locate_source(
    path_text: str, root: Path, referrer: str = "<path>", referrer_line: int | None = None
) -> tuple[Path, str]:
    """The file a reference's path names inside ``root``, and its repository-relative label.

    Used for every path a chapter names (the ``listing()`` macro and the
    book's ``{listing}`` directive), so both accept exactly the same paths.

    Raises:
        RegionError: located at ``referrer:referrer_line`` when the path is
            absolute, leaves the repository (through ``..`` or a symbolic
            link), names no file, or cannot be resolved at all (a symbolic-link
            loop, a NUL byte, a name too long).
    """
    try:
        return _locate(path_text, root, referrer, referrer_line)
    except (OSError, ValueError, RuntimeError) as error:
        # A symbolic-link loop (RuntimeError before Python 3.13, OSError after),
        # a NUL byte (ValueError), a name too long or unreadable (OSError).
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise RegionError(
            referrer,
            referrer_line,
            f"region reference path {_quote(path_text)} cannot be resolved: {reason}",
        ) from error


def _locate(path_text: str, root: Path, referrer: str, referrer_line: int | None) -> tuple[Path, str]:
    """Resolve a reference's path to a file inside ``root`` and its repo-relative label."""
    if PurePosixPath(path_text).is_absolute() or re.match(r"[A-Za-z]:[\\/]|\\", path_text):
        raise RegionError(
            referrer,
            referrer_line,
            f"region reference path '{path_text}' is absolute; "
            "write it from the repository root, e.g. src/llm/autograd/scalar.cpp",
        )
    base = root.resolve()
    lexical = Path(os.path.normpath(base / path_text))
    if not lexical.is_relative_to(base):
        raise RegionError(
            referrer,
            referrer_line,
            f"region reference path '{path_text}' leaves the repository (it names {lexical})",
        )
    file = (base / path_text).resolve()
    if not file.is_relative_to(base):
        raise RegionError(
            referrer,
            referrer_line,
            f"region reference path '{path_text}' leaves the repository "
            f"through a symbolic link (it resolves to {file})",
        )
    if not file.is_file():
        raise RegionError(referrer, referrer_line, _unknown_file_message(path_text, base))
    return file, file.relative_to(base).as_posix()


def _unknown_file_message(path_text: str, base: Path) -> str:
    """Say the file does not exist, suggesting a near name in the same directory."""
    message = f"no such file {_quote(path_text)} in the repository"
    parent = (base / path_text).parent
    try:
        siblings = sorted(entry.name for entry in parent.iterdir() if entry.is_file())
    except OSError:  # no such directory, or unreadable: no suggestion
        return message
    close = difflib.get_close_matches(PurePosixPath(path_text).name, siblings, n=1)
    if close:
        suggestion = PurePosixPath(path_text).parent / close[0]
        message += f" (did you mean '{suggestion}'?)"
    return message


def _unknown_region_message(name: str, label: str, regions: dict[str, Region]) -> str:
    """Say the region does not exist, listing the file's regions."""
    if not regions:
        return (
            f"unknown region '{name}': {label} has no regions "
            f"(mark one with '// region: {name}' ... '// endregion: {name}')"
        )
    message = f"unknown region '{name}' in {label}; its regions are: {', '.join(regions)}"
    close = difflib.get_close_matches(name, list(regions), n=1)
    if close:
        message += f" (did you mean '{close[0]}'?)"
    return message


# --- Checking the whole tree ------------------------------------------------


def source_files(root: Path, directories: Iterable[str] = ("src", "chapters")) -> list[Path]:
    """Every ``*.cpp`` and ``*.hpp`` file under ``root/<directory>``, sorted.

    Directories that do not exist are skipped, and so are symbolic links to
    directories (``Path.rglob`` does not descend into them). A symbolic link
    to a file is listed; :func:`check_tree` refuses it if it leads out.
    """
    files: list[Path] = []
    for directory in directories:
        top = root / directory
        if top.is_dir() and not top.is_symlink():
            files.extend(
                path for path in top.rglob("*") if path.suffix in SOURCE_SUFFIXES and path.is_file()
            )
    return sorted(set(files))


def check_tree(root: Path, directories: Iterable[str] = ("src", "chapters")) -> int:
    """Parse every C++ source under ``root``'s directories; return the number of regions.

    Raises:
        RegionError: the first defect found, files taken in sorted order; a
            file that is a symbolic link leading out of the repository is a
            defect located at that file, and is not read.
    """
    base = root.resolve()
    total = 0
    for file in source_files(root, directories):
        label = file.relative_to(root).as_posix()
        try:
            target = file.resolve(strict=True)
        except (OSError, RuntimeError) as error:
            raise RegionError(label, None, f"cannot be resolved: {error}") from error
        if not target.is_relative_to(base):
            raise RegionError(
                label,
                None,
                f"a symbolic link that leaves the repository (it resolves to {target}); "
                "regions are read only from files inside the repository",
            )
        total += len(parse_file(file, label))
    return total


# --- Command line -----------------------------------------------------------


def _plural(count: int, noun: str) -> str:
    """``1 file``, ``2 files``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _command_check(arguments: argparse.Namespace) -> int:
    """``check``: validate every region of the tree; touch the stamp on success."""
    root: Path = arguments.root
    files = source_files(root)
    count = check_tree(root)
    print(f"regions: {_plural(count, 'region')} in {_plural(len(files), 'file')} ok")
    if arguments.stamp is not None:
        atomic_write_bytes(arguments.stamp, b"")
    return 0


def _command_show(arguments: argparse.Namespace) -> int:
    """``show``: print one region's listing with its original line numbers."""
    region = resolve_reference(arguments.reference, arguments.root, "<command line>", 1)
    print(f"{region.reference} (lines {region.start_line}-{region.end_line})")
    width = len(str(region.line_numbers[-1]))
    for number, line in zip(region.line_numbers, region.lines):
        print(f"{number:>{width}}  {line}".rstrip())
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface of ``python3 -m tools.regions``."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--root",
        type=Path,
        default=repository_root(),
        help="repository root (default: the directory holding tools/)",
    )
    parser = argparse.ArgumentParser(
        prog="python3 -m tools.regions", description="Check and show tagged C++ regions."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser(
        "check", parents=[common], help="validate every region under src/ and chapters/"
    )
    check.add_argument("--stamp", type=Path, help="file to touch (atomically) on success")
    check.set_defaults(handler=_command_check)
    show = commands.add_parser("show", parents=[common], help="print one region's listing")
    show.add_argument("reference", help="path/from/root.cpp#region-name")
    show.set_defaults(handler=_command_show)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 ok, 1 a region defect)."""
    arguments = build_parser().parse_args(argv)
    try:
        return arguments.handler(arguments)
    except RegionError as error:
        print(error, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
