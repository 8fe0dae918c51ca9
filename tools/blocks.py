"""Fenced blocks a chapter's macros return, placed where ``chapter.md`` calls them.

``listing()``, ``output()`` and the figure macros return MyST directive blocks:
a fence line such as ``` ```{listing} path#name ```, option lines, the body and
the closing fence. Jinja2 pastes a macro's text at the column of the call, so
only the block's first line would carry the indentation of an enclosing list
item, and a block quote's ``>`` would be missing from every other line; a
three-backtick block inside a three-backtick admonition would close the
admonition early. Each is a garbled page.

So the renderer never pastes a block directly. A macro hands its block to
:class:`BlockPlacer`, which returns a one-line placeholder; once the whole
template is rendered, :meth:`BlockPlacer.place` replaces each placeholder:

* the placeholder must stand on a line of its own, after nothing but
  container markers: spaces, block-quote ``>`` markers and list markers
  (``-``, ``*``, ``+``, ``1.``, ``1)``). That text is the block's *prefix*;
* every further line of the block is prefixed with the *continuation*: the
  prefix with each list marker turned into spaces and each ``>`` kept, so the
  block stays inside the list item or quote. A ``>`` written without the space
  after it (``>{{ listing(...) }}``) gets one in the continuation: CommonMark
  takes a ``>`` and one optional space as the quote marker, so without it the
  first column of every indented line would be eaten;
* the block's fence is chosen so that it neither closes nor is closed by the
  fences it sits in: its own fence character first, at its own length when
  that fits (so a block outside any fence is unchanged, byte for byte), else
  shorter than the enclosing fences of that character, else the other fence
  character (a tilde fence inside a backtick admonition);
* a block inside a code block (a fence without a ``{directive}``, or a
  directive that shows its content as text, such as ``{code-block}``) would
  be shown as text, and is an error;
* finally the placed page is parsed with MyST's own parser, configured as in
  book/conf.py, and every block must come out as a fence holding exactly its
  lines. Where Markdown reads the call's line as something else (five or more
  spaces after a list marker make an indented code block, which would show
  the raw fence as text) the render fails, saying why.

Every error names the chapter.md line of the macro call, through
:class:`PlacementError`.
"""

from __future__ import annotations

import re
import secrets
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

#: Container markers that may precede a block on its line: spaces, ``>``,
#: bullet and ordered list markers (each followed by a space or the line end).
_CONTAINER = re.compile(r"(?:[ ]*(?:>|[-+*](?=[ ]|$)|[0-9]{1,9}[.)](?=[ ]|$)))*[ ]*")
#: An opening fence after container markers: its run of fence characters and its info string.
_OPENING = re.compile(r"(?P<fence>`{3,}|~{3,}|:{3,})(?P<info>.*)")
#: A closing fence after container markers.
_CLOSING = re.compile(r"(?P<fence>`{3,}|~{3,}|:{3,})[ \t]*")
#: Directives whose content Sphinx shows as text (or reads as data) rather than
#: parsing it as MyST: a block inside one of them would not be a block.
RAW_DIRECTIVES = frozenset(
    {
        "code",
        "code-block",
        "code-cell",
        "sourcecode",
        "literalinclude",
        "listing",
        "math",
        "raw",
        "graphviz",
        "digraph",
        "graph",
    }
)
#: The MyST extensions of book/conf.py (``myst_enable_extensions``); a test keeps them equal.
MYST_EXTENSIONS = ("dollarmath", "colon_fence", "deflist")


class PlacementError(Exception):
    """A block that cannot be placed; ``str()`` is ``chapter.md:LINE: message``."""


@dataclass(frozen=True)
class Block:
    """One fenced block a macro returned.

    Attributes:
        fence_char: the character of its fence, ````` or ``~``.
        fence_length: the length of its fence.
        info: the text after the opening fence (``{listing} path#name``).
        body: the lines between the fences.
        line: the chapter.md line of the macro call.
        what: the macro, as errors name it (``listing()``).
    """

    fence_char: str
    fence_length: int
    info: str
    body: tuple[str, ...]
    line: int
    what: str

    def longest_run(self, char: str) -> int:
        """The longest run of ``char`` in the body (a fence must be longer)."""
        pattern = re.compile(f"{re.escape(char)}+")
        return max((len(run) for text in self.body for run in pattern.findall(text)), default=0)


def parse_block(text: str, line: int, what: str) -> Block | None:
    """The fenced block ``text`` (which ends with a newline), or None if it is not one.

    A block is a fence line of three or more backticks or tildes followed by
    ``{directive}``, body lines, and a last line that repeats the fence.
    """
    if not text.endswith("\n"):
        return None
    lines = text[:-1].split("\n")
    if len(lines) < 2:
        return None
    opening = re.fullmatch(r"(?P<fence>`{3,}|~{3,})(?P<info>\{[^\n]*)", lines[0])
    if opening is None or lines[-1] != opening.group("fence"):
        return None
    fence = opening.group("fence")
    return Block(fence[0], len(fence), opening.group("info"), tuple(lines[1:-1]), line, what)


