// Linear layers with bias and ReLU on tensor cores: the epilogue applied to each accumulator
// element as the warp stores it, in the source the emitter writes, and NVRTC compiles the kernel
// for sm_90 (wgmma: sm_90a) within the launch limits and without local memory.
#include <gtest/gtest.h>

#include "src/cuda/compile/compiler.hpp"
#include "tests/cuda/emitted_example.hpp"

namespace cudaburg {
namespace {

// The layer's nest with tf32 operands (for mma.sync, which takes no float), from .loop text.
std::optional<CudaKernel> emittedTf32Layer(const std::map<std::string, int64_t>& sizes, const std::string& recipeText) {
  common::SourceFile file("layer.loop",
                          "size M = 4, N = 4, K = 4;\n"
                          "kernel layer(float Y[M][N], const tf32 X[M][K], const tf32 W[K][N], const float b[N]) {\n"
                          "  parallel for (i = 0; i < M; i++)\n"
                          "    parallel for (j = 0; j < N; j++) {\n"
                          "      Y[i][j] = 0;\n"
                          "      reduce for (k = 0; k < K; k++)\n"
                          "        Y[i][j] += X[i][k] * W[k][j];\n"
                          "      Y[i][j] = max(Y[i][j] + b[j], 0);\n"
                          "    }\n}\n");
  common::Diagnostics diags(file);
  auto kernel = parseLoopFile(file, diags, sizes);
  EXPECT_TRUE(kernel) << diags.str();
  common::SourceFile recipeFile("recipe", recipeText);
  common::Diagnostics recipeDiags(recipeFile);
  auto recipe = parseRecipe(recipeFile, recipeDiags);
  EXPECT_TRUE(recipe) << recipeDiags.str();
  if (!kernel || !recipe) return std::nullopt;
  TransformResult t = applyRecipe(*kernel, *recipe);
  EXPECT_TRUE(t.ok()) << t.reason;
  if (!t.ok()) return std::nullopt;
  EmitResult e = emitKernel(*t.kernel);
  EXPECT_TRUE(e.ok()) << e.reason;
  return e.kernel;
}

// Compiled for an sm_90 GPU with its PTX kept; checked accepted, holding `instruction`, all in
// registers; and its source stores the bias added and the ReLU taken, not the bare sum.
void expectCompiledWithEpilogue(const std::optional<CudaKernel>& k, const char* instruction) {
  ASSERT_TRUE(k);
  EXPECT_NE(k->source.find("b[j]"), std::string::npos) << k->source;  // the bias at the element's own column
  EXPECT_NE(k->source.find("fmaxf("), std::string::npos) << k->source;
  CompileOptions options;
  options.arch = "sm_90";
  options.keepPtx = true;
  options.useCache = false;
  CompileResult r = compile(*k, options);
  ASSERT_TRUE(r.compiled) << r.errorLog;
  EXPECT_TRUE(r.ok) << r.reason;
  EXPECT_NE(r.ptx.find(instruction), std::string::npos) << instruction;
  EXPECT_NE(r.ptx.find("max.f32"), std::string::npos);
  EXPECT_EQ(r.resources.stackFrameBytes, 0) << r.log;
  EXPECT_FALSE(r.resources.spills()) << r.log;
}

TEST(CompileTensorCoreEpilogue, LinearReluAsTf32x3Wgmma) {
  for (const char* promote : {"", " promote 1"}) {
    SCOPED_TRACE(promote);
    for (int64_t size : {4096, 1000}) {
      auto k = testing::emittedKernel(
          "linear_relu.loop", {{"M", size}, {"N", size}, {"K", size}},
          std::string("tile i,j 128,128; map i_o grid.y; map j_o grid.x; map i block.x; map j block.y; "
                      "regtile i,j 128,64; strip k 32; stage X at k_o swizzle; stage W at k_o swizzle slabs 32; "
                      "map k_o async 4; unroll k 32; wgmma j,i,k 64,128,8 producer tma tf32x3") +
              promote + "; raster 8");
      expectCompiledWithEpilogue(k, "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32");
    }
  }
}

TEST(CompileTensorCoreEpilogue, LinearReluAsMmaSync) {
  for (int64_t size : {256, 200}) {
    auto k = emittedTf32Layer(
        {{"M", size}, {"N", size - 64}, {"K", size - 112}},
        "tile i,j 128,128\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 64,32\n"
        "strip k 32\nstage X at k_o swizzle\nstage W at k_o swizzle\nmap k_o async 4\nunroll k 32\nmma i,j,k 16,8,8");
    expectCompiledWithEpilogue(k, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32");
    // Where no bound cuts a tile, a lane's pairs of elements go out 8 bytes a store, each computed
    // at its own column.
    if (k && size == 256) EXPECT_NE(k->source.find("= mma_pair;"), std::string::npos) << k->source;
  }
}

}  // namespace
}  // namespace cudaburg
