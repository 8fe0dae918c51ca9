# The front door of "LLM from scratch in C++". Thin: every target delegates to
# CMake (which decides what is out of date), ctest, or the tools in tools/.
# `make help` lists the targets. Variables: BUILD, PYTHON, CXX, WERROR, SYNC, SANITIZE, DEMO_TIMEOUT,
# REPOSITORY_URL, and for `make bench`: BENCH_BUILD, BENCH_JSON, BENCH_ARGS.

SHELL := /bin/bash
# SANITIZE=1: build and test everything under AddressSanitizer and
# UndefinedBehaviorSanitizer, in its own build directory, with a longer demo
# time limit (a sanitized demo runs several times slower).
ifneq ($(filter 1 yes true,$(SANITIZE)),)
BUILD ?= build-asan
DEMO_TIMEOUT ?= 300
SANITIZE_ARGS := -DLLM_SANITIZE=ON
endif
BUILD ?= build
# Debian's interpreter has the book's Python modules (jinja2, sphinx, breathe...);
# a python3 earlier on PATH (pyenv, venv) usually does not.
PYTHON ?= $(if $(wildcard /usr/bin/python3),/usr/bin/python3,python3)
WERROR ?= OFF
DEMO_TIMEOUT ?= 60
GENERATOR ?= $(if $(shell command -v ninja),Ninja,Unix Makefiles)
# The repository the book's "Repository" and "view source" links name (docs/html.md);
# empty: the checkout's git remote origin, else the checkout itself (file://).
REPOSITORY_URL ?=
# $(call shell_words,VALUE): VALUE cut at blanks, each word single-quoted for
# the shell, so it reaches the program as typed: BENCH_ARGS='--benchmark_filter=a|b'
# passes a `|` (not a pipe), and TRAIN_ARGS='--restart --config my.json' two
# options. A word cannot itself hold a blank. The *_ARGS variables go through it.
shell_words = $(foreach word,$(1),'$(subst ','\'',$(word))')

