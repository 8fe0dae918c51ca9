"""Listings, output and figures wherever Markdown can hold them (issue 7, item 5).

A block a macro returns is indented and fenced to stay inside the list item,
block quote or directive fence it is called in (tools/blocks.py), and MyST's
own parser (the one Sphinx uses) finds it there; a call where no block can
stand fails with the chapter.md line and leaves no page.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from markdown_it.renderer import RendererHTML
from myst_parser.config.main import MdParserConfig
from myst_parser.parsers.mdit import create_md_parser
from test_render import make_repository, renderer
from test_render_sandbox import LABEL, SLUG, assert_cleaned_up, run_main

from tools import blocks, regions

LISTING = '{{ listing("src/answer.cpp#answer", "The answer") }}'
BODY = ':caption: "The answer"\n:lines: 3-5\n\nint answer() {\n  return 42;\n}\n'


@pytest.fixture(autouse=True)
def fresh_cache() -> None:
    """Each test parses region files afresh."""
    regions.clear_cache()


def page_of(tmp_path: Path, body: str) -> str:
    """The rendered page of chapter 99 whose text starts with ``body``, up to its first section."""
    root, run_dir = make_repository(tmp_path, body)
    page = renderer(root, run_dir).render()
    return page[page.index("# Test chapter\n\n") + len("# Test chapter\n\n") : page.index("(ch99-prediction)=")]


def myst_tokens(text: str) -> list[Any]:
    """The block tokens MyST's parser (as configured in book/conf.py) makes of ``text``."""
    parser = create_md_parser(MdParserConfig(enable_extensions=["dollarmath", "colon_fence", "deflist"]), RendererHTML)
    return parser.parse(text)


def listing_fences(text: str) -> list[tuple[list[str], str]]:
    """Every ``{listing}`` fence MyST finds in ``text``, nested directives included: (enclosing token types, content)."""
    found = []
    enclosing: list[str] = []
    for token in myst_tokens(text):
        if token.nesting == 1:
            enclosing.append(token.type)
        elif token.nesting == -1:
            enclosing.pop()
        elif token.type == "fence" and token.info.startswith("{listing}"):
            found.append((list(enclosing), token.content))
        elif token.type == "fence" and token.info.startswith("{"):
            found.extend(([*enclosing, token.info], content) for _, content in listing_fences(token.content))
    return found


def test_a_listing_in_a_list_item_is_indented_to_stay_in_it(tmp_path: Path) -> None:
    page = page_of(tmp_path, f"- first item\n  {LISTING}\n- second item")
    indented = "".join(f"  {line}\n" if line else "\n" for line in BODY.splitlines())
    assert page.startswith(f"- first item\n  ```{{listing}} src/answer.cpp#answer\n{indented}  ```\n\n- second item")
    assert listing_fences(page) == [(["bullet_list_open", "list_item_open"], BODY)]


def test_a_listing_after_a_list_marker_is_indented_past_the_marker(tmp_path: Path) -> None:
    page = page_of(tmp_path, f"1. {LISTING}\n2. next")
    assert page.startswith("1. ```{listing} src/answer.cpp#answer\n   :caption: \"The answer\"\n")
    assert listing_fences(page) == [(["ordered_list_open", "list_item_open"], BODY)]


def test_a_listing_in_a_block_quote_keeps_the_quote_marker_on_every_line(tmp_path: Path) -> None:
    page = page_of(tmp_path, f"> Quoted.\n>\n> {LISTING}")
    assert "> :lines: 3-5\n>\n> int answer() {\n>   return 42;\n> }\n> ```\n" in page
    assert listing_fences(page) == [(["blockquote_open"], BODY)]


def test_a_listing_in_a_list_inside_a_quote(tmp_path: Path) -> None:
    page = page_of(tmp_path, f"> - {LISTING}")
    assert ">   :lines: 3-5\n" in page
    assert listing_fences(page) == [(["blockquote_open", "bullet_list_open", "list_item_open"], BODY)]


def test_a_listing_in_a_three_backtick_admonition_gets_a_tilde_fence(tmp_path: Path) -> None:
    page = page_of(tmp_path, f"```{{note}}\n{LISTING}\n```")
    assert page.startswith(f"```{{note}}\n~~~{{listing}} src/answer.cpp#answer\n{BODY}~~~\n\n```\n")
    assert listing_fences(page) == [(["{note}"], BODY)]


def test_a_listing_in_a_four_backtick_admonition_keeps_its_backticks(tmp_path: Path) -> None:
    page = page_of(tmp_path, f"````{{note}}\n{LISTING}\n````")
    assert page.startswith(f"````{{note}}\n```{{listing}} src/answer.cpp#answer\n{BODY}```\n")
    assert listing_fences(page) == [(["{note}"], BODY)]


def test_a_listing_in_an_indented_admonition_inside_a_list(tmp_path: Path) -> None:
    page = page_of(tmp_path, f"- item\n\n  ```{{tip}}\n  {LISTING}\n  ```")
    assert listing_fences(page) == [(["bullet_list_open", "list_item_open", "{tip}"], BODY)]


def test_the_output_block_in_a_list_item(tmp_path: Path) -> None:
    page = page_of(tmp_path, "- The run prints:\n\n  {{ output() }}")
    assert "  ```{code-block} text\n" in page and "  :class: demo-output\n\n  value=1.000000000000\n  ```\n" in page
    tokens = [token for token in myst_tokens(page) if token.type == "fence"]
    assert [(token.level, token.info) for token in tokens] == [(2, "{code-block} text")]


@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        (f"See {LISTING} here.", 3, "a block must stand on a line of its own, after nothing but list markers, "
         "'>' or spaces; here the line reads 'See ... here.'"),
        (f"| a | {LISTING} |", 3, "a block must stand on a line of its own, after nothing but list markers, "
         "'>' or spaces; here the line reads '| a | ... |'"),
        (f"```text\n{LISTING}\n```", 4, "it sits inside a code block (opened by '```text' on page line 3), "
         "which would show it as text"),
        (f"```{{code-block}} cpp\n{LISTING}\n```", 4, "it sits inside a {code-block} block (opened by "
         "'```{code-block} cpp' on page line 3), which would show it as text"),
        (f"```{{note}}\n~~~{{tip}}\n{LISTING}\n~~~\n```", 5, "no fence fits inside the enclosing fences "
         "('```{note}', '~~~{tip}'); make the enclosing fence longer than three characters, e.g. ````{note}"),
        ('{% set x = listing("src/answer.cpp#answer", "A") %}{{ x }}\n{{ x }}', 3,
         "its block appears twice on the page; call it once per block"),
        ('{{ listing("src/answer.cpp#answer", "A") | upper }}', 3, "its block is not on the page (a filter "
         "changed it, or it was stored and never written); write the call as {{ ... }} on its own line"),
    ],
    ids=["inline", "table-cell", "code-block", "code-block-directive", "no-fence-fits", "twice", "filtered"],
)
def test_a_block_where_none_can_stand_fails_at_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], body: str, line: int, message: str
) -> None:
    root, run_dir = make_repository(tmp_path, body)
    monkeypatch.chdir(root)
    assert run_main(root, run_dir, monkeypatch) == 1
    assert capsys.readouterr().err.splitlines()[0] == (
        f"error: {LABEL}:{line}: listing('src/answer.cpp#answer'): {message}"
    )
    assert_cleaned_up(root)


def test_blocks_outside_any_container_are_unchanged(tmp_path: Path) -> None:
    page = page_of(tmp_path, LISTING)
    assert page == f"```{{listing}} src/answer.cpp#answer\n{BODY}```\n\n\n"


