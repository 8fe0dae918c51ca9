"""Tests of the HTML frame's build-time tools: tools/theme.py (Furo made to work
offline) and tools/html_static.py (links, anchors, ids, tags, hidden tab stops)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tools import html_static, theme

FURO_DARK = 'body { --color-background-primary: white; }\n@media not print {\n  body[data-theme="dark"] {\n    --color-background-primary: #131416; }\n}\n'


def test_absolute_css_imports_are_inlined_from_the_local_library(tmp_path: Path) -> None:
    (tmp_path / "normalize.css").mkdir()
    (tmp_path / "normalize.css" / "normalize.css").write_text("html { line-height: 1.15; }\n")
    css = '@import url(/javascript/normalize.css/normalize.css);\n@import "local.css";\nbody { margin: 0; }\n'
    result = theme.inline_css_imports(css, [tmp_path])
    assert "html { line-height: 1.15; }" in result
    assert "@import url(/javascript" not in result
    assert '@import "local.css";' in result  # relative imports are served beside the stylesheet


def test_a_missing_import_says_which_package_provides_it(tmp_path: Path) -> None:
    with pytest.raises(theme.ThemeError, match="apt-get install node-normalize.css"):
        theme.inline_css_imports("@import url(/javascript/normalize.css/normalize.css);", [tmp_path])


def test_the_automatic_dark_mode_is_rebuilt_from_the_toggle_rule() -> None:
    result = theme.add_auto_dark_mode(FURO_DARK)
    assert "@media screen and (prefers-color-scheme: dark)" in result
    assert 'body:not([data-theme="light"]) {\n    --color-background-primary: #131416; }' in result
    assert theme.add_auto_dark_mode(result) == result  # present already: unchanged
    with pytest.raises(theme.ThemeError, match="no body"):
        theme.add_auto_dark_mode("body { color: black; }")


def test_the_empty_contents_fix_is_applied_before_bundling(tmp_path: Path) -> None:
    static = tmp_path / "static"
    (static / "scripts").mkdir(parents=True)
    (static / "scripts" / "furo.js").write_text('import Gumshoe from "./gumshoe-patched.js";\n')
    (static / "scripts" / "gumshoe-patched.js").write_text("var last = contents[contents.length - 1];\n")
    folder = tmp_path / "fixed"
    folder.mkdir()
    entry = theme.fixed_scripts(static, folder)
    assert entry == folder / "furo.js"
    assert (folder / "gumshoe-patched.js").read_text().startswith("if (!contents.length) return null;")


@pytest.mark.skipif(shutil.which("esbuild") is None, reason="Debian's esbuild is not installed")
def test_the_installed_theme_bundles_into_a_classic_script(tmp_path: Path) -> None:
    written = theme.build(tmp_path)
    script = (tmp_path / "scripts" / "furo.js").read_text()
    assert tmp_path / "scripts" / "furo.js" in written
    assert "import Gumshoe" not in script and "(() => {" in script
    css = (tmp_path / "styles" / "furo.css").read_text()
    assert "/javascript/normalize.css" not in css.split("\n", 1)[0] or "inlined" in css.split("\n", 1)[0]
    assert "prefers-color-scheme: dark" in css


PAGE = """<!DOCTYPE html><html><head><link rel="stylesheet" href="style.css" /><meta charset="utf-8" /></head>
<body><article><section id="top">
<a href="other.html#there">ok</a> <a href="other.html#nowhere">bad anchor</a> <a href="missing.html">bad file</a>
<a href="#top">self</a> <a href="https://example.org/x">external</a> <a href="source.html?lines=1-2#L-1">query</a>
<pre class="llm-linenos" aria-hidden="true"><a href="#top" tabindex="-1">1</a><a href="#top">2</a></pre>
<p id="twice">a</p><p id="twice">b</p><br/>
</section></div></article></body></html>"""


def test_static_checks_find_each_kind_of_defect(tmp_path: Path) -> None:
    (tmp_path / "page.html").write_text(PAGE)
    (tmp_path / "style.css").write_text("")
    (tmp_path / "other.html").write_text('<html><body><p id="there">x</p></body></html>')
    (tmp_path / "source.html").write_text('<html><body><span id="L-1">x</span></body></html>')
    problems, checked = html_static.check_book(tmp_path)
    found = {(p.page, p.check, p.message.split(":")[0]) for p in problems}
    assert ("page.html", "broken anchor", "<a href='other.html#nowhere'>") in found
    assert ("page.html", "broken link", "<a href='missing.html'>") in found
    assert ("page.html", "duplicate id", 'id="twice" appears 2 times') in found
    assert any(p.check == "tab stop in aria-hidden block" and "tabindex" not in p.message for p in problems)
    assert any(p.check == "unbalanced tag" and "</div> without a matching <div>" in p.message for p in problems)
    assert len(problems) == 5, problems
    assert checked == 8  # seven links (two in the line numbers) and the stylesheet; not the external link


def test_an_end_tag_that_closes_its_ancestors_early_is_reported(tmp_path: Path) -> None:
    (tmp_path / "page.html").write_text(
        '<div class="content"><article><section><div class="citation"></div></div></section></article></div>'
    )
    problems, _ = html_static.check_book(tmp_path)
    assert [p.message for p in problems if p.check == "unbalanced tag"][0] == "</div> closes <section>, <article> early"
