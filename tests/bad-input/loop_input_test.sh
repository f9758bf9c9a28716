#!/usr/bin/env bash
# Bad .loop files given to `cudaburg show`: each gets file:line:col, the source line and a caret
# (or one sentence), exit status 1, and no crash, hang or wrapped number.
# Usage: loop_input_test.sh CUDABURG SCRATCH_DIR
set -u
cudaburg=$1 scratch=$2
rm -rf "$scratch" && mkdir -p "$scratch"
. "$(dirname "$0")/check.sh"

# loop NAME TEXT: writes $scratch/NAME.loop.
loop() { printf '%b' "$2" >"$scratch/$1.loop"; }

# Sizes: + - * / % and unary minus are checked; INT64_MIN / -1 is an error, not SIGFPE.
loop divide 'size N = (0 - 9223372036854775807 - 1) / (0 - 1);\nkernel k(float A[4]) { A[0] = 1; }\n'
expect 1 "$scratch/divide.loop:1:40: error: (-9223372036854775807 - 1) / (-1) overflows a 64-bit integer
size N = (0 - 9223372036854775807 - 1) / (0 - 1);
                                       ^" "$cudaburg" show "$scratch/divide.loop"

loop remainder 'size N = (0 - 9223372036854775807 - 1) % (0 - 1) + 4;\nkernel k(float A[N]) { A[0] = 1; }\n'
expect 0 "" "$cudaburg" show "$scratch/remainder.loop"
grep -qF "kernel k(float A[4])" "$scratch/out" || fail "INT64_MIN % -1 is not 0: $(cat "$scratch/out")"

loop sum 'size M = 9223372036854775807;\nkernel k(float A[M + M]) { A[0] = 1; }\n'
expect 1 "$scratch/sum.loop:2:20: error: 9223372036854775807 + 9223372036854775807 overflows a 64-bit integer
kernel k(float A[M + M]) { A[0] = 1; }
                   ^" "$cudaburg" show "$scratch/sum.loop"

loop difference 'size M = 0 - 9223372036854775807, N = M - 2;\nkernel k(float A[4]) { A[0] = 1; }\n'
expect 1 "$scratch/difference.loop:1:41: error: (-9223372036854775807) - 2 overflows a 64-bit integer
size M = 0 - 9223372036854775807, N = M - 2;
                                        ^" "$cudaburg" show "$scratch/difference.loop"

loop product 'size M = 3037000500;\nkernel k(float A[M * M]) { A[0] = 1; }\n'
expect 1 "$scratch/product.loop:2:20: error: 3037000500 * 3037000500 overflows a 64-bit integer
kernel k(float A[M * M]) { A[0] = 1; }
                   ^" "$cudaburg" show "$scratch/product.loop"

loop negation 'size M = 0 - 9223372036854775807 - 1, N = -M;\nkernel k(float A[4]) { A[0] = 1; }\n'
expect 1 "$scratch/negation.loop:1:43: error: -(-9223372036854775807 - 1) overflows a 64-bit integer
size M = 0 - 9223372036854775807 - 1, N = -M;
                                          ^" "$cudaburg" show "$scratch/negation.loop"

# An index's coefficient, and a subscript over a loop's range.
loop coefficient 'size N = 4;\nkernel k(float A[N]) {\n  for (i = 0; i < N; i++) A[i * 4611686018427387904 * 2] = 1;\n}\n'
expect 1 "$scratch/coefficient.loop:3:53: error: (4611686018427387904*i) * 2 overflows a 64-bit integer
  for (i = 0; i < N; i++) A[i * 4611686018427387904 * 2] = 1;
                                                    ^" "$cudaburg" show "$scratch/coefficient.loop"
loop subscript 'size N = 4;\nkernel k(float A[N]) {\n  for (i = 0; i < N; i++) A[i * 4611686018427387904] = 1;\n}\n'
expect 1 "$scratch/subscript.loop:3:27: error: subscript 1 of A[4611686018427387904*i] (4611686018427387904*i) overflows a 64-bit integer
  for (i = 0; i < N; i++) A[i * 4611686018427387904] = 1;
                          ^" "$cudaburg" show "$scratch/subscript.loop"
