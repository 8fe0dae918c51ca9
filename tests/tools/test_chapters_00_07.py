"""Checks of statements made by chapters 00-07 (issue 17: wrong or imprecise
statements, and the additions that replaced a claim by a number).

Each test fails if a statement the second teaching pass corrected comes back,
or if a fact the corrected text rests on stops being true of the code or the
data. Numbers themselves are guarded elsewhere: the printed lines by each
chapter's expected.txt, the traced ones by the figure modules' own checks,
and the baseline by tests/evaluation/bigram_evaluation_test.cpp.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = ROOT / "chapters"


def page(slug: str) -> str:
    """A chapter's prose with line breaks folded, lower-cased."""
    return " ".join((CHAPTERS / slug / "chapter.md").read_text(encoding="utf-8").split()).lower()


def region(path: Path, name: str) -> str:
    """The text between ``// region: name`` and ``// endregion: name``."""
    text = path.read_text(encoding="utf-8")
    match = re.search(rf"// region: {re.escape(name)}\n(.*?)// endregion: {re.escape(name)}\n", text, re.S)
    assert match, f"{path.name} has no region {name}"
    return match.group(1)


def section(slug: str, kind: str) -> str:
    """The text of one labelled section, ``(chNN-kind)=`` to the next label."""
    text = (CHAPTERS / slug / "chapter.md").read_text(encoding="utf-8")
    number = slug[:2]
    match = re.search(rf"\(ch{number}-{kind}\)=\n(.*?)(?=\n\(ch{number}-[a-z]+\)=|\Z)", text, re.S)
    assert match, f"{slug} has no {kind} section"
    return match.group(1)


PART_ONE = sorted(path.name for path in CHAPTERS.glob("0[0-7]-*"))


def test_part_one_is_all_there() -> None:
    assert [name[:2] for name in PART_ONE] == ["00", "01", "02", "03", "04", "05", "06", "07"]


@pytest.mark.parametrize("slug", PART_ONE)
def test_every_history_section_cites_by_key_and_lists_its_references(slug: str) -> None:
    history = section(slug, "history")
    assert "{cite:" in history, f"{slug} cites no paper by key"
    assert history.count("```{bibliography}") == 1, f"{slug} needs one bibliography block in its history"


def test_chapter_00_says_what_gpt1_did() -> None:
    text = page("00-llm-parts")
    assert "trained it on next-token prediction alone, the design" not in text
    assert "fine-tuned it on each task" in text


def test_chapter_00_answers_nine_rmsnorms_for_four_layers() -> None:
    text = page("00-llm-parts")
    assert "blocks give 8. the decoder" not in text
    assert "$2l + 1 = 9$" in text


def test_chapter_00_does_not_promise_one_position_of_work_per_cached_token() -> None:
    data = (CHAPTERS / "00-llm-parts" / "model_parts.json").read_text(encoding="utf-8")
    assert "one position of work" not in data
    text = page("00-llm-parts")
    assert "would cost work that grows with $n^2$" not in text
    assert "$n d^2 + n^2 d$" in text


def test_chapter_00_lets_generation_start_from_a_checkpoint() -> None:
    text = page("00-llm-parts")
    assert "generation needs none of them" not in text
    assert "restores a checkpoint and then generates" in text


def test_chapter_00_prompt_data_is_the_one_the_page_names() -> None:
    data = json.loads((CHAPTERS / "00-llm-parts" / "model_parts.json").read_text(encoding="utf-8"))
    prompt = data["prompt"]
    assert prompt["text"] == "salt on the window"
    assert "".join(prompt["pieces"][1:]) == prompt["text"]
    assert "take the prompt `salt on the window`" in page("00-llm-parts")
    # The IDs are checked against the tokenizer by a GoogleTest, which must exist.
    test = (ROOT / "tests" / "text" / "chapter00_prompt_test.cpp").read_text(encoding="utf-8")
    assert "encode_document" in test and "LLM_MODEL_PARTS_JSON" in test