@dataclass(frozen=True)
class _Fence:
    """A fence open at some point of the page."""

    char: str
    length: int
    info: str
    page_line: int

    @property
    def directive(self) -> str | None:
        """The directive name of ``{name} ...``, None for a plain code fence."""
        match = re.match(r"\{([^}]*)\}", self.info.strip())
        return match.group(1) if match else None

    @property
    def shows_text(self) -> bool:
        """Whether the fence's lines are shown as text: a code block or a raw directive."""
        return self.char != ":" and (self.directive is None or self.directive in RAW_DIRECTIVES)

    @property
    def text(self) -> str:
        """The opening fence line as written (after container markers)."""
        return self.char * self.length + self.info


class BlockPlacer:
    """Collects the blocks of one page and places them once the page is rendered."""

    def __init__(self, label: str) -> None:
        """``label`` is the chapter.md path errors name (``chapters/14-x/chapter.md``)."""
        self.label = label
        self._nonce = secrets.token_hex(6)
        self._blocks: dict[str, Block] = {}

    def add(self, block: Block) -> str:
        """Register ``block``; return the placeholder the template writes instead."""
        token = f"\u27e6llm-block-{self._nonce}-{len(self._blocks)}\u27e7"
        self._blocks[token] = block
        return token

    def error(self, block: Block, message: str) -> PlacementError:
        """A PlacementError at the macro call of ``block``."""
        return PlacementError(f"{self.label}:{block.line}: {block.what}: {message}")

    def place(self, page: str) -> str:
        """``page`` with every placeholder replaced by its block, indented and fenced to fit.

        Raises:
            PlacementError: naming the chapter.md line of the call, if a
                placeholder is not alone on its line, was dropped, repeated
                or altered by a filter, sits in a code block, or its block
                cannot be fenced inside the enclosing fences.
        """
        if not self._blocks:
            return page
        seen: set[str] = set()
        token_pattern = re.compile(f"\u27e6llm-block-{self._nonce}-[0-9]+\u27e7")
        stack: list[_Fence] = []
        output: list[str] = []
        placed: list[tuple[Block, str]] = []
        for page_line, line in enumerate(page.split("\n"), start=1):
            tokens = token_pattern.findall(line)
            if not tokens:
                _track_fences(line, page_line, stack)
                output.append(line)
                continue
            block = self._blocks[tokens[0]]
            if len(tokens) > 1 or tokens[0] in seen:
                raise self.error(block, "its block appears twice on the page; call it once per block")
            seen.add(tokens[0])
            prefix, _, suffix = line.partition(tokens[0])
            if suffix.strip() or not _CONTAINER.fullmatch(prefix):
                found = (prefix + "..." + suffix).strip()
                raise self.error(
                    block,
                    f"a block must stand on a line of its own, after nothing but list markers, "
                    f"'>' or spaces; here the line reads {found!r}",
                )
            output.append(prefix + self._render(block, prefix, stack) + suffix)
            placed.append((block, prefix))
        missing = [block for token, block in self._blocks.items() if token not in seen]
        if missing:
            raise self.error(
                missing[0],
                "its block is not on the page (a filter changed it, or it was stored and "
                "never written); write the call as {{ ... }} on its own line",
            )
        page = "\n".join(output)
        self._check_parsed(page, placed)
        return page

    def _check_parsed(self, page: str, placed: list[tuple[Block, str]]) -> None:
        """Raise unless MyST's parser finds every placed block as a fence holding exactly its lines."""
        found = Counter(myst_fences(page))
        for block, prefix in placed:
            key = (block.info.strip(), "".join(f"{line}\n" for line in block.body))
            if found[key] > 0:
                found[key] -= 1
                continue
            raise self.error(block, f"Markdown would not show it as a block here: {_misread_reason(prefix)}")

    def _render(self, block: Block, prefix: str, stack: list[_Fence]) -> str:
        """The block's text: first line after ``prefix``, further lines after the continuation."""
        # Fences are not tracked inside a code block, so only the innermost can be one.
        innermost = stack[-1] if stack else None
        if innermost is not None and innermost.shows_text:
            kind = f"a {{{innermost.directive}}} block" if innermost.directive else "a code block"
            raise self.error(
                block,
                f"it sits inside {kind} (opened by {innermost.text!r} on page line "
                f"{innermost.page_line}), which would show it as text",
            )
        char, length = _choose_fence(block, stack)
        if char is None:
            fences = ", ".join(repr(fence.text) for fence in stack)
            raise self.error(
                block,
                f"no fence fits inside the enclosing fences ({fences}); make the enclosing "
                "fence longer than three characters, e.g. ````{note}",
            )
        for fence in stack:
            for text in block.body:
                stripped = text.strip()
                if len(stripped) >= fence.length and stripped == fence.char * len(stripped):
                    raise self.error(
                        block,
                        f"its line {text!r} would close the enclosing fence {fence.text!r}",
                    )
        continuation = _continuation(prefix)
        fence_text = char * length
        lines = [fence_text + block.info, *block.body, fence_text]
        rest = [(continuation + text) if text else continuation.rstrip() for text in lines[1:]]
        return "\n".join([lines[0], *rest]) + "\n"


