"""Check the built HTML book in a real browser: Debian's Chromium through
python3-selenium and chromium-driver (``make check-html``; CI runs it after
``make book``).

Every page is opened from ``file://``, as a reader opens the book from disk.
The check fails on:

* a console error on any page (a theme script that does not load, a missing file);
* untypeset math (``$...$``, ``\\(...\\)`` left in the text, a ``.math``
  element MathJax did not typeset) or a MathJax error;
* a symbol table whose meaning column is narrower than its symbol column, a
  number that wraps inside its exponent on a phone;
* an answer that is open at load or does not open when clicked;
* a copy from a listing or a highlighted-source page that contains line
  numbers, or a copy button that covers the first line of code;
* a source listing that scrolls sideways at 1280 px (its longest line, up to
  clang-format's 100 columns, must be in view);
* a table laid out to fit a phone (class ``llm-fits-phone``, from
  ``table(fits_phone=True)`` in tools/figures.py) that scrolls sideways at 390 px;
* a Graphviz figure taller than a laptop screen, or shrunk on a phone;
* the theme toggle not reaching dark mode or not changing the page background,
  dark mode with light text areas, back-to-top or the "on this page"
  highlight not working;
* search from ``file://`` without snippets, with TeX or line numbers in them,
  or with duplicate results;
* and the static checks of tools/html_static.py: a broken local link or
  anchor, a duplicate id, a tab stop inside an ``aria-hidden`` block.

It saves full-page screenshots of every chapter at 1280 px and 390 px, light
and dark, under ``--screenshots`` (``build/screenshots``) for review, and ends
with a line ``N passed, M failed``. Usage::

    python -m tools.check_html --html build/html --screenshots build/screenshots
"""

from __future__ import annotations

import argparse
import base64
import os
import re
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from tools import html_static
from tools.browser_checks import (
    COPY_PROBE, FIGURE_PROBE, LANDING_PROBE, NAVIGATION_PROBE, OVERFLOW_PROBE, PAGE_PROBE, SEARCH_PROBE, THEME_PROBE,
)

#: The widths of the screenshots and layout checks: a laptop and a phone.
WIDE, NARROW = 1280, 390
#: A laptop screen's height: a figure must fit in it, unless its labels need more.
LAPTOP_HEIGHT = 800
#: The least size of a figure's smallest label, in CSS pixels, at WIDE and at NARROW
#: (book/_ext/llm_html.py sizes figures to meet them).
LEAST_LABEL_WIDE, LEAST_LABEL_NARROW = 9.0, 8.0
#: The flags Chromium needs here: no sandbox as root, no GPU, no network chatter.
CHROMIUM_FLAGS = (
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-quic", "--no-first-run", "--hide-scrollbars", "--mute-audio",
)


@dataclass
class Report:
    """The outcome of every check: passed names and failures with reasons."""

    passed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    def check(self, name: str, problems: list[str]) -> None:
        if problems:
            self.failed.append(name)
            for problem in problems[:20]:
                print(f"FAIL {name}: {problem}")
            if len(problems) > 20:
                print(f"FAIL {name}: ... and {len(problems) - 20} more")
        else:
            self.passed.append(name)


STARTED = time.monotonic()


def progress(message: str) -> None:
    """One progress line, printed at once, with the seconds since the start."""
    print(f"check-html: [{time.monotonic() - STARTED:4.0f} s] {message} ...", flush=True)


def start_browser(width: int = WIDE) -> Any:
    """A headless Chromium with a fresh profile, logging the console."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError as error:
        raise SystemExit("check-html: python3-selenium is missing; run: apt-get install python3-selenium") from error
    for program in ("/usr/bin/chromium", "/usr/bin/chromedriver"):
        if not Path(program).exists():
            raise SystemExit(f"check-html: {program} is missing; run: apt-get install chromium chromium-driver")
    options = webdriver.ChromeOptions()
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tempfile.mkdtemp(prefix='llm-check-html-')}")
    options.add_argument(f"--window-size={width},{LAPTOP_HEIGHT}")
    options.binary_location = "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(60)
    return driver


def set_viewport(driver: Any, width: int, height: int = LAPTOP_HEIGHT, dark: bool | None = None) -> None:
    """Emulates a screen ``width`` x ``height`` and, when ``dark`` is given, the system colour scheme."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600,
    })
    if dark is not None:
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
            "features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}],
        })


def open_page(driver: Any, url: str) -> list[str]:
    """Loads ``url``, waits for MathJax to finish, and returns the console errors it logged."""
    driver.get_log("browser")  # drop what earlier pages logged
    driver.get(url)
    driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "if (!window.MathJax || !MathJax.Hub) { done(); return; }"
        "MathJax.Hub.Queue(() => done());"
    )
    time.sleep(0.1)
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def svg_width_px(path: Path) -> float | None:
    """The intrinsic width of an SVG file in CSS pixels (``width="123pt"`` -> 164)."""
    head = path.read_text(encoding="utf-8", errors="replace")[:4000]
    match = re.search(r'<svg[^>]*\swidth="([\d.]+)(pt|px)?"', head)
    if not match:
        return None
    value = float(match.group(1))
    return value * 4 / 3 if match.group(2) == "pt" else value


#: Height of one screenshot file: a long page is saved as several parts.
SCREENSHOT_PART = 8000


def screenshot(driver: Any, stem: Path, width: int) -> list[Path]:
    """The whole current page at ``width`` as PNGs of at most SCREENSHOT_PART px:
    ``<stem>.png``, or ``<stem>-1.png``, ``<stem>-2.png``... for a long page.

    The window is made as tall as a part and scrolled part by part: Chromium
    paints embedded SVG documents (Graphviz figures) only inside the window.
    """
    height = int(driver.execute_script("return document.documentElement.scrollHeight"))
    parts = max(1, -(-height // SCREENSHOT_PART))
    set_viewport(driver, width, min(height, SCREENSHOT_PART))
    written = []
    for part in range(parts):
        top = part * SCREENSHOT_PART
        driver.execute_script("window.scrollTo({top: arguments[0], behavior: 'instant'})", top)
        time.sleep(0.25)
        scrolled = driver.execute_script("return window.scrollY")
        image = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True})
        path = stem.with_name(f"{stem.name}.png" if parts == 1 else f"{stem.name}-{part + 1}.png")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(image["data"]))
        if scrolled < top and parts > 1:
            _trim_top(path, top - scrolled)  # the last part overlaps the one before
        written.append(path)
    set_viewport(driver, width)
    return written


def _trim_top(path: Path, pixels: int) -> None:
    """Cuts ``pixels`` rows off the top of a PNG (Pillow, from python3-matplotlib's dependencies)."""
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(path) as image:
        image.crop((0, pixels, image.width, image.height)).save(path)


def book_pages(html_dir: Path) -> list[Path]:
    """Every page of the book: chapters, reference pages, index, search, source pages.

    The print view (``print.html``, every chapter again on one page) is left
    to the static checks and ``make pdf``: its chapters are checked here one by one.
    """
    return sorted(path for path in html_dir.rglob("*.html")
                  if "_static" not in path.parts and path.relative_to(html_dir) != Path("print.html"))


#: The kinds of per-page findings, in report order, with their labels.
PAGE_CHECKS = {
    "console": "no console errors on any page",
    "math": "math typeset, no raw TeX, no MathJax errors",
    "symbol tables": "symbol tables: meaning column wider; numbers never wrap",
    "answers": "answers collapsed at load and open on click",
    "copy": "copied code has no line numbers",
    "copy button": "copy buttons never cover code",
    "listings": f"source listings show every column at {WIDE} px without scrolling",
    "phone tables": f"tables laid out for a phone (llm-fits-phone) fit at {NARROW} px without scrolling",
    "figures": "figures have alt text and a full-size link; diagrams keep their size on a phone",
    "overflow": f"nothing cut at {WIDE} and {NARROW} px: wide content scrolls in its own box, with a cue",
    "figure text": f"figure labels at least {LEAST_LABEL_WIDE:g} px at {WIDE} px and {LEAST_LABEL_NARROW:g} px at {NARROW} px",
}


