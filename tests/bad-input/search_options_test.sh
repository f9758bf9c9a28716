#!/usr/bin/env bash
# Bad options of the search, refused in one sentence with exit status 2 before anything runs
# (no SIGFPE, no uncaught exception, no hang, no memory filled by a range); and a tuning
# database of another layout, warned about once even with -q.
# Usage: search_options_test.sh CUDABURG EXAMPLES_DIR SCRATCH_DIR
set -u
cudaburg=$1 examples=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch"
. "$(dirname "$0")/check.sh"
matmul=$examples/matmul.loop

expect 2 "cudaburg: error: --budget: '99999999999999999999' is too large; at most 604800 variants" \
  "$cudaburg" "$matmul" --budget 99999999999999999999
expect 2 "cudaburg: error: --budget: '99999999999999999999s' is too large; at most 604800s" \
  "$cudaburg" "$matmul" --budget 99999999999999999999s
expect 2 "cudaburg: error: --budget: '10081m' is too large; at most 10080m" "$cudaburg" "$matmul" --budget 10081m
expect 2 "cudaburg: error: --budget: '0' is neither a time (60s, 5m) nor a number of variants (300)" \
  "$cudaburg" "$matmul" --budget 0
expect_within 5 2 "cudaburg: error: --tile: 9223372036854775807 in '1..9223372036854775807' is above 1048576, the largest value a search parameter may take" \
  "$cudaburg" "$matmul" --tile 1..9223372036854775807
expect_within 5 2 "cudaburg: error: --tile: '1..1000000000:1' would enumerate 1000000000 values; a range may hold at most 1000000" \
  "$cudaburg" "$matmul" --tile 1..1000000000:1
expect_within 5 2 "cudaburg: error: --stage: '1..9223372036854775807:1' would enumerate 9223372036854775807 values; a range may hold at most 1000000" \
  "$cudaburg" "$matmul" --stage 1..9223372036854775807:1
expect 2 "cudaburg: error: --unroll: 2097152 in '1,2097152' is above 1048576, the largest value a search parameter may take" \
  "$cudaburg" "$matmul" --unroll 1,2097152
expect 2 "cudaburg: error: --split: the upper bound is not a positive whole number in '2..99999999999999999999' (write a..b for powers of two, a..b:s for steps, or a,b,c)" \
  "$cudaburg" "$matmul" --split 2..99999999999999999999
expect 2 "cudaburg: error: -D M needs an integer value, not '99999999999999999999'" \
  "$cudaburg" "$matmul" -D M=99999999999999999999
expect 2 "cudaburg: error: --precision: unknown mode 'fast'; the modes are strict, tf32" \
  "$cudaburg" "$matmul" --precision fast

# A seed is a whole number: -1 is refused, not taken as 2^64 - 1.
expect 2 "cudaburg: error: --seed: '-1' is not a whole number from 0 to 18446744073709551615" "$cudaburg" "$matmul" --seed -1
# A GPU's index is not negative (it was taken as the first GPU).
expect 2 "cudaburg: error: --device: -1 is no GPU's index (0 is the first)" "$cudaburg" "$matmul" --device -1

# A mistyped command or option is named, with the nearest there is.
expect 2 "cudaburg: error: unknown command 'shwo'; did you mean 'show'?" "$cudaburg" shwo "$matmul"
expect 2 "cudaburg: error: unknown command 'frobnicate'; the commands are show and replay, or give a FILE.loop to search" \
  "$cudaburg" frobnicate
expect 2 "cudaburg: error: unknown option '--tiles'; did you mean '--tile'?" "$cudaburg" "$matmul" --tiles 64
expect 2 "cudaburg: error: unknown option '--recipes'; did you mean '--recipe'?" "$cudaburg" show "$matmul" --recipes x
expect 2 "cudaburg: error: unknown option '--strategie'; did you mean '--strategy'?" \
  "$cudaburg" replay "$matmul" --db x.db --strategie model

# A size -D makes too large for the arrays is an input error at the array, as in the file.
expect 1 "$matmul:4:21: error: the size of 'C' in bytes (its extents times 4) overflows a 64-bit integer
kernel matmul(float C[M][N], const float A[M][K], const float B[K][N]) {
                    ^
$matmul:4:42: error: the size of 'A' in bytes (its extents times 4) overflows a 64-bit integer
kernel matmul(float C[M][N], const float A[M][K], const float B[K][N]) {
                                         ^" "$cudaburg" "$matmul" -D M=4611686018427387904 -D N=1 -q --no-db -o "$scratch/huge"
# A tile edge of 65536 (once a SIGFPE in the model, then accepted silently): no GPU can hold it.
expect 2 "cudaburg: error: --tile: a block tile edge of 65536 is beyond what any GPU can hold (a block's outputs live in its at most 65536 registers); a tile edge may be at most 32768" \
  "$cudaburg" "$matmul" -D M=131072 -D N=131072 -D K=64 --tile 65536 --unroll 1 -q --no-db -o "$scratch/tile65536"
[ ! -e "$scratch/tile65536" ] || fail "--tile 65536: outputs were written for a refused command"
# --tile bounds the tensor-core rules' tiles too: with 32 alone none applies, and the report says so.
expect_within 120 0 "" "$cudaburg" "$matmul" --tile 32..32 -q --no-db -o "$scratch/tile32"
grep -qF "tile i,j 32,32;" "$scratch/out" || fail "--tile 32..32: the winner's tile is not 32x32: $(cat "$scratch/out")"
grep -qF "tensor cores: not considered: --tile allows none of the block tile edges their rules take (64, 128, 256)" \
  "$scratch/tile32/report.md" || fail "--tile 32..32: the report does not say why tensor cores were left out"

# A FIFO as the tuning database would block the search forever: it is not used, with a warning
# even under -q, and the search runs.
mkfifo "$scratch/fifo.db"
expect_within 60 0 "cudaburg: warning: the tuning database '$scratch/fifo.db' is not a regular file; measurements will not be kept" \
  "$cudaburg" "$matmul" -D M=64 -D N=64 -D K=64 --tile 32 --unroll 2 --stage 8 --split 2 -q --db "$scratch/fifo.db" \
  -o "$scratch/fifo-out"
[ -p "$scratch/fifo.db" ] || fail "the FIFO was replaced"

finish