def _continuation(prefix: str) -> str:
    """The prefix of a block's further lines: list markers as spaces, each ``>`` kept with one space after it."""
    characters = []
    for index, character in enumerate(prefix):
        if character != ">":
            characters.append(" ")
        elif prefix[index + 1 : index + 2] == " ":
            characters.append(">")
        else:
            characters.append("> ")
    return "".join(characters)


def _choose_fence(block: Block, stack: list[_Fence]) -> tuple[str | None, int]:
    """The fence character and length for ``block`` inside the fences ``stack``."""
    candidates = [block.fence_char] + [char for char in "`~" if char != block.fence_char]
    for char in candidates:
        if char == "`" and "`" in block.info:
            continue  # CommonMark: no backtick in a backtick fence's info string
        shortest = max(3, block.longest_run(char) + 1)
        limit = min((fence.length for fence in stack if fence.char == char), default=None)
        if char == block.fence_char and (limit is None or block.fence_length < limit):
            return char, block.fence_length
        if limit is None or shortest < limit:
            return char, shortest
    return None, 0


def _track_fences(line: str, page_line: int, stack: list[_Fence]) -> None:
    """Update the stack of open fences with one line of the page."""
    content = line[_CONTAINER.match(line).end() :]  # type: ignore[union-attr]
    if stack:
        top = stack[-1]
        closing = _CLOSING.fullmatch(content)
        if closing and closing.group("fence")[0] == top.char and len(closing.group("fence")) >= top.length:
            stack.pop()
            return
        if top.shows_text:
            return  # a code block's lines are text, not fences
    opening = _OPENING.fullmatch(content)
    if opening is None:
        return
    fence, info = opening.group("fence"), opening.group("info")
    if fence[0] == "`" and "`" in info:
        return  # not a fence: CommonMark forbids backticks in a backtick fence's info string
    stack.append(_Fence(fence[0], len(fence), info, page_line))


def _misread_reason(prefix: str) -> str:
    """Why Markdown reads a block placed after ``prefix`` as something other than its fence."""
    marker = re.search(r"([-+*]|[0-9]{1,9}[.)]|>)( *)$", prefix)
    if marker and marker.group(1) != ">" and len(marker.group(2)) >= 5:
        return (
            f"{len(marker.group(2))} spaces after the list marker '{marker.group(1)}' start an indented "
            "code block, which would show the raw fence as text; write one to four spaces after the marker"
        )
    if marker and marker.group(1) == ">" and len(marker.group(2)) >= 5:
        return (
            f"{len(marker.group(2))} spaces after '>' start an indented code block inside the quote, which "
            "would show the raw fence as text; write one space after '>'"
        )
    if not marker and len(prefix) >= 4:
        return (
            f"the call is indented {len(prefix)} spaces, and outside a list item four or more spaces start "
            "an indented code block, which would show the raw fence as text; indent it less"
        )
    return f"its line starts with {prefix!r}, and the page's Markdown around it does not hold a fence there"


def myst_fences(text: str) -> Iterable[tuple[str, str]]:
    """(info, content) of every fence MyST's parser finds in ``text``, inside directives too."""
    for token in _myst_parser().parse(text):
        if token.type not in ("fence", "colon_fence"):
            continue
        info = token.info.strip()
        yield info, token.content
        name = re.match(r"\{([^}]*)\}", info)
        if name and name.group(1) not in RAW_DIRECTIVES:
            yield from myst_fences(token.content)


_PARSER: Any = None


def _myst_parser() -> Any:
    """MyST's Markdown parser with the book's extensions (imported on first use: it is slow to load)."""
    global _PARSER
    if _PARSER is None:
        from markdown_it.renderer import RendererHTML
        from myst_parser.config.main import MdParserConfig
        from myst_parser.parsers.mdit import create_md_parser

        _PARSER = create_md_parser(MdParserConfig(enable_extensions=list(MYST_EXTENSIONS)), RendererHTML)
    return _PARSER