CHAPTERS := $(sort $(notdir $(patsubst %/,%,$(dir $(wildcard chapters/[0-9]*/chapter.md chapters/[0-9]*/CMakeLists.txt)))))
CHAPTER_NUMBERS := $(foreach c,$(CHAPTERS),$(firstword $(subst -, ,$(c))))
# Chapters declared with llm_chapter(NO_DEMO) have a page but no demo to run or sync.
NO_DEMO_CHAPTERS := $(notdir $(patsubst %/,%,$(dir $(shell grep -l 'llm_chapter.*NO_DEMO' chapters/[0-9]*/CMakeLists.txt 2>/dev/null))))
DEMO_CHAPTERS := $(filter-out $(NO_DEMO_CHAPTERS),$(CHAPTERS))
# SYNC=1, yes or true syncs; 0, no, false or nothing does not. Any other value
# stops `make chapter-NN` before anything runs, rather than being ignored.
SYNC_TRUE := 1 yes true Yes True YES
SYNC_FALSE := 0 no false No False NO
SYNC_ON := $(if $(filter $(SYNC_TRUE),$(strip $(SYNC))),1)
ifneq ($(filter chapter-%,$(MAKECMDGOALS)),)
ifneq ($(filter-out $(SYNC_TRUE) $(SYNC_FALSE),$(strip $(SYNC)))$(word 2,$(SYNC)),)
$(error SYNC='$(SYNC)' is neither on nor off: write SYNC=1 (or yes, true) to accept the demo's output, or leave SYNC out)
endif
endif
CONFIGURE_ARGS := $(strip -G "$(GENERATOR)" -DCMAKE_CXX_COMPILER=$(CXX) -DLLM_PYTHON=$(PYTHON) -DLLM_WERROR=$(WERROR) -DLLM_DEMO_TIMEOUT=$(DEMO_TIMEOUT) -DLLM_REPOSITORY_URL=$(REPOSITORY_URL) $(SANITIZE_ARGS))
CMAKE_BUILD := cmake --build $(BUILD) --target

# One build at a time per build directory (tools/buildlock.py): a recipe that
# builds in $(BUILD) first opens $(BUILD)/build.lock as its shell's descriptor 9
# and locks it, so the lock is held until the recipe ends; a second `make` in
# the same tree says whom it waits for and waits.
LOCK = mkdir -p $(BUILD) && exec 9>>$(BUILD)/build.lock && \
  $(PYTHON) -m tools.buildlock --fd 9 --lock-file $(BUILD)/build.lock --what 'make $@' && \
  export LLM_BUILD_LOCK='$(abspath $(BUILD))/build.lock'
# Configure once; reconfigure only when the configuration variables change.
CONFIGURE = if [ ! -f $(BUILD)/CMakeCache.txt ] || [ "$$(cat $(BUILD)/make-configure-args 2>/dev/null)" != '$(CONFIGURE_ARGS)' ]; then \
  echo "configure: cmake $(CONFIGURE_ARGS)"; \
  cmake -S . -B $(BUILD) $(CONFIGURE_ARGS) >$(BUILD)/configure.log || { cat $(BUILD)/configure.log; exit 1; }; \
  echo '$(CONFIGURE_ARGS)' >$(BUILD)/make-configure-args; \
  fi

.DEFAULT_GOAL := help
.PHONY: help book test bench train generate train-anchor sync clean deps configure check-html pdf epub format FORCE

help: ## List the targets
	@echo "LLM from scratch in C++ -- make targets:"
	@echo "  make book          build, run and verify every chapter, then the HTML book -> $(BUILD)/html/index.html"
	@echo "  make chapter-NN    build chapter NN's demo, run it, verify its output, render its page"
	@echo "                     (chapters: $(CHAPTER_NUMBERS))"
	@echo "  make chapter-NN SYNC=1   run chapter NN's demo twice and, if both runs print the same"
	@echo "                     UTF-8 text, accept it into its expected.txt; then as above (SYNC=yes, true too)"
	@echo "  make sync          the same for every chapter"
	@echo "  make test          GoogleTest suites, one output check per chapter, the tools' pytest suites"
	@echo "                     and the C++ format check"
	@echo "  make format        apply .clang-format (clang-format 14) to every C++ file; prints each file it changed"
	@echo "  make test SANITIZE=1   the suites and every demo's check under ASan and UBSan, in build-asan/"
	@echo "  make check-html    the built book in headless Chromium; screenshots -> $(BUILD)/screenshots"
	@echo "  make pdf           the whole book as a PDF (print view through headless Chromium) -> $(BUILD)/llm-from-scratch-cpp.pdf"
	@echo "  make epub          the whole book as an EPUB (Sphinx, math as MathML) -> $(BUILD)/llm-from-scratch-cpp.epub"
	@echo "  make bench         Google Benchmark: ours vs OpenBLAS and libtorch, one thread (installs them) -> $(BENCH_BUILD)/bench.json"
	@echo "  make train         chapter 40: train the decoder on Tiny Shakespeare (Ctrl-C saves; rerun resumes; THREADS=2) -> $(TRAIN_OUT)/"
	@echo "  make generate      continue PROMPT='...' from make train's checkpoint, or CHECKPOINT=FILE (TOKENS, TEMPERATURE, TOP_K, SEED, GENERATE_ARGS)"
	@echo "  make train-anchor  chapter 40's decoder in libtorch, float32/float64 x 1/2 threads -> $(BENCH_BUILD)/train-anchor/"
	@echo "  make clean         remove everything built in $(BUILD)/"
	@echo "  make deps          install missing Debian packages (or print the command to run)"
	@echo "Two builds in the same BUILD never run at once: the second waits for the first."
	@echo "Variables: PYTHON=$(PYTHON) BUILD=$(BUILD) CXX=$(CXX) WERROR=$(WERROR) DEMO_TIMEOUT=$(DEMO_TIMEOUT) REPOSITORY_URL=$(REPOSITORY_URL)"

deps: ## Install the Debian packages the build needs
	@PYTHON=$(PYTHON) tools/install-deps

configure: deps
	@$(LOCK) && $(CONFIGURE)

book: deps ## Every chapter, then Doxygen and Sphinx into build/html
	@$(LOCK) && $(CONFIGURE) && \
	$(CMAKE_BUILD) book && \
	echo "book: $(BUILD)/html/index.html"

# chapter-16 or chapter-16-model-autodiff-ops; the chapter is checked before
# anything is configured or built.
chapter-%: FORCE
	@slug='$(firstword $(filter $*-% $*,$(CHAPTERS)))'; \
	if [ -z "$$slug" ]; then \
	  echo "make: no chapter '$*'; the chapters are: $(CHAPTER_NUMBERS) (make chapter-NN)" >&2; exit 2; \
	fi; \
	number=$${slug%%-*}; \
	$(MAKE) --no-print-directory deps || exit 1; \
	$(LOCK) && $(CONFIGURE) || exit 1; \
	if [ -n '$(SYNC_ON)' ] && [ -n '$(filter $*-% $*,$(NO_DEMO_CHAPTERS))' ]; then \
	  echo "chapter $$number: no demo (llm_chapter(NO_DEMO)), nothing to sync"; \
	elif [ -n '$(SYNC_ON)' ]; then \
	  $(CMAKE_BUILD) chapter-$$number-sync || exit 1; \
	fi; \
	$(CMAKE_BUILD) chapter-$$number && \
	echo "chapter $$number: ok -> $(BUILD)/book/chapters/$$slug.md (make book for the HTML)"

chapter-:
	@echo "make: name a chapter: make chapter-NN with NN one of $(CHAPTER_NUMBERS)" >&2; exit 2

sync: deps ## Accept every chapter's output into its expected.txt
	@$(LOCK) && $(CONFIGURE) && \
	$(CMAKE_BUILD) $(foreach c,$(DEMO_CHAPTERS),chapter-$(firstword $(subst -, ,$(c)))-sync) && \
	$(CMAKE_BUILD) $(foreach c,$(CHAPTERS),chapter-$(firstword $(subst -, ,$(c))))

test: deps ## GoogleTest + chapter output checks + pytest
	@$(LOCK) && $(CONFIGURE) && \
	$(CMAKE_BUILD) all && \
	ctest --test-dir $(BUILD) --output-on-failure --progress -j2

# clang-format 14 rewrites every C++ file git tracks (or would add) that
# differs from .clang-format; `make test` runs the same tool as the ctest
# format-check, which changes nothing and names each unformatted file.
format: deps ## Apply .clang-format to every C++ file
	@$(PYTHON) -m tools.clang_format --fix

# The browser check needs Chromium, its driver and Selenium (Debian packages,
# installed here rather than for every build).
# It checks the book that `make book` built last, and configures nothing, so
# it never rebuilds a tree configured with other variables (WERROR, CXX).
check-html: ## The built book in headless Chromium (after make book)
	@PYTHON=$(PYTHON) tools/install-deps chromium chromium-driver python3-selenium
	@$(LOCK) && $(PYTHON) -m tools.check_html --html $(BUILD)/html --screenshots $(BUILD)/screenshots

# The book as a PDF and an EPUB (tools/print_book.py), after the HTML book;
# not part of `make book`. Both use Chromium (installed as for check-html);
# the page count needs poppler-utils' pdfinfo.
pdf: book ## The whole book as a PDF -> build/llm-from-scratch-cpp.pdf
	@PYTHON=$(PYTHON) tools/install-deps chromium chromium-driver python3-selenium poppler-utils
	@$(LOCK) && $(CMAKE_BUILD) pdf

epub: book ## The whole book as an EPUB -> build/llm-from-scratch-cpp.epub
	@PYTHON=$(PYTHON) tools/install-deps chromium chromium-driver python3-selenium
	@$(LOCK) && $(CMAKE_BUILD) epub

# The benchmarks build in their own directory with the anchors' packages,
# which `make book` and `make test` never need (tools/debian-bench-packages.txt).
BENCH_BUILD ?= build-bench
BENCH_JSON ?= $(BENCH_BUILD)/bench.json
# More llm_bench options, separated by blanks, each passed as typed (shell_words):
# BENCH_ARGS='--benchmark_filter=decoder_(step|forward) --benchmark_repetitions=3'.
BENCH_ARGS ?=
BENCH_CONFIGURE_ARGS := $(CONFIGURE_ARGS) -DLLM_BENCH=ON
BENCH_CONFIGURE = mkdir -p $(BENCH_BUILD) && \
  if [ ! -f $(BENCH_BUILD)/CMakeCache.txt ] || [ "$$(cat $(BENCH_BUILD)/make-configure-args 2>/dev/null)" != '$(BENCH_CONFIGURE_ARGS)' ]; then \
  echo "configure: cmake $(BENCH_CONFIGURE_ARGS)"; \
  cmake -S . -B $(BENCH_BUILD) $(BENCH_CONFIGURE_ARGS) >$(BENCH_BUILD)/configure.log || { cat $(BENCH_BUILD)/configure.log; exit 1; }; \
  echo '$(BENCH_CONFIGURE_ARGS)' >$(BENCH_BUILD)/make-configure-args; \
  fi
bench: ## Google Benchmark: ours vs OpenBLAS and libtorch, single-threaded
	@PYTHON=$(PYTHON) tools/install-deps $$(grep -v -e '^#' -e '^$$' tools/debian-bench-packages.txt)
	@$(BENCH_CONFIGURE)
	@cmake --build $(BENCH_BUILD) --target llm_bench
	OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 $(BENCH_BUILD)/llm_bench --benchmark_enable_random_interleaving=true --benchmark_out=$(BENCH_JSON) --benchmark_out_format=json $(call shell_words,$(BENCH_ARGS))

# make train, make generate and make train-anchor write the build's own lines
# (configure, the lock, ninja's "no work to do") to stderr: stdout is the
# program's alone, so `make generate > sample.txt` holds the sample and nothing else.

# Chapter 40's run: the chapter-32 decoder on Tiny Shakespeare at nanoGPT's
# CPU configuration (docs/training-run.md). Not part of book or test: it takes
# many minutes. Ctrl-C saves a checkpoint; the same command resumes it, bit for
# bit. CONFIG=my.json overrides settings; TRAIN_ARGS=--restart starts again;
# THREADS=2 lets the kernels use two threads (LLM_THREADS: the same bits,
# sooner; docs/train-runs/README.md measured 180 against 343 s).
TRAIN_OUT ?= $(BUILD)/train/shakespeare-char
CONFIG ?=
THREADS ?=
# More llm-train options, separated by blanks, each passed as typed (shell_words).
TRAIN_ARGS ?=
train: deps ## Chapter 40: train the decoder on Tiny Shakespeare (resumable)
	@{ $(LOCK) && $(CONFIGURE) && $(CMAKE_BUILD) llm-train; } >&2
	@$(if $(THREADS),LLM_THREADS=$(THREADS)) $(BUILD)/llm-train --out $(TRAIN_OUT) $(if $(CONFIG),--config $(CONFIG)) $(call shell_words,$(TRAIN_ARGS))

# The book's generator (build/llm-generate): continues PROMPT from a
# checkpoint, printing each token's bytes as it is chosen. CHECKPOINT is make
# train's by default (chapter 40); CHECKPOINT=$(BUILD)/chapters/39-end-to-end-llm/checkpoint.llmcp
# reads chapter 39's, which make book leaves. TOKENS, TEMPERATURE, TOP_K, SEED
# (SEED= empty draws from the generator state the checkpoint stores), and
# GENERATE_ARGS for any other option (--ids).
CHECKPOINT ?= $(TRAIN_OUT)/checkpoint.llmcp
PROMPT ?= ROMEO:
TOKENS ?= 500
TEMPERATURE ?= 0.8
TOP_K ?= 200
SEED ?= 1337
# More llm-generate options, separated by blanks, each passed as typed (shell_words).
GENERATE_ARGS ?=
generate: deps ## Continue PROMPT='...' from a checkpoint (CHECKPOINT=, default make train's)
	@test -e '$(subst ','\'',$(CHECKPOINT))' || { echo "make generate: no checkpoint at $(CHECKPOINT):" \
	  "run make train first (chapter 40), or pass CHECKPOINT=FILE (make book leaves chapter 39's at" \
	  "build/chapters/39-end-to-end-llm/checkpoint.llmcp)" >&2; exit 2; }
	@{ $(LOCK) && $(CONFIGURE) && $(CMAKE_BUILD) llm-generate; } >&2
	@$(BUILD)/llm-generate --checkpoint '$(subst ','\'',$(CHECKPOINT))' --prompt '$(subst ','\'',$(PROMPT))' \
	  --tokens $(TOKENS) --temperature $(TEMPERATURE) --top-k $(TOP_K) $(if $(SEED),--seed $(SEED)) $(call shell_words,$(GENERATE_ARGS))

