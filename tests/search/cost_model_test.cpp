#include "src/search/cost_model.hpp"

#include <gtest/gtest.h>

#include <string>
#include <tuple>

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

namespace {

// A 3x3 convolution as an implicit GEMM: `filters` rows by `pixels` columns over c*9, gathered
// 8 at a time and pipelined in 64 x 128 tiles of 8 x 8; split into `parts`.
CandidateShape implicitGemm(int64_t filters, int64_t pixels, int64_t channels, int64_t parts) {
  CandidateShape s = matmul(0, 64, 128, 8, 8);
  s.rows = filters;
  s.cols = pixels;
  s.reduction = channels * 9 / parts;
  s.split = parts;
  s.staged = s.pipelined = s.transposed = true;
  s.stageDepth = 8;
  s.stagedFootprint = (64 + 128) * 8;
  s.gatherOps = 16;
  return s;
}

// A half product of n^3 on tensor cores: bm x bn blocks of tm x tn warp tiles over strips of
// `depth`, `buffers` asynchronous buffers a stage, rows padded by 16 bytes unless swizzled.
CandidateShape tensorCores(int64_t n, int64_t bm, int64_t bn, int64_t tm, int64_t tn, int64_t depth, int buffers,
                           bool swizzled) {
  CandidateShape s = matmul(n, bm, bn, tm, tn);
  s.elementBytes = 2;
  s.idiom = cudaburg::MmaTile{};
  s.staged = true;
  s.stageDepth = depth;
  s.stagedFootprint = (bm + bn) * depth + (swizzled ? 0 : 8 * (bm + depth));
  s.asyncCopies = true;
  s.asyncStages = buffers;
  s.swizzled = swizzled;
  return s;
}

}  // namespace

// Operands read ahead: a second copy of a thread's row and column in registers, the strip's
// barrier hidden; faster where the blocks a multiprocessor holds stay as many, slower where the
// registers cost a block.
// A matmul of n^3 in bm x bn tiles of tm x tn, pipelined in strips of 8.
CandidateShape pipelinedMatmul(int64_t n, int64_t bm, int64_t bn, int64_t tm, int64_t tn) {
  CandidateShape s = matmul(n, bm, bn, tm, tn);
  s.staged = s.pipelined = true;
  s.stageDepth = 8;
  s.stagedFootprint = (bm + bn) * 8;
  return s;
}

TEST(CostModel, PrefetchingHidesTheBarrierForItsRegisters) {
  CandidateShape pipelined = pipelinedMatmul(4096, 128, 128, 8, 8);
  CandidateShape prefetched = pipelined;
  prefetched.prefetched = true;
  auto plain = estimate(pipelined), ahead = estimate(prefetched);
  ASSERT_TRUE(plain.infeasible.empty() && ahead.infeasible.empty()) << plain.infeasible << ahead.infeasible;
  // The copy is what ptxas hoists unasked: as many registers either way.
  EXPECT_EQ(ahead.registers, plain.registers);
  ASSERT_EQ(ahead.occupancy, plain.occupancy);
  EXPECT_LT(ahead.ns, plain.ns);
  // 128 threads of 8 x 4 tiles: the copy takes registers ptxas holds unasked, and no block.
  CandidateShape wide = pipelinedMatmul(4096, 64, 64, 8, 4);
  CandidateShape wideAhead = wide;
  wideAhead.prefetched = true;
  auto w = estimate(wide), wa = estimate(wideAhead);
  ASSERT_TRUE(w.infeasible.empty() && wa.infeasible.empty());
  EXPECT_EQ(wa.occupancy, w.occupancy);
  EXPECT_LT(wa.ns, w.ns);
}

TEST(CostModel, SplittingAConvolutionOfFewPixelsFillsTheGpu) {
  // 512 filters by 32*7*7 pixels make 104 blocks for 132 multiprocessors: split 4, 416 blocks.
  EXPECT_LT(estimate(implicitGemm(512, 32 * 7 * 7, 512, 4)).ns, estimate(implicitGemm(512, 32 * 7 * 7, 512, 1)).ns);
  // 64 filters by 32*56*56 pixels have blocks enough: a split only adds atomic traffic.
  EXPECT_GT(estimate(implicitGemm(64, 32 * 56 * 56, 64, 4)).ns, estimate(implicitGemm(64, 32 * 56 * 56, 64, 1)).ns);
}

