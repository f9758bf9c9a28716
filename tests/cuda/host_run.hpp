#pragma once
// An emitted kernel of float arrays run on the host, for tests that check what the CUDA text
// computes without a GPU: compiled by the C++ compiler that builds cudaburg against a few
// definitions of CUDA's (shared memory a static array, a barrier for __syncthreads), each block's
// threads as threads of the host, the blocks one after another. Not for asynchronous copies or
// tensor cores (inline PTX). Dynamic shared memory becomes a static array of the launch's size.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "src/cuda/emit/emitter.hpp"
#include "src/exec/buffers.hpp"
#include "src/exec/compare.hpp"
#include "src/exec/executor.hpp"
#include "tests/cuda/emitted_example.hpp"
#include "tests/scratch_dir.hpp"

namespace cudaburg::testing {

inline const char* kHostCuda = R"(#include <math.h>

#include <algorithm>
#include <barrier>
#include <cstdio>
#include <thread>
#include <vector>
using std::max;
using std::min;
struct uint3 { unsigned x, y, z; };
struct float2 { float x, y; };
struct float4 { float x, y, z, w; };
inline float2 make_float2(float x, float y) { return {x, y}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
static thread_local uint3 threadIdx;
static uint3 blockIdx;
static std::barrier<>* block_barrier;
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__
#define __shared__ static
#define __constant__ static
#define __align__(n) __attribute__((aligned(n)))
#define __syncthreads() block_barrier->arrive_and_wait()
)";

// Runs `k` (its arrays' elements in `buffers`, as float) over its whole grid; writes the outputs
// back into `buffers`. False (and a test failure) where it does not compile or run.
inline bool runOnHost(const CudaKernel& k, const Kernel& kernel, Buffers& buffers) {
  ScratchDir scratch("host_run");
  const std::filesystem::path& dir = scratch.path();
  std::ostringstream main;
  main << "int main() {\n";
  std::string args;
  for (const std::string& name : k.params) {
    size_t n = buffers.data.at(name).size();
    main << "  std::vector<float> " << name << "(" << n << ");\n"
         << "  { FILE* f = std::fopen(\"" << (dir / name).string() << "\", \"rb\"); if (!f || std::fread(" << name
         << ".data(), 4, " << n << ", f) != " << n << ") return 1; std::fclose(f); }\n";
    args += (args.empty() ? "" : ", ") + name + ".data()";
  }
  main << "  for (unsigned z = 0; z < " << k.grid[2] << "; ++z)\n"
       << "    for (unsigned y = 0; y < " << k.grid[1] << "; ++y)\n"
       << "      for (unsigned x = 0; x < " << k.grid[0] << "; ++x) {\n"
       << "        blockIdx = {x, y, z};\n"
       << "        std::barrier<> bar(" << k.threads() << ");\n"
       << "        block_barrier = &bar;\n"
       << "        std::vector<std::thread> threads;\n"
       << "        for (unsigned t = 0; t < " << k.threads() << "; ++t)\n"
       << "          threads.emplace_back([&, t] {\n"
       << "            threadIdx = {t % " << k.block[0] << ", t / " << k.block[0] << " % " << k.block[1] << ", t / "
       << k.block[0] * k.block[1] << "};\n"
       << "            " << k.entry << "(" << args << ");\n"
       << "          });\n"
       << "        for (auto& t : threads) t.join();\n"
       << "      }\n";
  for (const Array& a : kernel.params) {
    if (a.input) continue;
    main << "  { FILE* f = std::fopen(\"" << (dir / (a.name + ".out")).string() << "\", \"wb\"); std::fwrite(" << a.name
         << ".data(), 4, " << a.name << ".size(), f); std::fclose(f); }\n";
  }
  main << "}\n";
  // Dynamic shared memory (`extern __shared__ float shared[];`) as a static array of its size.
  std::string source =
      std::regex_replace(k.source, std::regex(R"(extern __shared__ (__align__\(\d+\) )?float (\w+)\[\];)"),
                         "static $1float $2[" + std::to_string(k.dynamicSharedBytes / 4) + "];");
  std::ofstream(dir / "kernel.cpp") << kHostCuda << source << "\n" << main.str();
  for (const std::string& name : k.params) {
    std::vector<float> values(buffers.data.at(name).begin(), buffers.data.at(name).end());
    std::ofstream(dir / name, std::ios::binary)
        .write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * 4));
  }
  std::string command = std::string(CUDABURG_HOST_CXX) + " -std=c++20 -O1 -w -pthread -o " + (dir / "kernel").string() +
                        " " + (dir / "kernel.cpp").string() + " && " + (dir / "kernel").string();
  int status = std::system(command.c_str());
  EXPECT_EQ(status, 0) << command;
  if (status != 0) return false;
  for (const Array& a : kernel.params) {
    if (a.input) continue;
    std::vector<float> values(buffers.data.at(a.name).size());
    std::ifstream(dir / (a.name + ".out"), std::ios::binary)
        .read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(values.size() * 4));
    buffers.data[a.name].assign(values.begin(), values.end());
  }
  return true;
}

// examples/<example> at `sizes` under `recipe`, emitted and run on the host, computes what the
// nest computes on the CPU executor (a test failure where not); its source holds `expected`.
inline void expectComputesTheNestOnHost(const std::string& example, const std::map<std::string, int64_t>& sizes,
                                        const std::string& recipe, const std::string& expected = "") {
  SCOPED_TRACE(example + ": " + recipe);
  Kernel nest;
  auto k = emittedKernel(example, sizes, recipe, &nest);
  ASSERT_TRUE(k);
  EXPECT_NE(k->source.find(expected), std::string::npos);
  Buffers want = fillRandom(nest, 7);
  Buffers got = want;
  execute(nest, want);
  ASSERT_TRUE(runOnHost(*k, nest, got));
  Comparison same = compare(nest, want, got, reductionTolerance(nest));
  EXPECT_TRUE(same.ok) << same.firstMismatch << " (max error " << same.maxError << ")";
}

}  // namespace cudaburg::testing
