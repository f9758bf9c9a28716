// The mma step: a register tile's warps on tensor cores. The CPU executor runs the warp tiles as
// the loops they are, so the transformed kernel computes exactly what the register tile did (each
// accumulator summed in the same order); what cannot run on tensor cores is refused.
#include <gtest/gtest.h>

#include <stdexcept>

#include "common/diagnostics.hpp"
#include "src/exec/compare.hpp"
#include "src/exec/executor.hpp"
#include "src/loop/parser.hpp"
#include "src/loop/printer.hpp"
#include "src/loop/tree_walk.hpp"
#include "src/transform/recipe.hpp"
#include "tests/transform/test_kernels.hpp"

namespace cudaburg {
namespace {

const char* kGemm =
    "size M = 100, N = 72, K = 64;\n"
    "kernel gemm(float C[M][N], const TYPE A[M][K], const TYPE B[K][N]) {\n"
    "  parallel for (i = 0; i < M; i++)\n"
    "    parallel for (j = 0; j < N; j++) {\n"
    "      C[i][j] = 0;\n"
    "      reduce for (k = 0; k < K; k++) C[i][j] += A[i][k] * B[k][j];\n"
    "    }\n"
    "}\n";

Kernel gemm(const std::string& type) {
  std::string text = kGemm;
  for (size_t at; (at = text.find("TYPE")) != std::string::npos;) text.replace(at, 4, type);
  return testing::kernelFromText(text);
}

TransformResult applyText(const Kernel& k, const std::string& text) {
  common::SourceFile file("recipe", text);
  common::Diagnostics diags(file);
  auto recipe = parseRecipe(file, diags);
  if (!recipe) return TransformResult::refuse(diags.str());
  return applyRecipe(k, *recipe);
}

const std::string kTile =
    "tile i,j 64,64; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; regtile i,j 32,16; ";

TEST(Mma, WarpTilesComputeWhatTheRegisterTileDid) {
  for (const auto& [type, shape] : {std::pair{"half", "16,8,16"}, {"bfloat16", "16,8,16"}, {"tf32", "16,8,8"}}) {
    for (const std::string staging :
         {"", "strip k 32; stage A at k_o pad 8; stage B at k_o pad 8; map k_o async; unroll k 32; "}) {
      SCOPED_TRACE(std::string(type) + ": " + staging);
      Kernel k = gemm(type);
      TransformResult registers = applyText(k, kTile + staging);
      ASSERT_TRUE(registers.ok()) << registers.reason;
      TransformResult warps = applyText(k, kTile + staging + "mma i,j,k " + shape);
      ASSERT_TRUE(warps.ok()) << warps.reason;
      EXPECT_TRUE(warps.kernel->warpTiles());
      int tiles = 0;
      forEachNode(*warps.kernel->body,
                  [&](const Node& n) { tiles += n.kind == NodeKind::For && n.mapping == Mapping::Mma; });
      EXPECT_EQ(tiles, 3);  // initialise, accumulate, write back
      Buffers in = fillRandom(k, 11);
      Buffers expected = in, actual = in;
      execute(*registers.kernel, expected);
      execute(*warps.kernel, actual);
      EXPECT_EQ(expected.data["C"], actual.data["C"]);  // the same sums in the same order
      Buffers plain = in;
      execute(k, plain);
      Comparison c = compare(k, plain, actual, reductionTolerance(k));
      EXPECT_TRUE(c.ok) << c.firstMismatch;
    }
  }
}

TEST(Mma, RefusesWhatTensorCoresDoNotRun) {
  auto refusal = [](const Kernel& k, const std::string& text) {
    TransformResult r = applyText(k, text);
    return r.ok() ? std::string("applied") : r.reason;
  };
  // Float operands go as tf32 (k 8) alone: mma.sync has no k 16 for them.
  EXPECT_NE(refusal(gemm("float"), kTile + "mma i,j,k 16,8,16").find("mma.sync for float is m16n8k8"),
            std::string::npos);
  EXPECT_NE(refusal(gemm("int"), kTile + "mma i,j,k 16,8,8").find("half, bfloat16, tf32 or float"), std::string::npos);
  EXPECT_NE(refusal(gemm("half"), kTile + "mma i,j,k 16,8,8").find("m16n8k16"), std::string::npos);
  EXPECT_NE(refusal(gemm("half"), kTile + "mma i,j,k 16,16,16").find("shapes"), std::string::npos);
  // The register tile must hold whole 16 x 8 tiles.
  std::string small = "tile i,j 64,64; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; regtile i,j 8,8; ";
  EXPECT_NE(refusal(gemm("half"), small + "mma i,j,k 16,8,16").find("multiple of 16"), std::string::npos);
  // Lanes arranged as a patch hold no fragments; and the step needs a register tile.
  EXPECT_NE(refusal(gemm("half"), kTile + "lanes 4,8; mma i,j,k 16,8,16").find("lanes"), std::string::npos);
  EXPECT_NE(refusal(gemm("half"), "tile i,j 64,64; map i_o grid.y; map j_o grid.x; mma i,j,k 16,8,16"), "applied");
  EXPECT_NE(refusal(gemm("half"), kTile + "mma i,j,k 16,8,16; mma i,j,k 16,8,16").find("warps already"),
            std::string::npos);
}

// examples/conv2d_nhwc_half.loop (half NHWC input, KRSC filters, float output) at small sizes,
// its operands of type `type`.
Kernel nhwcConvolution(const std::map<std::string, int64_t>& sizes, const std::string& type = "half") {
  auto file = common::SourceFile::read(std::string(CUDABURG_EXAMPLES_DIR) + "/conv2d_nhwc_half.loop");
  if (!file) throw std::runtime_error(file.reason());
  std::string text = file->text();
  for (const char* array : {"half In[", "half Wt["}) {
    size_t at = text.find(array);
    if (at == std::string::npos) throw std::runtime_error("the example declares no " + std::string(array));
    text.replace(at, 4, type);
  }
  return testing::kernelFromText(text, sizes);
}

// An implicit GEMM of pixels by filters over r*s*c, both operands gathered a strip at a time into
// rows of the reduction (stored transposed), before the mma step.
std::string implicitGemm(const std::string& tile, const std::string& warp, int64_t strip,
                         const std::string& buffering) {
  std::string d = std::to_string(strip);
  return "collapse r,s,c; collapse n,oh,ow; tile n_oh_ow,k " + tile +
         "; map n_oh_ow_o grid.y; map k_o grid.x; "
         "map n_oh_ow block.y; map k block.x; regtile n_oh_ow,k " +
         warp + "; strip r_s_c " + d +
         "; stage In at r_s_c_o transposed pad 8; stage Wt at r_s_c_o transposed pad 8; " + buffering +
         "unroll r_s_c " + d + "; ";
}

TEST(Mma, ImplicitGemmWarpTilesComputeTheConvolution) {
  // Channels a multiple of 8 (the gathers' 16-byte copies on the GPU), and 3 channels of 4 x 4
  // taps (an element at a time); pixels that fill no whole tile (60, 2 x 7 x 7 = 98).
  const std::vector<std::map<std::string, int64_t>> sizes = {
      {{"N", 2}, {"C", 16}, {"H", 6}, {"W", 5}, {"K", 16}},
      {{"N", 2}, {"C", 3}, {"H", 6}, {"W", 6}, {"K", 24}, {"R", 4}, {"S", 4}, {"P", 2}},
  };
  for (const auto& size : sizes) {
    for (const std::string buffering : {"", "map r_s_c_o pipelined; ", "map r_s_c_o async; "}) {
      SCOPED_TRACE("C = " + std::to_string(size.at("C")) + ": " + buffering);
      Kernel k = nhwcConvolution(size);
      std::string registers = implicitGemm("32,16", "16,8", 16, buffering);
      TransformResult plain = applyText(k, registers);
      ASSERT_TRUE(plain.ok()) << plain.reason;
      TransformResult warps = applyText(k, registers + "mma n_oh_ow,k,r_s_c 16,8,16");
      ASSERT_TRUE(warps.ok()) << warps.reason;
      EXPECT_TRUE(warps.kernel->warpTiles());
      // The gathers hold rows of pixels and of filters, a strip of r*s*c each.
      std::string text = printKernel(*warps.kernel);
      EXPECT_NE(text.find("alloc shared half In_s[32][16]"), std::string::npos) << text;
      EXPECT_NE(text.find("In_s[n_oh_ow - n_oh_ow_o][r_s_c - r_s_c_o]"), std::string::npos) << text;
      EXPECT_NE(text.find("Wt_s[k - k_o][r_s_c - r_s_c_o]"), std::string::npos) << text;
      Buffers in = fillRandom(k, 5);
      Buffers expected = in, actual = in, untransformed = in;
      execute(*plain.kernel, expected);
      execute(*warps.kernel, actual);
      EXPECT_EQ(expected.data["Out"], actual.data["Out"]);  // the same sums in the same order
      execute(k, untransformed);
      Comparison c = compare(k, untransformed, actual, reductionTolerance(k));
      EXPECT_TRUE(c.ok) << c.firstMismatch;
    }
  }
}

TEST(Mma, ImplicitGemmsOfBfloat16AndTf32Operands) {
  for (const auto& [type, shape] : {std::pair{"bfloat16", "16,8,16"}, {"tf32", "16,8,8"}}) {
    SCOPED_TRACE(type);
    Kernel k = nhwcConvolution({{"N", 2}, {"C", 16}, {"H", 5}, {"W", 6}, {"K", 16}}, type);
    TransformResult warps =
        applyText(k, implicitGemm("32,16", "16,8", 16, "map r_s_c_o async; ") + "mma n_oh_ow,k,r_s_c " + shape);
    ASSERT_TRUE(warps.ok()) << warps.reason;
    Buffers in = fillRandom(k, 9);
    Buffers expected = in, actual = in;
    execute(k, expected);
    execute(*warps.kernel, actual);
    Comparison c = compare(k, expected, actual, reductionTolerance(k));
    EXPECT_TRUE(c.ok) << c.firstMismatch;
  }
}

TEST(Mma, PrintsAndParsesBack) {
  common::SourceFile file("recipe", "mma i,j,k 16,8,16\nstage A at k_o pad 8");
  common::Diagnostics diags(file);
  auto recipe = parseRecipe(file, diags);
  ASSERT_TRUE(recipe) << diags.str();
  EXPECT_EQ(printRecipe(*recipe), "mma i,j,k 16,8,16\nstage A at k_o pad 8\n");
}

}  // namespace
}  // namespace cudaburg
