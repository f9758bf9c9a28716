// The bytes an epilogue fused into the write-back saves, as the model counts them, and the
// report's sentence on it.
#include <gtest/gtest.h>

#include "src/fusion/local_accumulator.hpp"
#include "src/search/cost_model.hpp"
#include "src/search/fusion_savings.hpp"
#include "tests/loop/parse_helper.hpp"

namespace cudaburg {
namespace {

TEST(FusionSavings, EachUnfusedStatementReadsAndWritesTheOutput) {
  EpilogueTraffic one = epilogueTraffic(1000, 4, 1);
  EXPECT_DOUBLE_EQ(one.fusedBytes, 4000);
  EXPECT_DOUBLE_EQ(one.unfusedBytes, 12000);
  EXPECT_DOUBLE_EQ(one.savedBytes(), 8000);
  EpilogueTraffic three = epilogueTraffic(1000, 2, 3);
  EXPECT_DOUBLE_EQ(three.fusedBytes, 2000);
  EXPECT_DOUBLE_EQ(three.savedBytes(), 12000);
  EXPECT_DOUBLE_EQ(epilogueTraffic(1000, 4, 0).savedBytes(), 0);
}

TEST(FusionSavings, TheReportSaysWhatTheEpilogueSaved) {
  auto relu = test::parseExample("linear_relu.loop", {{"M", 1024}, {"N", 1024}, {"K", 64}});
  ASSERT_TRUE(relu.kernel) << relu.errors();
  EXPECT_EQ(fusionSavings(*relu.kernel),
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
