// Each transformation: the structure of its result, a refusal with its reason, and the result
// computing what the original computes (through the CPU executor).
#include <gtest/gtest.h>

#include <functional>

#include "common/diagnostics.hpp"
#include "src/loop/pipeline.hpp"
#include "src/loop/printer.hpp"
#include "src/transform/loop_facts.hpp"
#include "src/transform/loop_names.hpp"
#include "src/transform/mapped_tree_check.hpp"
#include "src/transform/recipe.hpp"
#include "src/transform/transforms.hpp"
#include "src/transform/tree_edit.hpp"
#include "tests/transform/test_kernels.hpp"

namespace cudaburg {
namespace {

using testing::applied;
using testing::countLoops;
using testing::differenceFrom;
using testing::findLoop;
using testing::kernelFromText;
using testing::smallExample;

// The loop indices along the first path of loops from the root, outermost first.
std::string loopPath(const Kernel& k) {
  std::string s;
  NodePtr n = k.body;
  while (true) {
    if (n->kind == NodeKind::For) {
      s += (s.empty() ? "" : " ") + n->index;
      n = n->body();
    } else if (n->kind == NodeKind::Alloc) {
      n = n->body();
    } else if (n->kind == NodeKind::Seq) {
      n = n->kids[1];  // past an initialisation, to the loop that follows
    } else {
      return s;
    }
  }
}

void expectRefusal(const TransformResult& r, const std::string& words) {
  ASSERT_FALSE(r.ok()) << printKernel(*r.kernel);
  EXPECT_NE(r.reason.find(words), std::string::npos) << r.reason;
}

int countNodes(const Kernel& k, NodeKind kind) {
  int n = 0;
  walk(k.body, [&](const NodePtr& node, const Ancestors&) { n += node->kind == kind; });
  return n;
}

// The standard block form of matmul: 8x8 tiles on the grid, a thread an element.
Kernel mappedMatmul(const Kernel& k) {
  Kernel t = applied(tile(k, {"i", "j"}, {8, 8}));
  t = applied(mapLoop(t, "i_o", Mapping::GridY));
  t = applied(mapLoop(t, "j_o", Mapping::GridX));
  t = applied(mapLoop(t, "i", Mapping::BlockY));
  return applied(mapLoop(t, "j", Mapping::BlockX));
}

TEST(StripMine, MakesAStripLoopAndAnElementLoopWithAMinBound) {
  Kernel k = smallExample("matmul");  // M = 37
  Kernel t = applied(stripMine(k, "i", 8));
  EXPECT_EQ(loopPath(t), "i_o i j k");
  const Node* outer = findLoop(t, "i_o");
  EXPECT_EQ(outer->step, 8);
  EXPECT_EQ(outer->upper, std::vector<Affine>{Affine(37)});
  const Node* inner = findLoop(t, "i");
  EXPECT_EQ(inner->lower, Affine::var("i_o"));
  EXPECT_EQ(inner->upper, (std::vector<Affine>{Affine::var("i_o") + Affine(8), Affine(37)}));
  EXPECT_EQ(constantTripCount(*inner), 8);
  EXPECT_EQ(differenceFrom(k, t), "");
}

TEST(StripMine, DividingFactorNeedsNoMinAndNamesStayFresh) {
  Kernel k = testing::intMatmul(12, 5, 3);
  Kernel t = applied(stripMine(k, "i", 4));
  EXPECT_EQ(findLoop(t, "i")->upper.size(), 1u);
  Kernel twice = applied(stripMine(t, "i", 2));
  EXPECT_EQ(loopPath(twice), "i_o i_o2 i j k");
  EXPECT_EQ(differenceFrom(k, twice), "");
}

TEST(StripMine, Refuses) {
  Kernel k = smallExample("matmul");
  expectRefusal(stripMine(k, "i", 1), "at least 2");
  expectRefusal(stripMine(k, "q", 4), "no loop over index q");
}

TEST(Tile, MovesTheStripLoopsOutside) {
  Kernel k = smallExample("matmul");
  Kernel t = applied(tile(k, {"i", "j"}, {8, 5}));
  EXPECT_EQ(loopPath(t), "i_o j_o i j k");
  EXPECT_EQ(findLoop(t, "j_o")->step, 5);
  EXPECT_EQ(differenceFrom(k, t), "");
  Kernel conv = smallExample("conv2d");
  Kernel c = applied(tile(conv, {"n", "k", "oh", "ow"}, {2, 3, 2, 4}));
  EXPECT_EQ(loopPath(c), "n_o k_o oh_o ow_o n k oh ow c r s");
  EXPECT_EQ(differenceFrom(conv, c), "");
}

// A transformation that makes loops uses the names it is given, and refuses a name the kernel
// uses, a name given twice, or the wrong number of names.
TEST(NewLoopNames, TransformationsUseTheNamesGiven) {
  Kernel k = smallExample("matmul");
  Kernel s = applied(stripMine(k, "i", 8, {"ib"}));
  EXPECT_EQ(loopPath(s), "ib i j k");
  Kernel t = applied(tile(k, {"i", "j"}, {8, 5}, {"bi", "bj"}));
  EXPECT_EQ(loopPath(t), "bi bj i j k");
  EXPECT_EQ(differenceFrom(k, t), "");
  Kernel u = applied(unroll(k, "k", 4, {"k4"}));
  EXPECT_EQ(loopPath(u), "i j k4 k");
  Kernel axpy = testing::kernelFromText(
      "size M = 6, N = 16;\n"
      "kernel axpy(float Y[M][N], const float X[M][N]) {\n"
      "  parallel for (i = 0; i < M; i++) parallel for (j = 0; j < N; j++) Y[i][j] = X[i][j] + Y[i][j];\n"
      "}\n");
  EXPECT_EQ(loopPath(applied(vectorize(axpy, "j", 4, {"jv"}))), "i jv j");
  Kernel p = applied(splitReduction(k, "k", 2, {"part"}));
  EXPECT_EQ(loopPath(p), "part i j k");
  EXPECT_EQ(differenceFrom(k, p), "");
  Kernel m = mappedMatmul(k);
  Kernel r = applied(registerTile(m, {"i", "j"}, {2, 2}, {"ti", "tj"}));
  EXPECT_EQ(countLoops(r, "ti"), 3);  // initialise, accumulate, write back
  EXPECT_EQ(countLoops(r, "i_o2"), 0);
  EXPECT_EQ(differenceFrom(k, r), "");
  // A loop short enough is unrolled in place: the name is not used.
  Kernel inPlace = applied(unroll(applied(stripMine(k, "k", 4)), "k", 4, {"unused"}));
  EXPECT_EQ(countLoops(inPlace, "unused"), 0);
}

TEST(NewLoopNames, ANameTakenOrGivenTwiceIsRefused) {
  Kernel k = smallExample("matmul");
  expectRefusal(stripMine(k, "i", 8, {"j"}), "the new loop cannot be named j: a loop of the kernel has that name");
  expectRefusal(tile(k, {"i", "j"}, {8, 8}, {"bi", "A"}), "cannot be named A: an array of the kernel");
  expectRefusal(splitReduction(k, "k", 2, {"K"}), "cannot be named K: a size of the kernel");
  expectRefusal(tile(k, {"i", "j"}, {8, 8}, {"b", "b"}), "two new loops cannot both be named b");
  expectRefusal(tile(k, {"i", "j"}, {8, 8}, {"b"}), "2 new loops are given 1 name");
  Kernel m = mappedMatmul(k);
  Kernel r = applied(registerTile(m, {"i", "j"}, {2, 2}));
  expectRefusal(unroll(r, "k", 4, {"C_r"}), "cannot be named C_r: a buffer of the kernel");
}

// Without names, the rule names them: <loop>_o (a split's part loop <loop>_s), made fresh.
TEST(NewLoopNames, TheRuleNamesWhatIsNotNamed) {
  EXPECT_EQ(defaultLoopNames(StepKind::Tile, {"i", "j"}, {"i_o", "j_o", "j_o2"}),
            (std::vector<std::string>{"i_o2", "j_o3"}));
  EXPECT_EQ(defaultLoopNames(StepKind::Split, {"k"}, {}), std::vector<std::string>{"k_s"});
  EXPECT_EQ(defaultLoopNames(StepKind::StripMine, {"i"}, {"i_o", "i_o2"}), std::vector<std::string>{"i_o3"});
  Kernel k = smallExample("matmul");
  EXPECT_EQ(loopPath(applied(tile(applied(tile(k, {"i", "j"}, {8, 8})), {"i", "j"}, {4, 4}))),
            "i_o j_o i_o2 j_o2 i j k");
}

TEST(Tile, RefusesWhatIsNotAPerfectNest) {
  Kernel k = smallExample("matmul");
  expectRefusal(tile(k, {"i", "k"}, {4, 4}), "perfect nest");
  expectRefusal(tile(k, {"i", "j"}, {4}), "one factor a loop");
}

TEST(Unroll, StripMinesAndUnrollsTheElementLoop) {
  Kernel k = smallExample("matmul");  // K = 23: a remainder strip
  Kernel t = applied(unroll(k, "k", 4));
  EXPECT_EQ(findLoop(t, "k")->mapping, Mapping::Unrolled);
  EXPECT_EQ(findLoop(t, "k_o")->mapping, Mapping::None);
  EXPECT_EQ(differenceFrom(k, t), "");
  Kernel corr = smallExample("correlate2d");  // TW = 4: unrolled in place
  Kernel u = applied(unroll(corr, "v", 4));
  EXPECT_EQ(countLoops(u, "v_o"), 0);
  EXPECT_EQ(findLoop(u, "v")->mapping, Mapping::Unrolled);
  EXPECT_EQ(differenceFrom(corr, u), "");
}

TEST(Unroll, UnrollsAUniformLoopAroundBlockLoops) {
  Kernel k = smallExample("matmul");
  Kernel m = mappedMatmul(k);
  Kernel t = applied(unroll(m, "j_o", 2));  // a block does two tiles, one after the other
  EXPECT_EQ(findLoop(t, "j_o_o")->mapping, Mapping::GridX);
  EXPECT_EQ(findLoop(t, "j_o")->mapping, Mapping::Unrolled);
  EXPECT_EQ(differenceFrom(k, t), "");
}

TEST(Unroll, Refuses) {
  Kernel k = smallExample("matmul");
  expectRefusal(unroll(k, "k", 1), "at least 2");
  Kernel v = testing::kernelFromText(
      "size N = 8;\n"
      "kernel copy(float Y[N], const float X[N]) { parallel for (j = 0; j < N; j++) Y[j] = X[j]; }\n");
  expectRefusal(unroll(applied(vectorize(v, "j", 4)), "j", 2), "already a vector loop");
}

TEST(Interchange, SwapsAdjacentLoops) {
  Kernel k = smallExample("matmul");
  Kernel t = applied(interchange(k, "i", "j"));
  EXPECT_EQ(loopPath(t), "j i k");
  EXPECT_EQ(differenceFrom(k, t), "");
}

TEST(Interchange, Refuses) {
  Kernel k = smallExample("matmul");
  expectRefusal(interchange(k, "i", "k"), "not the whole body");
  Kernel s = applied(stripMine(k, "i", 4));
  expectRefusal(interchange(s, "i_o", "i"), "use i_o");
  Kernel serial = testing::kernelFromText(
      "size N = 8;\n"
      "kernel scan(float A[N][N]) {\n"
      "  for (t = 1; t < N; t++)\n"
      "    parallel for (i = 0; i < N - 1; i++) A[t][i] = A[t - 1][i + 1] * 2;\n"
      "}\n");
  expectRefusal(interchange(serial, "t", "i"), "dependence");
  Kernel free = testing::kernelFromText(
      "size N = 8;\n"
      "kernel rows(float A[N][N], const float B[N][N]) {\n"
      "  for (t = 0; t < N; t++)\n"
      "    for (i = 0; i < N; i++) A[t][i] = B[i][t] * 2;\n"
      "}\n");
  EXPECT_EQ(differenceFrom(free, applied(interchange(free, "t", "i"))), "");  // the analysis allows it
}

TEST(Distribute, SplitsTheInitialisationFromTheReduction) {
  Kernel k = smallExample("matmul");
  Kernel t = applied(distribute(k, "j"));
  EXPECT_EQ(countLoops(t, "j"), 2);
  std::vector<NodePtr> stmts = flattenSeq(findLoop(t, "i")->body());
  ASSERT_EQ(stmts.size(), 2u);
  EXPECT_EQ(stmts[0]->body()->kind, NodeKind::Assign);
  EXPECT_EQ(stmts[1]->body()->kind, NodeKind::For);
  EXPECT_EQ(differenceFrom(k, t), "");
  // Then the reduction loop can move outward.
  Kernel u = applied(interchange(t, "j", "k"));
  EXPECT_EQ(differenceFrom(k, u), "");
}

TEST(Distribute, Refuses) {
  Kernel k = smallExample("matmul");
  expectRefusal(distribute(k, "k"), "single statement");
  Kernel two = testing::kernelFromText(
      "size N = 8;\n"
      "kernel two(float S[2], const float A[N]) {\n"
      "  reduce for (i = 0; i < N; i++) { S[0] += A[i]; S[1] += A[i] * A[i]; }\n"
      "}\n");
  // A reduce loop's statements may be split when nothing flows back between them.
  EXPECT_EQ(differenceFrom(two, applied(distribute(two, "i"))), "");
  Kernel back = testing::kernelFromText(
      "size N = 8;\n"
      "kernel back(float A[N], float B[N]) {\n"
      "  for (i = 1; i < N; i++) { A[i] = B[i - 1] + 1; B[i] = A[i] * 2; }\n"
      "}\n");
  expectRefusal(distribute(back, "i"), "carries a dependence back");
  Kernel forward = testing::kernelFromText(
      "size N = 8;\n"
      "kernel fwd(float A[N], float B[N]) {\n"
      "  for (i = 1; i < N; i++) { A[i] = B[i] + 1; B[i] = A[i - 1] * 2; }\n"
      "}\n");
  EXPECT_EQ(differenceFrom(forward, applied(distribute(forward, "i"))), "");
}

TEST(Map, MarksLoopsAndChecksTheModel) {
  Kernel k = smallExample("matmul");
  Kernel t = mappedMatmul(k);
  EXPECT_EQ(findLoop(t, "i_o")->mapping, Mapping::GridY);
  EXPECT_EQ(findLoop(t, "j")->mapping, Mapping::BlockX);
  EXPECT_EQ(checkMappedTree(t), "");
  EXPECT_EQ(differenceFrom(k, t), "");
}

TEST(Map, RefusesWhatBreaksTheModel) {
  Kernel k = smallExample("matmul");
  expectRefusal(mapLoop(k, "k", Mapping::GridX), "reduce");
  expectRefusal(mapLoop(k, "j", Mapping::GridX), "outermost");
  Kernel b = applied(mapLoop(k, "i", Mapping::BlockX));
  expectRefusal(mapLoop(b, "j", Mapping::BlockX), "already used");
  Kernel s = applied(stripMine(k, "i", 8));
  expectRefusal(mapLoop(s, "i", Mapping::GridX), "outermost");
  expectRefusal(mapLoop(mappedMatmul(k), "j_o", Mapping::ThreadSerial), "inside the thread-level loop j_o");
}

TEST(Stage, StagesOperandsOfARegisterTiledMatmul) {
  Kernel k = smallExample("matmul");
  Kernel t = applied(registerTile(mappedMatmul(k), {"i", "j"}, {2, 2}));
  t = applied(stripMine(t, "k", 4));
  t = applied(stage(t, "A", "k_o"));
  t = applied(stage(t, "B", "k_o"));
  EXPECT_EQ(countNodes(t, NodeKind::Stage), 2);
  EXPECT_EQ(countNodes(t, NodeKind::Barrier), 2);  // the second stage joins the first
  const Node* a = nullptr;
  walk(t.body, [&](const NodePtr& n, const Ancestors&) {
    if (n->kind == NodeKind::Stage && n->source == "A") a = n.get();
  });
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->buffer.name, "A_s");
  EXPECT_EQ(a->buffer.extents, (std::vector<int64_t>{8, 4}));  // the block's 8 rows, 4 steps of k
  EXPECT_EQ(a->origin, (std::vector<Affine>{Affine::var("i_o"), Affine::var("k_o")}));
  EXPECT_EQ(checkMappedTree(t), "");
  EXPECT_EQ(differenceFrom(k, t), "");
}

TEST(Stage, StagesAPaddedImageWithItsHalo) {
  Kernel k = smallExample("conv2d");  // stride 2, padding 1, 3x3 taps
  Kernel t = applied(tile(k, {"oh", "ow"}, {2, 2}));
  t = applied(stage(t, "In", "ow_o"));
  const Node* s = nullptr;
  walk(t.body, [&](const NodePtr& n, const Ancestors&) {
    if (n->kind == NodeKind::Stage) s = n.get();
  });
  ASSERT_NE(s, nullptr);
  // 2 outputs at stride 2 with 3 taps: 2*1 + 2 + 1 = 5 rows and columns, all channels.
  EXPECT_EQ(s->buffer.extents, (std::vector<int64_t>{1, 3, 5, 5}));
  EXPECT_EQ(differenceFrom(k, t), "");
}

TEST(Stage, StagesTransposed) {
  Kernel k = smallExample("matmul");  // uneven sizes: partial tiles and a partial last strip of k
  Kernel t = applied(registerTile(mappedMatmul(k), {"i", "j"}, {2, 2}));
  t = applied(stripMine(t, "k", 4));
  t = applied(stage(t, "A", "k_o", true));
  t = applied(stage(t, "B", "k_o"));
  const Node* a = nullptr;
  const Node* alloc = nullptr;
  walk(t.body, [&](const NodePtr& n, const Ancestors&) {
    if (n->kind == NodeKind::Stage && n->source == "A") a = n.get();
    if (n->kind == NodeKind::Alloc && n->buffer.name == "A_s") alloc = n.get();
  });
  ASSERT_NE(a, nullptr);
  ASSERT_NE(alloc, nullptr);
  EXPECT_EQ(a->buffer.extents, (std::vector<int64_t>{4, 8}));  // 4 steps of k, the block's 8 rows
  EXPECT_EQ(a->layout, (std::vector<int>{1, 0}));
  EXPECT_EQ(alloc->buffer.extents, (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(alloc->layout, (std::vector<int>{1, 0}));
  EXPECT_EQ(a->origin, (std::vector<Affine>{Affine::var("i_o"), Affine::var("k_o")}));  // in A's order
  bool swapped = false;  // the reads of A become A_s[k - k_o][i - i_o]
  walk(t.body, [&](const NodePtr& n, const Ancestors&) {
    if (n->kind != NodeKind::Assign) return;
    std::function<void(const ExprPtr&)> find = [&](const ExprPtr& e) {
      if (e->kind == Expr::Kind::Load && e->load.array == "A_s")
        swapped = e->load.subscripts[0].uses("k") && e->load.subscripts[1].uses("i");
      for (const auto& arg : e->args) find(arg);
    };
    find(n->value);
  });
  EXPECT_TRUE(swapped) << printKernel(t);
  EXPECT_NE(printKernel(t).find("transposed"), std::string::npos) << printKernel(t);
  EXPECT_EQ(checkMappedTree(t), "");
  EXPECT_EQ(differenceFrom(k, t), "");
  // Staged transposed at a loop where the box is the whole strip of A: the same results.
  Kernel u = applied(stage(applied(stripMine(k, "k", 8)), "A", "k_o", true));
  EXPECT_EQ(differenceFrom(k, u), "");
}

TEST(Stage, TransposesTheLastTwoDimensionsOfABatchOfMatrices) {
  // matmul_bt's A[b][i][k] and B[b][j][k] staged as A_s[1][k][i] and B_s[1][k][j]: a thread's rows
  // side by side, as a 2-D product's are.
  Kernel k = smallExample("matmul_bt");
  const char* steps =
      "map b grid.z; tile i,j 4,4; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; "
      "regtile i,j 2,2; strip k 4; stage A at k_o transposed; stage B at k_o transposed";
  common::SourceFile file("recipe", steps);
  common::Diagnostics diags(file);
  auto recipe = parseRecipe(file, diags);
  ASSERT_TRUE(recipe) << diags.str();
  Kernel t = applied(applyRecipe(k, *recipe));
  const Node* a = nullptr;
  walk(t.body, [&](const NodePtr& n, const Ancestors&) {
    if (n->kind == NodeKind::Stage && n->source == "A") a = n.get();
  });
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->layout, (std::vector<int>{0, 2, 1}));
  EXPECT_EQ(a->buffer.extents, (std::vector<int64_t>{1, 4, 4}));
  EXPECT_EQ(differenceFrom(k, t), "");
  // A convolution's 4-D input: the same, its last two dimensions swapped.
  Kernel c = smallExample("conv2d");
  Kernel u = applied(tile(c, {"oh", "ow"}, {2, 2}));
  EXPECT_EQ(differenceFrom(c, applied(stage(u, "In", "ow_o", true))), "");
}

TEST(Stage, RefusesTransposingA1dArray) {
  Kernel k = kernelFromText(
      "size N = 8;\nkernel dot(float Y[1], const float X[N]) {\n  parallel for (i = 0; i < 1; i++) {\n"
      "    Y[i] = 0;\n    reduce for (n = 0; n < N; n++)\n      Y[i] += X[n] * X[n];\n  }\n}\n");
  expectRefusal(stage(applied(stripMine(k, "n", 4)), "X", "n_o", true), "only an array of 2 or more");
}

TEST(Stage, Refuses) {
  Kernel k = smallExample("matmul");
  expectRefusal(stage(k, "C", "k"), "written inside");
  expectRefusal(stage(k, "Z", "k"), "not an array parameter");
  Kernel m = mappedMatmul(k);
  expectRefusal(stage(m, "A", "k"), "block");
  Kernel wide = testing::kernelFromText(
      "size M = 4, K = 60000;\n"
      "kernel rowsum(float S[M], const float A[M][K]) {\n"
      "  parallel for (i = 0; i < M; i++) { S[i] = 0; reduce for (k = 0; k < K; k++) S[i] += A[i][k]; }\n"
      "}\n");
  expectRefusal(stage(wide, "A", "i"), "bytes of shared memory");
}

TEST(Pipeline, MarksAStagedStripLoop) {
  Kernel k = smallExample("matmul");  // uneven sizes: a partial last strip
  Kernel t = applied(registerTile(mappedMatmul(k), {"i", "j"}, {2, 2}));
  t = applied(stripMine(t, "k", 4));
  t = applied(stage(t, "A", "k_o", true));
  t = applied(stage(t, "B", "k_o"));
  Kernel p = applied(mapLoop(t, "k_o", Mapping::Pipelined));
  EXPECT_EQ(findLoop(p, "k_o")->mapping, Mapping::Pipelined);
  PipelineParts parts = pipelineParts(*findLoop(p, "k_o"));
  ASSERT_TRUE(parts.ok()) << parts.problem;
  EXPECT_EQ(parts.buffers.size(), 2u);
  EXPECT_EQ(parts.stages.size(), 2u);
  EXPECT_EQ(parts.work.size(), 1u);  // the k loop
  EXPECT_EQ(checkMappedTree(p), "");
  EXPECT_EQ(differenceFrom(k, p), "");  // the same meaning as the plain loop
  // Unrolling the strip's own loop afterwards keeps the shape.
  EXPECT_EQ(differenceFrom(k, applied(unroll(p, "k", 4))), "");
  // Pipelined asynchronously: the same shape, the same meaning.
  Kernel a = applied(mapLoop(t, "k_o", Mapping::AsyncPipelined));
  EXPECT_EQ(std::string(mappingName(findLoop(a, "k_o")->mapping)), "async");
  EXPECT_EQ(differenceFrom(k, a), "");
}

TEST(Pipeline, Refuses) {
  Kernel k = smallExample("matmul");
  Kernel t = applied(registerTile(mappedMatmul(k), {"i", "j"}, {2, 2}));
  t = applied(stripMine(t, "k", 4));
  expectRefusal(mapLoop(t, "k_o", Mapping::Pipelined), "does not start with shared buffers");
  expectRefusal(mapLoop(t, "k_o", Mapping::AsyncPipelined), "does not start with shared buffers");
  expectRefusal(mapLoop(t, "j", Mapping::Pipelined), "runs alike in every thread");
  Kernel s = applied(stage(t, "A", "k_o"));
  Kernel p = applied(mapLoop(s, "k_o", Mapping::Pipelined));
  expectRefusal(stage(p, "B", "k_o"), "stage everything first");
  expectRefusal(stage(p, "B", "k"), "stage everything first");
}

TEST(RegisterTile, KeepsAccumulatorsInRegisters) {
  Kernel k = smallExample("matmul");
  Kernel t = applied(registerTile(mappedMatmul(k), {"i", "j"}, {2, 4}));
  ASSERT_EQ(t.body->body()->body()->kind, NodeKind::Alloc);  // under the two grid loops
  const Array& reg = t.body->body()->body()->buffer;
  EXPECT_EQ(reg.name, "C_r");
  EXPECT_EQ(reg.space, MemorySpace::Register);
  EXPECT_EQ(reg.extents, (std::vector<int64_t>{2, 4}));
  std::vector<NodePtr> phases = flattenSeq(t.body->body()->body()->body());
  ASSERT_EQ(phases.size(), 3u);
  EXPECT_EQ(phases[1]->index, "k");  // the reduction runs outside the thread loops
  EXPECT_EQ(countLoops(t, "i_o2"), 3);
  EXPECT_EQ(findLoop(t, "i_o2")->mapping, Mapping::BlockY);
  EXPECT_EQ(findLoop(t, "i")->mapping, Mapping::Unrolled);
  EXPECT_EQ(checkMappedTree(t), "");
  EXPECT_EQ(differenceFrom(k, t), "");
  Kernel ik = testing::intMatmul(19, 21, 5);
  EXPECT_EQ(differenceFrom(ik, applied(registerTile(mappedMatmul(ik), {"i", "j"}, {3, 2}))), "");
}

TEST(RegisterTile, Refuses) {
  Kernel k = smallExample("matmul");
  expectRefusal(registerTile(k, {"i", "j"}, {2, 2}), "not mapped to block threads");
  Kernel m = mappedMatmul(k);
  expectRefusal(registerTile(m, {"j", "i"}, {2, 2}), "perfect nest");
  Kernel t = applied(registerTile(m, {"i", "j"}, {2, 2}));
  // A thread loop split further would share one tile of registers among several tiles of C.
  expectRefusal(stripMine(t, "i_o2", 2), "not tied to a block thread");
  expectRefusal(mapLoop(t, "j_o2", Mapping::None), "not tied to a block thread");
  EXPECT_EQ(differenceFrom(k, applied(unroll(t, "k", 3))), "");  // the element loops and k stay free
  // Its last block loop unmapped, the kernel would run every tile through one thread's registers.
  Kernel one = applied(registerTile(applied(mapLoop(k, "j", Mapping::BlockX)), {"j"}, {2}));
  expectRefusal(mapLoop(one, "j_o", Mapping::None), "register buffer C_r is used outside the block loops");
}

TEST(Vectorize, MakesAContiguousInnerLoopWide) {
  Kernel k = testing::kernelFromText(
      "size M = 6, N = 16;\n"
      "kernel axpy(float Y[M][N], const float X[M][N], const float a[M]) {\n"
      "  parallel for (i = 0; i < M; i++) parallel for (j = 0; j < N; j++) Y[i][j] = a[i] * X[i][j] + Y[i][j];\n"
      "}\n");
  Kernel t = applied(vectorize(k, "j", 4));
  EXPECT_EQ(findLoop(t, "j")->mapping, Mapping::Vector);
  EXPECT_EQ(findLoop(t, "j_o")->step, 4);
  EXPECT_EQ(differenceFrom(k, t), "");
}

TEST(Vectorize, Refuses) {
  Kernel k = smallExample("matmul");  // N = 29
  expectRefusal(vectorize(k, "j", 4), "not innermost");
  Kernel d = applied(interchange(applied(distribute(k, "j")), "j", "k"));
  expectRefusal(vectorize(d, "j", 4), "multiple of 4");
  expectRefusal(vectorize(d, "j", 3), "2 or 4");
  Kernel transpose = testing::kernelFromText(
      "size N = 8;\n"
      "kernel tr(float Y[N][N], const float X[N][N]) {\n"
      "  parallel for (i = 0; i < N; i++) parallel for (j = 0; j < N; j++) Y[i][j] = X[j][i];\n"
      "}\n");
  expectRefusal(vectorize(transpose, "j", 2), "not contiguous");
}

TEST(SplitReduction, SplitsIntoAtomicParts) {
  Kernel k = smallExample("matmul");  // K = 23 over 3 parts: 8, 8, 7
  Kernel t = applied(splitReduction(k, "k", 3));
  EXPECT_EQ(loopPath(t), "k_s i j k");
  EXPECT_EQ(findLoop(t, "k_s")->step, 8);
  EXPECT_EQ(t.zeroFirst, std::vector<std::string>{"C"});
  bool allAtomic = true;
  walk(t.body, [&](const NodePtr& n, const Ancestors&) {
    if (n->kind == NodeKind::Assign) allAtomic &= n->atomic && n->accumulate;
  });
  EXPECT_TRUE(allAtomic);
  EXPECT_EQ(differenceFrom(k, t), "");
  Kernel conv = smallExample("conv3d");
  EXPECT_EQ(differenceFrom(conv, applied(splitReduction(conv, "a", 2))), "");
  // With registers: each part's tile is summed in registers, then added atomically once.
  Kernel g = applied(mapLoop(t, "k_s", Mapping::GridZ));
  Kernel r = applied(registerTile(mappedMatmul(g), {"i", "j"}, {2, 2}));
  int atomicWrites = 0;
  walk(r.body, [&](const NodePtr& n, const Ancestors&) {
    if (n->kind == NodeKind::Assign && n->atomic) atomicWrites += n->target.array == "C" ? 1 : 100;
  });
  EXPECT_EQ(atomicWrites, 1);
  EXPECT_EQ(differenceFrom(k, r), "");
}

TEST(SplitReduction, PartsMeetInAWorkspaceOnlyWhereItFits) {
  // The tree is the same as the atomic split's: only how the GPU combines the parts changes.
  Kernel k = smallExample("matmul");
  Kernel atomic = applied(splitReduction(k, "k", 3));
  Kernel t = applied(splitReduction(k, "k", 3, {}, true));
  EXPECT_EQ(t.workspaceSplit, "k_s");
  EXPECT_TRUE(atomic.workspaceSplit.empty());
  EXPECT_EQ(printNode(*t.body), printNode(*atomic.body));
  EXPECT_EQ(t.zeroFirst, atomic.zeroFirst);
  EXPECT_EQ(differenceFrom(k, t), "");
  EXPECT_EQ(splitWorkspaceBytes(k, *findLoop(k, "k"), 3), 3 * k.findParam("C")->elements() * 4);
  expectRefusal(splitReduction(t, "k", 2, {}, true), "meet in a workspace: no other split");
  expectRefusal(splitReduction(t, "k", 2), "meet in a workspace: no other split");
  expectRefusal(splitReduction(atomic, "k", 2, {}, true), "add up atomically already");
  // 2048 x 4096 floats in 9 parts: 288 MiB, over the 256 allowed.
  Kernel big = kernelFromText(
      "size M = 2048, N = 4096, K = 64;\n"
      "kernel mm(float C[M][N], const float A[M][K], const float B[K][N]) {\n"
      "  parallel for (i = 0; i < M; i++) parallel for (j = 0; j < N; j++) {\n"
      "    C[i][j] = 0;\n"
      "    reduce for (k = 0; k < K; k++) C[i][j] += A[i][k] * B[k][j];\n"
      "  }\n"
      "}\n");
  expectRefusal(splitReduction(big, "k", 9, {}, true), "more than the 256 MiB");
  EXPECT_TRUE(splitReduction(big, "k", 8, {}, true).ok());
}

TEST(SplitReduction, Refuses) {
  Kernel k = smallExample("matmul");
  expectRefusal(splitReduction(k, "i", 2), "not a reduce loop");
  expectRefusal(splitReduction(k, "k", 1), "at least 2");
  Kernel m = applied(mapLoop(k, "i", Mapping::GridX));
  expectRefusal(splitReduction(m, "k", 2), "mapped already");
}

}  // namespace
}  // namespace cudaburg
