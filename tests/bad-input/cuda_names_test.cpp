// Names in a .loop that C++ or CUDA hold (class, new, main, threadIdx, __global__) or that the
// emitter declares itself (thread_x, block_x): the kernels made of such a nest, as written and
// through recipes that derive more names from them, compile with NVRTC (no GPU needed), and so
// does best.cu's host program (with nvcc, where there is one).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/diagnostics.hpp"
#include "src/cuda/compile/compiler.hpp"
#include "src/cuda/emit/cuda_names.hpp"
#include "src/cuda/emit/emitter.hpp"
#include "src/loop/parser.hpp"
#include "src/search/best_program.hpp"
#include "src/transform/recipe.hpp"
#include "tests/scratch_dir.hpp"

namespace cudaburg {
namespace {

// A matmul whose every name is one the emitted code could not hold as it is.
Kernel hostileMatmul() {
  common::SourceFile file("hostile.loop",
                          "size M = 256, N = 256, K = 128;\n"
                          "kernel main(float class[M][N], const float new[M][K], const float threadIdx[K][N]) {\n"
                          "  parallel for (thread_x = 0; thread_x < M; thread_x++)\n"
                          "    parallel for (block_x = 0; block_x < N; block_x++) {\n"
                          "      class[thread_x][block_x] = 0;\n"
                          "      reduce for (__global__ = 0; __global__ < K; __global__++)\n"
                          "        class[thread_x][block_x] += new[thread_x][__global__] * threadIdx[__global__][block_x];\n"
                          "    }\n"
                          "}\n");
  common::Diagnostics diags(file);
  auto kernel = parseLoopFile(file, diags, {});
  EXPECT_TRUE(kernel) << diags.str();
  return kernel ? *kernel : Kernel{};
}

Kernel transformed(const Kernel& kernel, const std::string& text) {
  common::SourceFile file("recipe", text);
  common::Diagnostics diags(file);
  auto recipe = parseRecipe(file, diags);
  EXPECT_TRUE(recipe) << diags.str();
  if (!recipe) return kernel;
  TransformResult t = applyRecipe(kernel, *recipe);
  EXPECT_TRUE(t.ok()) << t.reason;
  return t.ok() ? *t.kernel : kernel;
}

void expectCompiles(const Kernel& kernel, const std::string& arch = "sm_90") {
  EmitResult e = emitKernel(kernel);
  ASSERT_TRUE(e.ok()) << e.refusal;
  CompileOptions options;
  options.arch = arch;
  CompileResult binary = compile(*e.kernel, options);
  EXPECT_TRUE(binary.ok) << binary.refusal << "\n" << e.kernel->source;
  // The runner matches parameters to the nest's arrays by the nest's names.
  EXPECT_EQ(e.kernel->params, (std::vector<std::string>{"class", "new", "threadIdx"}));
}

TEST(CudaNames, ReservedNamesAreMangledOthersKept) {
  for (const char* name : {"class", "new", "main", "threadIdx", "__global__", "int", "thread_x", "block_x",
                           "user_A", "_Bad", "rng"})
    EXPECT_EQ(cudaName(name), std::string("user_") + name) << name;
  for (const char* name : {"A", "i", "k_o", "A_s", "C_r", "conv2d", "r", "s"}) EXPECT_EQ(cudaName(name), name) << name;
}

TEST(CudaNames, TheNestAsWrittenCompiles) {
  expectCompiles(hostileMatmul());
  Kernel k = hostileMatmul();
  EmitResult reference = emitReference(k);
  ASSERT_TRUE(reference.ok()) << reference.refusal;
  EXPECT_TRUE(compile(*reference.kernel, CompileOptions{}).ok);
}

TEST(CudaNames, ATiledStagedPipelinedKernelCompiles) {
  expectCompiles(transformed(
      hostileMatmul(),
      "tile thread_x,block_x 64,128; map thread_x_o grid.y; map block_x_o grid.x; map thread_x block.y; "
      "map block_x block.x; regtile thread_x,block_x 8,4; strip __global__ 16; stage new at __global___o transposed; "
      "stage threadIdx at __global___o; unroll __global__ 16; map __global___o pipelined; vectorize block_x 4; "
      "prefetch __global__; resident 2"));
}

TEST(CudaNames, ASplitReductionCompiles) {
  expectCompiles(transformed(hostileMatmul(),
                             "split __global__ 2; tile thread_x,block_x 32,32; map __global___s grid.z; "
                             "map thread_x_o grid.y; map block_x_o grid.x; map thread_x block.y; map block_x block.x"));
}

TEST(CudaNames, BestProgramBuilds) {
  Kernel k = hostileMatmul();
  EmitResult best = emitKernel(k), reference = emitReference(k);
  ASSERT_TRUE(best.ok() && reference.ok());
  std::string program = bestProgram(k, *best.kernel, *reference.kernel);
  EXPECT_NE(program.find("user_main<<<"), std::string::npos);
  EXPECT_NE(program.find("(user_class, user_new, user_threadIdx);"), std::string::npos) << program;
  const std::string nvcc = CUDABURG_NVCC;
  if (nvcc.empty()) GTEST_SKIP() << "no nvcc to build best.cu with";
  ScratchDir dir("cuda_names");
  std::ofstream(dir / "best.cu") << program;
  std::string command = nvcc + " -O0 -w -arch=sm_90 -c " + (dir / "best.cu").string() + " -o " +
                        (dir / "best.o").string() + " 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
}

}  // namespace
}  // namespace cudaburg
