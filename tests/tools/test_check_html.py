"""The browser probes of tools/check_html.py find the defects they are for.

Runs a synthetic page with one defect of each kind in headless Chromium;
skipped where Debian's chromium, chromium-driver or python3-selenium is
missing (``make check-html`` installs them; CI installs them first).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tools import check_html
from tools.browser_checks import COPY_PROBE, OVERFLOW_PROBE, PAGE_PROBE, SEARCH_PROBE

pytestmark = pytest.mark.skipif(
    not (Path("/usr/bin/chromium").exists() and Path("/usr/bin/chromedriver").exists()
         and importlib.util.find_spec("selenium")),
    reason="needs Debian's chromium, chromium-driver and python3-selenium",
)

DEFECTS = r"""<!DOCTYPE html><html><head><meta charset="utf-8"><style>
  table { width: 600px; } td, th { border: 1px solid; }
  div.highlight { position: relative; } button.copybtn { position: absolute; top: 0; left: 0; width: 80px; height: 30px; }
</style></head><body><article>
<p>Left as TeX: $x + y$ and <span class="math">\(z\)</span>.</p>
<table class="symbol-table"><thead><tr><th style="width: 500px">Symbol</th><th>Meaning</th></tr></thead>
<tbody><tr><td><p>h</p></td><td><p>the step</p></td></tr></tbody></table>
<table class="symbol-table"><thead style="display: none"><tr><th>Symbol</th><th>Meaning, hidden</th></tr></thead>
<tbody><tr><td><p>n</p></td><td><p>the count, the wider column</p></td></tr></tbody></table>
<table style="width: 60px"><tbody><tr><td><span class="llm-nowrap" style="white-space: normal">1.5e-7 and 2.5e-8</span></td></tr></tbody></table>
<details class="answer" open><summary>Answer 1</summary><p>42</p></details>
<div class="llm-listing-body"><pre class="llm-linenos" aria-hidden="true"><a>7</a>
<a>8</a></pre>
<div class="highlight"><pre id="code">int first_line_is_covered = 1;
int second = 2;</pre><button class="copybtn" data-text="7 int first_line_is_covered = 1;&#10;8 int second = 2;">copy</button></div></div>
<figure><img src="plot.svg" alt="plot.svg"><figcaption>A plot</figcaption></figure>
</article>
<script>
  // What a copy button does: select the text in a hidden textarea and copy it.
  document.querySelector("button.copybtn").addEventListener("click", (event) => {
    const area = document.createElement("textarea");
    area.value = event.target.dataset.text;
    document.body.appendChild(area);
    area.select();
    document.execCommand("copy");
  });
</script></body></html>"""


@pytest.fixture(scope="module")
def driver():
    browser = check_html.start_browser()
    yield browser
    browser.quit()


def test_each_defect_on_a_page_is_reported(tmp_path: Path, driver) -> None:
    page = tmp_path / "page.html"
    page.write_text(DEFECTS)
    (tmp_path / "plot.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>')
    check_html.open_page(driver, page.as_uri())
    found = driver.execute_script(PAGE_PROBE, check_html.LAPTOP_HEIGHT)
    assert any("formula not typeset" in m for m in found["math"])
    assert any("raw TeX in the text" in m and "$x + y$" in m for m in found["math"])
    assert any("meaning column" in m for m in found["symbol tables"])
    assert any(m == 'symbol table 2: its header row ("Symbol | Meaning, hidden") is hidden' for m in found["symbol tables"])
    assert any("1.5e-7 and 2.5e-8" in m and "wraps" in m for m in found["symbol tables"])
    assert found["answers"] == ["answer 1 is open at load"]
    assert any("covers the first line" in m for m in found["copy button"])
    assert any("no link to open it full size" in m for m in found["figures"])
    assert any("no alt text" in m for m in found["figures"])


def test_a_copy_with_line_numbers_is_reported(tmp_path: Path, driver) -> None:
    page = tmp_path / "page.html"
    page.write_text(DEFECTS)
    check_html.open_page(driver, page.as_uri())
    result = driver.execute_async_script(COPY_PROBE)
    assert result == {"copied": "7 int first_line_is_covered = 1;\n8 int second = 2;", "numbers": ["7", "8"]}
    problems = check_html.check_copy(driver, page, tmp_path, tmp_path)
    assert problems and "line numbers" in problems[0]


def _listing(identifier: str, line: str, width: int) -> str:
    return (f'<div class="llm-listing" id="{identifier}"><p class="llm-listing-caption">Caption of {identifier}</p>'
            f'<div class="highlight" style="width: {width}px"><pre style="overflow-x: auto; font: 12px monospace">'
            f"int x = 0;\n{line}</pre></div></div>")


def test_a_listing_that_scrolls_at_1280_px_is_reported_with_its_longest_line(tmp_path: Path, driver) -> None:
    line = "// " + "x" * 97  # clang-format's 100 columns
    page = tmp_path / "listings.html"
    page.write_text("<!DOCTYPE html><html><body><article>" + _listing("listing-narrow", line, 400)
                    + _listing("listing-wide", line, 1000) + "</article></body></html>")
    check_html.set_viewport(driver, check_html.WIDE)
    check_html.open_page(driver, page.as_uri())
    found = driver.execute_script(PAGE_PROBE, check_html.LAPTOP_HEIGHT, False)["listings"]
    assert len(found) == 1, found
    assert found[0].startswith('listing #listing-narrow "Caption of listing-narrow": its longest line (100 columns) needs ')
    # On a phone a listing scrolls in its box by design: not reported.
    assert driver.execute_script(PAGE_PROBE, check_html.LAPTOP_HEIGHT, True)["listings"] == []


def _phone_table(caption: str, width: int, fits_phone: bool = True) -> str:
    return (f'<div class="table-wrapper" style="overflow-x: auto; max-width: 100%"><table class="docutils{" llm-fits-phone" if fits_phone else ""}"'
            f' style="width: {width}px"><caption>{caption}</caption><tr><td>a cell</td></tr></table></div>')


def test_a_table_laid_out_for_a_phone_that_scrolls_at_390_px_is_reported(tmp_path: Path, driver) -> None:
    page = tmp_path / "tables.html"
    page.write_text('<!DOCTYPE html><html><body style="margin: 0"><article style="width: 358px">'
                    + _phone_table("Table 1.1 Too wide", 400) + _phone_table("Table 1.2 Fits", 300)
                    + _phone_table("Table 1.3 Scrolls by design", 900, fits_phone=False) + "</article></body></html>")
    check_html.set_viewport(driver, check_html.NARROW)
    check_html.open_page(driver, page.as_uri())
    found = driver.execute_script(PAGE_PROBE, check_html.LAPTOP_HEIGHT, True)["phone tables"]
    assert found == ['"Table 1.1 Too wide" is laid out to fit a phone but needs 400 px of 358 px: 42 px scroll out of view']
    # At 1280 px only the overflow rule looks at tables.
    check_html.set_viewport(driver, check_html.WIDE)
    assert driver.execute_script(PAGE_PROBE, check_html.LAPTOP_HEIGHT, False)["phone tables"] == []


SEARCH_RESULTS = r"""<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>
<div id="search-results"><p class="search-summary">Search finished, found 2 pages.</p><ul class="search">
<li><a href="tensor.html">Tensors</a><p class="context">Shapes and strides (chapter 8), views (chapters 8 and 9),
broadcasting (chapter 10), matrix products (chapter 11), softmax (chapter 12).</p></li>
<li><a href="listing.html">A listing</a><p class="context">12 13 14 15 double value = 0.0; return value;</p></li>
</ul></div></body></html>"""


def test_search_snippets_flag_line_numbers_but_not_chapter_numbers(tmp_path: Path, driver) -> None:
    page = tmp_path / "search.html"
    page.write_text(SEARCH_RESULTS)
    check_html.open_page(driver, page.as_uri())
    problems = driver.execute_async_script(SEARCH_PROBE)
    assert problems == ["line numbers in the snippet of A listing: 12 13 14 15 double value = 0.0; return value;"]


# -- the overflow and figure-label rules ------------------------------------------------------

#: A page whose wide content is cut in each way the overflow rule knows, beside a
#: table that scrolls in its own box with the cue book.js draws (which passes).
CUT = r"""<!DOCTYPE html><html><head><meta charset="utf-8"><style>
  body { margin: 0; } article { width: 600px; margin-left: 40px; }
  .table-wrapper { overflow-x: auto; } .clip { overflow: hidden; width: 300px; }
