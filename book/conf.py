"""Sphinx configuration of the book "LLM from scratch in C++".

The build (cmake/LlmBook.cmake) stages this folder beside the rendered chapter
pages in build/book and runs ``sphinx-build -W`` with two environment variables:
LLM_DOXYGEN_XML (Doxygen's XML for Breathe) and LLM_SOURCE_DIR (the repository).
Everything comes from Debian packages, so the book builds offline.
"""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "LLM from scratch in C++"
author = "The LLM from scratch in C++ authors"
copyright = "2026, " + author

extensions = [
    "myst_parser",
    "breathe",
    "sphinx.ext.mathjax",
    "sphinx.ext.graphviz",
    "sphinx_copybutton",
    "llm_book",
]

# MyST: $...$ and $$...$$ math, ::: fences.
myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "**/__pycache__"]

# API reference from Doxygen XML, one page per area; book/_ext/llm_book.py's
# api-header directive lists each header's entities as Breathe directives. Names in the chapters link here through
# :cpp:func: / :cpp:class: roles; nitpicky mode turns a dangling one into an error.
breathe_projects = {"llm": os.environ.get("LLM_DOXYGEN_XML", "../doxygen/xml")}
breathe_default_project = "llm"
breathe_domain_by_extension = {"hpp": "cpp", "cpp": "cpp"}
breathe_default_members = ("members",)
breathe_show_include = False
cpp_index_common_prefix = ["llm::"]
nitpicky = True
nitpick_ignore_regex = [
    # The standard library and nlohmann are not documented in this book.
    (r"cpp:.*", r"std(::.*)?"),
    (r"cpp:.*", r"(size_t|uint64_t|int64_t)"),
    # The namespace itself has no entry; its members do.
    (r"cpp:identifier", r"llm"),
]

# Figures: Graphviz diagrams as SVG.
graphviz_output_format = "svg"

# Offline math: Debian's MathJax 2, copied into _static/mathjax by llm_book.
# MyST would write a MathJax 3 configuration; MathJax 2 needs its own, which
# typesets only the math Sphinx marks up (never a "$" in code or prose).
mathjax_path = "mathjax/MathJax.js?config=TeX-AMS_CHTML"
myst_update_mathjax = False
mathjax2_config = {
    "tex2jax": {
        "inlineMath": [["\\(", "\\)"]],
        "displayMath": [["\\[", "\\]"]],
        "processEscapes": True,
        "ignoreClass": "document",
        "processClass": "math",
    },
    "CommonHTML": {"linebreaks": {"automatic": True}},
}

html_theme = "furo"
html_title = "LLM from scratch in C++"
html_static_path = ["_static"]
html_css_files = ["book.css"]
html_copy_source = False
html_show_sourcelink = False
highlight_language = "cpp"

copybutton_selector = "div.highlight pre"
