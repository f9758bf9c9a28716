// The fused epilogue as a write-back idiom (src/idioms/epilogue/): registered, read off a nest,
// its value at an output as an expression and as CUDA, and the traffic it saves in the report.
#include <gtest/gtest.h>

#include "src/idioms/epilogue/local_accumulator.hpp"
#include "src/idioms/registry.hpp"
#include "src/idioms/write_back.hpp"
#include "tests/loop/parse_helper.hpp"

namespace cudaburg {
namespace {

// A linear layer Y = X W with `epilogue` after its reduction, split at its reduction (the
// epilogue's reading and value: EpilogueValue in epilogue_tile_test.cpp).
NestEpilogue linearWith(const std::string& epilogue) {
  auto p = test::parseText(
      "size M = 4, N = 4, K = 4;\n"
      "kernel layer(float Y[M][N], const float X[M][K], const float W[K][N], const float b[N]) {\n"
      "  parallel for (i = 0; i < M; i++)\n"
      "    parallel for (j = 0; j < N; j++) {\n"
      "      Y[i][j] = 0;\n"
      "      reduce for (k = 0; k < K; k++)\n"
      "        Y[i][j] += X[i][k] * W[k][j];\n" +
      epilogue + "    }\n}\n");
  EXPECT_TRUE(p.kernel) << p.errors();
  std::optional<NestEpilogue> split = splitNestEpilogue(*p.kernel);
  return split ? *split : NestEpilogue{*p.kernel, *p.kernel, {}, {}};
}

TEST(EpilogueIdiom, IsTheRegisteredWriteBackThatReadsElementWiseStatements) {
  ASSERT_EQ(writeBackUnits().size(), 1u);
  EXPECT_STREQ(writeBackUnits()[0]->name(), "epilogue");
  NestEpilogue split = linearWith("      Y[i][j] = Y[i][j] + b[j];\n      Y[i][j] = max(Y[i][j], 0);\n");
  EXPECT_EQ(split.epilogue.unit, writeBackUnits()[0]);
  EXPECT_EQ(split.epilogue.statements.size(), 2u);
  EXPECT_EQ(split.target.str(), "Y[i][j]");
  // A bare reduction has none, and its sum is stored as it is.
  NestEpilogue bare = linearWith("");
  EXPECT_EQ(bare.epilogue.unit, nullptr);
  ExprPtr sum = Expr::read(bare.target);
  EXPECT_EQ(epilogueValue(bare.epilogue, bare.target, sum), sum);
}

TEST(EpilogueIdiom, CudaTextReadsTheSumAndTheIndicesAtTheStore) {
  NestEpilogue split = linearWith("      Y[i][j] = max(Y[i][j] * 2 + b[j], 0);\n");
  std::string refusal;
  EXPECT_EQ(epilogueCuda(split, split.bare, {{"i", "row"}, {"j", "col"}}, "y[0]", refusal),
            "fmaxf(((y[0] * 2.0f) + b[col]), 0.0f)");
  EXPECT_EQ(refusal, "");
  epilogueCuda(split, split.bare, {{"i", "row"}}, "y[0]", refusal);
  EXPECT_EQ(refusal, "the epilogue reads `j`, which is not an index of the output");
}

TEST(EpilogueIdiom, EachUnfusedStatementReadsAndWritesTheOutput) {
  const WriteBackUnit& unit = *writeBackUnits()[0];
  Epilogue one{{nullptr}, &unit}, three{{nullptr, nullptr, nullptr}, &unit};
  EpilogueTraffic t = unit.traffic(one, 1000, 4);
  EXPECT_DOUBLE_EQ(t.fusedBytes, 4000);
  EXPECT_DOUBLE_EQ(t.unfusedBytes, 12000);
  EXPECT_DOUBLE_EQ(t.savedBytes(), 8000);
  t = unit.traffic(three, 1000, 2);
  EXPECT_DOUBLE_EQ(t.fusedBytes, 2000);
  EXPECT_DOUBLE_EQ(t.savedBytes(), 12000);
  EXPECT_DOUBLE_EQ(unit.traffic(Epilogue{}, 1000, 4).savedBytes(), 0);
}

TEST(EpilogueIdiom, TheReportSaysWhatTheEpilogueSaved) {
  auto relu = test::parseExample("linear_relu.loop", {{"M", 1024}, {"N", 1024}, {"K", 64}});
  ASSERT_TRUE(relu.kernel) << relu.errors();
  EXPECT_EQ(
      fusionSavings(*relu.kernel),
      "fusion: applied at the write-back, the epilogue (1 statement) leaves Y stored once, 4.00 MiB; unfused, the "
      "product stored, then read back and stored again by a pass a statement, 12.00 MiB: 8.00 MiB (67%) of "
      "traffic saved");
  // A sum kept in a local: the statements after it, as the search labels them.
  auto gelu = test::parseExample("linear_gelu.loop", {{"M", 64}, {"N", 32}, {"K", 16}});
  ASSERT_TRUE(gelu.kernel) << gelu.errors();
  std::string saved = fusionSavings(withLocalAccumulators(*gelu.kernel));
  EXPECT_NE(saved.find("leaves Y stored once, 8.0 KiB"), std::string::npos) << saved;
  auto bare = test::parseExample("matmul.loop", {{"M", 64}, {"N", 64}, {"K", 64}});
  ASSERT_TRUE(bare.kernel) << bare.errors();
  EXPECT_EQ(fusionSavings(*bare.kernel), "");
}

}  // namespace
}  // namespace cudaburg