def test_chapter_01_bytes_of_kot_are_128_or_above_not_208() -> None:
    text = page("01-text-units")
    assert "208 or above" not in text
    assert "128 or above" in text
    # The lowest byte of кот really is below 208.
    assert min("кот".encode("utf-8")) < 208 <= max("кот".encode("utf-8"))


def test_chapter_01_credits_the_lead_byte_check_with_what_it_rejects() -> None:
    text = page("01-text-units")
    assert "the one range check on the second byte is what rejects" not in text
    decoder = region(ROOT / "src" / "llm" / "text" / "text_units.cpp", "utf8-decode-one")
    # The lead-byte test the page describes: C2..DF, E0..EF, F0..F4, nothing else.
    for bounds in ("lead >= 0xC2 && lead <= 0xDF", "lead >= 0xE0 && lead <= 0xEF", "lead >= 0xF0 && lead <= 0xF4"):
        assert bounds in decoder


def test_chapter_01_traces_a_three_and_a_four_byte_scalar() -> None:
    demo = (CHAPTERS / "01-text-units" / "demo.cpp").read_text(encoding="utf-8")
    assert "kWideInput" in demo and "\\u20AC\\U0001F980" in demo
    assert "utf8_table(trace)" in (CHAPTERS / "01-text-units" / "chapter.md").read_text(encoding="utf-8")


def test_chapter_02_says_a_mismatch_prints_nothing_at_all() -> None:
    text = page("02-corpus-partitions")
    assert "nothing after the first line" not in text
    assert "printed nothing at all" in text
    main = region(CHAPTERS / "02-corpus-partitions" / "demo.cpp", "chapter-output")
    assert main.index("manifest.partition(corpus)") < main.index("std::cout"), \
        "the page says the demo partitions before it prints its first line"


def test_chapter_03_counts_five_bytes_and_names_real_tie_rules() -> None:
    text = page("03-learn-bpe-merges")
    assert "six bytes, not three" not in text
    assert "stands for five bytes" in text
    assert "most break ties by the order in which pairs were seen" not in text
    for source in ("impl ord for merge", "learn_bpe.py", "minbpe"):
        assert source in text


def test_chapter_03_draws_the_compression_curve_from_run_data() -> None:
    assert "figures.compression_plot(trace)" in (CHAPTERS / "03-learn-bpe-merges" / "chapter.md").read_text(encoding="utf-8")
    demo = (CHAPTERS / "03-learn-bpe-merges" / "demo.cpp").read_text(encoding="utf-8")
    assert "compression_curve(partitions, kCurveMerges)" in demo


def test_chapter_04_says_sentencepiece_returns_the_normalized_text() -> None:
    text = page("04-apply-bpe-tokenizer")
    assert "can always decode back to it" not in text
    assert "operatorname{normalize}(x)" in text and "byte_fallback" in text
    assert "an emoji four" not in text


def test_chapter_05_admits_that_a_stride_skips_targets() -> None:
    text = page("05-autoregressive-examples")
    assert "skips starts, not tokens" not in text
    assert "is never a target" in text
    key_ideas = section("05-autoregressive-examples", "handoff")
    assert "at stride 1" in key_ideas.lower()


def test_chapter_07_does_not_credit_the_context_for_beating_uniform() -> None:
    text = page("07-language-model-metrics")
    assert "so the one-token context does carry information" not in text
    assert "that does not show that the context helps" in text


def test_chapter_07_calls_the_shared_mean_a_coincidence() -> None:
    assert "coincidence of the chosen numbers" in page("07-language-model-metrics")


def test_chapter_07_chooses_alpha_on_validation_and_never_on_test() -> None:
    selection = region(ROOT / "src" / "llm" / "evaluation" / "bigram_evaluation.cpp", "bigram-baseline-selection")
    assert "validation.mean_nll() < sweep[chosen].validation.mean_nll()" in selection
    assert "Partition::Test" not in selection, "the choice of alpha must never read the test documents"
    expected = (CHAPTERS / "07-language-model-metrics" / "expected.txt").read_text(encoding="utf-8")
    assert "alpha chosen on validation: 0.01 from" in expected
