// The model calibrated on real measurements: on each tuning database shipped in tests/data, the
// model refitted to the nest's measurements ranks the candidates it was not fitted on (five-fold
// cross-validation) better than the analytic estimate alone.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>

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
