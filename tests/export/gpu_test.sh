#!/usr/bin/env bash
# The exported matmul at 2048^3 (from tests/data/matmul2048.db) run on the GPU by gpu_check.cu,
# against the exact product within the bound the export states, and timed against its kernel alone.
# Usage: gpu_test.sh CUDABURG SOURCE_DIR SCRATCH_DIR NVCC
set -eu
cudaburg=$1 source=$2 scratch=$3 nvcc=$4
rm -rf "$scratch" && mkdir -p "$scratch"
cp "$source/tests/data/matmul2048.db" "$scratch/"
cd "$source"
"$cudaburg" export examples/matmul.loop -D M=2048 -D N=2048 -D K=2048 --db "$scratch/matmul2048.db" -o "$scratch/lib"
bound=$(sed -n 's/.*"bound": \([0-9.e+-]*\).*/\1/p' "$scratch/lib/cudaburg-export.json" | head -1)
arch=$(sed -n 's/.*"arch": "sm_\([0-9a]*\)".*/\1/p' "$scratch/lib/cudaburg-export.json" | head -1)
"$nvcc" -std=c++17 -O3 -gencode="arch=compute_$arch,code=sm_$arch" -I"$scratch/lib/include" \
  -DEXPORTED_SOURCE="\"$scratch/lib/src/matmul.cu\"" -DBOUND="$bound" "$source/tests/export/gpu_check.cu" -o "$scratch/gpu_check"
"$scratch/gpu_check"
