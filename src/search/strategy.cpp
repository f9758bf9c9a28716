#include "src/search/strategy.hpp"

#include <algorithm>
#include <numeric>

namespace cudaburg {

namespace {

// What one round of the adaptive strategy adds: neighbours of each of the two fastest, and the
// refitted model's best.
constexpr size_t kNeighboursARound = 8;
constexpr size_t kModelPicksARound = 4;

class Exhaustive : public Strategy {
 public:
  std::string name() const override { return "exhaustive"; }
  std::vector<size_t> ask() override { return untried(32); }  // batches: the budget is checked between them
};

class ModelOrder : public Strategy {
 public:
  std::string name() const override { return "model"; }
  std::vector<size_t> ask() override {
    size_t cap = std::max<size_t>(std::min<size_t>(8, candidates_.size()), candidates_.size() / 8);
    size_t asked = std::count(asked_.begin(), asked_.end(), true);
    return asked >= cap ? std::vector<size_t>{} : untried(std::min<size_t>(8, cap - asked));
  }
};

bool neighbours(const StrategyCandidate& a, const StrategyCandidate& b) {
  int differ = 0;
  for (size_t i = 0; i < a.decisions.size() && i < b.decisions.size(); ++i) differ += a.decisions[i] != b.decisions[i];
  return differ == 1;
}

class Adaptive : public Strategy {
 public:
  std::string name() const override { return "adaptive"; }
  std::vector<size_t> ask() override {
    size_t n = candidates_.size();
    size_t first = std::max<size_t>(std::min<size_t>(8, n), n / 16);
    size_t cap = std::max(first, n / 4);
    size_t asked = std::count(asked_.begin(), asked_.end(), true);
    if (asked == 0) return untried(first);
    std::vector<size_t> fastest;
    for (size_t i = 0; i < n; ++i)
      if (told_[i]) fastest.push_back(i);
    if (fastest.empty() || asked >= cap) return {};
    std::sort(fastest.begin(), fastest.end(), [&](size_t a, size_t b) { return *told_[a] < *told_[b]; });
    double best = *told_[fastest.front()];
    if (bestBefore_ && best >= *bestBefore_) return {};  // the last round found nothing faster
    bestBefore_ = best;

    refit();
    // Candidates in the refitted model's order: the neighbours of the two fastest (one decision
    // changed), a few of each, then the model's own best not measured yet.
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::vector<double> predicted(n);
    for (size_t i = 0; i < n; ++i) predicted[i] = model_.predictMs(candidates_[i].features);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return predicted[a] < predicted[b]; });
    std::vector<size_t> next;
    auto take = [&](size_t i) {
      bool fresh = !asked_[i] && std::find(next.begin(), next.end(), i) == next.end();
      if (fresh && asked + next.size() < cap) next.push_back(i);
      return fresh;
    };
    for (size_t top = 0; top < fastest.size() && top < 2; ++top) {
      size_t taken = 0;
      for (size_t i : order)
        if (taken < kNeighboursARound && neighbours(candidates_[fastest[top]], candidates_[i]) && take(i)) ++taken;
    }
    size_t fromModel = 0;
    for (size_t i : order)
      if (fromModel < kModelPicksARound && take(i)) ++fromModel;
    markAsked(next);
    return next;
  }

 private:
  void refit() {
    std::vector<ModelSample> samples;
    for (size_t i = 0; i < candidates_.size(); ++i)
      if (told_[i]) samples.push_back({candidates_[i].features, *told_[i]});
    model_ = prior_.fitted(samples);
  }
  std::optional<double> bestBefore_;
  CalibratedModel prior_ = CalibratedModel::prior();

 public:
  void start(std::vector<StrategyCandidate> candidates, CalibratedModel model) override {
    prior_ = model;
    bestBefore_.reset();
    Strategy::start(std::move(candidates), std::move(model));
  }
};

}  // namespace

void Strategy::start(std::vector<StrategyCandidate> candidates, CalibratedModel model) {
  candidates_ = std::move(candidates);
  asked_.assign(candidates_.size(), false);
  told_.assign(candidates_.size(), std::nullopt);
  model_ = std::move(model);
}

void Strategy::tell(size_t i, std::optional<double> ms) {
  if (i < told_.size()) told_[i] = ms;
}

std::vector<size_t> Strategy::untried(size_t count) {
  std::vector<size_t> ids;
  for (size_t i = 0; i < asked_.size() && ids.size() < count; ++i)
    if (!asked_[i]) ids.push_back(i);
  markAsked(ids);
  return ids;
}

void Strategy::markAsked(const std::vector<size_t>& ids) {
  for (size_t i : ids) asked_[i] = true;
}

const std::vector<std::string>& strategyNames() {
  static const std::vector<std::string> names = {"adaptive", "model", "exhaustive"};
  return names;
}

std::unique_ptr<Strategy> makeStrategy(const std::string& name, std::string& error) {
  if (name == "adaptive") return std::make_unique<Adaptive>();
  if (name == "model") return std::make_unique<ModelOrder>();
  if (name == "exhaustive") return std::make_unique<Exhaustive>();
  error = "--strategy: '" + name + "' is not a strategy (adaptive, model, exhaustive)";
  return nullptr;
}

}  // namespace cudaburg
