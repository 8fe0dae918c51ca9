"""Make Debian's Furo theme work offline: bundle its scripts, inline its CSS imports.

Debian's ``furo`` package ships the theme's JavaScript as ES modules
(``furo.js`` starts with ``import Gumshoe from "./gumshoe-patched.js"``) and
loads it with a classic ``<script>`` tag, so every page throws
``Cannot use import statement outside a module`` and the theme toggle, the
back-to-top button and the "on this page" highlight never run. Its
``furo.css`` starts with ``@import url(/javascript/normalize.css/normalize.css)``,
a path that only exists on a web server configured like Debian's.

This tool writes, into ``--output``:

* ``scripts/furo.js``: ``furo.js`` and the modules it imports bundled by
  Debian's ``esbuild`` into one classic script (an IIFE), with the one fix of
  SCRIPT_FIXES (a page without sections made the contents highlighter throw);
* ``styles/furo.css``: ``furo.css`` with each ``@import`` of an absolute path
  replaced by the file's content, found under ``/usr/share/javascript``
  (``normalize.css`` comes from Debian's ``node-normalize.css``), and with the
  automatic dark mode (a dark system theme) that Debian's compiled stylesheet
  lacks (:func:`add_auto_dark_mode`).

The book's Sphinx configuration adds that folder to ``html_static_path``, whose
files replace the theme's own. Usage (cmake/LlmBookHtml.cmake runs it)::

    python -m tools.theme --output build/book/_theme [--esbuild /usr/bin/esbuild]
    python -m tools.theme --print-sources     # the theme files the output depends on
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tools.fileio import atomic_write_text

#: Where Debian installs web libraries that a theme's CSS may import by absolute path.
JAVASCRIPT_ROOT = Path("/usr/share/javascript")

#: ``@import url(/javascript/normalize.css/normalize.css);`` or ``@import "/x.css";``
CSS_IMPORT = re.compile(r"""@import\s+(?:url\(\s*)?["']?(?P<target>[^"')\s;]+)["']?\s*\)?\s*;""")


class ThemeError(Exception):
    """The theme cannot be made to work offline; the message says why and what to install."""


def furo_static_dir() -> Path:
    """The ``static`` folder of the installed Furo theme.

    Raises:
        ThemeError: if Furo is not importable or has no ``scripts/furo.js``.
    """
    try:
        import furo
    except ImportError as error:
        raise ThemeError("the Furo theme is not installed; run: apt-get install furo") from error
    static = Path(furo.__file__).parent / "theme" / "furo" / "static"
    if not (static / "scripts" / "furo.js").is_file():
        raise ThemeError(f"the Furo theme at {static} has no scripts/furo.js")
    return static


def theme_sources(static: Path) -> list[Path]:
    """The theme files the output is built from (for the build's dependencies)."""
    return sorted([*static.glob("scripts/*.js"), *static.glob("styles/*.css")])


def resolve_import(target: str, roots: list[Path]) -> Path:
    """The local file an absolute ``@import`` target stands for.

    ``/javascript/normalize.css/normalize.css`` is looked up as
    ``normalize.css/normalize.css`` under each of ``roots``.

    Raises:
        ThemeError: if no root holds the file.
    """
    relative = target.removeprefix("/javascript/").lstrip("/")
    for root in roots:
        candidate = root / relative
        if candidate.is_file():
            return candidate
    places = ", ".join(str(root) for root in roots)
    raise ThemeError(
        f"furo.css imports {target}, which is not under {places}; "
        "Debian's node-normalize.css provides normalize.css (apt-get install node-normalize.css)"
    )


def inline_css_imports(css: str, roots: list[Path]) -> str:
    """``css`` with every ``@import`` of an absolute path replaced by that file's text.

    Relative imports and ``http(s)`` imports are left alone (a relative one is
    served beside the stylesheet). Raises ThemeError for a file that is missing.
    """

    def replace(match: re.Match[str]) -> str:
        target = match.group("target")
        if not target.startswith("/"):
            return match.group(0)
        path = resolve_import(target, roots)
        return f"/* {target}, inlined from {path} */\n{path.read_text(encoding='utf-8')}\n"

    return CSS_IMPORT.sub(replace, css)


#: Fixes applied to the theme's scripts before bundling: (file, text, replacement).
#: Gumshoe, the "on this page" highlighter, reads ``contents[-1].content`` when
#: a page has no sections in its contents (the book's front page) and the page
#: is scrolled to the bottom: an uncaught TypeError. A fix already present
#: upstream (the text not found) is skipped.
SCRIPT_FIXES = (
    (
        "gumshoe-patched.js",
        "var last = contents[contents.length - 1];",
        "if (!contents.length) return null; // tools/theme.py: a page without sections\n"
        "      var last = contents[contents.length - 1];",
    ),
)


def fixed_scripts(static: Path, folder: Path) -> Path:
    """Copies the theme's scripts into ``folder`` with SCRIPT_FIXES applied; returns furo.js there."""
    for script in (static / "scripts").glob("*.js"):
        text = script.read_text(encoding="utf-8")
        for name, old, new in SCRIPT_FIXES:
            if script.name == name and old in text and new not in text:
                text = text.replace(old, new, 1)
        (folder / script.name).write_text(text, encoding="utf-8")
    return folder / "furo.js"


#: The rule Furo's stylesheet switches to dark colours with when the toggle says so.
DARK_RULE = re.compile(r'body\[data-theme="dark"\]\s*\{(?P<declarations>[^{}]*)\}')


def add_auto_dark_mode(css: str) -> str:
    """``css`` with Furo's "auto" dark mode, if the stylesheet lacks it.

    Furo's Sass nests ``@media (prefers-color-scheme: dark)`` inside
    ``@media not print``; Debian's compiled furo.css lost that inner block, so
    on a dark system the code turned dark (Pygments' own rule) while the page
    stayed white. The block is rebuilt from the toggle's dark rule: the same
    colours for ``body:not([data-theme="light"])`` on a dark screen.

    Raises:
        ThemeError: if the stylesheet has no dark rule to copy.
    """
    if "prefers-color-scheme: dark" in css or "prefers-color-scheme:dark" in css:
        return css
    match = DARK_RULE.search(css)
    if match is None:
        raise ThemeError('furo.css has no body[data-theme="dark"] rule to build the automatic dark mode from')
    return (
        f"{css}\n/* Automatic dark mode on a dark system, rebuilt by tools/theme.py. */\n"
        "@media screen and (prefers-color-scheme: dark) {\n"
        f'  body:not([data-theme="light"]) {{{match.group("declarations")}}}\n'
        '  html body:not([data-theme="light"]) .only-light { display: none !important; }\n'
        '  body:not([data-theme="light"]) .only-dark { display: block !important; }\n'
        "}\n"
    )


def bundle_scripts(static: Path, output: Path, esbuild: str) -> None:
    """Bundles ``scripts/furo.js`` and its imports into one classic script.

    Raises:
        ThemeError: if esbuild is missing or fails (its message is included).
    """
    executable = shutil.which(esbuild)
    if executable is None:
        raise ThemeError(f"esbuild not found ({esbuild}); run: apt-get install esbuild")
    target = output / "scripts" / "furo.js"
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(".furo.js.tmp")
    with tempfile.TemporaryDirectory(prefix="llm-theme-") as folder:
        entry = fixed_scripts(static, Path(folder))
        command = [
            executable, str(entry), "--bundle", "--format=iife",
            "--target=es2017", "--log-level=warning", f"--outfile={temporary}",
        ]
        result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        temporary.unlink(missing_ok=True)
        raise ThemeError(f"esbuild could not bundle the theme's scripts:\n{result.stderr.strip()}")
    text = temporary.read_text(encoding="utf-8")
    temporary.unlink()
    if re.search(r"^\s*(import|export)\s", text, re.M):
        raise ThemeError(f"the bundled {target} still contains an import or export statement")
    header = f"/* Furo's scripts bundled by esbuild from {static / 'scripts'} (tools/theme.py). */\n"
    atomic_write_text(target, header + text)


def build(output: Path, esbuild: str = "esbuild", roots: list[Path] | None = None) -> list[Path]:
    """Writes the bundled script and the self-contained stylesheets into ``output``.

    Returns the files written. Raises ThemeError naming what is missing.
    """
    static = furo_static_dir()
    bundle_scripts(static, output, esbuild)
    written = [output / "scripts" / "furo.js"]
    for stylesheet in sorted(static.glob("styles/*.css")):
        css = inline_css_imports(stylesheet.read_text(encoding="utf-8"), roots or [JAVASCRIPT_ROOT])
        if stylesheet.name == "furo.css":
            css = add_auto_dark_mode(css)
        target = output / "styles" / stylesheet.name
        atomic_write_text(target, css)
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the process exit status."""
    parser = argparse.ArgumentParser(prog="python -m tools.theme", description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, help="folder to write scripts/ and styles/ into")
    parser.add_argument("--esbuild", default="esbuild", help="the esbuild executable (default: esbuild on PATH)")
    parser.add_argument("--print-sources", action="store_true", help="print the theme files the output depends on")
    args = parser.parse_args(argv)
    try:
        if args.print_sources:
            print(";".join(str(path) for path in theme_sources(furo_static_dir())))
            return 0
        if args.output is None:
            parser.error("--output is required")
        written = build(args.output, args.esbuild)
    except ThemeError as error:
        print(f"error: theme: {error}", file=sys.stderr)
        return 1
    print(f"theme: Furo bundled for offline use ({len(written)} files) -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
