#!/usr/bin/env bash
# bench/fuzz-long on a short run (2 workers, 3 s, fuzz_burgspec): its table's executions are the
# sum of what each worker's log reports, its peak RSS the largest of them; a second run into the
# same folder is refused, as are bad arguments.
# Usage: fuzz_long_test.sh FUZZ_LONG BUILD_DIR SCRATCH_DIR
set -u
fuzz_long=$1 build=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch"
. "$(dirname "$0")/../bad-input/check.sh"

timeout 300 "$fuzz_long" "$build" "$scratch/run" 2 3 fuzz_burgspec >"$scratch/table" 2>"$scratch/err" ||
  fail "fuzz-long failed: $(cat "$scratch/err")"
row=$(grep -F '| `fuzz_burgspec` |' "$scratch/table") || fail "no row for fuzz_burgspec: $(cat "$scratch/table")"
logs=("$scratch"/run/fuzz_burgspec/fuzz-*.log)
[ ${#logs[@]} -eq 2 ] || fail "expected 2 worker logs, found ${#logs[@]}"
sum=$(awk '$1 == "stat::number_of_executed_units:" {s += $2} END {print s + 0}' "${logs[@]}")
peak=$(awk '$1 == "stat::peak_rss_mb:" && $2 > p {p = $2} END {print p + 0}' "${logs[@]}")
[ "$sum" -gt 0 ] || fail "the workers' logs report no executions"
[ "$row" = "| \`fuzz_burgspec\` | $sum | 0 | 0 | 0 | $peak MB | 0 |" ] ||
  fail "the row differs from the workers' logs (executions $sum, peak $peak MB): $row"
[ -f "$scratch/run/fuzz_burgspec/burg.dict" ] && [ -n "$(ls "$scratch/run/fuzz_burgspec/corpus")" ] ||
  fail "the dictionary and the seeds were not copied"

expect 2 "fuzz-long: '$scratch/run/fuzz_burgspec' exists; give a new OUT_DIR (or remove it) so that runs do not mix." \
  "$fuzz_long" "$build" "$scratch/run" 2 3 fuzz_burgspec
expect 2 "fuzz-long: WORKERS must be a whole number from 1, not '0'." "$fuzz_long" "$build" "$scratch/other" 0 3
expect 2 "fuzz-long: no fuzz target 'fuzz_nothing' (fuzz_loop, fuzz_recipe, fuzz_burgspec)." \
  "$fuzz_long" "$build" "$scratch/other" 2 3 fuzz_nothing
finish