def test_a_figure_block_in_a_quote(tmp_path: Path) -> None:
    root, run_dir = make_repository(tmp_path, "> {{ figures.values_table([1.5]) }}")
    (root / "chapters" / SLUG / "figures.py").write_text(
        "from tools.figures import table\n\n\ndef values_table(values):\n"
        '    return table(["value"], [[v] for v in values], "Values", "values")\n'
    )
    page = renderer(root, run_dir).render()
    assert "> ```{list-table} Values\n> :header-rows: 1\n> :name: 99-test-chapter-values\n>\n> * - value\n> * - 1.5\n> ```\n" in page


# --- issue 16, item 4: a quote marker without its space, and list markers followed by five spaces ---


def test_a_listing_after_a_quote_marker_without_a_space_keeps_every_column(tmp_path: Path) -> None:
    # CommonMark takes '>' and one optional space as the marker: the continuation
    # must write that space, or each indented line loses its first column.
    page = page_of(tmp_path, f">{LISTING}")
    assert ">```{listing} src/answer.cpp#answer\n> :caption:" in page and ">   return 42;\n" in page
    assert listing_fences(page) == [(["blockquote_open"], BODY)]


def test_output_and_a_figure_after_a_quote_marker_without_a_space_keep_every_column(tmp_path: Path) -> None:
    root, run_dir = make_repository(tmp_path, ">{{ output() }}\n\n>{{ figures.values_table([1.5]) }}\n\n>>" + LISTING)
    (root / "chapters" / SLUG / "figures.py").write_text(
        "from tools.figures import table\n\n\ndef values_table(values):\n"
        '    return table(["value"], [[v] for v in values], "Values", "values")\n'
    )
    (run_dir / "output.txt").write_text("  indented=1\n")
    (run_dir / "verified.stamp").write_text("")
    page = renderer(root, run_dir).render()
    fences = {info: content for info, content in blocks.myst_fences(page)}
    assert fences["{code-block} text"].endswith("\n\n  indented=1\n")
    assert fences["{list-table} Values"] == ":header-rows: 1\n:name: 99-test-chapter-values\n\n* - value\n* - 1.5\n"
    assert fences["{listing} src/answer.cpp#answer"] == BODY
    assert "> >   return 42;\n" in page


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (f"-     {LISTING}", "5 spaces after the list marker '-' start an indented code block, which would show "
         "the raw fence as text; write one to four spaces after the marker"),
        (f"1.      {LISTING}", "6 spaces after the list marker '1.' start an indented code block, which would "
         "show the raw fence as text; write one to four spaces after the marker"),
        (f">      {LISTING}", "6 spaces after '>' start an indented code block inside the quote, which would "
         "show the raw fence as text; write one space after '>'"),
        (f"Text.\n\n    {LISTING}", "the call is indented 4 spaces, and outside a list item four or more spaces "
         "start an indented code block, which would show the raw fence as text; indent it less"),
    ],
    ids=["bullet-five-spaces", "ordered-six-spaces", "quote-six-spaces", "indented-four"],
)
def test_a_block_markdown_would_show_as_text_fails_at_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], body: str, message: str
) -> None:
    root, run_dir = make_repository(tmp_path, body)
    monkeypatch.chdir(root)
    assert run_main(root, run_dir, monkeypatch) == 1
    line = body.count("\n") + 3
    assert capsys.readouterr().err.splitlines()[0] == (
        f"error: {LABEL}:{line}: listing('src/answer.cpp#answer'): Markdown would not show it as a block here: "
        f"{message}"
    )
    assert_cleaned_up(root)


def test_the_parser_has_the_extensions_of_book_conf() -> None:
    conf = ast.parse((Path(__file__).resolve().parents[2] / "book" / "conf.py").read_text())
    value = next(
        node.value for node in conf.body
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "myst_enable_extensions" for t in node.targets)
    )
    assert tuple(ast.literal_eval(value)) == blocks.MYST_EXTENSIONS
