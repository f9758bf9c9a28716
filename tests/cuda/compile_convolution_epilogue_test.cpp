// Convolution layers with an epilogue, in the idioms convolutions get: the implicit GEMM on the
// CUDA cores (gathered, and a 1x1 over its channels alone), on mma.sync tensor cores, and
// Winograd's output transform. The emitter writes each output through the epilogue (scale and
// shift at the output's channel, the shortcut at its own element, then ReLU), and NVRTC compiles
// the kernel for sm_90 within the launch limits and without local memory.
#include <gtest/gtest.h>

#include "src/cuda/compile/compiler.hpp"
#include "tests/cuda/emitted_example.hpp"

namespace cudaburg {
namespace {

// The examples at their own sizes: ResNet's 3x3 64@56 layer and the bottleneck's 1x1 64->256, N=32.
const std::map<std::string, int64_t> kOwnSizes;

void expectCompiled(const std::optional<CudaKernel>& k, const std::vector<std::string>& reads,
                    const char* instruction = nullptr) {
  ASSERT_TRUE(k);
  for (const std::string& read : reads) EXPECT_NE(k->source.find(read), std::string::npos) << read << "\n" << k->source;
  EXPECT_NE(k->source.find("fmaxf("), std::string::npos) << k->source;
  CompileOptions options;
  options.arch = "sm_90";
  options.keepPtx = true;
  options.useCache = false;
  CompileResult r = compile(*k, options);
  ASSERT_TRUE(r.compiled) << r.errorLog;
  EXPECT_TRUE(r.ok) << r.reason;
  EXPECT_NE(r.ptx.find("max.f32"), std::string::npos);
  if (instruction) EXPECT_NE(r.ptx.find(instruction), std::string::npos) << instruction;
  EXPECT_EQ(r.resources.stackFrameBytes, 0) << r.log;
  EXPECT_FALSE(r.resources.spills()) << r.log;
}

TEST(CompileConvolutionEpilogue, ResnetLayerAsWinograd) {
  for (const char* recipe :
       {"winograd oh,ow 4 block 32,32,8 thread 4,8,3", "winograd oh,ow 2 block 16,32,8 thread 4,4,1 prefetch"}) {
    SCOPED_TRACE(recipe);
    auto k = testing::emittedKernel("resnet_bn_relu.loop", kOwnSizes, recipe);
    expectCompiled(k, {"scale[k]", "shift[k]"});
  }
}

TEST(CompileConvolutionEpilogue, ResnetLayerAsImplicitGemm) {
  auto k = testing::emittedKernel(
      "resnet_bn_relu.loop", kOwnSizes,
      "collapse c,r,s; interchange n k; collapse n,oh,ow; tile k,n_oh_ow 64,64; map k_o grid.y; map n_oh_ow_o grid.x; "
      "map k block.y; map n_oh_ow block.x; regtile k,n_oh_ow 8,4; strip c_r_s 8; stage In at c_r_s_o table; "
      "stage Wt at c_r_s_o; unroll c_r_s 8; map c_r_s_o pipelined");
  expectCompiled(k, {"scale[", "shift["});
}

TEST(CompileConvolutionEpilogue, BottleneckAsImplicitGemm) {
  auto k = testing::emittedKernel(
      "bottleneck_shortcut.loop", kOwnSizes,
      "interchange n k; collapse n,h,w; tile k,n_h_w 64,64; map k_o grid.y; map n_h_w_o grid.x; map k block.y; "
      "map n_h_w block.x; regtile k,n_h_w 8,4; strip c 8; stage In at c_o; stage Wt at c_o; unroll c 8; "
      "map c_o pipelined");
  expectCompiled(k, {"scale[", "shift[", "Shortcut["});
}

TEST(CompileConvolutionEpilogue, HalfResnetLayerAsMmaSync) {
  common::SourceFile file("layer.loop",
                          "size N = 32, C = 64, H = 56, W = 56, K = 64, R = 3, S = 3;\n"
                          "kernel layer(float Out[N][K][H][W], const half In[N][C][H][W] padded, "
                          "const half Wt[K][C][R][S], const float scale[K], const float shift[K]) {\n"
                          "  parallel for (n = 0; n < N; n++)\n"
                          "    parallel for (k = 0; k < K; k++)\n"
                          "      parallel for (oh = 0; oh < H; oh++)\n"
                          "        parallel for (ow = 0; ow < W; ow++) {\n"
                          "          Out[n][k][oh][ow] = 0;\n"
                          "          reduce for (c = 0; c < C; c++)\n"
                          "            reduce for (r = 0; r < R; r++)\n"
                          "              reduce for (s = 0; s < S; s++)\n"
                          "                Out[n][k][oh][ow] += In[n][c][oh + r - 1][ow + s - 1] * Wt[k][c][r][s];\n"
                          "          Out[n][k][oh][ow] = max(Out[n][k][oh][ow] * scale[k] + shift[k], 0);\n"
                          "        }\n}\n");
  common::Diagnostics diags(file);
  auto kernel = parseLoopFile(file, diags, {});
  ASSERT_TRUE(kernel) << diags.str();
  common::SourceFile recipeFile(
      "recipe",
      "collapse c,r,s; interchange n k; collapse n,oh,ow; tile k,n_oh_ow 128,64; map k_o grid.y; "
      "map n_oh_ow_o grid.x; map k block.y; map n_oh_ow block.x; regtile k,n_oh_ow 32,32; strip c_r_s 16; "
      "stage In at c_r_s_o transposed pad 4; stage Wt at c_r_s_o transposed pad 4; unroll c_r_s 16; "
      "map c_r_s_o async; mma k,n_oh_ow,c_r_s 16,8,16");
  common::Diagnostics recipeDiags(recipeFile);
  auto recipe = parseRecipe(recipeFile, recipeDiags);
  ASSERT_TRUE(recipe) << recipeDiags.str();
  TransformResult t = applyRecipe(*kernel, *recipe);
  ASSERT_TRUE(t.ok()) << t.reason;
  EmitResult e = emitKernel(*t.kernel);
  ASSERT_TRUE(e.ok()) << e.reason;
  expectCompiled(e.kernel, {"scale[", "shift["}, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
}

}  // namespace
}  // namespace cudaburg
