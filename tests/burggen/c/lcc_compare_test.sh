#!/usr/bin/env bash
# scripts/lcc-compare reads the targets from src/bind.c in both of lcc's forms (quoted names and
# the xx() table, names without "/os" included, macro definitions skipped) and refuses, with a
# sentence and before building anything, a tree that names no target or has no test program.
# The trees are skeletons made here: the refusals come before any file is compiled.
# Usage: lcc_compare_test.sh LCC_COMPARE BURGGEN SCRATCH_DIR
set -u
compare=$1 burggen=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

skeleton() {  # skeleton DIR BIND_C: an lcc-shaped folder whose src/bind.c is BIND_C
  mkdir -p "$1/lburg" "$1/src" "$1/tst"
  : >"$1/lburg/lburg.c"
  : >"$1/makefile"
  printf '%s\n' "$2" >"$1/src/bind.c"
}

expect() {  # expect NAME STATUS PATTERN DIR: runs the script on DIR, checks its exit status and output
  local out status
  out=$("$compare" "$4" "$burggen" 2>&1)
  status=$?
  echo "== $1"
  echo "$out"
  [ "$status" -eq "$2" ] || fail "$1: exit $status, expected $2"
  grep -q -- "$3" <<<"$out" || fail "$1: no line matching '$3'"
}

skeleton "$scratch/table" '#define list \
xx(toy/unix,  toyIR) \
xx(plain,     plainIR)
#define xx(a,b) extern Interface b;'
expect "xx table: targets" 2 "^lcc-compare: targets: plain toy/unix$" "$scratch/table"
expect "xx table: no program" 2 "/table/tst has no test program (\*.c)$" "$scratch/table"

skeleton "$scratch/quoted" 'Binding bindings[] = { "toy/unix", &toyIR, "plain", &plainIR, NULL, NULL };'
expect "quoted names" 2 "^lcc-compare: targets: plain toy/unix$" "$scratch/quoted"

skeleton "$scratch/none" 'Binding bindings[] = { NULL, NULL };'
echo 'int main(void) { return 0; }' >"$scratch/none/tst/one.c"
expect "no target" 2 "/none/src/bind.c names no target$" "$scratch/none"

[ "$failures" -eq 0 ] && echo "lcc-compare refusals: all passed"
[ "$failures" -eq 0 ]
