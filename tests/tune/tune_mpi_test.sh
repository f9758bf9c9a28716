#!/usr/bin/env bash
# `mpirun -np 3 cudaburg tune` over searches recorded in tests/data (problems.txt), every
# measurement answered from their databases: the same winners as one process, and rank 0's
# database holding every row the one process stores; the same when rank 2 dies with a problem in
# hand (its problem goes to another rank), and when rank 2 measures otherwise than rank 0 (it is
# refused, the run goes on without it). A search run (no replay) brings each problem's output
# files back to rank 0's folder.
# Usage: tune_mpi_test.sh CUDABURG MPIRUN SOURCE_DIR SCRATCH_DIR
set -u
cudaburg=$1 mpirun=$2 source=$3 scratch=$4
rm -rf "$scratch" && mkdir -p "$scratch"
cd "$source" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# Open MPI refuses root without these; --oversubscribe lets 3 ranks share fewer cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TMPDIR=$scratch
# The compile cache and any default database stay in the scratch folder too.
export CUDABURG_CACHE=$scratch/cache XDG_DATA_HOME=$scratch/data
# Open MPI takes an mpirun called by its full path as the prefix of its installation (/usr/bin: "/"
# for /usr, which it refuses): it is called by its name, from its folder.
PATH=$(dirname "$mpirun"):$PATH
mpi=("$(basename "$mpirun")" --oversubscribe --enable-recovery --bind-to none)

list=$scratch/list.txt
dbs=()
while read -r name file args; do
  case "$name" in ''|'#'*) continue ;; esac
  case "$args" in *budgeted) continue ;; esac  # the quick ones: exhaustive records of small spaces
  echo "$name: $source/$file $args" >>"$list"
  dbs+=(--replay "tests/data/$name.db")
done <tests/data/problems.txt