@dataclass
class PageFindings:
    """What the per-page checks found on a share of the pages."""

    problems: dict[str, list[str]] = field(default_factory=lambda: {kind: [] for kind in PAGE_CHECKS})
    api_links: dict[str, dict[str, set[str]]] = field(default_factory=dict)
    screenshots: int = 0
    pages: int = 0

    def merge(self, other: "PageFindings") -> None:
        for kind, messages in other.problems.items():
            self.problems[kind].extend(messages)
        for target, anchors in other.api_links.items():
            for anchor, chapters in anchors.items():
                self.api_links.setdefault(target, {}).setdefault(anchor, set()).update(chapters)
        self.screenshots += other.screenshots
        self.pages += other.pages


def figure_text_problems(driver: Any, least: float, width: int) -> list[str]:
    """Figures whose smallest label is rendered below ``least`` CSS pixels at this width."""
    problems = []
    for source, rendered, number in driver.execute_script(FIGURE_PROBE):
        path = Path(unquote(urlsplit(source).path))
        try:
            metrics = html_static.svg_text_metrics(path) if path.suffix == ".svg" else None
        except OSError:
            problems.append(f"figure {number}: cannot read {path.name}")
            continue
        if metrics is None:
            continue
        size = metrics.label_px(rendered)
        if size < least - 0.05:
            problems.append(
                f"figure {number} ({path.name}): smallest label {size:.1f} px at {width} px "
                f"(shown {rendered:.0f} px wide; needs {metrics.width_for_label(least):.0f} px for {least:g} px)"
            )
    return problems


def check_pages(pages: list[Path], html_dir: Path, root: Path, screenshots: Path | None, chapters: set[Path],
                label: str = "") -> PageFindings:
    """Opens each page once in its own browser and checks it at 1280 px, then, without
    reloading, at 390 px (the layout reflows; MathJax's output does not change)."""
    found = PageFindings()
    driver = start_browser()
    try:
        set_viewport(driver, WIDE, dark=False)
        for count, page in enumerate(pages, start=1):
            name = str(page.relative_to(html_dir))
            if count % 50 == 0:
                progress(f"{label}{count} of {len(pages)} pages")
            for message in open_page(driver, page.as_uri()):
                found.problems["console"].append(f"{name}: {message}")
            for width, narrow in ((WIDE, False), (NARROW, True)):
                if narrow:
                    set_viewport(driver, NARROW)
                    time.sleep(0.15)
                where = f"{name} at {width} px"
                for kind, messages in driver.execute_script(PAGE_PROBE, LAPTOP_HEIGHT, narrow).items():
                    found.problems[kind].extend(f"{where}: {message}" for message in messages)
                found.problems["overflow"].extend(f"{where}: {m}" for m in driver.execute_script(OVERFLOW_PROBE))
                least = LEAST_LABEL_NARROW if narrow else LEAST_LABEL_WIDE
                found.problems["figure text"].extend(f"{name}: {m}" for m in figure_text_problems(driver, least, width))
                if narrow:
                    found.problems["figures"].extend(f"{name}: {m}" for m in check_graphviz_natural_size(driver, page))
                if page in chapters and screenshots is not None:
                    found.screenshots += take_screenshots(driver, page, screenshots, width)
                if not narrow:
                    if name.startswith("_source/") or page in chapters:
                        found.problems["copy"].extend(f"{name}: {m}" for m in check_copy(driver, page, html_dir, root))
                    if page in chapters:
                        for address in driver.execute_script(API_LINKS):
                            target, _, anchor = address.partition("#")
                            found.api_links.setdefault(target, {}).setdefault(anchor, set()).add(page.name)
            set_viewport(driver, WIDE)
            found.pages += 1
    finally:
        driver.quit()
    return found


def shares(pages: list[Path], jobs: int) -> list[list[Path]]:
    """``pages`` dealt into ``jobs`` shares of about equal work (big pages first, round robin)."""
    ordered = sorted(pages, key=lambda path: path.stat().st_size, reverse=True)
    return [share for share in (ordered[index::jobs] for index in range(jobs)) if share]


