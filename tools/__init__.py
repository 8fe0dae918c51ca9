"""The Python build tools of *LLM from scratch in C++*, run as ``python3 -m tools.<module>``.

The build (CMake and the Makefile) calls these modules from the repository
root: ``tools.regions`` finds the tagged regions (``// region: NAME`` ...
``// endregion: NAME``) in the C++ sources, checks every marker and resolves a
chapter's ``path#name`` references into dedented listings with their original
line numbers; ``tools.demo`` runs a chapter's demo program under a time limit,
accepts its output only from a clean exit, and verifies it byte for byte
against the chapter's committed ``expected.txt`` (or syncs it, on request);
``tools.render`` turns a chapter's ``chapter.md`` into the page Sphinx reads;
``tools.fileio`` holds the shared helpers: atomic file writes and the location
of the repository root. Every tool reports a failure as one message naming
the file and line at fault and exits with status 1.
"""
