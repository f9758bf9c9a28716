#include "src/loop/printer.hpp"

#include <gtest/gtest.h>

#include "src/loop/dot.hpp"
#include "tests/loop/parse_helper.hpp"

namespace cudaburg {
namespace {

using test::parseExample;
using test::parseText;

// Structural equality of two trees, reported as the first place they differ.
std::string diff(const Node& a, const Node& b, const std::string& path = "root") {
  if (a.kind != b.kind) return path + ": kinds differ";
  if (a.kids.size() != b.kids.size()) return path + ": kid counts differ";
  if (a.kind == NodeKind::For && (a.index != b.index || a.lower != b.lower || a.upper != b.upper || a.step != b.step ||
                                  a.loopKind != b.loopKind || a.mapping != b.mapping))
    return path + ": loops differ";
  if (a.kind == NodeKind::Assign &&
      (a.target.str() != b.target.str() || a.accumulate != b.accumulate || a.value->str() != b.value->str()))
    return path + ": assignments differ: " + a.value->str() + " vs " + b.value->str();
  for (size_t i = 0; i < a.kids.size(); ++i) {
    std::string d = diff(*a.kids[i], *b.kids[i], path + "/" + std::to_string(i));
    if (!d.empty()) return d;
  }
  return "";
}

void expectSameKernel(const Kernel& a, const Kernel& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.sizes, b.sizes);
  ASSERT_EQ(a.params.size(), b.params.size());
  for (size_t i = 0; i < a.params.size(); ++i) {
    EXPECT_EQ(a.params[i].name, b.params[i].name);
    EXPECT_EQ(a.params[i].type, b.params[i].type);
    EXPECT_EQ(a.params[i].extents, b.params[i].extents);
    EXPECT_EQ(a.params[i].input, b.params[i].input);
    EXPECT_EQ(a.params[i].zeroPadded, b.params[i].zeroPadded);
  }
  EXPECT_EQ(diff(*a.body, *b.body), "");
}

TEST(Printer, PrintsNestedLoops) {
  auto p = parseExample("matmul.loop", {{"M", 64}, {"N", 32}, {"K", 16}});
  ASSERT_TRUE(p.kernel) << p.errors();
  EXPECT_EQ(printKernel(*p.kernel),
            "size M = 64, N = 32, K = 16;\n\n"
            "kernel matmul(float C[64][32], const float A[64][16], const float B[16][32]) {\n"
            "  parallel for (i = 0; i < 64; i++)\n"
            "    parallel for (j = 0; j < 32; j++) {\n"
            "      C[i][j] = 0;\n"
            "      reduce for (k = 0; k < 16; k++)\n"
            "        C[i][j] += A[i][k] * B[k][j];\n"
            "    }\n"
            "}\n");
}

TEST(Printer, ExpressionsKeepTheirShape) {
  auto p = parseText(R"(
size N = 8;
kernel f(float A[N], const float B[N]) {
  for (ii = 0; ii < N; ii += 4)
    for (i = ii; i < min(ii + 4, min(N, 7)); i++)
      A[i] = -B[i] - (B[i] - 2.5) * -3 / (i + 1e-3) + min(-i, max(B[i], 0.1)) - -(B[i] * B[i]);
}
)");
  ASSERT_TRUE(p.kernel) << p.errors();
  std::string text = printKernel(*p.kernel);
  EXPECT_NE(text.find("for (i = ii; i < min(ii + 4, min(8, 7)); i++)"), std::string::npos) << text;
  EXPECT_NE(text.find("for (ii = 0; ii < 8; ii += 4)"), std::string::npos) << text;
  auto again = parseText(text);
  ASSERT_TRUE(again.kernel) << again.errors() << text;
  expectSameKernel(*p.kernel, *again.kernel);
  EXPECT_EQ(printKernel(*again.kernel), text);
}

TEST(Printer, EveryExampleRoundTrips) {
  for (const char* name : {"matmul.loop", "matmul_bt.loop", "conv2d.loop", "conv3d.loop", "correlate2d.loop"}) {
    auto p = parseExample(name);
    ASSERT_TRUE(p.kernel) << name << "\n" << p.errors();
    std::string text = printKernel(*p.kernel);
    auto again = parseText(text, {}, name);
    ASSERT_TRUE(again.kernel) << name << "\n" << again.errors() << text;
    expectSameKernel(*p.kernel, *again.kernel);
  }
}

TEST(Printer, AnnotatesWhatTransformationsAdd) {
  Array buffer;
  buffer.name = "As";
  buffer.extents = {4, 8};
  buffer.space = MemorySpace::Shared;
  NodePtr update =
      makeAssign(Access{"C", {Affine::var("t")}}, Expr::read(Access{"As", {Affine(0), Affine::var("t")}}), true);
  auto atomic = std::make_shared<Node>(*update);
  atomic->atomic = true;
  NodePtr loop = makeFor("t", Affine(0), {Affine(8)}, 1, LoopKind::Parallel, atomic, Mapping::BlockX);
  NodePtr body =
      makeAlloc(buffer, makeSeq({makeStage(buffer, "A", {Affine::var("b", 4), Affine(0)}), makeBarrier(), loop}));
  EXPECT_EQ(printNode(*body),
            "alloc shared float As[4][8] {\n"
            "  stage As from A[4*b][0];\n"
            "  barrier;\n"
            "  parallel for (t = 0; t < 8; t++)  // block.x\n"
            "    C[t] += As[0][t];  // atomic\n"
            "}\n");
}

TEST(Dot, OneBoxANodeAndEdgesInOrder) {
  auto p = parseExample("matmul.loop", {{"M", 4}, {"N", 4}, {"K", 4}});
  ASSERT_TRUE(p.kernel) << p.errors();
  std::string dot = kernelToDot(*p.kernel);
  EXPECT_EQ(dot.rfind("digraph \"matmul\" {\n", 0), 0u) << dot;
  EXPECT_NE(dot.find("FOR_RED\\nk = 0 .. 4"), std::string::npos) << dot;
  EXPECT_NE(dot.find("ACCUM\\nC[i][j] += A[i][k] * B[k][j]"), std::string::npos) << dot;
  EXPECT_NE(dot.find("n2 -> n3 [label=0]"), std::string::npos) << dot;
  EXPECT_NE(dot.find("n2 -> n4 [label=1]"), std::string::npos) << dot;
  size_t boxes = 0, edges = 0;
  for (size_t at = 0; (at = dot.find("[label=\"", at)) != std::string::npos; ++at) ++boxes;
  for (size_t at = 0; (at = dot.find(" -> ", at)) != std::string::npos; ++at) ++edges;
  EXPECT_EQ(boxes, 6u);
  EXPECT_EQ(edges, 5u);
  EXPECT_EQ(dot.substr(dot.size() - 2), "}\n");
}

}  // namespace
}  // namespace cudaburg
