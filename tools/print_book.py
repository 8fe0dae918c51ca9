"""The book as a PDF and as an EPUB (``make pdf``, ``make epub``; not part of ``make book``).

PDF
    Headless Chromium (Debian's ``chromium``, ``chromium-driver`` and
    ``python3-selenium``, which ``make check-html`` uses too) opens the whole
    book's print view, ``build/html/print.html`` (book/_ext/llm_print.py),
    waits until MathJax has typeset every formula and every figure has
    loaded, and prints it to A4 with page numbers in the footer and the
    chapters' headings as the PDF's outline (bookmarks). The print style
    (book.css, ``@media print``) opens the answers, wraps code and tables and
    starts each chapter on a new page. Nothing else is installed: no TeX.
EPUB
    Sphinx's ``epub`` builder writes the pages as XHTML (the API reference
    included, the search page and the print view left out). EPUB readers do
    not run MathJax, so the book's extension llm_epub writes each formula's
    TeX into a placeholder, and this tool converts every placeholder to
    MathML with the book's own MathJax 2 in Chromium (its ``toMathML``
    extension), marks the pages that hold MathML in the package document
    (``properties="mathml"``, as EPUB 3 requires), and zips the book again.

Usage::

    python -m tools.print_book pdf --html build/html --output build/llm-from-scratch-cpp.pdf
    python -m tools.print_book epub --source build/book --html build/html \\
        --work build/epub --doctrees build/epub-doctrees --output build/llm-from-scratch-cpp.epub

Each prints progress lines and ends with the file written and its size (and,
for the PDF, its page count).
"""

from __future__ import annotations

import argparse
import base64
import html
import re
import subprocess
import sys
import time
import zipfile
from pathlib import Path

#: A4 in inches, and the margins: room for the footer's page number.
PAPER = {"paperWidth": 8.27, "paperHeight": 11.69, "marginTop": 0.6, "marginBottom": 0.7,
         "marginLeft": 0.65, "marginRight": 0.65}
FOOTER = ('<div style="font-size:8px;width:100%;text-align:center;color:#555;">'
          '<span class="pageNumber"></span> / <span class="totalPages"></span></div>')

STARTED = time.monotonic()


def progress(message: str) -> None:
    print(f"print-book: [{time.monotonic() - STARTED:4.0f} s] {message}", flush=True)


# -- PDF -----------------------------------------------------------------------------------


#: Waits (asynchronously) until MathJax is done and every image and Graphviz object has loaded.
READY_PROBE = r"""
const done = arguments[arguments.length - 1];
const images = () => [...document.images].every((image) => image.complete);
const check = () => {
  if (!images()) { setTimeout(check, 200); return; }
  if (window.MathJax && MathJax.Hub) MathJax.Hub.Queue(() => done(document.querySelectorAll(".MathJax_CHTML").length));
  else done(0);
};
document.querySelectorAll("details").forEach((details) => { details.open = true; });
check();
"""


def print_pdf(html_dir: Path, output: Path) -> int:
    """Prints ``html_dir/print.html`` to ``output``; returns the exit status."""
    from tools.check_html import start_browser

    page = html_dir / "print.html"
    if not page.is_file():
        print(f"print-book: no print view at {page}; run: make book", file=sys.stderr)
        return 2
    driver = start_browser()
    try:
        driver.set_page_load_timeout(600)
        driver.set_script_timeout(900)
        progress(f"open {page.name} ({page.stat().st_size // 1024} KB) in Chromium")
        driver.get(page.as_uri())
        formulas = driver.execute_async_script(READY_PROBE)
        progress(f"typeset {formulas} formulas; printing to PDF")
        result = driver.execute_cdp_cmd("Page.printToPDF", {
            **PAPER, "printBackground": True, "preferCSSPageSize": False,
            "displayHeaderFooter": True, "headerTemplate": "<span></span>", "footerTemplate": FOOTER,
            "generateDocumentOutline": True, "generateTaggedPDF": True,
        })
    finally:
        driver.quit()
    output.parent.mkdir(parents=True, exist_ok=True)
    temporary = output.with_name(output.name + ".tmp")
    temporary.write_bytes(base64.b64decode(result["data"]))
    temporary.replace(output)
    pages = pdf_pages(output)
    progress(f"{output} ({output.stat().st_size / 1e6:.1f} MB, {pages if pages else '?'} pages)")
    return 0


def pdf_pages(path: Path) -> int | None:
    """The page count of a PDF (poppler-utils' pdfinfo), or None without pdfinfo."""
    try:
        info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    match = re.search(r"^Pages:\s+(\d+)", info, re.M)
    return int(match.group(1)) if match else None


# -- EPUB ------------------------------------------------------------------------------------

#: The placeholder llm_epub writes for a formula: display flag and the TeX, escaped.
PLACEHOLDER = re.compile(r'<span class="llm-tex" data-display="([01])">(.*?)</span>', re.S)

#: Converts a list of [TeX, display] to MathML strings with MathJax 2's TeX input and toMathML.
MATHML_PROBE = r"""
const [formulas] = arguments;
const done = arguments[arguments.length - 1];
const box = document.createElement("div");
box.style.position = "absolute";
box.style.left = "-10000px";
document.body.appendChild(box);
const scripts = formulas.map(([tex, display]) => {
  const script = document.createElement("script");
  script.type = display ? "math/tex; mode=display" : "math/tex";
  script.text = tex;
  box.appendChild(script);
  return script;
});
const collect = () => done(scripts.map((script) => {
  try {
    const jax = MathJax.Hub.getJaxFor(script);
    const mathml = jax && jax.root.toMathML("");
    return mathml && !/<merror/.test(mathml) ? mathml : null;
  } catch (error) {
    return null;
  }
}));
MathJax.Hub.Register.StartupHook("End", () => MathJax.Hub.Queue(
  ["Require", MathJax.Ajax, "[MathJax]/extensions/toMathML.js"],
  ["Typeset", MathJax.Hub, box],
  collect,
));
"""


def mathml_for(formulas: list[tuple[str, bool]], html_dir: Path) -> list[str | None]:
    """MathML for each (TeX, display) pair, by the book's MathJax in Chromium (None where TeX fails)."""
    from tools.check_html import start_browser

    mathjax = html_dir / "_static" / "mathjax" / "MathJax.js"
    if not mathjax.is_file():
        raise SystemExit(f"print-book: no MathJax at {mathjax}; run: make book")
    page = html_dir / "_static" / "llm-mathml.html"
    page.write_text(
        '<!DOCTYPE html><html><head><meta charset="utf-8">'
        '<script type="text/x-mathjax-config">MathJax.Hub.Config({skipStartupTypeset: true, '
        'jax: ["input/TeX", "output/CommonHTML"], extensions: ["tex2jax.js"], '
        'TeX: {extensions: ["AMSmath.js", "AMSsymbols.js", "noErrors.js", "noUndefined.js"]}});</script>'
        '<script src="mathjax/MathJax.js?config=TeX-AMS_CHTML"></script></head><body></body></html>',
        encoding="utf-8",
    )
    driver = start_browser()
    try:
        driver.set_script_timeout(600)
        driver.get(page.as_uri())
        return driver.execute_async_script(MATHML_PROBE, [[tex, int(display)] for tex, display in formulas])
    finally:
        driver.quit()
        page.unlink(missing_ok=True)


def _with_alttext(mathml: str, tex: str) -> str:
    """``mathml`` with the TeX as its ``alttext`` (readers that cannot show MathML show that)."""
    return mathml.replace("<math ", f'<math alttext="{html.escape(tex, quote=True)}" ', 1)


def convert_math(work: Path, html_dir: Path) -> int:
    """Replaces every TeX placeholder in ``work``'s XHTML by MathML; returns how many."""
    pages = sorted(work.rglob("*.xhtml"))
    found: dict[tuple[str, bool], None] = {}
    for page in pages:
        for display, escaped in PLACEHOLDER.findall(page.read_text(encoding="utf-8")):
            found[(html.unescape(escaped), display == "1")] = None
    formulas = list(found)
    progress(f"{len(formulas)} distinct formulas in {len(pages)} pages -> MathML (MathJax in Chromium)")
    converted = dict(zip(formulas, mathml_for(formulas, html_dir))) if formulas else {}
    failed = [tex for (tex, _), mathml in converted.items() if not mathml]
    for tex in failed[:5]:
        print(f"print-book: MathJax could not convert {tex!r}; the EPUB shows its TeX", file=sys.stderr)

    def replace(match: re.Match[str]) -> str:
        tex, display = html.unescape(match.group(2)), match.group(1) == "1"
        mathml = converted.get((tex, display))
        if not mathml:
            return f'<code class="llm-tex">{match.group(2)}</code>'
        return _with_alttext(mathml, tex)

    count = 0
    for page in pages:
        text = page.read_text(encoding="utf-8")
        new, replaced = PLACEHOLDER.subn(replace, text)
        if replaced:
            page.write_text(new, encoding="utf-8")
            count += replaced
    return count


def mark_mathml_pages(work: Path) -> int:
    """Adds ``properties="mathml"`` to the manifest items whose page holds MathML; returns how many."""
    opf = work / "content.opf"
    text = opf.read_text(encoding="utf-8")
    marked = 0

    def mark(match: re.Match[str]) -> str:
        nonlocal marked
        item = match.group(0)
        href = re.search(r'href="([^"]+)"', item)
        if not href or not href.group(1).endswith(".xhtml"):
            return item
        page = work / html.unescape(href.group(1))
        if not page.is_file() or "<math" not in page.read_text(encoding="utf-8"):
            return item
        marked += 1
        existing = re.search(r'properties="([^"]*)"', item)
        if existing:
            return item.replace(existing.group(0), f'properties="{existing.group(1)} mathml"')
        return item.replace("<item ", '<item properties="mathml" ', 1)

    opf.write_text(re.sub(r"<item\b[^>]*/>", mark, text), encoding="utf-8")
    return marked


def zip_epub(work: Path, output: Path) -> None:
    """Zips ``work`` as an EPUB: ``mimetype`` first and stored, the rest compressed."""
    temporary = output.with_name(output.name + ".tmp")
    with zipfile.ZipFile(temporary, "w") as archive:
        archive.write(work / "mimetype", "mimetype", compress_type=zipfile.ZIP_STORED)
        for path in sorted(work.rglob("*")):
            relative = path.relative_to(work).as_posix()
            if path.is_file() and relative != "mimetype" and not path.name.endswith(".epub") and relative != ".buildinfo":
                archive.write(path, relative, compress_type=zipfile.ZIP_DEFLATED)
    temporary.replace(output)


def build_epub(source: Path, html_dir: Path, work: Path, doctrees: Path, output: Path, python: str) -> int:
    """Runs Sphinx's epub builder into ``work``, converts the math, and zips ``output``."""
    progress(f"sphinx -b epub {source} -> {work}")
    # -t epub: conf.py switches math to MathML for this tag (set before conf.py is read);
    # -a: every page is written again, since the math is converted in the written pages.
    command = [python, "-m", "sphinx", "-q", "-a", "-t", "epub", "-b", "epub", "-d", str(doctrees), str(source), str(work)]
    status = subprocess.run(command, check=False).returncode
    if status != 0:
        print(f"print-book: sphinx-build -b epub failed (exit status {status})", file=sys.stderr)
        return status
    count = convert_math(work, html_dir)
    marked = mark_mathml_pages(work)
    progress(f"{count} formulas as MathML in {marked} pages")
    zip_epub(work, output)
    with zipfile.ZipFile(output) as archive:
        broken = archive.testzip()
        names = archive.namelist()
    if broken is not None or names[0] != "mimetype":
        print(f"print-book: {output} is not a valid archive ({broken or names[0]})", file=sys.stderr)
        return 1
    progress(f"{output} ({output.stat().st_size / 1e6:.1f} MB, {sum(n.endswith('.xhtml') for n in names)} pages)")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the process exit status."""
    parser = argparse.ArgumentParser(prog="python -m tools.print_book", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    pdf = commands.add_parser("pdf", help="print the book's print view to PDF with headless Chromium")
    pdf.add_argument("--html", type=Path, required=True, help="the built HTML book (build/html)")
    pdf.add_argument("--output", type=Path, required=True, help="the PDF to write")
    epub = commands.add_parser("epub", help="build the EPUB with Sphinx, math as MathML")
    epub.add_argument("--source", type=Path, required=True, help="the staged Sphinx source (build/book)")
    epub.add_argument("--html", type=Path, required=True, help="the built HTML book (its MathJax converts the math)")
    epub.add_argument("--work", type=Path, required=True, help="Sphinx's epub output folder (build/epub)")
    epub.add_argument("--doctrees", type=Path, required=True, help="the epub build's own Sphinx environment")
    epub.add_argument("--output", type=Path, required=True, help="the .epub to write")
    epub.add_argument("--python", default=sys.executable, help="the Python that runs Sphinx")
    args = parser.parse_args(argv)
    if args.command == "pdf":
        return print_pdf(args.html.resolve(), args.output.resolve())
    return build_epub(args.source.resolve(), args.html.resolve(), args.work.resolve(), args.doctrees.resolve(),
                      args.output.resolve(), args.python)


if __name__ == "__main__":
    sys.exit(main())
