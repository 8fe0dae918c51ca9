"""Checks of statements made by chapters 08-12 and 18-22 (issue 17: the wrong
or imprecise statements the second teaching pass corrected, and the facts
the corrected sentences rest on).

Each test fails if a corrected statement comes back, or if the code, the
expected output or the recorded benchmark stops saying what the page now
says. Claims that the demos compute are checked where the page is drawn
(the chapters' figures.py raise when a traced number contradicts the prose).
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = ROOT / "chapters"


def chapter(number: str) -> Path:
    """The folder of chapter ``number`` (``"08"``)."""
    [folder] = CHAPTERS.glob(f"{number}-*")
    return folder


def words(path: Path) -> str:
    """The file's text with line breaks folded to single spaces."""
    return " ".join(path.read_text(encoding="utf-8").split())


def region(path: Path, name: str) -> str:
    """The text between ``// region: name`` and ``// endregion: name``."""
    text = path.read_text(encoding="utf-8")
    match = re.search(rf"// region: {re.escape(name)}\n(.*?)// endregion: {re.escape(name)}\n", text, re.S)
    assert match, f"{path.name} has no region {name}"
    return match.group(1)


def try_it_titles(text: str) -> list[str]:
    """The titles of the page's try-it blocks, in order."""
    return re.findall(r"^[`~]{3,}\{try-it\} (.+)$", text, re.M)


# --- Chapter 08 -------------------------------------------------------------


def _strides(shape: list[int], buggy: bool) -> list[int]:
    """row_major_strides, or the try-it's version that multiplies by shape[axis - 1]."""
    strides = [1] * len(shape)
    for axis in range(len(shape) - 1, 0, -1):
        strides[axis - 1] = strides[axis] * (shape[axis - 1] if buggy else shape[axis])
    return strides


def test_chapter_08_wrong_extent_changes_every_strides_list_but_the_scalar_one() -> None:
    # Try-it 2 multiplies by the wrong extent. Recompute the strides of every
    # shape in expected.txt both ways: exactly the lines with at least one
    # axis change, and the answer must say that the scalar line does not.
    folder = chapter("08")
    changed, unchanged = [], []
    lines = (folder / "expected.txt").read_text(encoding="utf-8").splitlines()
    tensor_shape = None
    for line in lines:
        if match := re.search(r"shape=\[([\d, ]*)\] strides=\[([\d, ]*)\]", line):
            shape = [int(x) for x in match.group(1).split(",") if x.strip()]
            assert _strides(shape, False) == [int(x) for x in match.group(2).split(",") if x.strip()], line
        elif match := re.match(r"tensor shape: \[([\d, ]*)\]", line):
            tensor_shape = [int(x) for x in match.group(1).split(",")]
            continue
        elif line.startswith("tensor strides:"):
            shape = tensor_shape
        else:
            continue
        (changed if _strides(shape, True) != _strides(shape, False) else unchanged).append(line.split(":")[0])
    assert unchanged == ["scalar"]
    assert len(changed) == 9 and "empty" in changed and "tensor strides" in changed
    text = words(folder / "chapter.md")
    assert "Every `strides=` line changes" not in text
    assert "The `scalar:` line keeps `strides=[]`" in text


# --- Chapter 09 -------------------------------------------------------------


def test_chapter_09_names_the_try_it_that_the_bounds_check_catches() -> None:
    text = (chapter("09") / "chapter.md").read_text(encoding="utf-8")
    titles = try_it_titles(text)
    # The transpose whose strides stay put reaches offset 7: the view
    # constructor's bounds check fires. It is the second edit on the page.
    assert titles.index("Transpose the shape but not the strides") == 1
    assert "as the second try-it edit shows" in " ".join(text.split())
    assert "reaches storage offset 7" in " ".join(text.split())


def test_chapter_09_says_which_kernels_copy_a_strided_view() -> None:
    text = words(chapter("09") / "chapter.md")
    assert "never needs a hidden copy" not in text
    assert "as log-softmax and the matrix product's packing do" in text
    # ... which is true of the code: log-softmax materializes a strided input.
    probability = (ROOT / "src" / "llm" / "tensor" / "probability.cpp").read_text(encoding="utf-8")
    assert re.search(r"row_major_values\(.*?\{.*?materialize\(\)", probability, re.S)


