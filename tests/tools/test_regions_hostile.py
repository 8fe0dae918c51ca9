"""Tests of tools/regions.py on input a careless or hostile author could write.

Indentation that mixes tabs and spaces, CR line endings, very long lines and
runs of whitespace (parsed in linear time), paths that cannot be resolved or
lead out of the repository through symbolic links.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tools import regions
from tools.regions import RegionError, check_tree, parse_regions, resolve_reference

SOURCE = "src/llm/example.cpp"
CHAPTER = "chapters/14-scalar-autodiff/chapter.md"
#: A bound far above the milliseconds a linear parse takes, far below the
#: minutes a quadratic one would (a benchmark-style assertion).
GENEROUS_SECONDS = 1.0


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    """Each test parses files afresh."""
    regions.clear_cache()
    yield
    regions.clear_cache()


def parse_error(text: str) -> RegionError:
    """The RegionError that parsing ``text`` as SOURCE raises."""
    with pytest.raises(RegionError) as caught:
        parse_regions(SOURCE, text)
    return caught.value


# --- Tabs and spaces (issue 7, item 5) ---------------------------------------


def test_a_line_mixing_tabs_and_spaces_is_reported_at_that_line() -> None:
    error = parse_error("// region: mixed\n    int a;\n  \tint b;\n// endregion: mixed\n")
    assert str(error) == (
        "src/llm/example.cpp:3: region 'mixed': this line's indentation mixes tabs and spaces, "
        "so its width depends on the tab size; indent with spaces"
    )


def test_lines_indented_with_tabs_and_with_spaces_name_both_lines() -> None:
    error = parse_error("// region: mixed\n\tint a;\n  if (a) {\n    int b;\n  }\n// endregion: mixed\n")
    assert str(error) == (
        "src/llm/example.cpp:3: region 'mixed': this line indents with spaces but line 2 with "
        "tabs, so the listing would shift with the tab size; indent with spaces"
    )


def test_a_mixture_outside_every_region_is_not_an_error() -> None:
    text = "\tint a;\n  int b;\n// region: clean\nint c;\n// endregion: clean\n"
    assert parse_regions(SOURCE, text)["clean"].lines == ("int c;",)


# --- Line endings and linear time (issue 7, item 6) --------------------------


def test_cr_line_endings_are_counted_as_compilers_count_them() -> None:
    text = "int z;\r// region: old-mac\r  int a;\r  int b;\r// endregion: old-mac\r"
    region = parse_regions(SOURCE, text)["old-mac"]
    assert region.lines == ("int a;", "int b;")
    assert (region.start_line, region.end_line, region.line_numbers) == (2, 5, (3, 4))


def timed(text: str) -> tuple[float, object]:
    """Seconds to parse ``text`` and the result (the regions, or the RegionError raised)."""
    started = time.perf_counter()
    try:
        result: object = parse_regions(SOURCE, text)
    except RegionError as error:
        result = error
    return time.perf_counter() - started, result


def test_a_one_megabyte_line_parses_in_linear_time() -> None:
    elapsed, result = timed("// region: long\n" + "x" * 1_000_000 + "\n// endregion: long\n")
    assert elapsed < GENEROUS_SECONDS
    assert isinstance(result, dict) and len(result["long"].lines[0]) == 1_000_000


def test_a_hundred_kilobyte_file_with_cr_line_endings_parses_in_linear_time() -> None:
    body = "  int value = 0;\r" * 6_000  # 102 000 bytes, 6 000 lines
    elapsed, result = timed("// region: cr-only\r" + body + "// endregion: cr-only\r")
    assert elapsed < GENEROUS_SECONDS
    assert isinstance(result, dict) and len(result["cr-only"].lines) == 6_000


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        (" " * 65_536 + "int x;", None),  # a run of spaces before code
        ("// region: a" + " " * 65_536 + "b", "is not kebab-case"),  # the old pattern's quadratic case
        ("//" + " " * 65_536 + "region", "a colon must follow 'region'"),
        ("// region:" + " " * 65_536, "no region name"),
        ("// region " + " " * 65_536 + "x y", None),  # prose, not a marker
    ],
    ids=["spaces-before-code", "spaces-inside-name", "spaces-before-keyword", "spaces-only", "prose"],
)
def test_a_64_kilobyte_run_of_spaces_parses_in_linear_time(line: str, fragment: str | None) -> None:
    elapsed, result = timed("// region: outer\nint a;\n" + line + "\n// endregion: outer\n")
    assert elapsed < GENEROUS_SECONDS
    if fragment is None:
        assert isinstance(result, dict)
    else:
        assert isinstance(result, RegionError) and result.line == 3 and fragment in result.message
        assert len(str(result)) < 400  # a long name is shortened in the message


# --- Paths that cannot be resolved or lead out (issue 7, items 2 and 4) -----


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository root holding src/llm/example.cpp with region 'first'."""
    root = tmp_path / "repo"
    (root / "src" / "llm").mkdir(parents=True)
    (root / SOURCE).write_text("// region: first\nint a;\n// endregion: first\n")
    return root


