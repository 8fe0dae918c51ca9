"""C++ roles in chapter text, checked against the names Doxygen documented.

A chapter links API names with Sphinx roles (``{cpp:func}`llm::Scalar::backward```).
Sphinx would report a dangling role against the rendered page, in nitpicky
mode; the render step checks them first, so the error names the chapter.md
line and suggests the documented names closest to the one written.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from xml.etree import ElementTree
from xml.etree.ElementTree import ParseError

from tools.sandbox import RenderError

__all__ = ["API_ROLE", "ParseError", "api_names", "check_api_roles", "role_target"]

#: A Sphinx C++ role in MyST: {cpp:func}`llm::Scalar::backward`.
API_ROLE = re.compile(r"\{cpp:([a-z]+)\}`([^`]+)`")


def api_names(xml_dir: Path) -> set[str]:
    """Every qualified name Doxygen documented: classes, namespaces, their members,
    and enumerators under their enum (``llm::TensorErrorKind::EmptyAxis``).

    Raises OSError or ElementTree.ParseError when the XML is missing or broken
    (:meth:`ChapterRenderer.render` turns them into a RenderError naming the file).
    """
    names: set[str] = set()
    index = ElementTree.parse(xml_dir / "index.xml").getroot()
    for compound in index.findall("compound"):
        if compound.get("kind") not in ("class", "struct", "union", "namespace"):
            continue
        owner = compound.findtext("name", "")
        names.add(owner)
        for member in compound.findall("member"):
            names.add(f"{owner}::{member.findtext('name', '')}")
        for enum in ElementTree.parse(xml_dir / f"{compound.get('refid')}.xml").iter("memberdef"):
            if enum.get("kind") == "enum":
                for value in enum.findall("enumvalue"):
                    names.add(f"{owner}::{enum.findtext('name', '')}::{value.findtext('name', '')}")
    return names


def role_target(text: str) -> str:
    """The entity a role names: ``title <llm::f>`` -> ``llm::f``; ``~llm::f(int)`` -> ``llm::f``."""
    match = re.fullmatch(r".*<([^<>]+)>\s*", text, re.S)
    target = match.group(1) if match else text
    return target.strip().lstrip("~").split("(", 1)[0].strip()


def check_api_roles(text: str, names: set[str], label: str) -> None:
    """Checks that every C++ role in a chapter names a documented entity.

    Sphinx would report a dangling role against the rendered page; this names
    the chapter.md line. Raises RenderError with close matches as suggestions.
    """
    for line_number, line in enumerate(text.splitlines(), start=1):
        for match in API_ROLE.finditer(line):
            target = role_target(match.group(2))
            if target in names:
                continue
            close = difflib.get_close_matches(target, names, n=3, cutoff=0.8)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise RenderError(
                f"{label}:{line_number}: {{cpp:{match.group(1)}}}`{match.group(2)}` names nothing "
                f"in the API reference{hint}"
            )
