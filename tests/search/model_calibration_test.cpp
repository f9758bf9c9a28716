// The model calibrated on real measurements: on each tuning database shipped in tests/data, the
// model refitted to the nest's measurements ranks the candidates it was not fitted on (five-fold
// cross-validation) better than the analytic estimate alone; and the estimate alone ranks the
// fastest FP32 GEMM kernels near the top.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "src/search/loop_rules.hpp"
#include "src/search/loops_matcher.hpp"
#include "tests/search/search_problem.hpp"

using namespace cudaburg;

namespace {

struct Problem {
  std::string name;
  std::vector<ModelSample> samples;  // every verified measurement in its database
  std::vector<double> estimateMs;    // the analytic estimate of each
};

// A shipped problem: its candidates labeled, its database's rows matched to them.
Problem load(const cudaburg::testing::SearchProblem& problem) {
  Problem p;
  p.name = problem.name;
  const Kernel& kernel = problem.kernel;
  LoopRules rules(kernel, problem.space);
  generated::LoopsMatcher matcher(&rules);
  EXPECT_TRUE(matcher.label(kernel.body.get()));
  std::map<std::string, CandidateShape> shapes;
  const Node* root = kernel.body.get();
  for (int rank = 0; rank < matcher.count(root, generated::LoopsMatcher::kernel_NT); ++rank) {
    const Fragment& f = matcher.value(root, generated::LoopsMatcher::kernel_NT, rank);
    shapes.emplace(printRecipeLine(f.recipe(kernel)), f.shape);
  }
  for (const auto& [key, m] : cudaburg::testing::shippedMeasurements(problem)) {
    auto shape = shapes.find(key.recipe);
    if (m.status != RunStatus::Ok || shape == shapes.end()) continue;
    p.samples.push_back({CalibratedModel::features(shape->second, GpuModel{}), m.ms});
    p.estimateMs.push_back(estimate(shape->second).ns * 1e-6);
  }
  EXPECT_GT(p.samples.size(), 100u) << p.name;
  return p;
}

std::vector<Problem> problems() {
  std::vector<Problem> out;
  for (const auto& problem : cudaburg::testing::shippedProblems()) out.push_back(load(problem));
  return out;
}

std::vector<double> times(const Problem& p) {
  std::vector<double> t;
  for (const auto& s : p.samples) t.push_back(s.ms);
  return t;
}

}  // namespace

TEST(ModelCalibration, RanksEachShippedProblemBetterThanTheEstimateAlone) {
  for (const auto& p : problems()) {
    double alone = rankCorrelation(p.estimateMs, times(p));
    std::vector<double> predicted(p.samples.size());
    constexpr size_t kFolds = 5;
    for (size_t fold = 0; fold < kFolds; ++fold) {
      std::vector<ModelSample> train;
      for (size_t i = 0; i < p.samples.size(); ++i)
        if (i % kFolds != fold) train.push_back(p.samples[i]);
      CalibratedModel m = CalibratedModel::prior().fitted(train);
      for (size_t i = fold; i < p.samples.size(); i += kFolds) predicted[i] = m.predictMs(p.samples[i].features);
    }
    double calibrated = rankCorrelation(predicted, times(p));
    std::printf("%s: rho %.3f estimate alone, %.3f calibrated (%zu measurements)\n", p.name.c_str(), alone, calibrated,
                p.samples.size());
    EXPECT_GT(calibrated, alone) << p.name;
    EXPECT_GE(calibrated, 0.7) << p.name;
  }
}

namespace {

const char* const kFp32GemmRanges = " --tile 32..256 --unroll 1..8 --stage 8,16,32 --split 2..128";

// Where the estimate places the best placed of the problem's three fastest measurements (0: first).
size_t bestPlaceOfTheThreeFastest(const Problem& p) {
  std::vector<double> sorted = times(p);
  std::sort(sorted.begin(), sorted.end());
  size_t best = p.samples.size();
  for (size_t i = 0; i < p.samples.size(); ++i) {
    if (p.samples[i].ms > sorted[std::min<size_t>(2, sorted.size() - 1)]) continue;  // one of the three fastest
    size_t position = 0;
    for (double ms : p.estimateMs) position += ms < p.estimateMs[i];
    best = std::min(best, position);
  }
  return best;
}

// The three fastest recipes of a problem's database (within 0.2% of each other at 4096^3).
std::vector<std::string> threeFastest(const cudaburg::testing::SearchProblem& problem) {
  std::vector<std::pair<double, std::string>> ok;
  for (const auto& [key, m] : cudaburg::testing::shippedMeasurements(problem))
    if (m.status == RunStatus::Ok) ok.push_back({m.ms, key.recipe});
  std::sort(ok.begin(), ok.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < ok.size() && i < 3; ++i) out.push_back(ok[i].second);
  return out;
}

}  // namespace

// FP32 GEMM at 4096^3 on an H100: the fastest kernels (128x128 tiles of 8x8 threads under launch
// bounds of two blocks) need the model to count what ptxas gives them with and without the bounds.
// Before it did, rho as ranked was 0.26 and the best placed of the three sat 51st of the 1062
// measured in the model's order.
TEST(ModelRanking, RanksTheFastestFp32GemmKernelsNearTheTop) {
  auto problem = cudaburg::testing::parseSearchProblem(
      std::string("matmul4096 examples/matmul.loop -D M=4096 -D N=4096 -D K=4096") + kFp32GemmRanges);
  Problem p = load(problem);
  ASSERT_FALSE(p.samples.empty());
  double rho = rankCorrelation(p.estimateMs, times(p));
  std::printf("matmul4096: rho %.3f as ranked\n", rho);
  EXPECT_GE(rho, 0.45);
  EXPECT_LE(bestPlaceOfTheThreeFastest(p), p.samples.size() / 100)
      << "the model's best place for one of the three fastest";
}

// At 8192^3 a 50 s search measures about 180 candidates, in the model's order at first: the
// kernels fastest at 4096^3 must come early among the 56013 it offers (the best placed came 575th).
// (116th since tf32x3's wgmma tiles take 5 and 6 buffers a stage: of the first 115, 20 are those,
// which the model finds bound by the copies they keep on the way; 100th at most before.)
TEST(ModelRanking, OffersTheFp32GemmWinnerEarlyAt8192) {
  std::vector<std::string> winners = threeFastest(cudaburg::testing::parseSearchProblem(
      std::string("matmul4096 examples/matmul.loop -D M=4096 -D N=4096 -D K=4096") + kFp32GemmRanges));
  ASSERT_EQ(winners.size(), 3u);
  auto problem = cudaburg::testing::parseSearchProblem(
      std::string("matmul8192 examples/matmul.loop -D M=8192 -D N=8192 -D K=8192") + kFp32GemmRanges);
  std::set<std::string> seen;
  size_t place = 0;
  bool found = false;
  for (const Fragment& f : cudaburg::testing::candidates(problem)) {
    std::string line = printRecipeLine(f.recipe(problem.kernel));
    if (!seen.insert(line).second) continue;
    if (std::find(winners.begin(), winners.end(), line) != winners.end()) {
      found = true;
      break;
    }
    ++place;
  }
  ASSERT_TRUE(found);
  std::printf("matmul8192: the best placed of the 4096^3 winners comes %zu\n", place + 1);
  EXPECT_LT(place, 130u);
}

// 127x4099x513 on an H100, exhaustively: 4 x 65 blocks of 32x64 or 2 x 65 of 64x64 tiles, unsplit,
// are the fastest, on a grid shorter than its slots. Charged for the slots they left empty, they were
// estimated up to four times too slow and ranked below the splits (rho 0.19 as ranked; the best
// placed of the three fastest came 1036th of 1944).
TEST(ModelRanking, RanksShortGridsAsTheMultiprocessorsRunThem) {
  Problem p =
      load(cudaburg::testing::parseSearchProblem("matmul-odd examples/matmul.loop -D M=127 -D N=4099 -D K=513 --tile "
                                                 "32..128 --unroll 4..8 --stage 8,16 --split 4"));
  ASSERT_FALSE(p.samples.empty());
  double rho = rankCorrelation(p.estimateMs, times(p));
  std::printf("matmul-odd: rho %.3f as ranked\n", rho);
  EXPECT_GE(rho, 0.6);
  size_t best = bestPlaceOfTheThreeFastest(p);
  std::printf("matmul-odd: the best placed of the three fastest comes %zu\n", best + 1);
  EXPECT_LE(best, p.samples.size() / 40);
}