</style></head><body><article>
<table id="wide-table" style="width: 900px"><tr><td style="width: 640px">a table wider than its column</td><td>its last column</td></tr></table>
<div class="clip"><pre>a listing whose long line is clipped without a scroll bar ..........................................</pre></div>
<div class="table-wrapper" id="bare"><table style="width: 800px"><tr><td>scrolls, but shows no cue</td></tr></table></div>
<div class="llm-scroll-frame" data-llm-more="right"><div class="table-wrapper" id="framed"><table style="width: 800px"><tr><td>scrolls with its cue</td></tr></table></div></div>
</article></body></html>"""


def test_the_overflow_rule_fails_on_content_cut_without_a_scroll_box(tmp_path: Path, driver) -> None:
    page = tmp_path / "cut.html"
    page.write_text(CUT)
    check_html.set_viewport(driver, check_html.WIDE)
    check_html.open_page(driver, page.as_uri())
    problems = driver.execute_script(OVERFLOW_PROBE)
    assert any(p.startswith('cut: <table> in #wide-table "a table wider than its column') and "spans 40 to 940 px" in p
               for p in problems), problems
    assert any(p.startswith("clipped: <div.clip>") for p in problems), problems
    assert any(p.startswith("no cue:") and "#bare" in p for p in problems), problems
    assert not any("scrolls with its cue" in p for p in problems), problems
    assert len(problems) == 3, problems


def test_a_box_that_reaches_past_the_column_with_its_text_inside_is_not_cut(tmp_path: Path, driver) -> None:
    page = tmp_path / "heading.html"
    page.write_text('<!DOCTYPE html><html><body style="margin:0"><article style="width:600px; margin-left:40px">'
                    '<h2 style="margin: 0 -8px; padding: 0 8px">A heading whose box has a hover margin</h2></article></body></html>')
    check_html.open_page(driver, page.as_uri())
    assert driver.execute_script(OVERFLOW_PROBE) == []


def test_the_overflow_rule_passes_a_page_whose_wide_content_scrolls_with_a_cue(tmp_path: Path, driver) -> None:
    page = tmp_path / "fine.html"
    page.write_text(CUT.split("<table id=")[0] + CUT.split("</pre></div>")[1].split('<div class="table-wrapper" id="bare">')[0]
                    + '<div class="llm-scroll-frame" data-llm-more="right"><div class="table-wrapper"><table style="width: 800px">'
                    "<tr><td>wide</td></tr></table></div></div></article></body></html>")
    check_html.open_page(driver, page.as_uri())
    assert driver.execute_script(OVERFLOW_PROBE) == []


def _plot(folder: Path, name: str, font: float, width: float = 600) -> Path:
    path = folder / name
    path.write_text(
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}pt" height="200pt" viewBox="0 0 {width} 200">'
        f'<text x="10" y="20" style="font: {font}px \'DejaVu Sans\'">a label</text>'
        f'<text x="10" y="60" font-size="14.00">a bigger label</text></svg>'
    )
    return path


def test_the_figure_text_rule_fails_below_9_px_at_1280_and_8_px_at_390(tmp_path: Path, driver) -> None:
    _plot(tmp_path, "small.svg", 6.0)
    _plot(tmp_path, "fine.svg", 10.0, width=300)
    page = tmp_path / "figures.html"
    page.write_text(
        '<!DOCTYPE html><html><head><meta name="viewport" content="width=device-width, initial-scale=1"></head><body style="margin:0"><article style="max-width: 700px">'
        '<figure><img src="small.svg" alt="small" style="width: 700px"></figure>'
        '<figure><img src="fine.svg" alt="fine" style="width: 400px; max-width: 60%"></figure>'
        "</article></body></html>"
    )
    check_html.set_viewport(driver, check_html.WIDE)
    check_html.open_page(driver, page.as_uri())
    wide = check_html.figure_text_problems(driver, check_html.LEAST_LABEL_WIDE, check_html.WIDE)
    # 6 units in a 600-unit-wide drawing shown 700 px wide: 7.0 px.
    assert wide == ["figure 1 (small.svg): smallest label 7.0 px at 1280 px (shown 700 px wide; needs 900 px for 9 px)"]
    check_html.set_viewport(driver, check_html.NARROW)
    check_html.open_page(driver, page.as_uri())
    narrow = check_html.figure_text_problems(driver, check_html.LEAST_LABEL_NARROW, check_html.NARROW)
    assert [p.split(":")[0] for p in narrow] == ["figure 1 (small.svg)", "figure 2 (fine.svg)"], narrow
    check_html.set_viewport(driver, check_html.WIDE)
