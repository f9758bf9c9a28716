#include "src/search/cost_model.hpp"

#include <gtest/gtest.h>

using cudaburg::CandidateShape;
using cudaburg::estimate;

namespace {

CandidateShape matmul(int64_t n, int64_t bm, int64_t bn, int64_t tm, int64_t tn) {
  CandidateShape s;
  s.rows = s.cols = s.reduction = n;
  s.blockRows = bm;
  s.blockCols = bn;
  s.threadRows = tm;
  s.threadCols = tn;
  return s;
}

}  // namespace

TEST(CostModel, RefusesWhatCannotLaunch) {
  EXPECT_NE(estimate(matmul(2048, 256, 256, 1, 1)).infeasible.find("threads"), std::string::npos);
  EXPECT_NE(estimate(matmul(2048, 256, 256, 32, 32)).infeasible.find("register"), std::string::npos);
  CandidateShape big = matmul(2048, 128, 128, 8, 8);
  big.staged = true;
  big.stageDepth = 512;
  big.stagedFootprint = (128 + 128) * 512;
  EXPECT_NE(estimate(big).infeasible.find("shared memory"), std::string::npos);
}

TEST(CostModel, RegisterTilesAndStagingHelpLargeProducts) {
  auto naive = estimate(matmul(2048, 16, 16, 1, 1));
  auto tiled = estimate(matmul(2048, 64, 64, 4, 4));
  ASSERT_TRUE(naive.infeasible.empty() && tiled.infeasible.empty());
  EXPECT_LT(tiled.ns, naive.ns);
  CandidateShape staged = matmul(2048, 64, 64, 4, 4);
  staged.staged = true;
  staged.stageDepth = 16;
  staged.stagedFootprint = 128 * 16;
  EXPECT_LT(estimate(staged).ns, tiled.ns);
}

TEST(CostModel, TailsCostWhatTheyWaste) {
  // 130 rows in tiles of 128 pay for 256 rows; in tiles of 64, for 192.
  auto t128 = estimate(matmul(130, 128, 128, 8, 8));
  auto t64 = estimate(matmul(130, 64, 64, 8, 8));
  EXPECT_GT(t128.ns, 0);
  EXPECT_GT(t64.ns, 0);
  EXPECT_EQ(t128.threads, 256);
  EXPECT_EQ(t64.threads, 64);
}

TEST(CostModel, TimeGrowsWithWork) {
  EXPECT_LT(estimate(matmul(1024, 64, 64, 4, 4)).ns, estimate(matmul(4096, 64, 64, 4, 4)).ns);
}

TEST(CostModel, SplittingABigProductCostsItsAtomics) {
  // 4096^3 has blocks enough without a split: splitting only adds atomic traffic.
  CandidateShape whole = matmul(4096, 64, 64, 4, 4);
  CandidateShape split = whole;
  split.split = 32;
  split.reduction = 4096 / 32;
  EXPECT_LT(estimate(whole).ns, estimate(split).ns);
  // 256x256 with a long reduction fills the GPU only when split.
  CandidateShape tall = matmul(256, 64, 64, 4, 4);
  tall.reduction = 65536;
  CandidateShape tallSplit = tall;
  tallSplit.split = 8;
  tallSplit.reduction = 65536 / 8;
  EXPECT_LT(estimate(tallSplit).ns, estimate(tall).ns);
}

TEST(CostModel, PipeliningDoublesTheBuffersAndHidesLatency) {
  CandidateShape single = matmul(4096, 128, 128, 8, 8);
  single.staged = true;
  single.stageDepth = 8;
  single.stagedFootprint = (128 + 128) * 8;
  CandidateShape pipelined = single;
  pipelined.pipelined = true;
  auto one = estimate(single), two = estimate(pipelined);
  ASSERT_TRUE(one.infeasible.empty() && two.infeasible.empty()) << one.infeasible << two.infeasible;
  EXPECT_EQ(two.sharedBytes, 2 * one.sharedBytes);
  EXPECT_EQ(two.registers, one.registers + (128 + 128) * 8 / 256);  // the next strip, a share a thread
  EXPECT_LT(two.ns, one.ns);
  CandidateShape async = single;  // pipelined by asynchronous copies: three buffers, no registers
  async.asyncCopies = true;
  auto three = estimate(async);
  ASSERT_TRUE(three.infeasible.empty()) << three.infeasible;
  EXPECT_EQ(three.sharedBytes, 3 * one.sharedBytes);
  EXPECT_EQ(three.registers, one.registers);
  EXPECT_LT(three.ns, one.ns);
  // A strip too large to carry in registers is not pipelined.
  CandidateShape deep = pipelined;
  deep.stageDepth = 64;
  deep.stagedFootprint = (128 + 128) * 64;
  EXPECT_NE(estimate(deep).infeasible.find("registers"), std::string::npos);
}