loop last_step 'kernel k(float A[4]) {\n  for (i = 0; i < 9223372036854775807; i += 2) A[0] = 1;\n}\n'
expect 1 "$scratch/last_step.loop:2:3: error: the index 'i' plus its step (9223372036854775806 + 2) overflows a 64-bit integer
  for (i = 0; i < 9223372036854775807; i += 2) A[0] = 1;
  ^" "$cudaburg" show "$scratch/last_step.loop"
# A loop that never runs keeps its lower bound's values (found by fuzz_loop: its index ranges
# overflowed in the emitter): its first step, and its body's subscripts, must fit all the same.
loop never_runs 'size C = 4;\nkernel k(float A[C]) {\n  for (i = 9223372036854775807; i < C; i += 2) A[0] = 1;\n}\n'
expect 1 "$scratch/never_runs.loop:3:3: error: the index 'i' plus its step (9223372036854775807 + 2) overflows a 64-bit integer
  for (i = 9223372036854775807; i < C; i += 2) A[0] = 1;
  ^" "$cudaburg" show "$scratch/never_runs.loop"
loop never_runs_body 'kernel k(float A[4]) {\n  for (i = 9223372036854775806; i < 4; i++)\n    for (j = 0; j < 4; j++) A[i + j] = 1;\n}\n'
expect 1 "$scratch/never_runs_body.loop:3:29: error: subscript 1 of A[i + j] (i + j) overflows a 64-bit integer
    for (j = 0; j < 4; j++) A[i + j] = 1;
                            ^" "$cudaburg" show "$scratch/never_runs_body.loop"
# What a trip count is computed from: the upper bound less the lower one.
loop distance 'kernel k(float A[4]) {\n  for (i = -4611686018427387905; i < 4611686018427387904; i++) A[0] = 1;\n}\n'
expect 1 "$scratch/distance.loop:2:3: error: the distance from the lower to the upper bound of 'i' (4611686018427387904 - (-4611686018427387905)) overflows a 64-bit integer
  for (i = -4611686018427387905; i < 4611686018427387904; i++) A[0] = 1;
  ^" "$cudaburg" show "$scratch/distance.loop"
# A padded read may leave its array, but its element's offset must still fit.
loop padded_offset 'kernel k(float A[4], const float B[4][4] padded) {\n  for (i = 0; i < 4; i++) A[i] = B[i * 2305843009213693952][0];\n}\n'
expect 1 "$scratch/padded_offset.loop:2:27: error: the offset of B[2305843009213693952*i][0] from the start of 'B' (its subscripts times the array's strides) overflows a 64-bit integer
  for (i = 0; i < 4; i++) A[i] = B[i * 2305843009213693952][0];
                          ^" "$cudaburg" show "$scratch/padded_offset.loop"
# The least 64-bit value has no literal: it prints as a difference that reads back the same.
loop least 'kernel k(float A[4]) {\n  for (i = 1; i < 2; i++)\n    for (j = 1; j < 2; j++)\n      A[4611686018427387904*i + 4611686018427387904*j - 9223372036854775807 - 1] = 1;\n}\n'
expect 0 "" "$cudaburg" show "$scratch/least.loop"
cp "$scratch/out" "$scratch/least_printed.loop"
grep -qF "A[4611686018427387904*i + 4611686018427387904*j - 9223372036854775807 - 1] = 1;" "$scratch/out" ||
  fail "the least 64-bit value is not printed as a difference: $(cat "$scratch/out")"
expect 0 "" "$cudaburg" show "$scratch/least_printed.loop"
cmp -s "$scratch/out" "$scratch/least_printed.loop" || fail "the printed kernel does not read back the same"

# Element and byte counts past 64 bits.
loop elements 'kernel k(float A[4294967296][4294967296]) { A[0][0] = 1; }\n'
expect 1 "$scratch/elements.loop:1:16: error: the size of 'A' in bytes (its extents times 4) overflows a 64-bit integer
kernel k(float A[4294967296][4294967296]) { A[0][0] = 1; }
               ^" "$cudaburg" show "$scratch/elements.loop"
loop bytes 'kernel k(double A[2305843009213693952]) { A[0] = 1; }\n'
expect 1 "$scratch/bytes.loop:1:17: error: the size of 'A' in bytes (its extents times 8) overflows a 64-bit integer
kernel k(double A[2305843009213693952]) { A[0] = 1; }
                ^" "$cudaburg" show "$scratch/bytes.loop"

