// Strategies ask for candidates and are told their times; here the times come from a function
// of the decisions, so each strategy's choices can be checked without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "src/search/strategy.hpp"

using namespace cudaburg;

namespace {

// 8 x 8 x 4 candidates on a grid of decisions, listed in a deliberately poor model order (the
// slowest first); the time has one minimum, at (4, 1, 2).
struct Grid {
  std::vector<StrategyCandidate> candidates;
  std::vector<double> ms;
  Grid() {
    for (int64_t a = 7; a >= 0; --a)
      for (int64_t b = 7; b >= 0; --b)
        for (int64_t c = 3; c >= 0; --c) {
          StrategyCandidate s;
          s.decisions = {a, b, c};
          s.features = std::vector<double>(CalibratedModel::names().size(), 0.0);
          s.features[0] = 1;
          candidates.push_back(s);
          ms.push_back(1.0 + std::abs(a - 4) + 0.5 * std::abs(b - 1) + 0.25 * std::abs(c - 2));
        }
  }
};

struct Outcome {
  size_t measured = 0;
  double best = 1e9;
};

Outcome run(Strategy& s, const Grid& g) {
  s.start(g.candidates, CalibratedModel::prior());
  Outcome r;
  std::map<size_t, int> asked;
  for (int round = 0; round < 1000; ++round) {
    auto ids = s.ask();
    if (ids.empty()) break;
    for (size_t i : ids) {
      EXPECT_LT(i, g.candidates.size());
      EXPECT_EQ(asked[i]++, 0) << "candidate " << i << " asked for twice";
      s.tell(i, g.ms[i]);
      ++r.measured;
      r.best = std::min(r.best, g.ms[i]);
    }
  }
  return r;
}

std::unique_ptr<Strategy> make(const std::string& name) {
  std::string error;
  auto s = makeStrategy(name, error);
  EXPECT_TRUE(s) << error;
  return s;
}

}  // namespace

TEST(Strategy, ExhaustiveMeasuresEveryCandidateOnce) {
  Grid g;
  Outcome r = run(*make("exhaustive"), g);
  EXPECT_EQ(r.measured, g.candidates.size());
  EXPECT_DOUBLE_EQ(r.best, 1.0);
}

TEST(Strategy, ModelOrderMeasuresTheModelsBestEighthInOrder) {
  Grid g;
  auto s = make("model");
  s->start(g.candidates, CalibratedModel::prior());
  auto first = s->ask();
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(first.front(), 0u);  // the model's best first
  for (size_t i = 1; i < first.size(); ++i) EXPECT_EQ(first[i], first[i - 1] + 1);
  Outcome r = run(*make("model"), g);
  EXPECT_EQ(r.measured, g.candidates.size() / 8);
}

TEST(Strategy, AdaptiveWalksFromAPoorStartToTheBestWithAFractionOfTheMeasurements) {
  Grid g;
  Outcome r = run(*make("adaptive"), g);
  EXPECT_DOUBLE_EQ(r.best, 1.0);
  EXPECT_LE(r.measured, g.candidates.size() / 4);
}

TEST(Strategy, AdaptiveStopsWhenEverythingFails) {
  Grid g;
  auto s = make("adaptive");
  s->start(g.candidates, CalibratedModel::prior());
  size_t rounds = 0;
  for (auto ids = s->ask(); !ids.empty() && rounds < 100; ids = s->ask(), ++rounds)
    for (size_t i : ids) s->tell(i, std::nullopt);
  EXPECT_EQ(rounds, 1u);
}

TEST(Strategy, UnknownNameIsRefusedWithTheKnownOnes) {
  std::string error;
  EXPECT_EQ(makeStrategy("bayes", error), nullptr);
  EXPECT_NE(error.find("'bayes'"), std::string::npos);
  for (const auto& name : strategyNames()) EXPECT_NE(error.find(name), std::string::npos);
}
