#!/usr/bin/env bash
# llm-generate on chapter 39's checkpoint reproduces the continuation chapter
# 39's page shows. The chapter's demo writes the checkpoint exactly as
# `make book` does (beside its trace); llm-generate then continues the
# chapter's prompt with its temperature and top-k and no --seed (so it draws
# from the generator state the checkpoint stores), and its token IDs and text
# must equal the demo's `generation=` line and the committed expected.txt's.
#
# usage: llm_generate_chapter39_test.sh CHAPTER39_DEMO LLM_GENERATE EXPECTED_TXT FIXTURES_HPP WORK_DIR
set -u
demo=$1 generate=$2 expected=$3 fixtures=$4 work=$5
rm -rf "$work" && mkdir -p "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# The chapter's constants, read from its fixtures.hpp (ch39::kPrompt, ...).
constant() { sed -n "s/^inline constexpr [a-z:_0-9 *]* $1 = \(.*\);.*/\1/p" "$fixtures"; }
prompt=$(constant kPrompt | tr -d '"') temperature=$(constant kTemperature)
top_k=$(constant kTopK) tokens=$(constant kNewTokens)
[ -n "$prompt" ] && [ -n "$temperature" ] && [ -n "$top_k" ] && [ -n "$tokens" ] ||
  fail "cannot read kPrompt, kTemperature, kTopK, kNewTokens from $fixtures"

"$demo" --trace "$work/trace.json" >"$work/demo.txt" 2>"$work/demo.err" || fail "the demo failed: $(cat "$work/demo.err")"
[ -f "$work/checkpoint.llmcp" ] || fail "the demo left no checkpoint.llmcp beside its trace"

"$generate" --checkpoint "$work/checkpoint.llmcp" --prompt "$prompt" --temperature "$temperature" \
  --top-k "$top_k" --tokens "$tokens" --ids >"$work/generate.txt" 2>"$work/generate.err" ||
  fail "llm-generate failed: $(cat "$work/generate.err")"
[ -s "$work/generate.err" ] && fail "llm-generate wrote to stderr: $(cat "$work/generate.err")"

# field FILE NAME: the value of NAME:... on the generation= line.
field() { grep '^generation=' "$1" | grep -o " $2:[^ ]*" | cut -d: -f2-; }
ids_line=$(tail -n 1 "$work/generate.txt")
for source in "$work/demo.txt" "$expected"; do
  want="prompt_ids:$(field "$source" prompt_ids) generated:$(field "$source" generated) stop:$(field "$source" stop)"
  [ "$ids_line" = "$want" ] || fail "token IDs differ from $source: got '$ids_line', want '$want'"
done
# The page's text:"..." (\xNN for a byte that is not UTF-8), as raw bytes.
page_text=$(grep '^generation=' "$expected" | sed 's/.* text:"\(.*\)" prefixes:.*/\1/')
printf '%s%b\n' "$prompt" "$page_text" >"$work/page-text.txt"
sed '$d' "$work/generate.txt" | cmp -s - "$work/page-text.txt" ||
  fail "the text differs from the page's: $(sed '$d' "$work/generate.txt" | od -c | head -3)"

[ "$failures" -eq 0 ] && echo "llm-generate reproduces chapter 39's continuation: $ids_line"
exit $((failures != 0))
