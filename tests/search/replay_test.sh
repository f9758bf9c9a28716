#!/usr/bin/env bash
# Every strategy replayed on every tuning database shipped in tests/data (measured on a GPU), with
# no GPU: the exhaustive strategy measures every row whose recipe is still offered
# (tests/search/golden/unoffered.recipes lists the others), the exhaustive and adaptive strategies
# find the stored best (within 5%), the adaptive one
# with at most a quarter of the exhaustive search's measurements, and the winner printed is the
# fastest of what was measured. A budgeted database (problems.txt) holds only what an adaptive
# search measured, most of it near its best: the adaptive replay must still find its best within 5%,
# with no bound on how many of its rows that takes. A database without the nest is refused with a sentence.
# Usage: replay_test.sh CUDABURG SOURCE_DIR SCRATCH_DIR
set -u
cudaburg=$1 source=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch"
cd "$source" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
field() { sed -n "s/$1/\\1/p" <<<"$out" | head -1; }

while read -r name args; do
  case "$name" in ''|'#'*) continue ;; esac
  budgeted=0
  [ "${args% budgeted}" != "$args" ] && budgeted=1 && args=${args% budgeted}
  for strategy in exhaustive model adaptive; do
    # shellcheck disable=SC2086
    out=$("$cudaburg" replay $args --db "tests/data/$name.db" --strategy "$strategy" 2>&1)
    status=$?
    echo "== $name, $strategy"
    echo "$out"
    [ "$status" -eq 0 ] || { fail "$name $strategy: exit $status"; continue; }
    rows=$(field '.*in the database: \([0-9]*\) measured.*')
    measured=$(field '^  measurements: \([0-9]*\) .*')
    ratio=$(field '.*winner \/ best \([0-9.]*\)$')
    needed=$(field '.*within 5% of the best after \([0-9]*\) measurements')
    [ -n "$rows" ] && [ "$rows" -gt 0 ] || fail "$name $strategy: no stored rows"
    [ -n "$ratio" ] || { fail "$name $strategy: no winner line"; continue; }
    case "$strategy" in
      exhaustive)
        # Every row but those whose recipes the grammar no longer offers (listed with why).
        unoffered=$(grep -c "^$name	" tests/search/golden/unoffered.recipes)
        [ "$measured" -ge $((rows - unoffered)) ] || fail "$name exhaustive measured $measured of $rows ($unoffered unoffered)"
        awk -v r="$ratio" 'BEGIN { exit !(r >= 1 && r <= 1.001) }' || fail "$name exhaustive: winner / best $ratio" ;;
      adaptive)
        awk -v r="$ratio" 'BEGIN { exit !(r >= 1 && r <= 1.0527) }' || fail "$name adaptive: winner / best $ratio"
        [ -n "$needed" ] && { [ "$budgeted" -eq 1 ] || [ $((needed * 4)) -le "$rows" ]; } ||
          fail "$name adaptive: within 5% after '${needed:-never}' of $rows measurements (more than a quarter)" ;;
      model)
        awk -v r="$ratio" 'BEGIN { exit !(r >= 0.9999) }' || fail "$name model: winner / best $ratio" ;;
    esac
  done
done < tests/data/problems.txt

# The wrong database for the nest: a sentence, status 1.
out=$("$cudaburg" replay examples/matmul.loop -D M=64 --db tests/data/conv2d.db 2>&1)
[ $? -eq 1 ] || fail "a database without the nest is not refused"
grep -q "holds no measurement of matmul" <<<"$out" || fail "unexpected message: $out"

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "replay: all passed"
