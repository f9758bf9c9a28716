#!/usr/bin/env bash
# Specs built to make burggen hang or flood: it stays near linear in the number of nonterminals
# and rules, in whatever order they are written, and prints at most 50 diagnostics, each with at
# most a window of its source line, then one line counting the rest.
# Usage: burggen_floods_test.sh BURGGEN SCRATCH_DIR
set -u
burggen=$1 scratch=$2
rm -rf "$scratch" && mkdir -p "$scratch"
. "$(dirname "$0")/check.sh"

# 100 000 nonterminals, each the operand of the next, the rule of the leaf written last.
awk 'BEGIN { print "%term C=1 A=2\n%%"; for (i = 99999; i > 0; i--) printf "n%d: A(n%d) (1);\n", i, i - 1; print "n0: C (1);" }' \
  >"$scratch/leaf_last.burg"
expect_within 30 0 "" "$burggen" "$scratch/leaf_last.burg" -o "$scratch/leaf_last.cpp"

# The same through chain rules, and with the k-best matcher.
awk 'BEGIN { print "%term C=1\n%%"; for (i = 99999; i > 0; i--) printf "n%d: n%d (1);\n", i, i - 1; print "n0: C (1);" }' \
  >"$scratch/chains_last.burg"
expect_within 30 0 "" "$burggen" "$scratch/chains_last.burg" --kbest 2 -o "$scratch/chains_last.cpp"

# 100 000 nonterminals unreachable from the start: 50 warnings, then the count of the rest.
awk 'BEGIN { print "%term C=1 A=2\n%%\nn0: C;"; for (i = 1; i < 100000; i++) printf "n%d: A(n%d);\n", i, i - 1 }' \
  >"$scratch/unreachable.burg"
timeout 60 "$burggen" "$scratch/unreachable.burg" -o "$scratch/unreachable.cpp" 2>"$scratch/err"
[ "$(grep -c ': warning: ' "$scratch/err")" -eq 50 ] || fail "unreachable.burg: not 50 warnings shown"
[ "$(tail -n 1 "$scratch/err")" = "$scratch/unreachable.burg: 99949 more warnings not shown" ] ||
  fail "unreachable.burg: the last line does not count the rest: $(tail -n 1 "$scratch/err")"

# 3000 unused operators on one line of 20 KB: each warning shows a window of the line.
awk 'BEGIN { printf "%%term"; for (i = 0; i < 3000; i++) printf " T%d=%d", i, i + 2; print " A=1\n%%\ns: A;" }' \
  >"$scratch/terms.burg"
timeout 60 "$burggen" "$scratch/terms.burg" -o "$scratch/terms.cpp" 2>"$scratch/err"
[ "$(wc -c <"$scratch/err")" -lt 20000 ] || fail "terms.burg: $(wc -c <"$scratch/err") bytes of warnings"
[ "$(tail -n 1 "$scratch/err")" = "$scratch/terms.burg: 2950 more warnings not shown" ] ||
  fail "terms.burg: the last line does not count the rest: $(tail -n 1 "$scratch/err")"
grep -q '^\.\.\. T[0-9]*=.*\.\.\.$' "$scratch/err" || fail "terms.burg: no line shown cut at both ends"

# 200 errors: 50 shown, then the count.
awk 'BEGIN { print "%term A=1\n%%\ns: A;"; for (i = 0; i < 200; i++) printf "s: B%d(s);\n", i }' >"$scratch/errors.burg"
timeout 60 "$burggen" "$scratch/errors.burg" -o "$scratch/errors.cpp" 2>"$scratch/err"
[ $? -eq 1 ] || fail "errors.burg did not exit 1"
[ "$(grep -c ': error: ' "$scratch/err")" -eq 50 ] || fail "errors.burg: not 50 errors shown"
[ "$(tail -n 1 "$scratch/err")" = "$scratch/errors.burg: 150 more errors not shown" ] ||
  fail "errors.burg: the last line does not count the rest: $(tail -n 1 "$scratch/err")"
[ ! -e "$scratch/errors.cpp" ] || fail "errors.cpp was written for a refused spec"

finish
