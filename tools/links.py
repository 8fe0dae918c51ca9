"""Checks and rewrites that connect a chapter page to the rest of the book.

tools/render.py calls these on ``chapters/NN-slug/chapter.md``:

:func:`check_chapter_links`
    "Chapter 15" in the prose must be written ``{{ chapter_ref(15) }}`` (a link
    once that chapter exists, plain text until then), so no reference to
    another chapter stays unlinked. Code, math, macros, existing links and the
    chapter's own number are exempt.
:func:`check_citations`
    Every ``{cite:...}`` key exists in book/references.bib, and a chapter that
    cites has exactly one ``{bibliography}`` block, in its history section
    (and one without citations has none).
:func:`localize_citations`
    Gives the rendered page's citation keys and its ``{bibliography}`` block
    the chapter's own prefix (``ch13-``), so every chapter lists the papers it
    cites even when another chapter cites them too (sphinxcontrib-bibtex keys
    are global to the book).

Each check raises :class:`LinkError` whose message starts with ``file:line:``.
"""

from __future__ import annotations

import re
from pathlib import Path

from tools import chapters


class LinkError(Exception):
    """A chapter text that breaks a linking rule; ``str()`` starts with ``file:line:``."""


#: "Chapter 15", "chapter 15's", "chapters 15 and 16" (the first number).
CHAPTER_MENTION = re.compile(r"\b([Cc]hapters?)\s+(\d{1,2})\b")

#: A MyST code fence line: three or more backticks or tildes and an info string.
FENCE = re.compile(r"^\s*(?P<fence>`{3,}|~{3,})\s*(?P<info>.*)$")

#: Directives whose body is prose (checked) rather than code (skipped).
CODE_DIRECTIVES = {"code-block", "code", "sourcecode", "literalinclude", "math", "graphviz", "raw", "bibliography"}

#: Spans of one line that are not prose: inline code, math, links, Jinja2 expressions.
NOT_PROSE = [
    re.compile(r"(`+).+?\1"),            # inline code and role contents
    re.compile(r"\$\$.+?\$\$|\$[^$]+\$"),  # math
    re.compile(r"\[[^\]]*\]\([^)]*\)"),  # Markdown links: already links
    re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}"),  # Jinja2
]

#: A citation role: {cite:t}`bengio2003` or {cite:p}`a,b`.
CITE_ROLE = re.compile(r"\{cite(?::[a-z]+)?\}`([^`]+)`")

#: The opening fence of a bibliography block.
BIBLIOGRAPHY_FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})\{bibliography\}\s*$")


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, text) of the lines of ``text`` that are prose: code fences
    and display math are dropped, and spans that are not prose (inline code,
    inline math, links, Jinja2 expressions) are blanked within each line."""
    result: list[tuple[int, str]] = []
    stack: list[tuple[str, bool]] = []  # (fence, is code)
    in_math = False
    for number, line in enumerate(text.splitlines(), start=1):
        match = FENCE.match(line)
        if match:
            fence, info = match.group("fence"), match.group("info").strip()
            if stack and not info and fence[0] == stack[-1][0][0] and len(fence) >= len(stack[-1][0]):
                stack.pop()
                continue
            if not stack or not stack[-1][1]:
                directive = re.match(r"\{([a-z-]+)\}", info)
                is_code = directive is None or directive.group(1) in CODE_DIRECTIVES
                stack.append((fence, is_code))
                continue
        if stack and stack[-1][1]:
            continue
        if line.strip().startswith("$$"):
            in_math = not (in_math or line.strip().count("$$") >= 2)
            continue
        if in_math:
            continue
        for pattern in NOT_PROSE:
            line = pattern.sub(lambda m: " " * len(m.group(0)), line)
        result.append((number, line))
    return result


def check_chapter_links(text: str, number: str, label: str) -> None:
    """Raises LinkError at the first "Chapter N" (N not this chapter) written as plain text."""
    own = int(number)
    for line_number, line in prose_lines(text):
        for match in CHAPTER_MENTION.finditer(line):
            mentioned = int(match.group(2))
            if mentioned == own:
                continue
            try:
                chapters.part_of(mentioned)
            except ValueError:
                continue  # not a chapter of the course ("chapter 99" in a quotation)
            word = match.group(1)
            hint = (f'{{{{ chapter_ref({mentioned}) }}}}' if word.lower() == "chapter"
                    else f'{{{{ chapter_ref({mentioned}, "{word} {mentioned}") }}}}')
            raise LinkError(
                f"{label}:{line_number}: '{match.group(0)}' is not a link; write {hint} "
                "(a link once that chapter is written, plain text until then)"
            )


def bibliography_keys(bib: Path) -> set[str]:
    """The entry keys of a BibTeX file (``@article{bengio2003, ...`` -> ``bengio2003``)."""
    return set(re.findall(r"^\s*@\w+\s*\{\s*([^,\s]+)\s*,", bib.read_text(encoding="utf-8"), re.M))


def check_citations(text: str, number: str, label: str, keys: set[str] | None) -> None:
    """Checks the chapter's citations against book/references.bib (``keys``, None to skip)
    and the place of its ``{bibliography}`` block. Raises LinkError naming the line."""
    cited_lines: list[int] = []
    for line_number, line in enumerate(text.splitlines(), start=1):
        for match in CITE_ROLE.finditer(line):
            cited_lines.append(line_number)
            for key in (k.strip() for k in match.group(1).split(",")):
                if keys is not None and key not in keys:
                    raise LinkError(
                        f"{label}:{line_number}: {{cite}}`{key}` is not in book/references.bib; "
                        "add the paper there (with its url) and cite it by that key"
                    )
    blocks = [n for n, line in enumerate(text.splitlines(), start=1) if BIBLIOGRAPHY_FENCE.match(line)]
    if cited_lines and len(blocks) != 1:
        where = blocks[1] if blocks else cited_lines[0]
        raise LinkError(
            f"{label}:{where}: a chapter that cites papers lists them in exactly one "
            f"```{{bibliography}}``` block at the end of its history section (found {len(blocks)})"
        )
    if blocks and not cited_lines:
        raise LinkError(f"{label}:{blocks[0]}: a {{bibliography}} block without any {{cite}} role in the chapter")
    if blocks:
        history = re.search(rf"^\(ch{number}-history\)=\s*$", text, re.M)
        following = re.search(rf"^\(ch{number}-implementation\)=\s*$", text, re.M)
        start = text.count("\n", 0, history.start()) + 1 if history else 0
        end = text.count("\n", 0, following.start()) + 1 if following else 10**9
        if not start < blocks[0] < end:
            raise LinkError(f"{label}:{blocks[0]}: the {{bibliography}} block belongs at the end of the history section")


def localize_citations(page: str, number: str) -> str:
    """The rendered ``page`` with citation keys prefixed ``chNN-``, and its
    bibliography block under a "References" heading, limited to this page's
    citations under that prefix."""
    prefix = f"ch{number}-"

    def cite(match: re.Match[str]) -> str:
        role = match.group(0).split("`", 1)[0]
        keys = ",".join(prefix + key.strip() for key in match.group(1).split(","))
        return f"{role}`{keys}`"

    page = CITE_ROLE.sub(cite, page)
    return re.sub(
        r"^(?P<open>(`{3,}|~{3,})\{bibliography\})[ \t]*\n",
        lambda m: f"```{{rubric}} References\n```\n\n{m.group('open')}\n:filter: docname in docnames\n:keyprefix: {prefix}\n",
        page,
        flags=re.M,
    )
