#!/usr/bin/env bash
# `cudaburg tune` over the searches recorded in tests/data (problems.txt), every measurement
# answered from their databases: each problem's winner is the one `cudaburg replay` finds for it
# alone, a repeated problem is tuned once, a line that does not parse is reported with its place
# and a caret while the others still run (exit status 1), and the table is written to summary.md.
# Every problem of the lists in examples/networks loads.
# Usage: tune_replay_test.sh CUDABURG SOURCE_DIR SCRATCH_DIR
set -u
cudaburg=$1 source=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch"
cd "$source" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# The list: every recorded search (the databases' own options), the first one again with its sizes
# in another order, and two lines that do not parse.
list=$scratch/list.txt
dbs=()
names=()
declare -A alone
while read -r name file args; do
  case "$name" in ''|'#'*) continue ;; esac
  args=${args% budgeted}
  echo "$name: $source/$file $args" >>"$list"
  dbs+=(--replay "tests/data/$name.db")
  names+=("$name")
  # shellcheck disable=SC2086
  alone[$name]=$("$cudaburg" replay "$file" $args --db "tests/data/$name.db" 2>/dev/null | sed -n 's/^  winner: //p')
  [ -n "${alone[$name]}" ] || fail "$name: replay alone found no winner"
done <tests/data/problems.txt
echo "$source/examples/matmul.loop --tile 64..256 --unroll 4..8 --stage 8,16 --split 4 -D K=2048 -D N=2048 -D M=2048" >>"$list"
echo "$source/examples/conv2d.loop --tiel 16..64" >>"$list"
echo "broken: $source/examples/conv2d.loop \"--tile 16" >>"$list"
total=$(wc -l <"$list")

timeout 600 "$cudaburg" tune "$list" -o "$scratch/out" "${dbs[@]}" >"$scratch/stdout" 2>"$scratch/stderr"
status=$?
[ "$status" -eq 1 ] || fail "tune exited $status, not 1 (two lines do not parse)"
grep -qx "$list:$((total - 1)):$((${#source} + 23)): error: unknown option '--tiel'; did you mean '--tile'?" "$scratch/stderr" ||
  fail "no error at the mistyped option:\n$(cat "$scratch/stderr")"
grep -qx "$list:$total:$((${#source} + 31)): error: this quote is not closed" "$scratch/stderr" ||
  fail "no error at the open quote"
grep -qx ' *\^' "$scratch/stderr" || fail "no caret under the mistakes"
grep -q "^cudaburg: 2 of $(( ${#names[@]} + 2 )) problems failed" "$scratch/stderr" || fail "the failures are not counted"
grep -q "^tune: \[#*\] ${#names[@]}/${#names[@]} problems" "$scratch/stderr" || fail "no progress over the list"
[ -f "$scratch/out/summary.md" ] || fail "no summary.md"
cmp -s "$scratch/stdout" "$scratch/out/summary.md" || grep -q "^| " "$scratch/stdout" || fail "no table printed"

for name in "${names[@]}"; do
  row=$(grep "^| $name |" "$scratch/out/summary.md")
  [ -n "$row" ] || { fail "$name: no row"; continue; }
  case "$row" in *"| ok |") ;; *) fail "$name: not ok: $row" ;; esac
  winner=$(sed -n "s/^- $name: //p" "$scratch/out/summary.md")
  [ "$winner" = "${alone[$name]}" ] || fail "$name: tune's winner\n  $winner\nis not replay's\n  ${alone[$name]}"
done
# The repeat (its sizes in another order) is the first problem's row, not a row of its own.
grep -q "^| ${names[0]} | 1, $((total - 2)) |" "$scratch/out/summary.md" || fail "the repeated problem is not folded into the first"
[ "$(grep -c '^| [a-z]' "$scratch/out/summary.md")" -eq $(( ${#names[@]} + 1 )) ] ||
  fail "rows: $(grep -c '^| [a-z]' "$scratch/out/summary.md"), not one a distinct problem and the header"

# A list without mistakes ends with status 0; without -o it is a plain error.
head -n 2 "$list" >"$scratch/good.txt"
timeout 600 "$cudaburg" tune "$scratch/good.txt" -o "$scratch/good" "${dbs[@]}" >/dev/null 2>&1 || fail "a good list: exit $?"
err=$("$cudaburg" tune "$scratch/good.txt" 2>&1)
[ $? -eq 2 ] && [ "$err" = "cudaburg: error: tune needs -o DIR, the folder its outputs go to" ] || fail "without -o: $err"

# The table may not replace the list.
mkdir -p "$scratch/same" && cp "$scratch/good.txt" "$scratch/same/summary.md"
"$cudaburg" tune "$scratch/same/summary.md" -o "$scratch/same" "${dbs[@]}" >/dev/null 2>&1
[ $? -eq 2 ] && cmp -s "$scratch/good.txt" "$scratch/same/summary.md" || fail "the table replaced the list"

# Every problem of the example lists (examples/networks) is a nest that loads at its sizes.
for l in examples/networks/*.txt; do
  while read -r name file args; do
    case "$name" in ''|'#'*) continue ;; esac
    # shellcheck disable=SC2086
    sizes=$(grep -oE -- '-D [A-Za-z_0-9]+=[0-9]+' <<<"$args" | tr '\n' ' ')
    # shellcheck disable=SC2086
    err=$("$cudaburg" show "examples/networks/$file" $sizes 2>&1 >/dev/null) || fail "$l: $name does not load: $err"
  done <"$l"
done

if [ "$failures" -ne 0 ]; then
  echo "$failures failures"
  cat "$scratch/stderr"
  exit 1
fi
echo "tune replay: ${#names[@]} problems, the winners of replaying each alone"
