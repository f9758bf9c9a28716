// A split reduction's parts combined in a workspace (split ... workspace): each part stores its
// sums into its slice, the last part of a tile to arrive adds the slices up in the parts' order and
// resets its tile's counter; the outputs take no atomics and need no zeroing before the launch.
#include <gtest/gtest.h>

#include "src/loop/parser.hpp"
#include "src/transform/recipe.hpp"
#include "tests/cuda/emitted_example.hpp"

namespace cudaburg {
namespace {

const std::string kTiles =
    "tile i,j 64,64; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; regtile i,j 8,4; strip k 16; "
    "stage A at k_o transposed; stage B at k_o; map k_o pipelined; unroll k 16; ";

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(EmitSplitCombine, PartsStoreTheirSumsAndTheLastAddsThemUpInOrder) {
  auto k = testing::emittedKernel("matmul.loop", {{"M", 100}, {"N", 200}, {"K", 300}},
                                  "split k 3 workspace; map k_s grid.z; " + kTiles);
  ASSERT_TRUE(k);
  const std::string& src = k->source;
  // Grid (4, 2, 3): a counter a tile, a slice of C a part; nothing to zero before the launch.
  ASSERT_EQ(k->workspaces.size(), 2u);
  EXPECT_EQ(k->workspaces[0].name, "split_arrivals");
  EXPECT_EQ(k->workspaces[0].type, ScalarType::Int);
  EXPECT_EQ(k->workspaces[0].elements, 8);
  EXPECT_EQ(k->workspaces[1].name, "C_parts");
  EXPECT_EQ(k->workspaces[1].type, ScalarType::Float);
  EXPECT_EQ(k->workspaces[1].elements, 3 * 100 * 200);
  EXPECT_TRUE(k->zeroFirst.empty());
  EXPECT_NE(src.find("const float* __restrict__ B, int* __restrict__ split_arrivals, float* __restrict__ C_parts)"),
            std::string::npos)
      << src;
  EXPECT_EQ(src.find("atomicAdd(&C["), std::string::npos) << src;
  EXPECT_NE(src.find("C_parts[20000 * split_part + 200*i + j] = C_r[i_u][j_u];"), std::string::npos) << src;
  EXPECT_NE(src.find("split_last = atomicAdd(&split_arrivals[blockIdx.x + 4 * blockIdx.y], 1) == 2;"),
            std::string::npos);
  EXPECT_NE(src.find("split_sum += part == split_part ? C_r[i_u][j_u] : __ldcg(&C_parts[20000 * part + 200*i + j]);"),
            std::string::npos);
  EXPECT_NE(src.find("C[200*i + j] = split_sum;"), std::string::npos);
  EXPECT_NE(src.find("split_arrivals[blockIdx.x + 4 * blockIdx.y] = 0;"), std::string::npos);
  // The stores, then the fence and the barrier before the arrival is counted.
  size_t store = src.find("C_parts[20000 * split_part"), fence = src.find("__threadfence();"),
         arrival = src.find("split_last = atomicAdd");
  EXPECT_LT(store, fence);
  EXPECT_LT(fence, arrival);
}

TEST(EmitSplitCombine, PeeledTilesCombineInBothCopies) {
  auto k = testing::emittedKernel("matmul.loop", {{"M", 127}, {"N", 4099}, {"K", 513}},
                                  "split k 2 workspace; map k_s grid.z; " + kTiles + "roundup; peel i_o,j_o,k_o");
  ASSERT_TRUE(k);
  EXPECT_EQ(count(k->source, "split_last = atomicAdd"), 2u) << k->source;
  EXPECT_EQ(k->workspaces.size(), 2u);  // declared once for both copies
}

TEST(EmitSplitCombine, VectorizedColumnsCombineLaneByLane) {
  auto k = testing::emittedKernel("matmul.loop", {{"M", 1000}, {"N", 1000}, {"K", 1000}},
                                  "split k 2 workspace; map k_s grid.z; " + kTiles + "vectorize j 4");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->source.find("atomicAdd(&C["), std::string::npos) << k->source;
  EXPECT_NE(k->source.find("C_parts[1000000 * split_part + 1000*i + j_o2 + 3] = C_r[i_u][3];"), std::string::npos)
      << k->source;
  EXPECT_NE(k->source.find("C[1000*i + j_o2 + 3] = split_sum;"), std::string::npos);
}

TEST(EmitSplitCombine, UpdatedOutputsGetTheSumAdded) {
  // C is read as well as accumulated into (no zero initialisation): the sum is added to it.
  common::SourceFile file("update.loop", R"(size M = 64, N = 64, K = 128;
kernel update(float C[M][N], const float A[M][K], const float B[K][N]) {
  parallel for (i = 0; i < M; i++)
    parallel for (j = 0; j < N; j++)
      reduce for (k = 0; k < K; k++)
        C[i][j] += A[i][k] * B[k][j];
}
)");
  common::Diagnostics diags(file);
  auto kernel = parseLoopFile(file, diags);
  ASSERT_TRUE(kernel) << diags.str();
  common::SourceFile recipeFile("recipe", "split k 2 workspace; map k_s grid.z; " + kTiles);
  common::Diagnostics recipeDiags(recipeFile);
  auto recipe = parseRecipe(recipeFile, recipeDiags);
  ASSERT_TRUE(recipe) << recipeDiags.str();
  TransformResult t = applyRecipe(*kernel, *recipe);
  ASSERT_TRUE(t.ok()) << t.reason;
  EmitResult e = emitKernel(*t.kernel);
  ASSERT_TRUE(e.ok()) << e.reason;
  EXPECT_NE(e.kernel->source.find("C[64*i + j] += split_sum;"), std::string::npos) << e.kernel->source;
}

TEST(EmitSplitCombine, RefusedWherePartsAreNotOnGridZ) {
  EmitResult e = testing::emitExample("matmul.loop", {{"M", 64}, {"N", 64}, {"K", 256}},
                                      "split k 2 workspace; map k_s grid.y; tile i,j 64,64; map i_o grid.z; "
                                      "map j_o grid.x; map i block.y; map j block.x; regtile i,j 8,4");
  EXPECT_FALSE(e.ok());
  EXPECT_NE(e.reason.find("grid.z"), std::string::npos) << e.reason;
}

TEST(EmitSplitCombine, RefusedOnTensorCores) {
  EmitResult e = testing::emitExample("hgemm.loop", {{"M", 512}, {"N", 512}, {"K", 512}},
                                      "split k 2 workspace; map k_s grid.z; tile i,j 128,128; map i_o grid.y; "
                                      "map j_o grid.x; map i block.y; map j block.x; regtile i,j 64,64; strip k 32; "
                                      "stage A at k_o pad 8; stage B at k_o pad 8; map k_o async; unroll k 32; "
                                      "mma i,j,k 16,8,16");
  EXPECT_FALSE(e.ok());
  EXPECT_NE(e.reason.find("register tiles"), std::string::npos) << e.reason;
}

TEST(EmitSplitCombine, AtomicSplitsAreWrittenAsBefore) {
  auto k = testing::emittedKernel("matmul.loop", {{"M", 100}, {"N", 200}, {"K", 300}},
                                  "split k 3; map k_s grid.z; " + kTiles);
  ASSERT_TRUE(k);
  EXPECT_TRUE(k->workspaces.empty());
  EXPECT_EQ(k->zeroFirst, std::vector<std::string>{"C"});
  EXPECT_NE(k->source.find("atomicAdd(&C[200*i + j], C_r[i_u][j_u]);"), std::string::npos);
}

}  // namespace
}  // namespace cudaburg
