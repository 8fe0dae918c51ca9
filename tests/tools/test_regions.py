"""Tests of tools/regions.py: region syntax, listings, references and their errors."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tools import regions
from tools.regions import Region, RegionError, check_tree, parse_regions, resolve_reference

SOURCE = "src/llm/example.cpp"
CHAPTER = "chapters/14-scalar-autodiff/chapter.md"


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    """Each test parses files afresh."""
    regions.clear_cache()
    yield
    regions.clear_cache()


def source(*lines: str) -> str:
    """A file's text from its lines, each ending in a newline."""
    return "".join(line + "\n" for line in lines)


def write(root: Path, relative: str, text: str) -> Path:
    """Write ``text`` to ``root/relative``, creating directories."""
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="")
    return path


def parse_error(text: str) -> RegionError:
    """The RegionError that parsing ``text`` as SOURCE raises."""
    with pytest.raises(RegionError) as caught:
        parse_regions(SOURCE, text)
    return caught.value


def reference_error(root: Path, ref: str, line: int = 12) -> RegionError:
    """The RegionError that resolving ``ref`` from CHAPTER raises."""
    with pytest.raises(RegionError) as caught:
        resolve_reference(ref, root, CHAPTER, line)
    return caught.value


# --- Listings -----------------------------------------------------------------


def test_simple_region_keeps_line_numbers() -> None:
    text = source("int a;", "// region: one", "int b;", "int c;", "// endregion: one")
    region = parse_regions(SOURCE, text)["one"]
    assert region == Region(SOURCE, "one", 2, 5, ("int b;", "int c;"), (3, 4))
    assert region.reference == "src/llm/example.cpp#one"
    assert region.text == "int b;\nint c;\n"


def test_nested_regions_drop_inner_markers_and_keep_outer_line_numbers() -> None:
    text = source(
        "// region: outer",  # 1
        "void f() {",  # 2
        "  // region: inner",  # 3
        "  int x = 1;",  # 4
        "  // endregion: inner",  # 5
        "}",  # 6
        "// endregion: outer",  # 7
    )
    found = parse_regions(SOURCE, text)
    assert list(found) == ["outer", "inner"]
    assert found["outer"].lines == ("void f() {", "  int x = 1;", "}")
    assert found["outer"].line_numbers == (2, 4, 6)
    assert found["inner"].lines == ("int x = 1;",)
    assert found["inner"].line_numbers == (4,)


def test_listing_is_dedented_by_common_indentation_of_non_blank_lines() -> None:
    text = source(
        "    // region: body",
        "    int a = 0;",
        "      int b = 1;   ",
        "    // endregion: body",
    )
    region = parse_regions(SOURCE, text)["body"]
    assert region.lines == ("int a = 0;", "  int b = 1;")


def test_tab_indentation_expands_to_eight_columns_before_dedent() -> None:
    text = source(
        "// region: tabs",
        "\tint a;",  # 8 columns
        "\t\tint b;",  # 16 columns
        "\tint c;\t// a tab after code expands to the next multiple of 8",
        "// endregion: tabs",
    )
    region = parse_regions(SOURCE, text)["tabs"]
    assert region.lines == ("int a;", "        int b;", "int c;  // a tab after code expands to the next multiple of 8")


def test_blank_lines_inside_are_kept_and_edges_trimmed() -> None:
    text = source(
        "// region: gaps",  # 1
        "",  # 2
        "  int a;",  # 3
        "",  # 4
        "   \t",  # 5: whitespace only
        "  int b;",  # 6
        "",  # 7
        "// endregion: gaps",  # 8
    )
    region = parse_regions(SOURCE, text)["gaps"]
    assert region.lines == ("int a;", "", "", "int b;")
    assert region.line_numbers == (3, 4, 5, 6)


def test_crlf_line_endings() -> None:
    text = "int z;\r\n// region: crlf\r\n  int a;\r\n  int b;\r\n// endregion: crlf\r\n"
    region = parse_regions(SOURCE, text)["crlf"]
    assert region.lines == ("int a;", "int b;")
    assert region.line_numbers == (3, 4)
    assert (region.start_line, region.end_line) == (2, 5)


@pytest.mark.parametrize(
    "start, end",
    [
        ("//region:x", "//endregion:x"),
        ("  //   region:   x   ", "\t//\tendregion:\tx"),
    ],
)
def test_marker_whitespace_variants_are_accepted(start: str, end: str) -> None:
    region = parse_regions(SOURCE, source(start, "int a;", end))["x"]
    assert region.lines == ("int a;",)


def test_trailing_comment_and_doc_comment_are_not_markers() -> None:
    text = source(
        "// region: a", "f();  // region: not-a-marker", "/// region: neither", "// endregion: a"
    )
    assert parse_regions(SOURCE, text)["a"].lines == (
        "f();  // region: not-a-marker",
        "/// region: neither",
    )


