#!/usr/bin/env bash
# `cudaburg tune --gpus` over the searches recorded in tests/data, every measurement answered from
# their databases (under --replay the lanes need no GPU): the same winners as without --gpus, each
# problem run as a child process whose output is in its folder's log.txt, the table naming the GPU
# (lane) each ran on; a problem whose child fails is a row with the reason while the others run;
# a --gpus that names no GPU of the host, or is malformed, is a plain error.
# Usage: tune_gpus_test.sh CUDABURG SOURCE_DIR SCRATCH_DIR
set -u
cudaburg=$1 source=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch"
cd "$source" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

list=$scratch/list.txt
dbs=()
names=()
while read -r name file args; do
  case "$name" in ''|'#'*) continue ;; esac
  echo "$name: $source/$file ${args% budgeted}" >>"$list"
  dbs+=(--replay "tests/data/$name.db")
  names+=("$name")
done <tests/data/problems.txt
# A problem none of the databases holds: its child fails, the others still run.
echo "absent: $source/examples/matmul.loop -D M=64 -D N=64 -D K=64" >>"$list"

timeout 600 "$cudaburg" tune "$list" -o "$scratch/one" "${dbs[@]}" >/dev/null 2>"$scratch/one.err"
[ $? -eq 1 ] || fail "without --gpus: not exit status 1 (one problem is in no database)"
timeout 600 "$cudaburg" tune "$list" -o "$scratch/two" "${dbs[@]}" --gpus 0,1 >"$scratch/two.out" 2>"$scratch/two.err"
status=$?
[ "$status" -eq 1 ] || fail "with --gpus 0,1: exit status $status, not 1"
cmp -s "$scratch/two.out" "$scratch/two/summary.md" || fail "the table printed is not summary.md"

grep -q "^| problem | lines | time (ms) | library (ms) | library / time | tuning (s) | GPU | status |" \
  "$scratch/two/summary.md" || fail "no GPU column"
for name in "${names[@]}"; do
  row=$(grep "^| $name |" "$scratch/two/summary.md")
  case "$row" in *"| 0 | ok |"|*"| 1 | ok |") ;; *) fail "$name: not ok on GPU 0 or 1: $row" ;; esac
  winner=$(sed -n "s/^- $name: //p" "$scratch/two/summary.md")
  alone=$(sed -n "s/^- $name: //p" "$scratch/one/summary.md")
  [ -n "$winner" ] && [ "$winner" = "$alone" ] || fail "$name: the winner with --gpus\n  $winner\nis not the one without\n  $alone"
  [ -s "$scratch/two/$name/report.json" ] || fail "$name: no report.json"
  grep -q "^replay of " "$scratch/two/$name/log.txt" || fail "$name: its output is not in its log.txt"
  grep -q "^| $name |.*| - | ok |" "$scratch/one/summary.md" || fail "$name: without --gpus, a GPU is named"
done
# Both lanes took problems; the progress line said what ran where, and nothing of a child's.
for gpu in 0 1; do
  grep -q "| $gpu | ok |" "$scratch/two/summary.md" || fail "lane $gpu ran nothing"
done
grep -q "^tune: \[#*-*\] [0-9]*/$(( ${#names[@]} + 1 )) problems, .*; now .* on GPU [01]" "$scratch/two.err" ||
  fail "no progress naming the GPUs"
grep -q "^tune: \[#*\] $(( ${#names[@]} + 1 ))/$(( ${#names[@]} + 1 )) problems" "$scratch/two.err" || fail "no final progress"
grep -q "^replay of" "$scratch/two.err" && fail "a child's output reached the terminal"
absent=$(grep "^| absent |" "$scratch/two/summary.md")
case "$absent" in
  *"failed: error: none of the databases holds no measurement of matmul"*"(see $scratch/two/absent/log.txt) |") ;;
  *) fail "the absent problem's row: $absent" ;;
esac
grep -q "^cudaburg: 1 of $(( ${#names[@]} + 1 )) problems failed" "$scratch/two.err" || fail "the failure is not counted"

# A child killed by a signal: its problem runs once more (on the other lane) and ends ok.
grep -E "^(matmul4096|conv2d):" "$list" >"$scratch/slow.txt"
"$cudaburg" tune "$scratch/slow.txt" -o "$scratch/lost" "${dbs[@]}" --gpus 0,1 >/dev/null 2>"$scratch/lost.err" &
tune=$!
child=
for _ in $(seq 200); do
  child=$(pgrep -P "$tune" -f "replay $source/examples/matmul.loop") && break
  sleep 0.05
done
if [ -n "$child" ]; then
  kill -KILL "$child"
  wait "$tune" || fail "a problem killed once: tune exited $?"
  grep -q "^| matmul4096 | .* | [01] (run twice) | ok |" "$scratch/lost/summary.md" ||
    fail "the killed problem did not run again: $(grep '^| matmul4096' "$scratch/lost/summary.md")"
  [ "$(sed -n 's/^- matmul4096: //p' "$scratch/lost/summary.md")" = "$(sed -n 's/^- matmul4096: //p' "$scratch/one/summary.md")" ] ||
    fail "the killed problem's winner on its second run is not the one"
else
  wait "$tune"
  fail "no child replaying matmul4096 was seen"
fi

# Plain errors: a GPU the host lacks (without --replay), malformed lists.
expect_error() {
  local message=$1
  shift
  err=$("$cudaburg" tune "$list" -o "$scratch/err" "$@" 2>&1)
  [ $? -eq 2 ] || fail "$*: not exit status 2"
  case "$err" in "cudaburg: error: $message"*) ;; *) fail "$*: $err" ;; esac
  [ ! -e "$scratch/err" ] || fail "$*: an output folder was made"
}
expect_error "--gpus 64: this host has " --gpus 64
expect_error "--gpus 0,,1: an empty entry; give all, or GPU indices separated by commas (0,1)" --gpus 0,,1 "${dbs[@]}"
expect_error "--gpus x: 'x' is not a GPU index" --gpus x "${dbs[@]}"
expect_error "--gpus 1,0,1: GPU 1 is named twice" --gpus 1,0,1 "${dbs[@]}"
expect_error "--gpus: give all, or GPU indices" --gpus "" "${dbs[@]}"

if [ "$failures" -ne 0 ]; then
  echo "$failures failures"
  cat "$scratch/two.err"
  exit 1
fi
echo "tune --gpus: ${#names[@]} problems on two lanes, the winners of one"
