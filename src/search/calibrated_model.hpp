#pragma once
// The model that ranks candidates: the analytic estimate of src/search/cost_model.hpp and a few
// features of a candidate's shape, combined linearly into the logarithm of its time and fitted
// by least squares to measured times. The prior is the estimate alone; a search refits the weights
// to what the tuning database holds and to what it measures of its own nest, shrunk toward the
// prior while measurements are few. See docs/search.md.
#include <string>
#include <vector>

#include "src/search/cost_model.hpp"

namespace cudaburg {

struct ModelSample {
  std::vector<double> features;  // CalibratedModel::features of a candidate
  double ms = 0;                 // its measured time
};

class CalibratedModel {
 public:
  // The features of a candidate, in the order of the weights; names() says what each is. The
  // second form takes the shape's estimate on the GPU, made already.
  static std::vector<double> features(const CandidateShape& shape, const GpuModel& gpu);
  static std::vector<double> featuresOf(const CandidateShape& shape, const Estimate& estimate);
  static const std::vector<std::string>& names();
  // The features of a compiled candidate: its shape's, then what the compiler made of it, which
  // nothing before compilation shows: ptxas's registers a thread and the kernel's instructions
  // (logarithms). Two candidates the shape features cannot tell apart (mirror-image register
  // tiles, say) compile to different code.
  static std::vector<double> compiledFeatures(std::vector<double> shapeFeatures, int registers, int64_t instructions);
  static constexpr size_t kCompiledFeatures = 2;
  // These weights and a weight of 0 for each compiled feature: the prior of a refit on them.
  CalibratedModel withCompiledFeatures() const;
  // What ranks candidates before anything of the nest is measured: the analytic estimate alone
  // (its logarithm, nanoseconds to milliseconds).
  static CalibratedModel prior();

  explicit CalibratedModel(std::vector<double> weights, size_t samples = 0)
      : weights_(std::move(weights)), samples_(samples) {}

  double predictMs(const std::vector<double>& features) const;
  // How strongly a refit holds to the weights it starts from: a few measurements adjust them, many
  // decide.
  static constexpr double kRidge = 4.0;
  // These weights refitted to `samples`: least squares on log time, with a penalty `ridge` on
  // the distance from these weights.
  CalibratedModel fitted(const std::vector<ModelSample>& samples, double ridge = kRidge) const;

  const std::vector<double>& weights() const { return weights_; }
  size_t samples() const { return samples_; }  // measurements fitted on top of the prior (0: none)

 private:
  std::vector<double> weights_;
  size_t samples_ = 0;
};

// Spearman's rank correlation of two equally long series (ties share their mean rank); 0 when
// fewer than two values or one series is constant.
double rankCorrelation(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace cudaburg