# One expression of 20,000 terms, one term a line: refused at the 200th operator.
{
  printf 'kernel k(float A[4], const float B[4]) {\n  A[0] = B[0]\n'
  for ((t = 1; t < 20000; t++)); do printf '    + B[1]\n'; done
  printf '  ;\n}\n'
} >"$scratch/terms.loop"
expect_within 10 1 "$scratch/terms.loop:202:5: error: expression is too deep (more than 200 levels of operators); split it into several statements
    + B[1]
    ^" "$cudaburg" show "$scratch/terms.loop"

# 100,000 statements in one loop body; 2,000 too: refused at the 257th (the loop counts), at once.
statements() {
  printf 'kernel k(float A[4]) {\n  parallel for (i = 0; i < 4; i++) {\n'
  for ((s = 0; s < $1; s++)); do printf '    A[i] = %d;\n' "$s"; done
  printf '  }\n}\n'
}
statements 100000 >"$scratch/statements.loop"
expect_within 10 1 "$scratch/statements.loop:258:5: error: more than 256 statements; a kernel may have at most that many
    A[i] = 255;
    ^" "$cudaburg" show "$scratch/statements.loop"
statements 2000 >"$scratch/statements2000.loop"
expect_within 5 1 "$scratch/statements2000.loop:258:5: error: more than 256 statements; a kernel may have at most that many
    A[i] = 255;
    ^" "$cudaburg" show "$scratch/statements2000.loop"
# As many as allowed are read and checked quickly.
statements 255 >"$scratch/statements256.loop"
expect_within 10 0 "" "$cudaburg" show "$scratch/statements256.loop"

