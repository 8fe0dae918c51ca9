"""The Python build tools of *LLM from scratch in C++*, run as ``python3 -m tools.<module>``.

The build (CMake and the Makefile) calls these modules from the repository
root: ``tools.regions`` finds the tagged regions (``// region: NAME`` ...
``// endregion: NAME``) in the C++ sources, checks every marker and resolves a
chapter's ``path#name`` references into dedented listings with their original
line numbers; ``tools.demo`` runs a chapter's demo program under a time limit,
accepts its output only from a clean exit, and verifies it byte for byte
against the chapter's committed ``expected.txt`` (or syncs it from two
identical runs, on request; ``tools.textdiff`` makes the differences
visible); ``tools.render`` turns a chapter's ``chapter.md`` into the page
Sphinx reads, in the template sandbox of ``tools.sandbox``, placing the
blocks its macros return with ``tools.blocks`` and checking API roles with
``tools.api_roles``; ``tools.book`` runs Sphinx for the whole book;
``tools.buildlock`` keeps two builds out of one build directory;
``tools.fileio`` holds the shared helpers: atomic file writes and the
location of the repository root. Every tool reports a failure as one message
naming the file and line at fault and exits with status 1.
"""
