"""The sandbox ``chapter.md`` is rendered in, and how its errors find their line.

A chapter's text is a Jinja2 template, and Jinja2's ordinary environment lets
a template walk from any object to Python's internals
(``{{ cycler.__init__.__globals__.os.popen("...") }}`` runs a shell command).
:class:`ChapterEnvironment` is a :class:`jinja2.sandbox.SandboxedEnvironment`
instead:

* no attribute that starts with ``_``, and none of the internals of functions,
  methods, frames or generators, can be read, and ``str.format`` cannot reach
  them either; such an access raises :class:`jinja2.exceptions.SecurityError`;
* the template sees only the names the renderer gives it: the macros, the
  trace (plain JSON data), the number formats, and ``figures``, a
  :class:`FigureMacros` namespace that holds the public functions and plain
  constants of the chapter's ``figures.py`` (never the modules it imports);
* ``chapter.md`` can include or import no other file;
* ``range()`` is capped by Jinja2, and ``*`` and ``**`` refuse results of more
  than :data:`MAX_RESULT` characters, items or digits;
* the page is limited as it is written (:class:`RenderLimits`, :func:`generate_page`):
  at most :data:`MAX_PAGE_CHARACTERS` characters, :data:`TIME_LIMIT_SECONDS`
  seconds and :data:`MEMORY_BUDGET_BYTES` more memory than the renderer held
  when it started, so two nested ``range(100000)`` loops, a filter asked for a
  ten-million-character ``center`` or ``format`` width, or text that doubles in
  a loop stop with an error naming the line instead of hanging the build or
  exhausting the machine;
* every expression's text must be valid Unicode text: a lone surrogate (from a
  string escape or from the trace) is an error at its line, never a page that
  cannot be written as UTF-8.

The Python that ``figures.py`` holds is part of the repository, like the C++,
and runs unrestricted; the sandbox is for the chapter text. The files a page is
made of (chapter.md, figures.py) are read only from inside the repository,
and every failure is a :class:`RenderError` that names its file and line.
"""

from __future__ import annotations

import importlib.util
import re
import resource
import signal
import sys
import threading
import traceback
import types
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import jinja2
from jinja2.exceptions import SecurityError
from jinja2.sandbox import SandboxedEnvironment

#: The largest string, list or integer ``*`` and ``**`` may make in a template.
MAX_RESULT = 1_000_000
#: The most text one page may hold: the largest chapter page is about 120,000 characters.
MAX_PAGE_CHARACTERS = 2_000_000
#: Seconds a page may take to render, figures included (the slowest takes a few).
TIME_LIMIT_SECONDS = 60.0
#: Bytes of address space a render may add to what the renderer held when it started.
MEMORY_BUDGET_BYTES = 2 << 30
#: Jinja2's default globals a chapter has no use for (``lipsum`` can be told to
#: write gigabytes).
_REMOVED_GLOBALS = ("lipsum",)
#: Plain constant types a figures module may expose to the template.
_PLAIN = (str, int, float, bool, type(None))


#: Line breaks as Jinja2 counts template lines (and compilers count source lines).
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class RenderError(Exception):
    """A chapter page that cannot be rendered; ``str()`` starts with ``file:line:``."""


