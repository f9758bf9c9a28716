#!/usr/bin/env bash
# End-to-end checks of `cudaburg show`: output, exit statuses, diagnostics, the DOT file.
# Usage: cli_test.sh CUDABURG EXAMPLES_DIR SCRATCH_DIR
set -u
cudaburg=$1 examples=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# run EXPECTED_STATUS ARGS...: runs cudaburg, keeps stdout/stderr in $out/$err.
run() {
  local expected=$1; shift
  "$cudaburg" "$@" >"$scratch/out" 2>"$scratch/err"
  local status=$?
  out=$(cat "$scratch/out") err=$(cat "$scratch/err")
  [ "$status" -eq "$expected" ] || fail "cudaburg $* exited $status, not $expected; stderr: $err"
}
has() { grep -qF -- "$2" <<<"$1" || fail "expected '$2' in: $1"; }

run 0 show "$examples/matmul.loop" -D M=64 -D N=32
has "$out" "parallel for (i = 0; i < 64; i++)"
has "$out" "parallel for (j = 0; j < 32; j++) {"
has "$out" "C[i][j] += A[i][k] * B[k][j];"
[ -z "$err" ] || fail "unexpected stderr: $err"

# The fused layers show, as .loop text that reads back the same, and as CUDA.
for layer in linear_relu linear_gelu resnet_bn_relu bottleneck_shortcut linear_half mlp2; do
  "$cudaburg" show "$examples/$layer.loop" >"$scratch/$layer.loop" 2>&1 || fail "$layer does not show"
  run 0 show "$scratch/$layer.loop"
  [ "$out" = "$(cat "$scratch/$layer.loop")" ] || fail "printing $layer twice differs"
  run 0 show "$examples/$layer.loop" --cuda
  has "$out" "__global__"
done
run 0 show "$examples/linear_gelu.loop" --cuda
has "$out" "float acc;  // registers of one thread"
has "$out" "tanhf("
run 0 show "$examples/linear_half.loop" --cuda
has "$out" "= __float2half(acc + __half2float(b[j]));"

# The printed kernel is itself a .loop file that shows the same.
"$cudaburg" show "$examples/conv2d.loop" >"$scratch/conv2d.loop" 2>&1 || fail "conv2d does not show"
run 0 show "$scratch/conv2d.loop"
[ "$out" = "$(cat "$scratch/conv2d.loop")" ] || fail "printing conv2d twice differs"

run 0 show "$examples/matmul.loop" --dot "$scratch/mm.dot" --deps
has "$(head -1 "$scratch/mm.dot")" 'digraph "matmul" {'
has "$out" "reduction C: S1 -> S1 (=, =, <)"
if command -v dot >/dev/null; then
  dot -Tsvg "$scratch/mm.dot" -o "$scratch/mm.svg" || fail "Graphviz rejects the DOT output"
fi

# --version, and the long forms of the short options.
run 0 --version
has "$out" "cudaburg "
run 0 show "$examples/matmul.loop" --define M=64
has "$out" "parallel for (i = 0; i < 64; i++)"

# --dot -: standard output carries the DOT alone, also after a recipe.
run 0 show "$examples/matmul.loop" --dot -
has "$(head -1 <<<"$out")" 'digraph "matmul" {'
[ "$(tail -1 <<<"$out")" = "}" ] || fail "--dot - printed more than the DOT: $out"
grep -q "parallel for" <<<"$out" && fail "--dot - printed the kernel's text too"
run 0 show "$examples/matmul.loop" --recipe "strip k 16" --dot -
has "$(head -1 <<<"$out")" 'digraph "matmul" {'
run 2 show "$examples/matmul.loop" --dot - --deps
has "$err" "--dot - writes the DOT alone"

# Input errors: file:line:col, the line, a caret; status 1; no DOT file written.
printf 'size N = 4;\nkernel f(float A[N]) {\n  parallel for (i = 0; i < N; i++) A[0] = 1;\n}\n' >"$scratch/bad.loop"
run 1 show "$scratch/bad.loop" --dot "$scratch/bad.dot"
has "$err" "$scratch/bad.loop:3:3: error: loop 'i' is marked parallel but it is not"
has "$err" "  ^"
[ ! -e "$scratch/bad.dot" ] || fail "a DOT file was written for a bad input"
[ -z "$out" ] || fail "stdout not empty for a bad input: $out"

run 1 show "$examples/matmul.loop" -D Q=1
has "$err" "-D Q=1 names no size of this file"
run 1 show "$scratch/missing.loop"
has "$err" "cudaburg: error: cannot open '$scratch/missing.loop'"

# Command-line mistakes: status 2 and one plain line.
run 2 show "$examples/matmul.loop" -D M
has "$err" "cudaburg: error: -D expects NAME=VALUE"
run 2 show "$examples/matmul.loop" -D M=big
has "$err" "-D M needs an integer value, not 'big'"
run 2 show "$examples/matmul.loop" --frobnicate
[ "$(wc -l <<<"$err")" -eq 1 ] || fail "more than one line for an unknown option: $err"
run 2 show
has "$err" "cudaburg: error:"
run 2 show "$examples/matmul.loop" --dot "$scratch/no/such/dir/x.dot"
has "$err" "cannot write"

# A recipe: before, the steps, after.
run 0 show "$examples/matmul.loop" -D M=64 -D N=64 -D K=64 --recipe "strip k 16"
has "$out" "// before"
has "$out" "//   strip k 16"
has "$out" "// after"
run 1 show "$examples/matmul.loop" --recipe "frobnicate k 16"
has "$err" "error:"

# The CUDA kernel a recipe makes: pipelined, two halves of each buffer.
run 0 show "$examples/matmul.loop" -D M=64 -D N=64 -D K=64 --cuda --recipe \
  "tile i,j 32,32; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; regtile i,j 2,2; strip k 8; stage A at k_o; stage B at k_o; map k_o pipelined"
has "$out" "extern \"C\" __global__ void"
has "$out" "//   map k_o pipelined"
has "$out" "float A_s[2][32][8];"
has "$out" "const int stage_slot"
run 1 show "$examples/matmul.loop" --cuda --recipe "strip k 8; map k_o pipelined"
has "$err" "cannot be pipelined"

[ "$failures" -eq 0 ] && echo "cudaburg show: all checks passed"
exit $((failures > 0))
