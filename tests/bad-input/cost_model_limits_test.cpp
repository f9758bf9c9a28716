// The model on shapes far past a GPU's limits (tiles and unrolls as large as the options allow):
// a plain "infeasible" with the limit it breaks, never a division by a wrapped zero (SIGFPE) or
// a small thread count wrapped from a huge one.
#include <gtest/gtest.h>

#include <cmath>

#include "src/search/cost_model.hpp"
#include "src/search/param_range.hpp"

namespace cudaburg {
namespace {

CandidateShape shape(int64_t block, int64_t thread) {
  CandidateShape s;
  s.rows = s.cols = kMaxParamValue;
  s.reduction = kMaxParamValue;
  s.blockRows = s.blockCols = block;
  s.threadRows = s.threadCols = thread;
  s.staged = true;
  s.stageDepth = kMaxParamValue;
  s.stagedFootprint = (s.blockRows + s.blockCols) * s.stageDepth;
  s.pipelined = true;
  return s;
}

TEST(CostModelLimits, A65536TileIsInfeasibleNotAWrappedZero) {
  // 65536 x 65536 threads is 2^32: as a 32-bit int, 0 threads and a division by zero.
  Estimate e = estimate(shape(65536, 1));
  EXPECT_EQ(e.infeasible, "more than 1024 threads a block");
}

TEST(CostModelLimits, TheLargestValuesAreInfeasible) {
  EXPECT_EQ(estimate(shape(kMaxParamValue, 1)).infeasible, "more than 1024 threads a block");
  EXPECT_EQ(estimate(shape(kMaxParamValue, kMaxParamValue)).infeasible, "a register tile too large for one thread");
  EXPECT_EQ(estimate(shape(32, 65536)).infeasible, "a register tile too large for one thread");
  CandidateShape wide = shape(64, 4);
  wide.pipelined = false;
  EXPECT_EQ(estimate(wide).infeasible, "more shared memory than a block may have");
}

TEST(CostModelLimits, HugeFeasibleShapesGiveAFiniteEstimate) {
  CandidateShape s = shape(64, 4);
  s.staged = s.pipelined = false;
  s.outer = s.serial = kMaxParamValue;
  Estimate e = estimate(s);
  EXPECT_TRUE(e.infeasible.empty()) << e.infeasible;
  EXPECT_TRUE(std::isfinite(e.ns)) << e.ns;
  EXPECT_GT(e.ns, 0);
}

}  // namespace
}  // namespace cudaburg
