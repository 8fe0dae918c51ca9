#!/usr/bin/env bash
# `make train`'s promise, end to end on a tiny configuration
# (fixtures/tiny-run.json: 8 updates, a checkpoint every 2; tiny-bpe-run.json:
# the same with 8 byte-pair merges, learned again by every process): a run stopped by
# SIGINT, or killed by a crash between checkpoints, and then rerun with the
# same command ends on the same checkpoint bytes and the same final losses as
# a run that was never stopped, and llm-generate, a fresh process reading each
# final checkpoint, continues the same prompt with the same seed into the
# same text; a run directory of another configuration is refused.
#
# usage: llm_train_resume_test.sh LLM_TRAIN TINY_CONFIG WORK_DIR LLM_GENERATE
set -u
train=$1 config=$2 work=$3 generate=$4
rm -rf "$work" && mkdir -p "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# run NAME EXPECTED_STATUS ARGS...: llm-train into $work/NAME, output kept in NAME.N.log
run() {
  local name=$1 expected=$2; shift 2
  local n=$(ls "$work"/"$name".*.log 2>/dev/null | wc -l)
  "$train" --config "$config" --out "$work/$name" "$@" >"$work/$name.$n.log" 2>&1
  local status=$?
  [ "$status" -eq "$expected" ] || fail "$name run $n exited $status, expected $expected: $(cat "$work/$name.$n.log")"
}
final_losses() { grep '^final:' "$1" | cut -d';' -f1; }

run straight 0
run interrupted 130 --stop-after 3          # SIGINT after update 3: saves at 3
grep -q 'stopped after update 3' "$work/interrupted.0.log" || fail "no stop line after SIGINT"
run interrupted 0
grep -q 'resuming at update 3 of 8' "$work/interrupted.1.log" || fail "the rerun did not resume at 3"
# Under make, as `make train` runs it: after saving, the trainer ends by the
# signal, so make reports an interruption, not a failure ("Error 130").
printf 'SHELL := /bin/bash\ntrain:\n\t@"%s" --config "%s" --out "%s" --stop-after 3\n' \
  "$train" "$config" "$work/under-make" >"$work/Makefile"
make --no-print-directory -C "$work" -f Makefile train >"$work/under-make.log" 2>&1
grep -q 'stopped after update 3' "$work/under-make.log" || fail "under make: no stop line after SIGINT"
tail -n 1 "$work/under-make.log" | grep -Eq '^make(\[[0-9]+\])?: \*\*\* \[Makefile:3: train\] Interrupt$' ||
  fail "under make: the run did not end as an interruption: $(cat "$work/under-make.log")"
run crashed 134 --abort-after 5             # abort after update 5: the last checkpoint is at 4
run crashed 0
grep -q 'resuming at update 4 of 8' "$work/crashed.1.log" || fail "the rerun did not resume at 4"

for name in interrupted crashed; do
  cmp -s "$work/straight/checkpoint.llmcp" "$work/$name/checkpoint.llmcp" ||
    fail "$name: checkpoint differs from the uninterrupted run's"
  [ "$(final_losses "$work/straight.0.log")" = "$(final_losses "$work/$name.1.log")" ] ||
    fail "$name: final losses differ: $(final_losses "$work/$name.1.log")"
done
[ -n "$(final_losses "$work/straight.0.log")" ] || fail "the uninterrupted run printed no final line"

# The generated tokens: 200 past the context of 16, so both the cached and the
# cropped path of llm-generate read every parameter of each checkpoint.
for name in straight interrupted crashed; do
  "$generate" --checkpoint "$work/$name/checkpoint.llmcp" --prompt 'ROMEO:' --tokens 200 \
    --seed 7 --ids >"$work/$name.sample.txt" 2>"$work/$name.sample.err" ||
    fail "$name: llm-generate failed: $(cat "$work/$name.sample.err")"
done
# 200 tokens, or fewer ending in EOS (ID 1), which a byte-pair model may
# sample (a byte-level one has none); either way past the context.
ids_line=$(grep -a '^prompt_ids:' "$work/straight.sample.txt")
if [[ $ids_line =~ \ generated:\[([0-9,]*)\]\ stop:(token-limit|eos)$ ]]; then
  generated=${BASH_REMATCH[1]} stop=${BASH_REMATCH[2]}
  count=$(tr ',' '\n' <<<"$generated" | wc -l)
  if [ "$stop" = token-limit ]; then
    [ "$count" -eq 200 ] || fail "llm-generate stopped at the limit after $count tokens, not 200"
  else
    [ "${generated##*,}" = 1 ] && [ "$count" -gt 16 ] ||
      fail "llm-generate stopped at EOS after $count tokens (the context is 16): $generated"
  fi
else
  fail "llm-generate printed no token list: $(cat "$work/straight.sample.txt")"
fi
for name in interrupted crashed; do
  cmp -s "$work/straight.sample.txt" "$work/$name.sample.txt" ||
    fail "$name: llm-generate's text differs from the uninterrupted run's"
done

# A finished run rerun: nothing is trained again, the final line is repeated.
run straight 0
grep -q 'resuming at update 8 of 8' "$work/straight.1.log" || fail "the finished run did not resume at 8"
grep -q '^iter ' "$work/straight.1.log" && fail "the finished run trained again"

# Another configuration in the same directory is refused (status 2), and the
# run there is untouched.
sed 's/"iterations": 8/"iterations": 9/' "$config" >"$work/other.json"
"$train" --config "$work/other.json" --out "$work/straight" >"$work/other.log" 2>&1
[ $? -eq 2 ] || fail "another configuration was not refused: $(cat "$work/other.log")"
grep -q 'iterations: 8 there, 9 here' "$work/other.log" || fail "the refusal does not name the key: $(cat "$work/other.log")"

[ "$failures" -eq 0 ] && echo "llm-train resumes bit for bit: ok"
exit $((failures != 0))
