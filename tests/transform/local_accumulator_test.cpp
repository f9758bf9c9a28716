// Nests that keep their sum in a local scalar (`float acc = 0; reduce ... acc += ...; Y = f(acc);`)
// register-tiled with the local as the tile's accumulator, in the local's type, run on the CPU
// executor against the nest as written.
#include <gtest/gtest.h>

#include "src/idioms/epilogue/local_accumulator.hpp"
#include "src/loop/tree_walk.hpp"
#include "src/transform/transforms.hpp"
#include "tests/loop/parse_helper.hpp"
#include "tests/transform/test_kernels.hpp"

namespace cudaburg {
namespace {

using testing::differenceFrom;
using testing::kernelFromText;

Kernel example(const std::string& name, const std::map<std::string, int64_t>& sizes) {
  auto p = test::parseExample(name + ".loop", sizes);
  EXPECT_TRUE(p.kernel) << p.errors();
  return *p.kernel;
}

// The register tile's buffer: the one Register buffer with extents.
const Array* registerTile(const Kernel& k) {
  const Node* alloc = findNode(*k.body, [](const Node& n) {
    return n.kind == NodeKind::Alloc && n.buffer.space == MemorySpace::Register && !n.buffer.extents.empty();
  });
  return alloc ? &alloc->buffer : nullptr;
}

int storesInto(const Kernel& k, const std::string& array) {
  int n = 0;
  forEachNode(*k.body, [&](const Node& node) { n += node.kind == NodeKind::Assign && node.target.array == array; });
  return n;
}

// The CUDA-core recipes the search builds: pipelined strips with vector columns, edges rounded up
// and peeled, and a plain tile; sizes no tile divides.
const char* kRecipes[] = {
    "tile i,j 8,8\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 2,4\n"
    "strip k 4\nstage X at k_o transposed\nstage W at k_o\nmap k_o pipelined\nunroll k 4\nvectorize j 4",
    "tile i,j 16,16\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 2,2\n"
    "strip k 4\nstage X at k_o transposed\nstage W at k_o\nmap k_o pipelined\nunroll k 4\nlanes 4,8\n"
    "roundup\npeel i_o,j_o,k_o",
    "tile i,j 8,8\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 2,2",
};

TEST(LocalAccumulator, LinearLayersAreTiledWithTheLocalAsAccumulator) {
  for (const char* layer : {"linear_gelu", "linear_half"}) {
    Kernel k = example(layer, {{"M", 37}, {"N", 44}, {"K", 9}});
    for (const char* text : kRecipes) {
      std::string errors;
      std::optional<Recipe> recipe = testing::recipeFromText(text, &errors);
      ASSERT_TRUE(recipe) << errors;
      TransformResult r = applyRecipe(k, *recipe);
      ASSERT_TRUE(r.ok()) << layer << "\n" << text << "\n" << r.reason;
      EXPECT_EQ(differenceFrom(k, *r.kernel), "") << layer << "\n" << text;
      EXPECT_EQ(storesInto(*r.kernel, "Y"), 1) << layer;  // one store an output, converted there
      const Array* tile = registerTile(*r.kernel);
      ASSERT_TRUE(tile) << layer;
      EXPECT_EQ(tile->type, ScalarType::Float) << layer;  // the local's fp32, also for the half output
    }
  }
}

// The innermost tiled body of a linear layer whose sum goes into `float acc` and then `rest`.
NodePtr bodyWith(const std::string& rest) {
  Kernel k = kernelFromText(
      "size M = 4, N = 4, K = 4;\n"
      "kernel layer(float Y[M][N], const float X[M][K], const float W[K][N], const float b[N]) {\n"
      "  parallel for (i = 0; i < M; i++)\n"
      "    parallel for (j = 0; j < N; j++) {\n"
      "      float acc = 0;\n"
      "      reduce for (k = 0; k < K; k++)\n"
      "        acc += X[i][k] * W[k][j];\n" +
      rest + "    }\n}\n");
  return k.body->body()->body();
}

TEST(LocalAccumulator, ReadsTheLocalsIntoAnEpilogue) {
  LocalAccumulator local;
  ASSERT_EQ(readLocalAccumulator(bodyWith("      float x = acc + b[j];\n      Y[i][j] = max(x, 0);\n"), local), "");
  std::vector<NodePtr> stmts = flattenSeq(local.body);
  ASSERT_EQ(stmts.size(), 3u);
  EXPECT_EQ(stmts[0]->target.str(), "Y[i][j]");
  EXPECT_EQ(stmts[2]->value->str(), "max((Y[i][j] + b[j]), 0)");
}

TEST(LocalAccumulator, SaysWhyALocalCannotBeTheAccumulator) {
  LocalAccumulator local;
  std::string why = readLocalAccumulator(bodyWith("      Y[i][j] = acc;\n      Y[i][j] = Y[i][j] + acc;\n"), local);
  EXPECT_NE(why.find("read after the output it was computed from is overwritten"), std::string::npos) << why;
  EXPECT_NE(readLocalAccumulator(bodyWith("      Y[i][j] = Y[i][j] + acc;\n"), local).find("before the sum is stored"),
            std::string::npos);
  why = readLocalAccumulator(bodyWith("      float x = acc;\n      x += b[j];\n      Y[i][j] = x;\n"), local);
  EXPECT_NE(why.find("reduces again"), std::string::npos) << why;
}

}  // namespace
}  // namespace cudaburg