def test_chapter_09_does_not_claim_every_non_contiguous_reshape_must_move_values() -> None:
    text = words(chapter("09") / "chapter.md")
    assert "would have to move values, and the library never moves values" not in text
    assert "PyTorch's `view` accepts such requests" in text
    assert "This library refuses them all" in text


# --- Chapter 10 -------------------------------------------------------------


def test_chapter_10_calls_the_feed_forward_network_and_attention_matrix_products() -> None:
    text = words(chapter("10") / "chapter.md")
    assert "each of these is an elementwise operation" not in text
    assert "are matrix products" in text


# --- Chapter 11 -------------------------------------------------------------

MACHINE_KEYS = ("cpu_model_name", "cpu_family", "cpu_model", "llm_microkernel", "openblas_core")


def recorded_runs() -> list[Path]:
    return sorted((ROOT / "docs" / "bench").glob("bench-*.json"))


def test_every_recorded_benchmark_names_its_cpu_and_both_kernels() -> None:
    runs = recorded_runs()
    assert runs, "docs/bench holds no recorded run"
    performance = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    for run in runs:
        context = json.loads(run.read_text(encoding="utf-8"))["context"]
        for key in MACHINE_KEYS:
            assert str(context.get(key, "")).strip(), f"{run.name} does not record {key}"
        # docs/performance.md describes every recorded run by its file name.
        assert f"docs/bench/{run.name}" in performance, f"docs/performance.md does not describe {run.name}"


def test_chapter_11_and_performance_doc_never_state_the_openblas_kernel_as_general() -> None:
    for path in (chapter("11") / "chapter.md", ROOT / "docs" / "performance.md"):
        text = words(path)
        assert "falls back to an AVX2 kernel" not in text, path
        assert "runs an AVX2 kernel there" not in text, path
    text = words(chapter("11") / "chapter.md")
    assert "That last ratio belongs to the CPU" in text
    assert "{{ figures.machines_table() }}" in text


def test_chapter_11_takes_block_sizes_from_the_kernel_not_from_the_prose() -> None:
    # The packed-B size and the K slice are computed from the constants the
    # demo traces (matmul_kernel.hpp); the old fixed-buffer claim is gone.
    text = words(chapter("11") / "chapter.md")
    assert "a packed $B$ panel of 256 rows by $N_R$ columns" not in text
    assert "The packed $B$ buffer as a whole is not fixed" in text
    assert "stays in vector registers while all of its terms are added" not in text
    header = (ROOT / "src" / "llm" / "tensor" / "matmul_kernel.hpp").read_text(encoding="utf-8")
    for name in ("kDepthBlock", "kRowPanels", "kColumnBlock"):
        assert re.search(rf"inline constexpr std::size_t {name} = \d+;", header), name
    kernel = (ROOT / "src" / "llm" / "tensor" / "matmul_kernel.cpp").read_text(encoding="utf-8")
    assert "std::min(columns, block.column_block)" in kernel and "std::min(depth, block.depth_block)" in kernel
    # The trace reports the blocking of the kernel this machine chose, not the defaults.
    demo = (chapter("11") / "demo.cpp").read_text(encoding="utf-8")
    assert '{"depth_block", kernel.blocking.depth_block}' in demo


