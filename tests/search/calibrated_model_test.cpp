#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "src/search/calibrated_model.hpp"

using namespace cudaburg;

TEST(RankCorrelation, IsOneForTheSameOrderMinusOneForTheReverseAndSharesTiedRanks) {
  EXPECT_DOUBLE_EQ(rankCorrelation({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(rankCorrelation({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
  EXPECT_NEAR(rankCorrelation({1, 2, 3, 4, 5}, {2, 1, 4, 3, 5}), 0.8, 1e-12);  // 1 - 6*4/(5*24)
  EXPECT_NEAR(rankCorrelation({1, 1, 2}, {1, 2, 3}), 0.8660254, 1e-6);         // ranks 0.5 0.5 2
  EXPECT_DOUBLE_EQ(rankCorrelation({1, 1, 1}, {1, 2, 3}), 0.0);
  EXPECT_DOUBLE_EQ(rankCorrelation({1}, {1}), 0.0);
}

TEST(CalibratedModel, FittingManySamplesRecoversTheWeightsThatMadeThem) {
  size_t n = CalibratedModel::names().size();
  std::vector<double> truth(n);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& w : truth) w = u(rng);
  std::vector<ModelSample> samples;
  for (int i = 0; i < 400; ++i) {
    ModelSample s;
    s.features.push_back(1.0);
    for (size_t f = 1; f < n; ++f) s.features.push_back(u(rng));
    double y = 0;
    for (size_t f = 0; f < n; ++f) y += truth[f] * s.features[f];
    s.ms = std::exp(y);
    samples.push_back(s);
  }
  CalibratedModel fit = CalibratedModel(std::vector<double>(n, 0.0)).fitted(samples, 1e-9);
  for (size_t f = 0; f < n; ++f) EXPECT_NEAR(fit.weights()[f], truth[f], 1e-6) << CalibratedModel::names()[f];
  EXPECT_EQ(fit.samples(), samples.size());
  EXPECT_NEAR(fit.predictMs(samples[3].features), samples[3].ms, 1e-6 * samples[3].ms);
}

TEST(CalibratedModel, AFewSamplesMoveThePriorOnlyALittle) {
  CalibratedModel prior = CalibratedModel::prior();
  std::vector<ModelSample> one{{CalibratedModel::features(CandidateShape{}, GpuModel{}), 123.0}};
  CalibratedModel fit = prior.fitted(one);
  double moved = 0;
  for (size_t f = 1; f < prior.weights().size(); ++f) moved += std::abs(fit.weights()[f] - prior.weights()[f]);
  EXPECT_LT(moved, 2.0);
  EXPECT_EQ(prior.fitted({}).weights(), prior.weights());
}

TEST(CalibratedModel, FeaturesTellDecisionsApartThatTheEstimateAloneDoesNot) {
  CandidateShape a;
  a.rows = a.cols = a.reduction = 2048;
  a.blockRows = a.blockCols = 128;
  a.threadRows = a.threadCols = 8;
  a.staged = true;
  a.stageDepth = 8;
  a.stagedFootprint = 256 * 8;
  CandidateShape b = a;
  b.transposed = true;
  CandidateShape c = a;
  c.threadRows = 4;
  c.threadCols = 16;
  EXPECT_NE(CalibratedModel::features(a, {}), CalibratedModel::features(b, {}));
  EXPECT_NE(CalibratedModel::features(a, {}), CalibratedModel::features(c, {}));
  EXPECT_EQ(CalibratedModel::features(a, {}).size(), CalibratedModel::names().size());
}

TEST(CalibratedModel, CompiledFeaturesSeparateKernelsTheShapeCannot) {
  // Two candidates with the same shape features (mirror-image register tiles) whose compiled code
  // differs: the one of more instructions is slower in these measurements, and a refit on the
  // compiled features says so where the shape features alone give them one estimate.
  std::vector<double> shape = CalibratedModel::features(CandidateShape{}, GpuModel{});
  ASSERT_EQ(shape.size(), CalibratedModel::names().size());
  std::vector<double> a = CalibratedModel::compiledFeatures(shape, 128, 2000);
  std::vector<double> b = CalibratedModel::compiledFeatures(shape, 128, 2400);
  ASSERT_EQ(a.size(), shape.size() + CalibratedModel::kCompiledFeatures);
  EXPECT_DOUBLE_EQ(a[shape.size()], std::log(128.0));
  EXPECT_DOUBLE_EQ(b[shape.size() + 1], std::log(2400.0));
  CalibratedModel prior = CalibratedModel::prior();
  CalibratedModel extended = prior.withCompiledFeatures();
  EXPECT_DOUBLE_EQ(extended.predictMs(a), prior.predictMs(shape));  // zero weights: the same estimate
  std::vector<ModelSample> samples;
  for (int i = 0; i < 20; ++i) {
    double instructions = 1000 + 100 * i;
    samples.push_back(
        {CalibratedModel::compiledFeatures(shape, 128, static_cast<int64_t>(instructions)), instructions * 1e-3});
  }
  CalibratedModel refit = extended.fitted(samples);
  EXPECT_LT(refit.predictMs(a), refit.predictMs(b));
}
