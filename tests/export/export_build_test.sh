#!/usr/bin/env bash
# cudaburg export from the tuning databases recorded in tests/data (on an H100): two sizes of matmul
# (one function dispatching on M, N, K) and conv2d into one library, with the PyTorch extension.
# The library builds with CMake and nvcc, installs, and a C client links it both through
# find_package and with nvcc alone, and runs (its calls are all refused before a launch: no GPU).
# Usage: export_build_test.sh CUDABURG SOURCE_DIR SCRATCH_DIR NVCC CMAKE
set -u
cudaburg=$1 source=$2 scratch=$3 nvcc=$4 cmake=$5
rm -rf "$scratch" && mkdir -p "$scratch"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
cp "$source"/tests/data/matmul2048.db "$source"/tests/data/matmul-odd.db "$source"/tests/data/conv2d.db "$scratch"/
cd "$source" || exit 1

lib=$scratch/lib
"$cudaburg" export --problem "examples/matmul.loop -D M=2048 -D N=2048 -D K=2048" \
  --problem "examples/matmul.loop -D M=127 -D N=4099 -D K=513" --problem examples/conv2d.loop \
  --db "$scratch/matmul2048.db" --db "$scratch/matmul-odd.db" --db "$scratch/conv2d.db" \
  --library tuned --torch -o "$lib" || fail "export exited $?"
files=$(cd "$lib" && find . -type f | sort | tr '\n' ' ')
[ "$files" = "./CMakeLists.txt ./cmake/tunedConfig.cmake ./cudaburg-export.json ./include/conv2d.h ./include/matmul.h ./src/conv2d.cu ./src/matmul.cu ./torch/tuned.py ./torch/tuned_torch.cpp " ] ||
  fail "the export's files: $files"
grep -qx 'cudaError_t matmul(float\* C, const float\* A, const float\* B, int64_t M, int64_t N, int64_t K, cudaStream_t stream);' \
  "$lib/include/matmul.h" || fail "matmul.h lacks the dispatching declaration"
grep -qx 'cudaError_t conv2d(float\* Out, const float\* In, const float\* Wt, cudaStream_t stream);' \
  "$lib/include/conv2d.h" || fail "conv2d.h lacks its declaration"
grep -q 'measured 0.3837 ms (44.77 TFLOPS) on NVIDIA H100 80GB HBM3' "$lib/include/matmul.h" ||
  fail "matmul.h does not say what the 2048^3 kernel measured"
grep -q 'm.def("matmul(Tensor A, Tensor B) -> Tensor");' "$lib/torch/tuned_torch.cpp" || fail "no matmul operator schema"

# The library, installed as a package.
"$cmake" -S "$lib" -B "$scratch/build" -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_BUILD_TYPE=Release >"$scratch/configure.log" 2>&1 ||
  { cat "$scratch/configure.log"; fail "the library does not configure"; }
"$cmake" --build "$scratch/build" -j2 >"$scratch/build.log" 2>&1 || { tail -40 "$scratch/build.log"; fail "the library does not build"; }
"$cmake" --install "$scratch/build" --prefix "$scratch/prefix" >/dev/null || fail "the library does not install"
[ -f "$scratch/prefix/lib/libtuned.a" ] && [ -f "$scratch/prefix/include/matmul.h" ] &&
  [ -f "$scratch/prefix/lib/cmake/tuned/tunedConfig.cmake" ] || fail "the install lacks the library, a header or the package"

# A C client through find_package, and with nvcc alone; both run.
"$cmake" -S "$source/tests/export/consumer" -B "$scratch/consumer" -DCMAKE_PREFIX_PATH="$scratch/prefix" \
  -DCLIENT_SOURCE="$source/tests/export/client.c" -DCMAKE_CUDA_COMPILER="$nvcc" >"$scratch/consumer.log" 2>&1 &&
  "$cmake" --build "$scratch/consumer" >>"$scratch/consumer.log" 2>&1 || { cat "$scratch/consumer.log"; fail "find_package's client does not build"; }
"$scratch/consumer/client" || fail "the client built through find_package fails"
"$nvcc" -x c "$source/tests/export/client.c" -I"$scratch/prefix/include" -c -o "$scratch/client.o" &&
  "$nvcc" "$scratch/client.o" "$scratch/prefix/lib/libtuned.a" -o "$scratch/nvcc-client" || fail "nvcc's client does not build"
"$scratch/nvcc-client" || fail "the client built by nvcc fails"

# A kernel measured under --precision tf32 whose blocks run in clusters sharing a stage by TMA
# multicast (tests/data/matmul3000-tf32.db, on an H200): exported only under that contract, its
# launch keeps the kernel's cluster shape, and it builds.
tf32=$scratch/tf32
"$cudaburg" export examples/matmul.loop -D M=3000 -D N=5000 -D K=2000 --db "$source/tests/data/matmul3000-tf32.db" \
  -o "$scratch/strict" >"$scratch/strict.log" 2>&1 && fail "a tf32 kernel exported under the strict contract"
"$cudaburg" export examples/matmul.loop -D M=3000 -D N=5000 -D K=2000 --db "$source/tests/data/matmul3000-tf32.db" \
  --precision tf32 -o "$tf32" >/dev/null || fail "the tf32 export exited $?"
grep -q '__cluster_dims__(2, 1, 1)' "$tf32/src/matmul.cu" || fail "the exported kernel lost its clusters"
"$cmake" -S "$tf32" -B "$scratch/tf32-build" -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_BUILD_TYPE=Release \
  >"$scratch/tf32.log" 2>&1 && "$cmake" --build "$scratch/tf32-build" >>"$scratch/tf32.log" 2>&1 ||
  { tail -40 "$scratch/tf32.log"; fail "the library of a clustered kernel does not build"; }

if [ "$failures" -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi
echo "all cases passed"
