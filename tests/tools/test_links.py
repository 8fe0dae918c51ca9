"""Tests of tools/links.py: chapter links, citations, and their wiring into tools/render.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools import links, render
from tests.tools.test_render import make_repository, renderer

BIB = """\
@article{bengio2003,
  title = {A Neural Probabilistic Language Model},
  year = {2003},
}
@misc{ shazeer2020 ,
  title = {GLU Variants Improve Transformer},
}
"""


def test_a_plain_chapter_mention_names_its_line_and_the_macro_to_write() -> None:
    text = "# 16 · Title\n\nAs in the tape of\nchapter 15, a bar marks an adjoint.\n"
    with pytest.raises(links.LinkError, match=r"^chapter.md:4: 'chapter 15' is not a link; write \{\{ chapter_ref\(15\) \}\}"):
        links.check_chapter_links(text, "16", "chapter.md")


def test_a_plural_mention_suggests_link_text() -> None:
    with pytest.raises(links.LinkError, match=r'chapter_ref\(15, "Chapters 15"\)'):
        links.check_chapter_links("Chapters 15 and 16 reuse it.\n", "13", "chapter.md")


@pytest.mark.parametrize(
    "text",
    [
        "{{ chapter_ref(15) }}'s tape and {{ chapter_ref(15, \"Chapter 15\") }}",
        "Run `make chapter-15` or `chapter 15` in code.",
        "```sh\n# chapter 15 in a code block\nmake chapter-15\n```",
        "$$\n\\text{chapter 15}\n$$",
        "Inline math $\\text{chapter 15}$ is not prose.",
        "[Chapter 15](15-tensor-autodiff-core.md) is already a link.",
        "This chapter, chapter 16, may name itself.",
        "A chapter 77 is not in the course, so it is not a chapter reference.",
        "```{code-block} text\nchapter 15 inside a code-block directive\n```",
    ],
)
def test_mentions_that_are_not_prose_or_not_other_chapters_pass(text: str) -> None:
    links.check_chapter_links(text, "16", "chapter.md")


def test_prose_inside_a_directive_fence_is_checked() -> None:
    text = "```{answer} Answer 1\nAs chapter 14 showed, ...\n```\n"
    with pytest.raises(links.LinkError, match=r"chapter.md:2: 'chapter 14'"):
        links.check_chapter_links(text, "16", "chapter.md")


def test_code_nested_in_a_directive_is_skipped() -> None:
    text = "````{answer} Answer 1\n```sh\nmake chapter-14  # chapter 14\n```\n````\n"
    links.check_chapter_links(text, "16", "chapter.md")


def test_bibliography_keys_are_read_from_entries(tmp_path: Path) -> None:
    bib = tmp_path / "references.bib"
    bib.write_text(BIB)
    assert links.bibliography_keys(bib) == {"bengio2003", "shazeer2020"}


HISTORY = "(ch16-history)=\n## History\n\n{text}\n\n(ch16-implementation)=\n## Code\n{after}"


def test_citations_need_known_keys_and_one_bibliography_in_the_history_section() -> None:
    keys = {"bengio2003", "shazeer2020"}
    good = HISTORY.format(text="{cite:t}`bengio2003` and {cite:p}`bengio2003,shazeer2020`.\n\n```{bibliography}\n```", after="")
    links.check_citations(good, "16", "chapter.md", keys)
    with pytest.raises(links.LinkError, match=r"chapter.md:4: \{cite\}`vaswani2017` is not in book/references.bib"):
        links.check_citations(good.replace("shazeer2020", "vaswani2017"), "16", "chapter.md", keys)
    with pytest.raises(links.LinkError, match="exactly one ```{bibliography}``` block"):
        links.check_citations(HISTORY.format(text="{cite:t}`bengio2003`", after=""), "16", "chapter.md", keys)
    misplaced = HISTORY.format(text="{cite:t}`bengio2003`", after="\n```{bibliography}\n```\n")
    with pytest.raises(links.LinkError, match="chapter.md:9: the {bibliography} block belongs at the end of the history section"):
        links.check_citations(misplaced, "16", "chapter.md", keys)
    with pytest.raises(links.LinkError, match="a {bibliography} block without any {cite} role"):
        links.check_citations(HISTORY.format(text="```{bibliography}\n```", after=""), "16", "chapter.md", keys)


def test_localized_citations_carry_the_chapter_prefix() -> None:
    page = "{cite:t}`bengio2003` and {cite:p}`bengio2003, shazeer2020`.\n\n```{bibliography}\n```\n"
    assert links.localize_citations(page, "16") == (
        "{cite:t}`ch16-bengio2003` and {cite:p}`ch16-bengio2003,ch16-shazeer2020`.\n\n"
        "```{rubric} References\n```\n\n```{bibliography}\n:filter: docname in docnames\n:keyprefix: ch16-\n```\n"
    )


def test_render_fails_on_a_plain_chapter_mention_and_prefixes_citations(tmp_path: Path) -> None:
    root, run_dir = make_repository(tmp_path, "As chapter 15 showed.")
    with pytest.raises(render.RenderError, match=r"chapter.md:3: 'chapter 15' is not a link"):
        renderer(root, run_dir).render()
    (root / "book").mkdir()
    (root / "book" / "references.bib").write_text(BIB)
    chapter = root / "chapters" / "99-test-chapter" / "chapter.md"
    text = chapter.read_text().replace("As chapter 15 showed.", "Since {cite:t}`bengio2003`.")
    chapter.write_text(text.replace("(ch99-implementation)=", "```{bibliography}\n```\n\n(ch99-implementation)="))
    page = renderer(root, run_dir).render()
    assert "{cite:t}`ch99-bengio2003`" in page and ":keyprefix: ch99-" in page