def run(html_dir: Path, screenshots: Path | None, root: Path, jobs: int = 2) -> Report:
    """Runs every check over the book in ``html_dir``; returns the report.

    The pages are shared among ``jobs`` browsers that run at once; the checks
    of the whole book (API backlinks, theme, search) run in one browser after.
    """
    report = Report()
    progress("static checks of every page")
    problems, references = html_static.check_book(html_dir)
    for check in ("broken link", "broken anchor", "duplicate id", "unbalanced tag", "tab stop in aria-hidden block"):
        report.check(f"static: {check}s ({references} references)" if "link" in check else f"static: {check}s",
                     [f"{p.page}: {p.message}" for p in problems if p.check == check])
    pages = book_pages(html_dir)
    chapters = {page for page in pages if page.parent.name == "chapters"}
    if screenshots is not None:
        for old in screenshots.glob("*.png"):
            old.unlink()  # no stale parts of a page that became shorter
    progress(f"{len(pages)} pages at {WIDE} and {NARROW} px in {jobs} browser{'s' if jobs > 1 else ''}")
    found = PageFindings()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(check_pages, share, html_dir, root, screenshots, chapters, f"browser {index + 1}: ")
                   for index, share in enumerate(shares(pages, jobs))]
        for future in futures:
            found.merge(future.result())
    for kind, label in PAGE_CHECKS.items():
        report.check(f"{label} ({found.pages} pages)", found.problems[kind])
    driver = start_browser()
    try:
        progress("API backlinks, theme, search, index")
        report.check("API entries named in a chapter link back to it", check_used_in(driver, found.api_links))
        report.check("theme: toggle, dark mode, back-to-top, contents highlight", check_theme(driver, html_dir, sorted(chapters)))
        report.check("search from file://: snippets, no TeX, no duplicates", check_search(driver, html_dir))
        report.check("search lands: phrases, sections, glossary terms, chapters above the API",
                     check_search_landing(driver, html_dir))
        report.check("index of names reachable from the sidebar", check_index_link(driver, html_dir))
        report.check("navigation: arrow keys, skip link, anchors below the header, contents at 1280 px",
                     check_navigation(driver, html_dir, sorted(chapters)))
    finally:
        driver.quit()
    if screenshots is not None:
        print(f"check-html: {found.screenshots} screenshots -> {screenshots}")
    return report


def check_copy(driver: Any, page: Path, html_dir: Path, root: Path) -> list[str]:
    """Clicks the first copy button of ``page``; the copied text must hold no line numbers
    (on a source page it must equal the source file)."""
    result = driver.execute_async_script(COPY_PROBE)
    if result.get("error"):
        return [result["error"]]
    copied, numbers = result["copied"], result["numbers"]
    problems = []
    lines = copied.split("\n")
    numbered = [line for line, number in zip(lines, numbers) if re.match(rf"\s*{number}\b", line)]
    if numbers and len(numbered) > len(lines) // 2:
        problems.append(f"the copied code starts its lines with their line numbers: {lines[:2]!r}")
    relative = page.relative_to(html_dir)
    if relative.parts[0] == "_source":
        source = root / Path(*relative.parts[1:]).with_suffix("")
        if source.exists() and copied.rstrip("\n") != source.read_text(encoding="utf-8").rstrip("\n"):
            problems.append(f"the copied text differs from {source.relative_to(root)}: {copied[:80]!r}")
    return problems


#: The links of a chapter page into the API reference.
API_LINKS = (
    "return [...document.querySelectorAll('article a.reference')]"
    ".map(a => a.href).filter(h => /\\/api\\/[^/]+\\.html#/.test(h))"
)

#: Which of the given anchors' API entries lack a "Used in" link to the given chapter pages.
USED_IN_PROBE = """
const wanted = arguments[0];
const missing = [];
for (const [anchor, chapters] of Object.entries(wanted)) {
  const target = document.getElementById(anchor);
  const entry = target && target.closest("dl.cpp");
  const usedIn = entry && entry.querySelector(":scope > dd > p.llm-used-in");
  const links = usedIn ? [...usedIn.querySelectorAll("a")].map((a) => a.href.split("#")[0].split("/").pop()) : [];
  for (const chapter of chapters) {
    if (!links.includes(chapter)) missing.push(`${anchor} (${target ? target.textContent.trim().slice(0, 50) : "no such id"}) does not list ${chapter}`);
  }
}
return missing;
"""