# --- Marker defects ---------------------------------------------------------


def test_duplicate_name_cites_both_lines() -> None:
    text = source(
        "// region: a", "int x;", "// endregion: a", "// region: a", "int y;", "// endregion: a"
    )
    error = parse_error(text)
    assert (error.path, error.line) == (SOURCE, 4)
    assert "duplicate region name 'a'" in error.message
    assert "line 1" in error.message
    assert str(error).startswith("src/llm/example.cpp:4: ")


def test_unclosed_region_is_reported_at_its_start() -> None:
    text = source("int x;", "// region: open", "int y;")
    error = parse_error(text)
    assert (error.path, error.line) == (SOURCE, 2)
    assert "'open' is never closed" in error.message


def test_end_without_start() -> None:
    text = source("int x;", "// endregion: stray")
    error = parse_error(text)
    assert (error.path, error.line) == (SOURCE, 2)
    assert "'stray'" in error.message and "without a matching" in error.message


def test_crossed_end_marker_names_both_regions() -> None:
    text = source(
        "// region: b",  # 1
        "int x;",  # 2
        "// region: a",  # 3
        "int y;",  # 4
        "// endregion: b",  # 5
        "// endregion: a",  # 6
    )
    error = parse_error(text)
    assert (error.path, error.line) == (SOURCE, 5)
    assert error.message == (
        "end marker names 'b' but the innermost open region is 'a' (opened at line 3)"
    )


def test_empty_region_is_reported_at_its_start() -> None:
    text = source("int x;", "// region: hollow", "", "   ", "// endregion: hollow")
    error = parse_error(text)
    assert (error.path, error.line) == (SOURCE, 2)
    assert "'hollow' is empty" in error.message


def test_region_holding_only_an_empty_inner_region_is_empty() -> None:
    text = source(
        "// region: outer", "// region: inner", "// endregion: inner", "// endregion: outer"
    )
    error = parse_error(text)
    assert (error.path, error.line) == (SOURCE, 2)
    assert "'inner' is empty" in error.message


@pytest.mark.parametrize(
    "marker, fragment",
    [
        ("// region: Bad_Name", "'Bad_Name' is not kebab-case"),
        ("// region: two words", "'two words' is not kebab-case"),
        ("// region: trailing-", "'trailing-' is not kebab-case"),
        ("// region:", "no region name"),
        ("  //endregion:   ", "no region name"),
    ],
)
def test_malformed_marker(marker: str, fragment: str) -> None:
    error = parse_error(source("int x;", "int y;", marker, "int z;"))
    assert (error.path, error.line) == (SOURCE, 3)
    assert "malformed" in error.message and fragment in error.message


def test_first_defect_in_file_order_wins() -> None:
    text = source("// endregion: early", "// region: Bad")
    assert parse_error(text).line == 1