TEST(CostModel, GathersThroughTablesCostTheirLookUps) {
  // The 3-D layer's 64 filters by 4*16*56*56 pixels over 64*27: its gather derives 4 indices
  // (20 operations an element) or looks them up in a table (6).
  CandidateShape derived = implicitGemm(64, 4 * 16 * 56 * 56, 64 * 3, 1);
  derived.gatherOps = 4 * 4 + 4;
  CandidateShape tabled = derived;
  tabled.gatherOps = cudaburg::kTableGatherOps;
  tabled.tabled = true;
  EXPECT_LT(estimate(tabled).ns, estimate(derived).ns);
  EXPECT_GT(estimate(derived).ns / estimate(tabled).ns, 1.05);
}

TEST(CostModel, RasteredBlocksReadLessFromMemoryOnLargeProducts) {
  CandidateShape rowByRow = matmul(8192, 128, 128, 8, 8);
  rowByRow.staged = rowByRow.pipelined = true;
  rowByRow.stageDepth = 8;
  rowByRow.stagedFootprint = (128 + 128) * 8;
  CandidateShape rastered = rowByRow;
  rastered.rasterRows = 8;
  EXPECT_LT(estimate(rastered).ns, estimate(rowByRow).ns);
  // Where the blocks resident at once already cover few rows and columns, nothing changes.
  CandidateShape narrow = rowByRow;
  narrow.cols = 128;
  CandidateShape narrowRastered = narrow;
  narrowRastered.rasterRows = 8;
  EXPECT_EQ(estimate(narrowRastered).ns, estimate(narrow).ns);
}

TEST(CostModel, TensorCoresRankDeeperPipelinesSwizzlesAndRastersNoWorse) {
  for (auto [bm, bn, tm, tn, depth] :
       {std::tuple{128, 128, 64, 64, 32}, {128, 256, 64, 64, 32}, {256, 128, 64, 32, 64}}) {
    SCOPED_TRACE(std::to_string(bm) + "x" + std::to_string(bn) + "/" + std::to_string(tm) + "x" + std::to_string(tn));
    auto three = estimate(tensorCores(4096, bm, bn, tm, tn, depth, 3, false));
    auto four = estimate(tensorCores(4096, bm, bn, tm, tn, depth, 4, false));
    auto swizzled = estimate(tensorCores(4096, bm, bn, tm, tn, depth, 4, true));
    CandidateShape r = tensorCores(4096, bm, bn, tm, tn, depth, 4, true);
    r.rasterRows = 8;
    auto rastered = estimate(r);
    ASSERT_TRUE(three.infeasible.empty() && four.infeasible.empty() && swizzled.infeasible.empty());
    EXPECT_EQ(four.sharedBytes * 3, three.sharedBytes * 4);  // a fourth buffer a stage
    EXPECT_LT(swizzled.sharedBytes, four.sharedBytes);       // no padding
    EXPECT_LE(four.ns, three.ns);
    EXPECT_LE(swizzled.ns, four.ns);
    EXPECT_LE(rastered.ns, swizzled.ns);
  }
  // 64 x 64 warp tiles read half the shared memory per multiply-add that 32 x 32 ones do.
  auto wide = estimate(tensorCores(4096, 128, 128, 64, 64, 32, 4, true));
  auto narrow = estimate(tensorCores(4096, 128, 128, 32, 32, 32, 4, true));
  ASSERT_TRUE(wide.infeasible.empty() && narrow.infeasible.empty());
  EXPECT_LT(wide.ns, narrow.ns);
  // Four buffers of 64-deep strips of a 256 x 256 tile fit no multiprocessor.
  EXPECT_NE(estimate(tensorCores(4096, 256, 256, 64, 64, 64, 4, true)).infeasible.find("shared memory"),
            std::string::npos);
}