def check_used_in(driver: Any, api_links: dict[str, dict[str, set[str]]]) -> list[str]:
    """Every API entry a chapter links to names that chapter under "Used in"."""
    problems = []
    for page, anchors in sorted(api_links.items()):
        open_page(driver, page)
        wanted = {anchor: sorted(chapters) for anchor, chapters in anchors.items()}
        problems.extend(f"{page.rsplit('/', 2)[-2]}/{page.rsplit('/', 1)[-1]}: {m}" for m in driver.execute_script(USED_IN_PROBE, wanted))
    return problems


def check_graphviz_natural_size(driver: Any, page: Path) -> list[str]:
    """On a phone, a Graphviz diagram is shown at its natural size (it scrolls sideways)."""
    problems = []
    for item in driver.execute_script(
        "return [...document.querySelectorAll('object.graphviz')].map(o => [o.data, o.getBoundingClientRect().width])"
    ):
        source, width = item
        natural = svg_width_px(Path(source.removeprefix("file://")))
        if natural and width < 0.9 * natural:
            problems.append(f"{Path(source).name} is shrunk to {width:.0f} px of {natural:.0f} px: labels become unreadable")
    return problems


def check_theme(driver: Any, html_dir: Path, chapters: list[Path]) -> list[str]:
    """The toggle reaches dark mode and changes the background; dark mode keeps
    text, code and tables readable; back-to-top and the contents highlight work."""
    page = chapters[-1] if chapters else html_dir / "index.html"
    problems: list[str] = []
    for dark_system in (False, True):
        set_viewport(driver, WIDE, dark=dark_system)
        open_page(driver, page.as_uri())
        driver.execute_script("localStorage.removeItem('theme')")
        open_page(driver, page.as_uri())
        result = driver.execute_async_script(THEME_PROBE)
        problems.extend(f"(system {'dark' if dark_system else 'light'}) {m}" for m in result)
    driver.execute_script("localStorage.removeItem('theme')")
    set_viewport(driver, WIDE, dark=False)
    return problems


