# The front door of "LLM from scratch in C++". Thin: every target delegates to
# CMake (which decides what is out of date), ctest, or the tools in tools/.
# `make help` lists the targets. Variables: BUILD, PYTHON, CXX, WERROR, SYNC, DEMO_TIMEOUT,
# and for `make bench`: BENCH_BUILD, BENCH_JSON, BENCH_ARGS.

SHELL := /bin/bash
BUILD ?= build
# Debian's interpreter has the book's Python modules (jinja2, sphinx, breathe...);
# a python3 earlier on PATH (pyenv, venv) usually does not.
PYTHON ?= $(if $(wildcard /usr/bin/python3),/usr/bin/python3,python3)
WERROR ?= OFF
DEMO_TIMEOUT ?= 60
GENERATOR ?= $(if $(shell command -v ninja),Ninja,Unix Makefiles)

CHAPTERS := $(sort $(notdir $(patsubst %/,%,$(dir $(wildcard chapters/[0-9]*/chapter.md chapters/[0-9]*/CMakeLists.txt)))))
CHAPTER_NUMBERS := $(foreach c,$(CHAPTERS),$(firstword $(subst -, ,$(c))))
CONFIGURE_ARGS := -G "$(GENERATOR)" -DCMAKE_CXX_COMPILER=$(CXX) -DLLM_PYTHON=$(PYTHON) -DLLM_WERROR=$(WERROR) -DLLM_DEMO_TIMEOUT=$(DEMO_TIMEOUT)
CMAKE_BUILD := cmake --build $(BUILD) --target

.DEFAULT_GOAL := help
.PHONY: help book test bench sync clean deps configure FORCE

help: ## List the targets
	@echo "LLM from scratch in C++ -- make targets:"
	@echo "  make book          build, run and verify every chapter, then the HTML book -> $(BUILD)/html/index.html"
	@echo "  make chapter-NN    build chapter NN's demo, run it, verify its output, render its page"
	@echo "                     (chapters: $(CHAPTER_NUMBERS))"
	@echo "  make chapter-NN SYNC=1   accept chapter NN's current output into its expected.txt, then as above"
	@echo "  make sync          accept every chapter's current output into its expected.txt"
	@echo "  make test          GoogleTest suites, one output check per chapter, and the tools' pytest suites"
	@echo "  make bench         Google Benchmark: ours vs OpenBLAS and libtorch, one thread (installs them) -> $(BENCH_BUILD)/bench.json"
	@echo "  make clean         remove $(BUILD)/"
	@echo "  make deps          install missing Debian packages (or print the command to run)"
	@echo "Variables: PYTHON=$(PYTHON) BUILD=$(BUILD) CXX=$(CXX) WERROR=$(WERROR) DEMO_TIMEOUT=$(DEMO_TIMEOUT)"

deps: ## Install the Debian packages the build needs
	@PYTHON=$(PYTHON) tools/install-deps

# Configure once; reconfigure only when the configuration variables change.
configure: deps
	@mkdir -p $(BUILD)
	@if [ ! -f $(BUILD)/CMakeCache.txt ] || [ "$$(cat $(BUILD)/make-configure-args 2>/dev/null)" != '$(CONFIGURE_ARGS)' ]; then \
	  echo "configure: cmake $(CONFIGURE_ARGS)"; \
	  cmake -S . -B $(BUILD) $(CONFIGURE_ARGS) >$(BUILD)/configure.log || { cat $(BUILD)/configure.log; exit 1; }; \
	  echo '$(CONFIGURE_ARGS)' >$(BUILD)/make-configure-args; \
	fi

book: configure ## Every chapter, then Doxygen and Sphinx into build/html
	@$(CMAKE_BUILD) book
	@echo "book: $(BUILD)/html/index.html"

# chapter-16 or chapter-16-model-autodiff-ops; the chapter is checked before
# anything is configured or built.
chapter-%: FORCE
	@slug='$(firstword $(filter $*-% $*,$(CHAPTERS)))'; \
	if [ -z "$$slug" ]; then \
	  echo "make: no chapter '$*'; the chapters are: $(CHAPTER_NUMBERS) (make chapter-NN)" >&2; exit 2; \
	fi; \
	number=$${slug%%-*}; \
	$(MAKE) --no-print-directory configure || exit 1; \
	if [ '$(SYNC)' = 1 ]; then \
	  $(CMAKE_BUILD) chapter-$$number-output && \
	  $(PYTHON) -m tools.demo sync --chapter $$slug --run-dir $(BUILD)/chapters/$$slug || exit 1; \
	fi; \
	$(CMAKE_BUILD) chapter-$$number && \
	echo "chapter $$number: ok -> $(BUILD)/book/chapters/$$slug.md (make book for the HTML)"

chapter-:
	@echo "make: name a chapter: make chapter-NN with NN one of $(CHAPTER_NUMBERS)" >&2; exit 2

sync: configure ## Accept every chapter's output into its expected.txt
	@$(CMAKE_BUILD) $(foreach c,$(CHAPTERS),chapter-$(firstword $(subst -, ,$(c)))-output)
	@for slug in $(CHAPTERS); do \
	  $(PYTHON) -m tools.demo sync --chapter $$slug --run-dir $(BUILD)/chapters/$$slug || exit 1; \
	done
	@$(CMAKE_BUILD) $(foreach c,$(CHAPTERS),chapter-$(firstword $(subst -, ,$(c))))

test: configure ## GoogleTest + chapter output checks + pytest
	@$(CMAKE_BUILD) all
	@ctest --test-dir $(BUILD) --output-on-failure --progress -j2

# The benchmarks build in their own directory with the anchors' packages,
# which `make book` and `make test` never need (tools/debian-bench-packages.txt).
BENCH_BUILD ?= build-bench
BENCH_JSON ?= $(BENCH_BUILD)/bench.json
BENCH_ARGS ?=
BENCH_CONFIGURE_ARGS := $(CONFIGURE_ARGS) -DLLM_BENCH=ON
bench: ## Google Benchmark: ours vs OpenBLAS and libtorch, single-threaded
	@PYTHON=$(PYTHON) tools/install-deps $$(grep -v -e '^#' -e '^$$' tools/debian-bench-packages.txt)
	@mkdir -p $(BENCH_BUILD)
	@if [ ! -f $(BENCH_BUILD)/CMakeCache.txt ] || [ "$$(cat $(BENCH_BUILD)/make-configure-args 2>/dev/null)" != '$(BENCH_CONFIGURE_ARGS)' ]; then \
	  echo "configure: cmake $(BENCH_CONFIGURE_ARGS)"; \
	  cmake -S . -B $(BENCH_BUILD) $(BENCH_CONFIGURE_ARGS) >$(BENCH_BUILD)/configure.log || { cat $(BENCH_BUILD)/configure.log; exit 1; }; \
	  echo '$(BENCH_CONFIGURE_ARGS)' >$(BENCH_BUILD)/make-configure-args; \
	fi
	@cmake --build $(BENCH_BUILD) --target llm_bench
	OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 $(BENCH_BUILD)/llm_bench --benchmark_out=$(BENCH_JSON) --benchmark_out_format=json $(BENCH_ARGS)

clean: ## Remove everything generated
	rm -rf $(BUILD)

FORCE:
