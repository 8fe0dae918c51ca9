"""Render one chapter page: ``chapters/<slug>/chapter.md`` -> the Sphinx source tree.

A chapter's text is MyST Markdown processed by Jinja2. The template sees:

``listing(ref, caption)``
    The tagged region ``ref`` (``path/from/root.cpp#region-name``) as a C++
    listing with its caption, original line numbers and a link to the source.
``output()``
    The demo's output, only once it has been verified against expected.txt.
``trace``
    The JSON trace the demo wrote during that same run (figure data).
``figures``
    The chapter's own ``figures.py`` module, if it has one (see tools/figures.py).
``fixed``, ``sci``, ``shortest``, ``plain``
    The demos' number formats (and ``plain``: ``8`` for an integral value),
    also usable as filters: ``{{ x | fixed }}``.
``chapter_ref(number, text=None)``
    ``Chapter 15`` as a link to chapter 15's page when that chapter is written,
    as plain text when it is not yet; a number outside the course is an error.

A chapter without a demo (``llm_chapter(NO_DEMO)`` in its CMakeLists.txt, such
as the orientation chapter 00) is rendered with ``--no-demo`` and no run
directory: its figures come from data files in its own folder, and
``output()`` or ``trace`` in its chapter.md is an error naming the line.

It also checks the links of tools/links.py: every "Chapter N" in the prose is a
``chapter_ref``, and cited papers exist in book/references.bib and are listed
in the history section (their keys get the chapter's prefix in the page).

Before rendering it checks the chapter standard of docs/authoring.md
(tools/standard.py): the nine sections in order, one ``{key-ideas}`` box in
the hand-off section, at least two ``{try-it}`` edits, and glossary terms
that name entries of book/glossary.md.

The template runs in a sandbox (tools/sandbox.py): it reaches the names above
and nothing else, and cannot include other files. The blocks that
``listing()``, ``output()`` and the figure macros return are placed after the
template is rendered (tools/blocks.py), so a call inside a list item, a block
quote or a directive fence is indented and fenced to stay inside it.

Usage (the build runs this; see cmake/LlmChapter.cmake)::

    python -m tools.render --chapter 14-scalar-autodiff --run-dir build/chapters/14-scalar-autodiff \\
        --output build/book/chapters/14-scalar-autodiff.md --depfile build/chapters/14-scalar-autodiff/page.d

Every error names ``chapter.md`` and the line of the macro call that failed (or
the file and line at fault: a malformed region, a non-UTF-8 byte, a broken
trace or figures.py, unreadable Doxygen XML); on any error the page and its
figure files are deleted and its HTML page is replaced by a notice saying why
(tools/stale.py), so no stale page is left behind.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Callable

import jinja2

from tools import chapters, figures, links, stale
from tools.api_roles import ParseError, api_names, check_api_roles
from tools.blocks import BlockPlacer, PlacementError, parse_block
from tools.fileio import atomic_write_text, repository_root
from tools.regions import Region, RegionError, resolve_reference
from tools.sandbox import (
    TIME_LIMIT_SECONDS,
    ChapterEnvironment,
    FigureMacros,
    RenderError,
    RenderLimits,
    check_inside_repository,
    check_unicode,
    describe,
    generate_page,
    load_figures_module,
    read_text_file,
    template_line,
    traceback_line,
    innermost_frame_in,
)
from tools.standard import check_sections, check_standard, glossary_terms


def chapter_number(slug: str) -> str:
    """The chapter number of a slug: ``14`` for ``14-scalar-autodiff``."""
    return slug.split("-", 1)[0]


def _line_spec(numbers: tuple[int, ...]) -> str:
    """Compresses sorted line numbers into ``12-20,22-30``."""
    ranges: list[list[int]] = []
    for number in numbers:
        if ranges and number == ranges[-1][1] + 1:
            ranges[-1][1] = number
        else:
            ranges.append([number, number])
    return ",".join(f"{a}-{b}" if a != b else f"{a}" for a, b in ranges)


class ChapterRenderer:
    """Renders one chapter; holds the paths, the sandboxed environment and the page's blocks."""

    def __init__(
        self,
        slug: str,
        run_dir: Path | None,
        output: Path,
        root: Path | None = None,
        api_xml: Path | None = None,
        has_demo: bool = True,
        time_limit: float = TIME_LIMIT_SECONDS,
    ) -> None:
        """``run_dir`` holds the demo's verified output and trace; it may be
        None only for a chapter without a demo (``has_demo=False``).
        ``time_limit`` bounds the seconds the template and figures may take."""
        if has_demo and run_dir is None:
            raise ValueError(f"chapter {slug}: a chapter with a demo needs its run directory")
        self.root = root or repository_root()
        self.slug = slug
        self.number = chapter_number(slug)
        self.chapter_dir = self.root / "chapters" / slug
        self.source = self.chapter_dir / "chapter.md"
        self.source_label = f"chapters/{slug}/chapter.md"
        self.run_dir = run_dir
        self.output = output
        self.api_xml = api_xml
        self.has_demo = has_demo
        self.time_limit = time_limit
        self.context = figures.RenderContext(
            slug=slug, asset_dir=output.parent / slug, asset_prefix=slug
        )
        self.blocks = BlockPlacer(self.source_label)

    def _block(self, text: str, what: str) -> str:
        """Hand a macro's fenced block to the placer; return its placeholder (tools/blocks.py)."""
        line = template_line() or 0
        check_unicode(text, f"the block of {what}")
        block = parse_block(text, line, what)
        assert block is not None, f"{what} returns a fenced block"
        return self.blocks.add(block)

    # -- macros ------------------------------------------------------------

    def listing(self, ref: str, caption: str, elide: list[str] | tuple[str, ...] = ()) -> str:
        """The MyST ``listing`` directive for region ``ref`` (see book/_ext/llm_book.py).

        ``elide`` names regions nested inside ``ref`` whose lines the listing
        replaces by one comment line pointing at them (``// ... name: lines
        12-20``), so a listing can show an idea without the validation around
        it. That line carries the inner start marker's line number, so it
        links to the elided code. Raises RenderError if a name is not a region
        strictly inside ``ref``.
        """
        line = template_line() or 0
        region: Region = resolve_reference(ref, self.root, self.source_label, line)
        self.context.dependencies.add(self.root / region.path)
        self.context.listings += 1
        lines, numbers = list(region.lines), list(region.line_numbers)
        for inner_name in elide:
            inner = resolve_reference(f"{region.path}#{inner_name}", self.root, self.source_label, line)
            if not region.start_line < inner.start_line < inner.end_line < region.end_line:
                raise RenderError(
                    f"{self.source_label}:{line}: listing {ref}: cannot elide '{inner_name}' "
                    f"(lines {inner.start_line}-{inner.end_line}), which is not inside the listed region"
                )
            kept = [i for i, number in enumerate(numbers) if not inner.start_line < number < inner.end_line]
            first = next(i for i, number in enumerate(numbers) if inner.start_line < number < inner.end_line)
            indent = re.match(r"\s*", lines[first]).group(0)
            placeholder = f"{indent}// ... {inner_name}: lines {inner.start_line + 1}-{inner.end_line - 1}"
            lines = [lines[i] for i in kept if i < first] + [placeholder] + [lines[i] for i in kept if i > first]
            numbers = [numbers[i] for i in kept if i < first] + [inner.start_line] + [numbers[i] for i in kept if i > first]
        body = "\n".join(lines)
        ticks = figures.fence(body)
        return self._block(
            f"{ticks}{{listing}} {region.path}#{region.name}\n"
            f":caption: {figures.option_text(caption)}\n"
            f":lines: {_line_spec(tuple(numbers))}\n\n"
            f"{body}\n{ticks}\n",
            f"listing({ref!r})",
        )

    def chapter_ref(self, number: int | str, text: str | None = None) -> str:
        """``Chapter N`` (or ``text``) linking to chapter N's page, or plain text if it is not written yet.

        Raises RenderError if N is not a chapter of the course (00-40).
        """
        line = template_line() or 0
        try:
            value = int(number)
            chapters.part_of(value)
        except ValueError as error:
            raise RenderError(f"{self.source_label}:{line}: chapter_ref({number!r}): {error}") from error
        label = text if text is not None else f"Chapter {value}"
        # A chapter folder that appears or disappears changes this link.
        self.context.dependencies.add(self.root / "chapters")
        slug = chapters.written_chapters(self.root).get(value)
        return f"[{label}]({slug}.md)" if slug is not None else label

    def _no_demo_hint(self) -> str:
        return (
            f"chapter {self.number} has no demo (llm_chapter(NO_DEMO) in chapters/{self.slug}/CMakeLists.txt), "
            "so there is no output and no trace; draw its figures from data files in its folder, "
            "or give the chapter a demo"
        )

    def output_block(self) -> str:
        """The verified demo output as a text block."""
        if not self.has_demo or self.run_dir is None:
            raise RenderError(f"{self.source_label}:{template_line() or 0}: output(): {self._no_demo_hint()}")
        output = self.run_dir / "output.txt"
        stamp = self.run_dir / "verified.stamp"
        if not output.exists() or not stamp.exists() or stamp.stat().st_mtime < output.stat().st_mtime:
            raise RenderError(
                f"{self.source_label}:{template_line() or 0}: the demo output in {output} is not "
                f"verified against chapters/{self.slug}/expected.txt; run: make chapter-{self.number}"
            )
        text = read_text_file(output, _display_path(output))
        ticks = figures.fence(text)
        caption = f"Output of the chapter {self.number} demo, verified against chapters/{self.slug}/expected.txt"
        return self._block(
            f"{ticks}{{code-block}} text\n"
            f":caption: {figures.option_text(caption)}\n"
            f":class: demo-output\n\n{text.rstrip(chr(10))}\n{ticks}\n",
            "output()",
        )

    # -- rendering ---------------------------------------------------------

    def _load_trace(self) -> Any:
        """The demo's JSON trace, or a RenderError naming trace.json and the line."""
        if not self.has_demo or self.run_dir is None:
            return jinja2.StrictUndefined(hint=f"trace: {self._no_demo_hint()}", name="trace")
        path = self.run_dir / "trace.json"
        label = _display_path(path)
        if not path.exists():
            raise RenderError(f"{self.source_label}:1: the demo wrote no trace at {label}; run: make chapter-{self.number}")
        text = read_text_file(path, label)
        try:
            return json.loads(text)
        except json.JSONDecodeError as error:
            raise RenderError(f"{label}:{error.lineno}: the demo's trace is not valid JSON: {error.msg}") from error
        except RecursionError as error:
            raise RenderError(f"{label}:1: the demo's trace nests too deeply to read") from error

    def _wrap_figure(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        """A figure macro whose fenced-block results are placed like listings (tools/blocks.py)."""

        def macro(*args: Any, **kwargs: Any) -> Any:
            result = function(*args, **kwargs)
            if isinstance(result, str) and parse_block(result, 0, name) is not None:
                return self._block(result, f"figures.{name}()")
            return result

        return macro

    def _environment(self, text: str) -> jinja2.Environment:
        """The sandbox chapter.md is rendered in, with the page's names (tools/sandbox.py)."""
        environment = ChapterEnvironment(text, self.source)
        formats = {
            "fixed": figures.fixed,
            "sci": figures.sci,
            "shortest": figures.shortest,
            "plain": figures.plain,
        }
        environment.filters.update(formats)
        environment.globals.update(formats)
        module = None
        path = self.chapter_dir / "figures.py"
        if path.exists():
            self.context.dependencies.add(path)
            label = f"chapters/{self.slug}/figures.py"
            module = load_figures_module(path, label, f"chapter_figures_{self.number}", self.root)
        environment.globals.update(
            listing=self.listing,
            output=self.output_block,
            chapter_ref=self.chapter_ref,
            trace=self._load_trace(),
            figures=FigureMacros(module, self._wrap_figure) if module is not None else None,
            chapter={"number": self.number, "slug": self.slug},
        )
        return environment

    def _read_inputs(self) -> str:
        """chapter.md's text after the checks that need no template: sections, standard, API names."""
        if not self.source.exists():
            raise RenderError(f"{self.source_label}:1: the chapter has no chapter.md")
        check_inside_repository(self.source, self.source_label, self.root)
        self.context.dependencies.add(self.source)
        text = read_text_file(self.source, self.source_label)
        check_sections(text, self.number, self.source_label)
        glossary = self.root / "book" / "glossary.md"
        terms = None
        if glossary.exists():
            self.context.dependencies.add(glossary)
            read_text_file(glossary, "book/glossary.md")  # locates a non-UTF-8 byte
            terms = glossary_terms(glossary)
        check_standard(text, self.number, self.source_label, terms)
        self._check_links(text)
        if self.api_xml is not None:
            try:
                names = api_names(self.api_xml)
            except OSError as error:
                raise RenderError(
                    f"{_display_path(Path(error.filename or self.api_xml))}:1: cannot read Doxygen's XML "
                    f"({error.strerror}); it is built by the api-xml step: make chapter-{self.number}"
                ) from error
            except ParseError as error:
                raise RenderError(
                    f"{_display_path(self.api_xml)}:{error.position[0]}: Doxygen's XML is not well-formed: {error}"
                ) from error
            check_api_roles(text, names, self.source_label)
        return text

    def render(self) -> str:
        """Renders the page text.

        Raises:
            RenderError: ``file:line: message`` for every failure: a check of
                the chapter standard, an unreadable or non-UTF-8 input, a
                broken trace or figures.py, a template error or any exception
                a macro raises (at the chapter.md line of the call), a
                refusal of the sandbox, a block that cannot be placed.
            RegionError: for a listing's region defect (tools/regions.py).
        """
        text = self._read_inputs()
        figures.begin(self.context)
        try:
            with RenderLimits(self.time_limit):
                environment = self._environment(text)
                template = environment.get_template("chapter.md")
                page = links.localize_citations(generate_page(template, self.source_label), self.number)
        except (RenderError, RegionError):
            raise
        except jinja2.TemplateSyntaxError as error:
            raise RenderError(f"{self.source_label}:{error.lineno}: template syntax error: {error.message}") from error
        except Exception as error:  # any macro, figure or sandbox failure: locate it in chapter.md
            line = traceback_line(error, self.source) or 0
            where = innermost_frame_in(error, self.chapter_dir)
            inside = f" (in chapters/{self.slug}/{where[0].name}:{where[1]})" if where else ""
            raise RenderError(f"{self.source_label}:{line}: {describe(error)}{inside}") from error
        try:
            page = self.blocks.place(page)
        except PlacementError as error:
            raise RenderError(str(error)) from error
        try:
            check_unicode(page, "the page")
        except ValueError as error:  # every expression and block is checked; this is the last guard
            raise RenderError(f"{self.source_label}:0: {error}") from error
        return page

    def _check_links(self, text: str) -> None:
        """Chapter mentions are chapter_ref links; citations name entries of
        book/references.bib and are listed in the history section (tools/links.py)."""
        bibliography = self.root / "book" / "references.bib"
        keys = None
        if bibliography.exists():
            self.context.dependencies.add(bibliography)
            keys = links.bibliography_keys(bibliography)
        try:
            links.check_chapter_links(text, self.number, self.source_label)
            links.check_citations(text, self.number, self.source_label, keys)
        except links.LinkError as error:
            raise RenderError(str(error)) from error

    def write_depfile(self, depfile: Path) -> None:
        """Writes a Make-style depfile: the page depends on every file it was built from."""
        def escape(path: Path) -> str:
            return str(path).replace("\\", "\\\\").replace(" ", "\\ ").replace("#", "\\#")

        dependencies = " \\\n  ".join(escape(path) for path in sorted(self.context.dependencies))
        atomic_write_text(depfile, f"{escape(self.output)}: \\\n  {dependencies}\n")


def _display_path(path: Path) -> str:
    """``path`` relative to the working directory when it lies below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _count(number: int, noun: str) -> str:
    """``1 listing``, ``3 listings``."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the process exit status."""
    parser = argparse.ArgumentParser(prog="python -m tools.render", description=__doc__.splitlines()[0])
    parser.add_argument("--chapter", required=True, help="chapter folder name, e.g. 14-scalar-autodiff")
    parser.add_argument("--run-dir", type=Path, help="where the demo's output.txt and trace.json are")
    parser.add_argument(
        "--no-demo",
        action="store_true",
        help="the chapter has no demo (llm_chapter(NO_DEMO)): no run directory, no output() and no trace",
    )
    parser.add_argument("--output", required=True, type=Path, help="the rendered page to write")
    parser.add_argument("--depfile", type=Path, help="write a Make-style depfile of the page's inputs here")
    parser.add_argument(
        "--api-xml", type=Path, help="Doxygen's XML: check that every C++ role names a documented entity"
    )
    parser.add_argument(
        "--stale",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="another page built from this one (the HTML), withdrawn if rendering fails (tools/stale.py; repeatable)",
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        default=TIME_LIMIT_SECONDS,
        metavar="SECONDS",
        help=f"stop a page that takes longer to render (default {TIME_LIMIT_SECONDS:g})",
    )
    args = parser.parse_args(argv)
    if args.run_dir is None and not args.no_demo:
        parser.error("--run-dir is required unless the chapter has no demo (--no-demo)")

    started = time.monotonic()
    renderer = ChapterRenderer(
        args.chapter,
        None if args.no_demo else args.run_dir.resolve(),
        args.output.resolve(),
        api_xml=args.api_xml,
        has_demo=not args.no_demo,
        time_limit=args.time_limit,
    )
    target = args.output
    try:
        page = renderer.render()
        atomic_write_text(args.output, page)
        if args.depfile:
            target = args.depfile
            renderer.write_depfile(args.depfile.resolve())
    except (RenderError, RegionError) as error:
        message = str(error)
    except OSError as error:  # writing the page or its depfile
        message = f"{_display_path(target)}: cannot write: {error.strerror}"
    except Exception as error:  # a defect of the renderer itself: still located, still cleaned up
        message = (
            f"{renderer.source_label}:0: the renderer failed: {type(error).__name__}: {error}\n"
            + "".join(traceback.format_exception(error)).rstrip()
        )
    else:
        context = renderer.context
        print(
            f"chapter {renderer.number}: render ... ok ({_count(context.listings, 'listing')}, "
            f"{_count(context.figures, 'figure')}, "
            f"{time.monotonic() - started:.2f} s) -> {_display_path(args.output)}"
        )
        return 0
    # A failed render's page, the pages built from it (tools/stale.py) and its figure files go.
    notes = stale.withdraw([args.output, *args.stale], f"{message}\nchapter {renderer.number}: render ... FAILED")
    shutil.rmtree(renderer.context.asset_dir, ignore_errors=True)
    print(f"error: {message}", file=sys.stderr)
    print(f"chapter {renderer.number}: render ... FAILED", file=sys.stderr)
    for note in notes:
        print(f"chapter {renderer.number}: {note}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