def check_search(driver: Any, html_dir: Path) -> list[str]:
    """Searches from file:// and inspects the results."""
    problems = []
    for query in ("gradient", "tensor"):
        errors = open_page(driver, (html_dir / "search.html").as_uri() + f"?q={query}")
        result = driver.execute_async_script(SEARCH_PROBE)
        errors += [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        problems.extend(f"search {query!r}: console: {e}" for e in errors)
        problems.extend(f"search {query!r}: {m}" for m in result)
    return problems


def check_search_landing(driver: Any, html_dir: Path) -> list[str]:
    """Search lands where it should: a hyphenated term matches as written and each
    chapter result opens a section; glossary hits carry their term; for a term
    a chapter teaches, that chapter ranks above the API reference."""
    problems = []
    for query in ("log-sum-exp", "softmax", "stride"):
        open_page(driver, (html_dir / "search.html").as_uri() + f"?q={query}")
        outcome = driver.execute_async_script(LANDING_PROBE, query)
        results = outcome["results"]
        if not results:
            problems.append(f"search {query!r}: no results")
            continue
        if outcome["seconds"] > 1.0:
            problems.append(f"search {query!r}: took {outcome['seconds']:.2f} s from file://")
        for title, href, has_phrase in results:
            if href.startswith("chapters/") and "#" not in href:
                problems.append(f"search {query!r}: the chapter result {title!r} opens the page top ({href})")
            if "-" in query and href.startswith("chapters/") and not has_phrase:
                problems.append(f"search {query!r}: {title!r} does not contain {query!r}")
            if href.startswith("glossary.html#term-") and not title.startswith("Glossary ›"):
                problems.append(f"search {query!r}: the glossary hit {href} is titled {title!r}, not with its term")
        first_api = next((index for index, (_, href, _) in enumerate(results) if href.startswith("api/")), len(results))
        first_chapter = next((index for index, (_, href, _) in enumerate(results) if href.startswith("chapters/")), len(results))
        if first_api < first_chapter:
            problems.append(f"search {query!r}: an API entry ({results[first_api][0]!r}) ranks above every chapter")
    return problems


def check_index_link(driver: Any, html_dir: Path) -> list[str]:
    open_page(driver, (html_dir / "index.html").as_uri())
    links = driver.execute_script(
        "return [...document.querySelectorAll('.sidebar-drawer a')].filter(a => a.href.endsWith('/genindex.html')).length"
    )
    return [] if links else ["the sidebar has no link to genindex.html"]


def check_navigation(driver: Any, html_dir: Path, chapters: list[Path]) -> list[str]:
    """Arrow keys open the previous and next page (not while typing in the search
    box); the skip link is the first tab stop and leads to the text; an anchor
    jump lands below the phone's sticky header; "On this page" is visible at 1280 px."""
    if len(chapters) < 3:
        return []
    page = chapters[len(chapters) // 2]
    problems: list[str] = []
    set_viewport(driver, WIDE)
    open_page(driver, page.as_uri())
    result = driver.execute_async_script(NAVIGATION_PROBE, WIDE)
    problems.extend(f"{page.name} at {WIDE} px: {m}" for m in result)
    from selenium.webdriver.common.keys import Keys

    for key, relation in ((Keys.ARROW_RIGHT, "next"), (Keys.ARROW_LEFT, "prev")):
        open_page(driver, page.as_uri())
        expected = driver.execute_script(f"const l = document.querySelector('link[rel=\"{relation}\"]'); return l && l.href")
        driver.find_element("css selector", "body").send_keys(key)
        time.sleep(0.5)
        if expected and driver.current_url.split("#")[0] != expected.split("#")[0]:
            problems.append(f"{page.name}: the {relation} arrow key stays on {driver.current_url.rsplit('/', 1)[-1]}, not {expected.rsplit('/', 1)[-1]}")
    open_page(driver, page.as_uri())
    box = driver.execute_script("return [...document.querySelectorAll('input[name=q]')].find(i => i.offsetParent !== null)")
    if box is not None:
        box.click()
        box.send_keys(Keys.ARROW_RIGHT)
        time.sleep(0.3)
        if driver.current_url.split("#")[0] != page.as_uri():
            problems.append(f"{page.name}: an arrow key typed in the search box changed the page")
    set_viewport(driver, NARROW)
    open_page(driver, page.as_uri())
    result = driver.execute_async_script(NAVIGATION_PROBE, NARROW)
    problems.extend(f"{page.name} at {NARROW} px: {m}" for m in result)
    set_viewport(driver, WIDE)
    return problems


def take_screenshots(driver: Any, page: Path, folder: Path, width: int) -> int:
    """Full-page screenshots of the loaded chapter at ``width``, light then dark
    (set through the theme's own ``data-theme``, without reloading the page).
    Returns how many files were written."""
    taken = 0
    for theme in ("light", "dark"):
        driver.execute_script("document.body.dataset.theme = arguments[0]", theme)
        taken += len(screenshot(driver, folder / f"{page.stem}-{width}-{theme}", width))
    driver.execute_script("document.body.dataset.theme = localStorage.getItem('theme') || 'auto'")
    return taken


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the process exit status."""
    parser = argparse.ArgumentParser(prog="python -m tools.check_html", description=__doc__.splitlines()[0])
    parser.add_argument("--html", type=Path, required=True, help="the built book (build/html)")
    parser.add_argument("--screenshots", type=Path, help="save chapter screenshots here")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1], help="the repository")
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("CHECK_HTML_JOBS", "2")),
                        help="browsers that check pages at once (default 2, or CHECK_HTML_JOBS)")
    args = parser.parse_args(argv)
    html_dir = args.html.resolve()
    if not (html_dir / "index.html").exists():
        print(f"check-html: no book at {html_dir}; run: make book", file=sys.stderr)
        return 2
    started = time.monotonic()
    report = run(html_dir, args.screenshots.resolve() if args.screenshots else None, args.root.resolve(), max(1, args.jobs))
    for name in report.passed:
        print(f"ok   {name}")
    print(f"check-html: {time.monotonic() - started:.0f} s")
    print(f"{len(report.passed)} passed, {len(report.failed)} failed")
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