def test_the_no_fma_check_covers_every_microkernel_source() -> None:
    sources = sorted(path.name for path in (ROOT / "src" / "llm" / "tensor").glob("matmul_microkernel_*.cpp"))
    cmake = (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    for source in sources:
        assert f"{source}.o" in cmake, f"the no-FMA check does not expect {source}.o"
    assert "NAME matmul-microkernels-have-no-fma" in cmake


# --- Chapter 12 -------------------------------------------------------------


def test_chapter_12_no_longer_says_ln_z_cannot_be_zero_or_that_log1p_prints_alike() -> None:
    text = words(chapter("12") / "chapter.md")
    assert "neither $Z$ nor $\\ln Z$ can be zero" not in text
    assert "neither Z nor ln Z can overflow, vanish or be undefined" not in text
    assert "they differ only when that remainder is below" not in text
    assert "Twelve printed decimals show both as 0" not in text
    assert "When do $\\ln Z$ and `log1p(Z - 1)` differ" not in text
    assert "{{ figures.log_normalizer_table(trace) }}" in text


def test_chapter_12_try_it_3_fails_at_the_run_step_without_a_diff() -> None:
    text = words(chapter("12") / "chapter.md")
    assert "so the diff removes every line" not in text
    assert "fails at its run step. There is no diff" in text


# --- Chapter 18 -------------------------------------------------------------


def test_chapter_18_describes_the_gradient_check_cases_as_the_test_has_them() -> None:
    source = (ROOT / "tests" / "nn" / "embedding_test.cpp").read_text(encoding="utf-8")
    body = source[source.index("GradientMatchesCentralDifferencesAtSeveralShapes"):]
    cases = re.findall(r'\{"[^"]+", \{([\d, ]+)\}, Shape\{([\d, ]+)\}\}', body)
    ids = [[int(x) for x in case[0].split(",")] for case in cases]
    shapes = ["[" + ", ".join(x.strip() for x in case[1].split(",")) + "]" for case in cases]
    assert shapes == ["[1]", "[5]", "[2, 3]", "[2, 2, 2]"]
    assert len(ids[0]) == 1  # a single ID cannot repeat
    assert all(len(set(group)) < len(group) for group in ids[1:])
    text = words(chapter("18") / "chapter.md")
    assert "each with repeated IDs" not in text
    assert "a single ID, then three lists in which some ID repeats" in text


# --- Chapters 20 and 21 -----------------------------------------------------


def test_chapter_20_answer_2_reads_the_closed_gate_from_the_trace() -> None:
    text = words(chapter("20") / "chapter.md")
    assert "so the gate itself still gets a gradient and can open. A ReLU" not in text
    assert "{{ shut.gate_gradient }}" in text


def test_chapter_21_losses_of_a_row_are_consecutive_eighths() -> None:
    # Every printed stand-in loss is (8d + 2s + t + 1) / 8: a multiple of 1/8.
    expected = (chapter("21") / "expected.txt").read_text(encoding="utf-8")
    losses = [float(x) for line in re.findall(r"losses=\[([^\]]*)\]", expected) for x in line.split(",")]
    assert losses and all((8 * loss).is_integer() for loss in losses)
    text = words(chapter("21") / "chapter.md")
    assert "sixteenths" not in text and "consecutive eighths" in text
    assert "in a given epoch one window is never seen" not in text


# --- Chapter 22 -------------------------------------------------------------


def test_chapter_22_states_its_parameterization_and_qualifies_exactly() -> None:
    text = words(chapter("22") / "chapter.md")
    assert "{cite:p}`pytorch_adamw`" in text and "Algorithm 2" in text
    assert "gives back g and g² exactly." not in text
    assert "whatever the betas are" not in text
    assert "barely decayed" not in text
    assert "multiplies a parameter without gradient by $1 - d$" not in text
    assert "{{ figures.zero_after_history_table(trace) }}" in text
    assert "{{ figures.round_trip_table(trace) }}" in text


def test_chapter_22_traces_both_pairs_of_betas() -> None:
    # The round-trip table compares the worked betas with the asymmetric ones;
    # its claim needs one pair with 1 - beta a power of two and one without.
    header = (chapter("22") / "fixtures.hpp").read_text(encoding="utf-8")
    beta1 = float(re.search(r"kBeta1 = ([\d.]+);", header).group(1))
    asymmetric = ast.literal_eval(re.search(r"kAsymmetricBetas = \{([\d., ]+)\};", header).group(1))
    assert (1 - beta1).hex().startswith("0x1.0000000000000p")
    assert not (1 - asymmetric[0]).hex().startswith("0x1.0000000000000p")
