// The work a nest does (flops, bytes, reduction length) and the statistics of timed runs.
#include <gtest/gtest.h>

#include "src/cuda/run/timing.hpp"
#include "tests/cuda/run_test_kernels.hpp"

namespace cudaburg {
namespace {

TEST(RunTiming, MatmulDoesTwoFlopsAMultiplyAdd) {
  Kernel k = testing::loadExample("matmul.loop", {{"M", 64}, {"N", 32}, {"K", 16}});
  WorkCount w = countWork(k);
  EXPECT_DOUBLE_EQ(w.flops, 2.0 * 64 * 32 * 16);
  EXPECT_DOUBLE_EQ(w.bytes, 4.0 * (64 * 32 + 64 * 16 + 16 * 32));
  EXPECT_EQ(w.reductionLength, 16);
}

TEST(RunTiming, Conv2dReductionLengthIsChannelsTimesTaps) {
  Kernel k = testing::loadExample("conv2d.loop", {{"N", 1}, {"C", 5}, {"H", 8}, {"W", 8}, {"K", 2}});
  WorkCount w = countWork(k);
  EXPECT_EQ(w.reductionLength, 5 * 3 * 3);
  EXPECT_DOUBLE_EQ(w.flops, 2.0 * 1 * 2 * 8 * 8 * 5 * 3 * 3);
}

TEST(RunTiming, LoopsWithDependentBoundsAreCountedExactly) {
  // A strip-mined loop whose last strip is partial: 10 = 4 + 4 + 2 iterations, each 3 flops.
  NodePtr inner = makeFor(
      "i", Affine::var("ii"), {Affine::var("ii") + Affine(4), Affine(10)}, 1, LoopKind::Parallel,
      makeAssign(Access{"y", {Affine::var("i")}},
                 Expr::binary('+', Expr::binary('*', Expr::read(Access{"x", {Affine::var("i")}}), Expr::constant(2)),
                              Expr::constant(1)),
                 true));
  Kernel k;
  Array y, x;
  y.name = "y", y.extents = {10};
  x.name = "x", x.extents = {10}, x.input = true;
  k.params = {y, x};
  k.body = makeFor("ii", Affine(0), {Affine(10)}, 4, LoopKind::Parallel, inner);
  WorkCount w = countWork(k);
  EXPECT_DOUBLE_EQ(w.flops, 10 * 3.0);
  EXPECT_EQ(w.reductionLength, 1);
}

TEST(RunTiming, TripCounts) {
  NodePtr loop = makeFor("i", Affine(3), {Affine(20), Affine::var("n")}, 4, LoopKind::Serial, makeBarrier());
  EXPECT_EQ(tripCount(*loop, {{"n", 100}}), 5);  // 3 7 11 15 19
  EXPECT_EQ(tripCount(*loop, {{"n", 8}}), 2);    // 3 7
  EXPECT_EQ(tripCount(*loop, {{"n", 2}}), 0);
}

TEST(RunTiming, Median) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({7}), 7);
}

TEST(RunTiming, RunCountMeetsTheTargetsWithinTheLimits) {
  RunCountPolicy p;                         // >= 20 runs and >= 100 ms; <= 1000 runs and <= 2000 ms
  EXPECT_EQ(timedRunCount(0.01, p), 1000);  // 100 ms would take 10000 runs: capped
  EXPECT_EQ(timedRunCount(1.0, p), 100);    // 100 ms
  EXPECT_EQ(timedRunCount(2.0, p), 50);
  EXPECT_EQ(timedRunCount(50.0, p), 20);   // 20 runs already make 1 s
  EXPECT_EQ(timedRunCount(500.0, p), 4);   // slow: the 2 s cap wins over 20 runs
  EXPECT_EQ(timedRunCount(5000.0, p), 1);  // never fewer than one
}

TEST(RunTiming, AVariantLosesItsRaceOnlyBeyondTheFactor) {
  RunCountPolicy p;
  EXPECT_FALSE(p.losing(1e9));  // no race before anything is measured
  p.raceAgainstMs = 2.0;
  EXPECT_FALSE(p.losing(2.19));
  EXPECT_TRUE(p.losing(2.21));
  p.raceFactor = 1.25;
  EXPECT_FALSE(p.losing(2.5));
  EXPECT_TRUE(p.losing(2.51));
}

TEST(RunTiming, Rates) {
  WorkCount w;
  w.flops = 2e12;
  w.bytes = 4e9;
  EXPECT_DOUBLE_EQ(teraflops(w, 1000), 2.0);
  EXPECT_DOUBLE_EQ(gigabytesPerSecond(w, 1000), 4.0);
}

}  // namespace
}  // namespace cudaburg