def read_text_file(path: Path, label: str) -> str:
    """The UTF-8 text of ``path``, or a RenderError naming ``label``, the line and the byte offset."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise RenderError(f"{label}:1: cannot read the file: {error.strerror}") from error
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = len(_LINE_BREAK.findall(data[: error.start].decode("utf-8"))) + 1
        raise RenderError(
            f"{label}:{line}: not valid UTF-8: byte 0x{data[error.start]:02x} at byte offset "
            f"{error.start}; save the file as UTF-8"
        ) from error


def check_inside_repository(path: Path, label: str, root: Path) -> None:
    """Raise a RenderError unless ``path`` resolves to a file inside ``root`` (no symbolic link out)."""
    try:
        resolved = path.resolve(strict=True)
    except (OSError, RuntimeError) as error:
        raise RenderError(f"{label}:1: cannot be resolved: {error}") from error
    if not resolved.is_relative_to(root.resolve()):
        raise RenderError(
            f"{label}:1: a symbolic link that leaves the repository (it resolves to {resolved}); "
            "chapter files are read only from inside the repository"
        )


def load_figures_module(path: Path, label: str, module_name: str, root: Path) -> types.ModuleType:
    """Execute a chapter's figures.py; a failure is a RenderError at its figures.py line."""
    check_inside_repository(path, label, root)
    spec = importlib.util.spec_from_file_location(module_name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except SyntaxError as error:
        raise RenderError(f"{label}:{error.lineno or 1}: SyntaxError: {error.msg}") from error
    except Exception as error:  # any failure while the module runs: locate it in figures.py
        where = innermost_frame_in(error, path.parent)
        line = where[1] if where and where[0] == path else 1
        raise RenderError(f"{label}:{line}: {describe(error)}") from error
    return module


class ChapterEnvironment(SandboxedEnvironment):
    """A sandboxed Jinja2 environment that renders exactly one template, ``chapter.md``."""

    intercepted_binops = frozenset({"*", "**"})

    def __init__(self, text: str, filename: Path) -> None:
        """``text`` is chapter.md's content, ``filename`` its path (for tracebacks)."""

        def load(name: str) -> tuple[str, str, Callable[[], bool]]:
            if name != "chapter.md":
                raise jinja2.TemplateNotFound(
                    name, message=f"chapter.md cannot include or import other files (asked for {name!r})"
                )
            return text, str(filename), lambda: True

        super().__init__(
            loader=jinja2.FunctionLoader(load),
            undefined=jinja2.StrictUndefined,
            keep_trailing_newline=True,
            autoescape=False,
            finalize=check_text,
        )
        for name in _REMOVED_GLOBALS:
            self.globals.pop(name, None)

    def call_binop(self, context: jinja2.runtime.Context, operator: str, left: Any, right: Any) -> Any:
        """``*`` and ``**``, refusing results larger than MAX_RESULT."""
        if operator == "*":
            for sequence, count in ((left, right), (right, left)):
                if isinstance(sequence, (str, list, tuple)) and isinstance(count, int):
                    if len(sequence) * count > MAX_RESULT:
                        raise SecurityError(
                            f"the template asked for a sequence of {len(sequence) * count} items; "
                            f"the sandbox allows {MAX_RESULT}"
                        )
        if operator == "**" and isinstance(left, int) and isinstance(right, int):
            if abs(left) > 1 and right * max(abs(left).bit_length(), 1) > MAX_RESULT:
                raise SecurityError(f"the template asked for {left} ** {right}; the number is too large")
        return super().call_binop(context, operator, left, right)


def check_text(value: Any) -> Any:
    """Jinja2 ``finalize``: refuse an expression whose text holds a lone surrogate.

    Raises:
        ValueError: naming the code point; raised inside the template, so the
            error names the chapter.md line of the expression.
    """
    if isinstance(value, str):
        check_unicode(value, "the expression's text")
    return value


def check_unicode(text: str, what: str) -> None:
    """Raise ValueError if ``text`` cannot be written as UTF-8 (a lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError(
            f"{what} holds a lone surrogate U+{ord(text[error.start]):04X} at character "
            f"{error.start}; a page is UTF-8 text"
        ) from None


class FigureMacros:
    """The ``figures`` a chapter.md sees: the public functions and constants of its figures.py.

    Only functions defined in that module or in tools/figures.py (the helpers
    the module imports from there) and plain constants (strings, numbers,
    booleans, and tuples, lists and dicts of them) are exposed; imported
    modules, classes and other callables are not. ``wrap`` may replace each
    function (the renderer uses it to place the blocks the functions return).
    """

    def __init__(self, module: types.ModuleType, wrap: Callable[[str, Callable[..., Any]], Callable[..., Any]]) -> None:
        helpers = {"tools.figures"}
        for name, value in vars(module).items():
            if name.startswith("_") or name in ("begin", "current"):
                continue
            if isinstance(value, types.FunctionType) and value.__module__ in helpers | {module.__name__}:
                setattr(self, name, wrap(name, value))
            elif _is_plain(value):
                setattr(self, name, value)
        self._origin = getattr(module, "__file__", module.__name__)

    def __repr__(self) -> str:
        return f"<figure macros of {self._origin}>"


def _is_plain(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` is plain data: a constant, or a container of plain data."""
    if isinstance(value, _PLAIN):
        return True
    if depth > 8:
        return False
    if isinstance(value, (tuple, list, frozenset)):
        return all(_is_plain(item, depth + 1) for item in value)
    if isinstance(value, Mapping):
        return all(_is_plain(key, depth + 1) and _is_plain(item, depth + 1) for key, item in value.items())
    return False


def template_line() -> int | None:
    """The chapter.md line of the innermost Jinja2 template frame on the current stack."""
    frame = sys._getframe(1)
    while frame is not None:
        template = frame.f_globals.get("__jinja_template__")
        if template is not None:
            return template.get_corresponding_lineno(frame.f_lineno)
        frame = frame.f_back
    return None


def traceback_line(error: BaseException, template_file: Path) -> int | None:
    """The chapter.md line of the innermost template frame in ``error``'s traceback.

    Jinja2 rewrites tracebacks so that template frames carry the template's
    file name and line; frames it did not rewrite still carry the template object.
    """
    line = None
    for frame, lineno in traceback.walk_tb(error.__traceback__):
        template = frame.f_globals.get("__jinja_template__")
        if template is not None:
            line = template.get_corresponding_lineno(lineno)
        elif frame.f_code.co_filename == str(template_file):
            line = lineno
    return line


def innermost_frame_in(error: BaseException, directory: Path) -> tuple[Path, int] | None:
    """The innermost traceback frame of ``error`` in a file under ``directory`` (file, line)."""
    found = None
    for frame, lineno in traceback.walk_tb(error.__traceback__):
        file = Path(frame.f_code.co_filename)
        if file.suffix == ".py" and file.is_relative_to(directory):
            found = (file, lineno)
    return found


class LimitExceeded(Exception):
    """The page ran past one of its limits; raised where the template was running,
    so the error names that chapter.md line."""


class RenderLimits:
    """A context manager that bounds the render's time and memory (the main thread only).

    The time limit is a ``SIGALRM`` timer whose handler raises
    :class:`LimitExceeded` in the code that is running; the memory budget is a
    soft ``RLIMIT_AS`` above the address space already in use, so an
    allocation past it raises MemoryError. Both are restored on exit.
    """

    def __init__(self, seconds: float = TIME_LIMIT_SECONDS, memory_budget: int = MEMORY_BUDGET_BYTES) -> None:
        self.seconds = seconds
        self.memory_budget = memory_budget
        self._saved: tuple[Any, tuple[int, int]] | None = None

    def __enter__(self) -> RenderLimits:
        if threading.current_thread() is not threading.main_thread():
            return self  # signals reach only the main thread; render unbounded elsewhere

        def expired(signum: int, frame: Any) -> None:
            raise LimitExceeded(
                f"the page was still rendering after {self.seconds:g} s (a loop over huge ranges?); "
                f"the render step stops a page after {self.seconds:g} s"
            )

        handler = signal.signal(signal.SIGALRM, expired)
        limits = resource.getrlimit(resource.RLIMIT_AS)
        self._saved = (handler, limits)
        signal.setitimer(signal.ITIMER_REAL, self.seconds)
        with open("/proc/self/statm", encoding="ascii") as statm:
            in_use = int(statm.read().split()[0]) * resource.getpagesize()
        budget = in_use + self.memory_budget
        if limits[1] == resource.RLIM_INFINITY or budget < limits[1]:
            resource.setrlimit(resource.RLIMIT_AS, (budget, limits[1]))
        return self

    def __exit__(self, *exception: Any) -> None:
        if self._saved is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            handler, limits = self._saved
            signal.signal(signal.SIGALRM, handler)
            resource.setrlimit(resource.RLIMIT_AS, limits)
            self._saved = None


def generate_page(template: jinja2.Template, label: str) -> str:
    """The template's text, collected piece by piece and refused once it passes
    :data:`MAX_PAGE_CHARACTERS`, naming the line that was writing.

    Raises:
        RenderError: ``label:line: ...`` when the page grows too large.
    """
    pieces: list[str] = []
    total = 0
    generator = template.generate()
    try:
        for piece in generator:
            total += len(piece)
            if total > MAX_PAGE_CHARACTERS:
                line = generator_line(generator) or 0
                generator.close()
                raise RenderError(
                    f"{label}:{line}: the page grew past {MAX_PAGE_CHARACTERS:,} characters at this line "
                    f"(this line alone wrote {len(piece):,}); the largest chapter page is about 120,000. "
                    "A loop over a huge range, or a filter such as center or format with a huge width?"
                )
            pieces.append(piece)
    except LimitExceeded as error:  # the timer fired between two pieces: the generator knows the line
        line = generator_line(generator)
        if line is None:
            raise
        raise RenderError(f"{label}:{line}: {error}") from error
    return "".join(pieces)


def generator_line(generator: Iterator[str]) -> int | None:
    """The chapter.md line a suspended template generator is at (its innermost template frame)."""
    line = None
    current: Any = generator
    while current is not None:
        frame = getattr(current, "gi_frame", None)
        if frame is not None:
            template = frame.f_globals.get("__jinja_template__")
            if template is not None:
                line = template.get_corresponding_lineno(frame.f_lineno)
        current = getattr(current, "gi_yieldfrom", None)
    return line


def describe(error: BaseException) -> str:
    """A one-line description of an exception raised while rendering."""
    if isinstance(error, LimitExceeded):
        return str(error)
    if isinstance(error, MemoryError):
        return (
            f"MemoryError: the page needed more than the {MEMORY_BUDGET_BYTES >> 30} GiB of memory the render "
            "step allows (a filter such as center or format with a huge width, or text that doubles in a loop?)"
        )
    if isinstance(error, SecurityError):
        return f"the sandbox refused: {error} (chapter text may read the trace and call the macros, nothing else)"
    if isinstance(error, RecursionError):
        return "RecursionError: the template or a macro recursed too deeply (a macro or include that calls itself?)"
    if isinstance(error, jinja2.UndefinedError):
        return f"UndefinedError: {error}"
    return f"{type(error).__name__}: {error}"