# Nesting: 201 loops, 201 blocks and 100,000 parentheses are refused (no stack overflow), each
# at the level past its limit.
{
  printf 'kernel k(float A[4]) {\n'
  for ((d = 0; d < 201; d++)); do printf 'for (i%d = 0; i%d < 2; i%d++)\n' "$d" "$d" "$d"; done
  printf 'A[0] = 1;\n}\n'
} >"$scratch/nest.loop"
expect_within 10 1 "$scratch/nest.loop:18:1: error: loops are nested more than 16 deep; a kernel may nest at most 16
for (i16 = 0; i16 < 2; i16++)
^" "$cudaburg" show "$scratch/nest.loop"
{
  printf 'kernel k(float A[4]) {\n'
  for ((d = 0; d < 201; d++)); do printf '{\n'; done
  printf 'A[0] = 1;\n'
  for ((d = 0; d < 201; d++)); do printf '}\n'; done
  printf '}\n'
} >"$scratch/blocks.loop"
expect_within 10 1 "$scratch/blocks.loop:202:1: error: nesting is too deep (more than 200 levels)
{
^" "$cudaburg" show "$scratch/blocks.loop"

# A nest as deep as allowed, whose statements every iteration meet (3^16 direction vectors if
# each were told apart), is checked in seconds, not hours.
{
  printf 'size N = 8;\nkernel deep(float A[N], const float B[N]) {\n'
  for ((d = 0; d < 16; d++)); do printf 'for (i%d = 0; i%d < N; i%d++)\n' "$d" "$d" "$d"; done
  printf '{ A[i0] += B[i0]; A[0] = A[1] + 1; }\n}\n'
} >"$scratch/deep.loop"
expect_within 20 0 "" "$cudaburg" show "$scratch/deep.loop" --deps
grep -qF "output A: S1 -> S1 (=, =, =, =, =, =, =, =, =, =, =, =, =, =, <, =)" "$scratch/out" ||
  fail "the deep nest's dependences lack the exact vector at the last loops"

{
  printf 'kernel k(float A[4]) { A[0] = '
  for ((d = 0; d < 100000; d++)); do printf '('; done
  printf '1'
  for ((d = 0; d < 100000; d++)); do printf ')'; done
  printf '; }\n'
} >"$scratch/parens.loop"
expect_within 10 1 "$scratch/parens.loop:1:232: error: nesting is too deep (more than 200 levels)
...$(cut -c152-311 "$scratch/parens.loop")...
$(printf '%*s' 83 '')^" "$cudaburg" show "$scratch/parens.loop"

# A misspelled loop mark is one error naming the word, with the nearest mark; nothing cascades.
loop mark 'size N = 64;\nkernel k(float A[N]) {\n  paralel for (i = 0; i < N; i++)\n    A[i] = 1;\n}\n'
expect 1 "$scratch/mark.loop:3:3: error: unknown loop mark 'paralel'; did you mean 'parallel'?
  paralel for (i = 0; i < N; i++)
  ^" "$cudaburg" show "$scratch/mark.loop"

# -D of a size the file does not have lists the sizes there are (or the nearest one).
loop sizes 'size M = 8, N = 8;\nkernel k(float A[M][N]) { A[0][0] = 1; }\n'
expect 1 "$scratch/sizes.loop: error: -D Q=64 names no size of this file; its sizes are M, N" \
  "$cudaburg" show "$scratch/sizes.loop" -D Q=64
expect 1 "$scratch/sizes.loop: error: -D MM=64 names no size of this file; its sizes are M, N" \
  "$cudaburg" show "$scratch/sizes.loop" -D MM=64

# Constants of an int value are computed in int by the emitted code: a division by zero or a
# result past int's range is an error at the operator, not undefined behaviour in the kernel.
loop int_divide 'size N = 4;\nkernel k(int A[N]) {\n  parallel for (i = 0; i < N; i++)\n    A[i] = i + 1 / 0;\n}\n'
expect 1 "$scratch/int_divide.loop:4:18: error: 1 / 0 divides by zero (in int, the type of 'A')
    A[i] = i + 1 / 0;
                 ^" "$cudaburg" show "$scratch/int_divide.loop"
loop int_overflow 'size N = 4;\nkernel k(int A[N]) {\n  parallel for (i = 0; i < N; i++)\n    A[i] = 2147483647 + 1;\n}\n'
expect 1 "$scratch/int_overflow.loop:4:23: error: 2147483647 + 1 overflows a 32-bit int (the type of 'A')
    A[i] = 2147483647 + 1;
                      ^" "$cudaburg" show "$scratch/int_overflow.loop"
loop int_literal 'size N = 4;\nkernel k(int A[N]) {\n  parallel for (i = 0; i < N; i++)\n    A[i] = 3000000000;\n}\n'
expect 1 "$scratch/int_literal.loop:4:12: error: 3000000000 does not fit a 32-bit int (the type of 'A')
    A[i] = 3000000000;
           ^" "$cudaburg" show "$scratch/int_literal.loop"
# In float the same constants are well defined (an infinity), and accepted.
loop float_divide 'size N = 4;\nkernel k(float A[N]) {\n  parallel for (i = 0; i < N; i++)\n    A[i] = 1 / 0;\n}\n'
expect 0 "" "$cudaburg" show "$scratch/float_divide.loop"

# A recipe of 80 mistakes: the first 50 are shown, then how many more there were.
loop recipe_host 'size N = 4;\nkernel k(float A[N]) {\n  parallel for (i = 0; i < N; i++)\n    A[i] = 1;\n}\n'
recipe=$(for ((s = 1; s <= 80; s++)); do printf 'frob x%d; ' "$s"; done)
timeout 60 "$cudaburg" show "$scratch/recipe_host.loop" --recipe "$recipe" >"$scratch/out" 2>"$scratch/err"
[ $? -eq 1 ] || fail "a recipe of 80 mistakes did not exit 1"
[ "$(grep -c ': error: ' "$scratch/err")" -eq 50 ] || fail "not 50 recipe errors shown: $(grep -c ': error: ' "$scratch/err")"
[ "$(tail -1 "$scratch/err")" = "cudaburg: 30 more diagnostics not shown" ] || fail "no count of the rest: $(tail -1 "$scratch/err")"

# A folder given as the recipe's file: said so, not parsed as a recipe's text.
expect 1 "cudaburg: error: --recipe: '$scratch' is a folder, not a recipe's file" \
  "$cudaburg" show "$scratch/recipe_host.loop" --recipe "$scratch"

# Input size: a file past 16 MiB is refused, not read whole.
printf '%*s' $((16 * 1024 * 1024 + 1)) '' >"$scratch/large.loop"
expect 1 "cudaburg: error: '$scratch/large.loop' is larger than 16 MiB, the most a source may hold" \
  "$cudaburg" show "$scratch/large.loop"

finish