# Chapter 40's anchor: the same decoder, data and batches in libtorch, trained
# at nanoGPT's CPU configuration once per precision and thread count, each run
# logged to $(BENCH_BUILD)/train-anchor/<dtype>-<threads>t.json. Long: minutes
# per run. ANCHOR_CONFIG=my.json changes the run as `make train CONFIG=` does.
ANCHOR_DTYPES ?= float32 float64
ANCHOR_THREADS ?= 1 2
ANCHOR_CONFIG ?=
# More llm-train-anchor options, separated by blanks, each passed as typed (shell_words).
ANCHOR_ARGS ?=
# OpenBLAS's own threads (empty: as many as libtorch's). With two of each on
# two cores the float64 run took twice as long as on one thread;
# ANCHOR_BLAS_THREADS=1 avoids it (docs/train-runs/README.md). The log's name
# then ends in -blas1.
ANCHOR_BLAS_THREADS ?=
train-anchor: ## Chapter 40's decoder in libtorch (float32/float64, 1 and 2 threads)
	@PYTHON=$(PYTHON) tools/install-deps $$(grep -v -e '^#' -e '^$$' tools/debian-bench-packages.txt)
	@{ $(BENCH_CONFIGURE); } >&2
	@cmake --build $(BENCH_BUILD) --target llm-train-anchor >&2
	@mkdir -p $(BENCH_BUILD)/train-anchor
	@for dtype in $(ANCHOR_DTYPES); do for threads in $(ANCHOR_THREADS); do \
	  blas=$(or $(ANCHOR_BLAS_THREADS),$$threads); name=$$dtype-$${threads}t$(if $(ANCHOR_BLAS_THREADS),-blas$(ANCHOR_BLAS_THREADS)); \
	  echo "train-anchor: $$dtype, $$threads thread(s), OpenBLAS $$blas -> $(BENCH_BUILD)/train-anchor/$$name.json"; \
	  OPENBLAS_NUM_THREADS=$$blas OMP_NUM_THREADS=$$threads $(BENCH_BUILD)/llm-train-anchor \
	    --dtype $$dtype --threads $$threads --blas-threads $$blas $(if $(ANCHOR_CONFIG),--config $(ANCHOR_CONFIG)) \
	    --log $(BENCH_BUILD)/train-anchor/$$name.json $(call shell_words,$(ANCHOR_ARGS)) || exit 1; \
	done; done

# Waits for a build running in $(BUILD), then removes all but the lock file
# (a build waiting on that file must find the one it locks).
clean: ## Remove everything generated
	@if [ -d $(BUILD) ]; then $(LOCK) && find $(BUILD) -mindepth 1 -maxdepth 1 ! -name build.lock -exec rm -rf {} +; fi

FORCE:
