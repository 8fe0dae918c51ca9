"""Sphinx configuration of the book "LLM from scratch in C++".

The build (cmake/LlmBook.cmake) stages this folder beside the rendered chapter
pages in build/book and runs ``sphinx-build -W`` with these environment variables:
LLM_DOXYGEN_XML (Doxygen's XML for Breathe), LLM_SOURCE_DIR (the repository),
and LLM_REPOSITORY_URL / LLM_REPOSITORY_BRANCH (where the book's source
lives, for its "Repository" and "view source" links; ``make book
REPOSITORY_URL=...`` sets them, see docs/html.md). Everything comes from Debian
packages, so the book builds offline. The same configuration builds the EPUB
(``make epub``: the builder's tag ``epub`` switches math to MathML).
"""

import json
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
    "sphinxcontrib.bibtex",
    "llm_cite",
    "llm_book",
    "llm_links",
    "llm_html",
    "llm_print",
]

# MyST: $...$ and $$...$$ math, ::: fences.
myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "**/__pycache__", "_theme", "_templates"]

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

# Figures, tables and labelled equations are numbered, and the text cites them
# with {numref}`ch12-exp-range` and {eq}`label`; llm_html puts the chapter's
# number in front: "Figure 12.3", "(12.1)".
numfig = True
numfig_format = {"figure": "Figure %s", "table": "Table %s", "code-block": "Listing %s", "section": "Section %s"}
math_numfig = True
language = "en"

# The repository the book is built from: its address (a forge's URL, or the
# file:// URL of the checkout) and branch. cmake/LlmBook.cmake passes them;
# the default is the checkout's git remote "origin", else the checkout itself.
# cmake/LlmBookHtml.cmake writes _repository.json beside this file; the
# environment variables LLM_REPOSITORY_URL and LLM_REPOSITORY_BRANCH override it.
_repository_file = Path(__file__).parent / "_repository.json"
_repository = json.loads(_repository_file.read_text(encoding="utf-8")) if _repository_file.is_file() else {}
llm_repository_url = os.environ.get("LLM_REPOSITORY_URL") or _repository.get("url", "")
llm_repository_branch = os.environ.get("LLM_REPOSITORY_BRANCH") or _repository.get("branch", "main")

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
    # No automatic line breaking: it broke symbols such as $h_{\max}$ across
    # lines inside table cells. A formula wider than the page scrolls in its
    # wrapper instead (book.css).
    "CommonHTML": {"linebreaks": {"automatic": False}},
}

html_theme = "furo"
html_title = "LLM from scratch in C++"
# _theme/ holds Furo's scripts bundled for offline use and its stylesheet with
# normalize.css inlined (tools/theme.py, run by cmake/LlmBookHtml.cmake); its
# files replace the theme's own. See docs/html.md.
html_static_path = ["_static"] + (["_theme"] if (Path(__file__).parent / "_theme").is_dir() else [])
html_css_files = ["book.css"]
html_js_files = ["book.js"]
templates_path = ["_templates"]
# Furo's sidebar, with the index of names under the table of contents.
html_sidebars = {
    "**": [
        "sidebar/brand.html",
        "sidebar/search.html",
        "sidebar/scroll-start.html",
        "sidebar/navigation.html",
        "sidebar/book-index.html",
        "sidebar/scroll-end.html",
    ]
}
html_copy_source = False
html_show_sourcelink = False
highlight_language = "cpp"

copybutton_selector = "div.highlight pre"

# Cited papers: book/references.bib; each chapter cites by key in its history
# section ({cite:t}`bengio2003`) and lists them with a {bibliography} block
# (docs/authoring.md, "References").
bibtex_bibfiles = ["references.bib"]
# Labels repeat across chapters by design (tools/links.py gives each chapter
# its own key prefix); see book/_ext/llm_cite.py. The entries are pybtex's
# "plain" ones with an arXiv or DOI address written once (llm_cite.py).
bibtex_reference_style = "author_year_round"
bibtex_default_style = "llm_book"
suppress_warnings = ["bibtex.duplicate_label"]

# EPUB (make epub, tools/print_book.py): the HTML pages without the search page
# and the index of names; math as MathML (llm_epub), the cover page first.
epub_basename = "llm-from-scratch-cpp"
epub_title = project
epub_author = author
epub_publisher = author
epub_copyright = copyright
epub_show_urls = "no"
epub_use_index = False
epub_exclude_files = ["search.html", "genindex.html", "print.html"]
epub_css_files = ["book-epub.css"]
epub_description = "A course book whose chapters are executable: a C++20 library from tensors to a decoder."
if "tags" in globals() and tags.has("epub"):  # noqa: F821 (Sphinx defines tags; tools/print_book.py passes -t epub)
    extensions.append("llm_epub")
    html_math_renderer = "llm_mathml"
    version = release = "1"