winners() { sed -n '/^Winners:/,$p' "$1/summary.md"; }
statuses() { grep '^| [a-z]' "$1/summary.md" | awk -F'|' '{print $2 $9}'; }
rows() { sqlite3 "$1" "SELECT nest, sizes, recipe, gpu, compute_capability, driver, arch, toolkit, status, ms, measured_at
                       FROM measurements ORDER BY nest, sizes, recipe"; }
# Same winners, statuses and database as the one process.
same() {
  local what=$1 dir=$2 db=$3
  [ -f "$dir/summary.md" ] || { fail "$what: no summary.md"; return; }
  [ "$(winners "$dir")" = "$(winners "$scratch/one")" ] || fail "$what: other winners:\n$(winners "$dir")"
  [ "$(statuses "$dir")" = "$(statuses "$scratch/one")" ] || fail "$what: other statuses:\n$(statuses "$dir")"
  [ "$(rows "$db")" = "$(rows "$scratch/one.db")" ] ||
    fail "$what: the database has $(rows "$db" | wc -l) rows, not the $(rows "$scratch/one.db" | wc -l) of one process"
}

timeout 600 "$cudaburg" tune "$list" -o "$scratch/one" --db "$scratch/one.db" "${dbs[@]}" >/dev/null 2>"$scratch/one.err" ||
  fail "one process: exit $?"
[ "$(rows "$scratch/one.db" | wc -l)" -gt 100 ] || fail "one process stored $(rows "$scratch/one.db" | wc -l) rows"
[ "$(grep -c '| ok |$' "$scratch/one/summary.md")" -eq "$(wc -l <"$list")" ] || fail "one process: not every problem ok"

timeout 600 "${mpi[@]}" -np 3 "$cudaburg" tune "$list" -o "$scratch/three" --db "$scratch/three.db" "${dbs[@]}" \
  >/dev/null 2>"$scratch/three.err" || fail "three ranks: exit $?"
grep -q "^tune: $(wc -l <"$list") problems over 3 ranks" "$scratch/three.err" || fail "three ranks: no opening line"
same "three ranks" "$scratch/three" "$scratch/three.db"

CUDABURG_TEST_DIE_RANK=2 timeout 600 "${mpi[@]}" -x CUDABURG_TEST_DIE_RANK -np 3 "$cudaburg" tune "$list" \
  -o "$scratch/killed" --db "$scratch/killed.db" --rank-timeout 5 "${dbs[@]}" >/dev/null 2>"$scratch/killed.err" ||
  fail "a rank killed: exit $?"
grep -q "^cudaburg: warning: rank 2 on .* went silent within 5 s; the run goes on without it" "$scratch/killed.err" ||
  fail "a rank killed: not said"
grep -q "^tune: .* goes to another rank" "$scratch/killed.err" || fail "a rank killed: its problem not handed on"
same "a rank killed" "$scratch/killed" "$scratch/killed.db"

# Rank 2 measures on whatever this machine has, not from the databases: refused.
timeout 600 "${mpi[@]}" -np 2 "$cudaburg" tune "$list" -o "$scratch/refused" --db "$scratch/refused.db" "${dbs[@]}" \
  : -np 1 "$cudaburg" tune "$list" -o "$scratch/refused" --no-db >/dev/null 2>"$scratch/refused.err" ||
  fail "a rank refused: exit $?"
grep -q "^cudaburg: warning: rank 2 on .* is refused: it measures on .*, rank 0 on replay (no GPU) (every rank must have the same GPU model); the run goes on without it" \
  "$scratch/refused.err" || fail "a rank refused: not said:\n$(grep -v '^  \|^replay' "$scratch/refused.err")"
same "a rank refused" "$scratch/refused" "$scratch/refused.db"

# A line of the list that does not parse is said once, by rank 0, with its place; the rest runs.
# Without --enable-recovery (with it, mpirun exits 0 whatever its ranks do) mpirun's exit status
# is rank 0's, and rank 0 says that a rank that dies would end the run.
{ head -n 1 "$list"; echo "$source/examples/conv2d.loop --tiel 16..64"; } >"$scratch/bad.txt"
timeout 600 "$(basename "$mpirun")" --oversubscribe -np 2 "$cudaburg" tune "$scratch/bad.txt" -o "$scratch/bad" "${dbs[@]}" \
  >/dev/null 2>"$scratch/bad.err"
status=$?
[ "$status" -eq 1 ] || fail "a line that does not parse: exit $status, not 1"
grep -q "^cudaburg: note: mpirun was started without --enable-recovery" "$scratch/bad.err" || fail "no note about recovery"
grep -q "^1 problem tuned in .*; 0 failed, and 1 line of the list did not parse.$" "$scratch/bad/summary.md" ||
  fail "a line that does not parse: not counted"
[ "$(grep -c "^$scratch/bad.txt:2:[0-9]*: error: unknown option '--tiel'; did you mean '--tile'?" "$scratch/bad.err")" -eq 1 ] ||
  fail "a line that does not parse: not said once:\n$(cat "$scratch/bad.err")"
grep -q '| ok |$' "$scratch/bad/summary.md" || fail "a line that does not parse: the good one did not run"

# A list that cannot be read: rank 0 says so and every rank stops at once (well within the timeout).
started=$SECONDS
timeout 600 "$(basename "$mpirun")" --oversubscribe -np 3 "$cudaburg" tune "$scratch/no-such-list.txt" -o "$scratch/none" \
  >/dev/null 2>"$scratch/none.err"
status=$?
[ "$status" -eq 1 ] || fail "a list that cannot be read: exit $status, not 1"
[ "$(grep -c "^cudaburg: error: cannot open '$scratch/no-such-list.txt'" "$scratch/none.err")" -eq 1 ] ||
  fail "a list that cannot be read: not said once:\n$(cat "$scratch/none.err")"
[ $((SECONDS - started)) -lt 30 ] || fail "a list that cannot be read: the ranks took $((SECONDS - started)) s to stop"

# A search (no replay, no database): each problem's files land in DIR/NAME/ as one process writes them.
printf '%s\n' "small: $source/examples/matmul.loop -D M=128 -D N=128 -D K=128 --budget 4" \
  "odd: $source/examples/matmul.loop -D M=96 -D N=160 -D K=64 --budget 4" >"$scratch/search.txt"
timeout 600 "$cudaburg" tune "$scratch/search.txt" -o "$scratch/search-one" --no-db -q >/dev/null 2>&1
timeout 600 "${mpi[@]}" -np 3 "$cudaburg" tune "$scratch/search.txt" -o "$scratch/search-three" --no-db -q \
  >/dev/null 2>"$scratch/search.err" || fail "a search over three ranks: exit $?"
for name in small odd; do
  files=$(cd "$scratch/search-one/$name" 2>/dev/null && find . -type f | sort)
  [ -n "$files" ] && [ -f "$scratch/search-one/$name/best.cu" ] || fail "$name: one process wrote no best.cu"
  [ "$(cd "$scratch/search-three/$name" 2>/dev/null && find . -type f | sort)" = "$files" ] ||
    fail "$name: rank 0's folder holds other files than one process's:\n$(ls -R "$scratch/search-three")"
done
# Every rank's scratch folder is gone.
[ -z "$(find "$scratch" -maxdepth 1 -name 'cudaburg-rank*' ! -name 'cudaburg-rank2-*')" ] ||
  fail "scratch folders left: $(find "$scratch" -maxdepth 1 -name 'cudaburg-rank*')"

if [ "$failures" -ne 0 ]; then
  echo "$failures failures"
  for f in three killed refused search; do echo "== $f"; grep -v '^  \|^replay of' "$scratch/$f.err"; done
  exit 1
fi
echo "tune over MPI: $(wc -l <"$list") problems, the winners and the database of one process"
