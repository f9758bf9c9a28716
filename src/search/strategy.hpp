#pragma once
// Search strategies: which of the labeler's candidate kernels to measure, and when to stop. A
// strategy sees the candidates in the model's order (the k best covers of the root, cheapest
// estimate first), is asked for the next ones to measure and told their times (ask/tell, as in
// Kernel Tuner and TVM's meta_schedule), so the same strategy runs on a GPU or replays a tuning
// database without one. The choice among what was measured is the labeler's, not the strategy's.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/search/calibrated_model.hpp"

namespace cudaburg {

struct StrategyCandidate {
  std::vector<int64_t> decisions;  // the parameters chosen, one entry a decision (for neighbourhoods)
  std::vector<double> features;    // CalibratedModel::features
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  // A new search over `candidates`, best model estimate first; `model` ranked them.
  virtual void start(std::vector<StrategyCandidate> candidates, CalibratedModel model);
  // The next candidates to measure (indices into start's list); empty when the strategy is done.
  virtual std::vector<size_t> ask() = 0;
  // Candidate `i` ran in `ms` (nullopt: it was refused, failed, was wrong or was not measured).
  virtual void tell(size_t i, std::optional<double> ms);
  virtual std::string name() const = 0;
  // The model as the strategy has fitted it to what it was told (the prior until then).
  const CalibratedModel& model() const { return model_; }

 protected:
  std::vector<size_t> untried(size_t count);  // the next `count` never asked for, in list order, now asked
  void markAsked(const std::vector<size_t>& ids);
  std::vector<StrategyCandidate> candidates_;
  std::vector<bool> asked_;
  std::vector<std::optional<double>> told_;
  CalibratedModel model_ = CalibratedModel::prior();
};

// "exhaustive": every candidate, in the model's order.
// "model": the model's best, in order, until the budget is spent (an eighth of the candidates, at
//          least 8, when no budget is given).
// "adaptive" (the default): the model's best sixteenth (at least 8); then, round after round, the
//          neighbours of the two fastest so far (one decision changed) and the best of the model
//          refitted to every time told, while a round finds a faster kernel, up to a quarter.
std::unique_ptr<Strategy> makeStrategy(const std::string& name, std::string& error);
const std::vector<std::string>& strategyNames();

}  // namespace cudaburg