def reference_error(root: Path, ref: str) -> RegionError:
    """The RegionError that resolving ``ref`` from CHAPTER line 12 raises."""
    with pytest.raises(RegionError) as caught:
        resolve_reference(ref, root, CHAPTER, 12)
    return caught.value


def test_a_symbolic_link_loop_is_a_region_error_at_the_referring_line(repo: Path) -> None:
    (repo / "src" / "loop.cpp").symlink_to("loop.cpp")
    error = reference_error(repo, "src/loop.cpp#first")
    assert (error.path, error.line) == (CHAPTER, 12)
    assert error.message.startswith("region reference path 'src/loop.cpp' cannot be resolved: ")
    assert "loop" in error.message.lower()


def test_a_nul_byte_in_the_path_is_a_region_error(repo: Path) -> None:
    error = reference_error(repo, "src/llm/exa\0mple.cpp#first")
    assert (error.path, error.line) == (CHAPTER, 12)
    assert "cannot be resolved: embedded null byte" in error.message


def test_a_name_too_long_is_a_region_error(repo: Path) -> None:
    error = reference_error(repo, "src/" + "x" * 5000 + ".cpp#first")
    assert (error.path, error.line) == (CHAPTER, 12)
    assert "cannot be resolved: File name too long" in error.message
    assert len(str(error)) < 400


def test_an_unreadable_file_is_located_in_that_file(repo: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads files whatever their permissions")
    (repo / SOURCE).chmod(0)
    error = reference_error(repo, f"{SOURCE}#first")
    assert (error.path, error.line) == (SOURCE, None)
    assert "cannot read the file: Permission denied" in error.message


def test_check_tree_refuses_a_file_link_that_leads_out(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.cpp"
    outside.write_text("// region: secret\nint s;\n// endregion: secret\n")
    (repo / "src" / "llm" / "secret.cpp").symlink_to(outside)
    with pytest.raises(RegionError) as caught:
        check_tree(repo)
    assert str(caught.value) == (
        f"src/llm/secret.cpp: a symbolic link that leaves the repository (it resolves to "
        f"{outside.resolve()}); regions are read only from files inside the repository"
    )


def test_check_tree_does_not_descend_into_a_directory_link_that_leads_out(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "broken.cpp").write_text("// endregion: never-read\n")
    (repo / "src" / "linked").symlink_to(outside, target_is_directory=True)
    assert check_tree(repo) == 1


def test_check_tree_accepts_a_link_inside_the_repository(repo: Path) -> None:
    (repo / "src" / "alias.cpp").symlink_to(repo / SOURCE)
    assert check_tree(repo) == 2


def test_cli_check_reports_a_link_out_without_a_traceback(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "chapters").mkdir()
    (repo / "chapters" / "demo.hpp").symlink_to(tmp_path / "missing-then-made.hpp")
    (tmp_path / "missing-then-made.hpp").write_text("int x;\n")
    stamp = tmp_path / "regions.stamp"
    assert regions.main(["check", "--root", str(repo), "--stamp", str(stamp)]) == 1
    assert capsys.readouterr().err.startswith("chapters/demo.hpp: a symbolic link that leaves the repository")
    assert not stamp.exists()


@pytest.mark.parametrize(
    ("space", "named"),
    [
        ("\u00a0", "a no-break space (U+00A0)"),
        ("\f", "a form feed (U+000C)"),
        ("\v", "a vertical tab (U+000B)"),
        ("\u2003", "the character em space (U+2003)"),
    ],
    ids=["no-break-space", "form-feed", "vertical-tab", "em-space"],
)
def test_indentation_that_is_neither_space_nor_tab_is_reported_by_name(space: str, named: str) -> None:
    # Issue 16, item 4: such a line used to count as indentation 0, so the
    # whole listing silently kept its indentation.
    text = f"// region: odd\n    int y;\n{space}   int z;\n// endregion: odd\n"
    assert str(parse_error(text)) == (
        f"{SOURCE}:3: region 'odd': this line's indentation holds {named}, which is not a space or a tab, "
        "so the listing could not be dedented; indent with spaces"
    )


def test_a_form_feed_alone_on_a_line_is_an_empty_line() -> None:
    # GNU-style page breaks (a line holding only ^L) stay allowed.
    region = parse_regions(SOURCE, "// region: paged\n    int y;\n\f\n    int z;\n// endregion: paged\n")["paged"]
    assert region.lines == ("int y;", "", "int z;")


def test_a_listing_of_such_a_region_fails_the_render_and_withdraws_the_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from test_render import make_repository
    from test_render_sandbox import assert_cleaned_up, run_main

    root, run_dir = make_repository(tmp_path, '{{ listing("src/answer.cpp#answer", "The answer") }}')
    (root / "src" / "answer.cpp").write_text("// region: answer\nint answer() {\n\u00a0 return 42;\n}\n// endregion: answer\n")
    monkeypatch.chdir(root)
    assert run_main(root, run_dir, monkeypatch) == 1
    assert capsys.readouterr().err == (
        "error: src/answer.cpp:3: region 'answer': this line's indentation holds a no-break space (U+00A0), "
        "which is not a space or a tab, so the listing could not be dedented; indent with spaces\n"
        "chapter 99: render ... FAILED\n"
    )
    assert_cleaned_up(root)