# --- References -------------------------------------------------------------


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository root holding one source file with two regions."""
    root = tmp_path / "repo"
    write(
        root,
        SOURCE,
        source(
            "// region: first",
            "int a;",
            "// endregion: first",
            "// region: second",
            "int b;",
            "// endregion: second",
        ),
    )
    return root


def test_reference_resolves_to_region(repo: Path) -> None:
    region = resolve_reference("src/llm/example.cpp#second", repo, CHAPTER, 3)
    assert (region.path, region.name, region.lines, region.line_numbers) == (
        SOURCE,
        "second",
        ("int b;",),
        (5,),
    )


def test_reference_with_inner_dotdot_is_normalised(repo: Path) -> None:
    region = resolve_reference("src/../src/llm/example.cpp#first", repo, CHAPTER, 3)
    assert region.path == SOURCE


def test_parsed_files_are_cached(repo: Path) -> None:
    first = resolve_reference("src/llm/example.cpp#first", repo, CHAPTER, 1)
    (repo / SOURCE).write_text("// region: Bad\n")
    assert resolve_reference("src/llm/example.cpp#first", repo, CHAPTER, 1) is first


def test_unknown_file(repo: Path) -> None:
    error = reference_error(repo, "src/llm/exampel.cpp#first")
    assert (error.path, error.line) == (CHAPTER, 12)
    assert "no such file 'src/llm/exampel.cpp'" in error.message
    assert "did you mean 'src/llm/example.cpp'" in error.message


def test_unknown_region_lists_the_files_regions(repo: Path) -> None:
    error = reference_error(repo, "src/llm/example.cpp#frist", line=7)
    assert (error.path, error.line) == (CHAPTER, 7)
    assert "unknown region 'frist' in src/llm/example.cpp" in error.message
    assert "first, second" in error.message


def test_unknown_region_in_file_without_regions(repo: Path) -> None:
    write(repo, "src/plain.cpp", "int x;\n")
    error = reference_error(repo, "src/plain.cpp#any")
    assert (error.path, error.line) == (CHAPTER, 12)
    assert "src/plain.cpp has no regions" in error.message


def test_path_leaving_repository_through_dotdot(repo: Path) -> None:
    write(repo.parent, "outside.cpp", source("// region: x", "int a;", "// endregion: x"))
    error = reference_error(repo, "../outside.cpp#x")
    assert (error.path, error.line) == (CHAPTER, 12)
    assert "leaves the repository" in error.message


def test_path_leaving_repository_through_symlink(repo: Path) -> None:
    outside = write(repo.parent, "outside.cpp", source("// region: x", "int a;", "// endregion: x"))
    (repo / "src" / "link.cpp").symlink_to(outside)
    error = reference_error(repo, "src/link.cpp#x")
    assert (error.path, error.line) == (CHAPTER, 12)
    assert "leaves the repository through a symbolic link" in error.message


def test_absolute_path(repo: Path) -> None:
    error = reference_error(repo, f"{repo / SOURCE}#first")
    assert (error.path, error.line) == (CHAPTER, 12)
    assert "is absolute" in error.message


@pytest.mark.parametrize(
    "ref, fragment",
    [
        ("src/llm/example.cpp", "has no '#'"),
        ("#first", "has no file path"),
        ("src/llm/example.cpp#", "has no region name"),
        ("src/llm/example.cpp#Not_Kebab", "not a kebab-case region name"),
    ],
)
def test_ill_formed_reference(repo: Path, ref: str, fragment: str) -> None:
    error = reference_error(repo, ref)
    assert (error.path, error.line) == (CHAPTER, 12)
    assert fragment in error.message


def test_defect_in_referenced_file_is_located_in_that_file(repo: Path) -> None:
    write(repo, "src/broken.cpp", source("int x;", "// region: open", "int y;"))
    error = reference_error(repo, "src/broken.cpp#open")
    assert (error.path, error.line) == ("src/broken.cpp", 2)


def test_invalid_utf8_is_located_in_the_file(repo: Path) -> None:
    (repo / "src" / "binary.cpp").write_bytes(b"int x;\nint \xff;\n")
    error = reference_error(repo, "src/binary.cpp#x")
    assert (error.path, error.line) == ("src/binary.cpp", 2)
    assert "not valid UTF-8" in error.message


# --- The whole tree and the command line ------------------------------------


def test_check_tree_counts_regions(repo: Path) -> None:
    write(repo, "chapters/14-x/demo.hpp", source("// region: demo", "int d;", "// endregion: demo"))
    write(repo, "chapters/14-x/notes.txt", "// region: Ignored\n")
    assert check_tree(repo) == 3


def test_check_tree_raises_the_first_defect(repo: Path) -> None:
    write(repo, "src/a/broken.hpp", source("// endregion: x"))
    with pytest.raises(RegionError) as caught:
        check_tree(repo)
    assert (caught.value.path, caught.value.line) == ("src/a/broken.hpp", 1)


def test_cli_check_prints_summary_and_touches_stamp(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stamp = tmp_path / "stamps" / "regions.stamp"
    assert regions.main(["check", "--root", str(repo), "--stamp", str(stamp)]) == 0
    assert capsys.readouterr().out == "regions: 2 regions in 1 file ok\n"
    assert stamp.is_file()


def test_cli_check_reports_file_and_line(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, "src/dup.cpp", source("// region: a", "x;", "// endregion: a", "// region: a"))
    stamp = tmp_path / "regions.stamp"
    assert regions.main(["check", "--root", str(repo), "--stamp", str(stamp)]) == 1
    assert capsys.readouterr().err.startswith("src/dup.cpp:4: duplicate region name 'a'")
    assert not stamp.exists()


def test_cli_show_prints_numbered_listing(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert regions.main(["show", "--root", str(repo), "src/llm/example.cpp#second"]) == 0
    assert capsys.readouterr().out == "src/llm/example.cpp#second (lines 4-6)\n5  int b;\n"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("// endregion scalar-detach", "malformed endregion marker: a colon must follow 'endregion' (// endregion: scalar-detach)"),
        ("  //region foo", "malformed region marker: a colon must follow 'region' (// region: foo)"),
        ("// endregion", "malformed endregion marker: a colon must follow 'endregion' (// endregion: NAME)"),
    ],
)
def test_marker_without_colon_is_malformed(line: str, message: str) -> None:
    text = "// region: a\nint x;\n" + line + "\n// endregion: a\n"
    with pytest.raises(RegionError) as caught:
        parse_regions("src/a.cpp", text)
    assert str(caught.value) == f"src/a.cpp:3: {message}"


def test_prose_comment_about_regions_is_code() -> None:
    text = "// region: a\n// region of memory that is shared\nint x;\n// endregion: a\n"
    assert parse_regions("src/a.cpp", text)["a"].lines == ("// region of memory that is shared", "int x;")
