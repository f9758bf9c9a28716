#pragma once
// Turns candidate recipes into measured variants: apply the recipe, emit, compile (ahead of
// measurement, in parallel), then verify and time one kernel at a time on the GPU, reusing and
// filling the tuning database. A variant that is refused, fails to compile, is wrong, faults or
// hangs becomes a result with a reason; nothing here stops the search.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/cuda/compile/compiler.hpp"
#include "src/cuda/run/runner.hpp"
#include "src/search/outcome.hpp"
#include "src/search/progress.hpp"
#include "src/transform/recipe.hpp"
#include "src/tuning/tuning_db.hpp"

namespace cudaburg {

struct Candidate {
  Recipe recipe;
  std::string cover;  // the rules that chose it
  double model = 0;   // the model's estimate (lower is better)
};

struct EvaluatorOptions {
  CompileOptions compile;
  MeasureOptions measure;
  // Stop measuring new variants when this much wall time has passed since `started`, or would
  // have before one more measurement could end (0: no limit); variants not reached are reported
  // as not measured.
  std::chrono::seconds budget{0};
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  // Stop measuring after this many variants (0: no limit); from the database they count too.
  size_t maxMeasured = 0;
  // Answer every measurement from the tuning database, as measured on the GPU with the most rows
  // for this nest; compile nothing and run nothing (a replay of a stored search, without a GPU).
  bool replay = false;
};

class Evaluator {
 public:
  // `runner` null or unavailable: nothing is measured (ranked by the model only).
  // `db` null: nothing is stored or reused.
  Evaluator(const Kernel& kernel, EvaluatorOptions options, Runner* runner, TuningDb* db, Progress& progress);
  ~Evaluator();

  // Evaluates the candidates (in the order given: best model estimate first) and appends them
  // to the outcome; returns the fastest verified time among them, or nullopt.
  std::optional<double> evaluate(const std::vector<Candidate>& candidates);
  // Whether the time budget is spent.
  bool outOfBudget() const;
  // Keeps `time` of the budget for what follows measuring: measuring ends that much earlier (at
  // most half the budget earlier). Called before the first evaluate().
  void reserve(std::chrono::steady_clock::duration time);
  // Whether a recipe could be measured: always, but in a replay only what the database holds (a
  // replay of a database recorded before candidates were added offers the strategy those it knows).
  bool answers(const std::string& recipeLine) const;

  SearchOutcome& outcome() { return outcome_; }
  const std::string& nestKey() const { return nestKey_; }
  // The architecture candidates are compiled for ("sm_90").
  const std::string& arch() const { return options_.compile.arch; }
  // What the compiled variant of a recipe is (for writing best.cu): null when unknown.
  const CudaKernel* kernelFor(const std::string& recipeLine) const;
  const CompileResult* binaryFor(const std::string& recipeLine) const;

 private:
  struct Prepared;
  struct CompileBudget;
  MeasurementKey keyFor(const std::string& recipeLine) const;
  void measureOne(Prepared& p, VariantResult& v);
  void noteFastest(const Measurement& m);  // keeps fastestMs_
  // Waits for `p`'s compilation until the budget ends; false when it was not done by then (once
  // a variant has been measured: before, it waits as long as the compilation takes).
  bool compiledWithinBudget(Prepared& p) const;

  const Kernel& kernel_;
  EvaluatorOptions options_;
  Runner* runner_;
  TuningDb* db_;
  Progress& progress_;
  std::unique_ptr<ThreadPool> pool_;
  std::shared_ptr<CompileBudget> compileBudget_;
  SearchOutcome outcome_;
  std::string nestKey_;
  std::string gpuName_, computeCapability_, driver_;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();  // with a time budget
  std::chrono::steady_clock::duration longestMeasurement_{0};  // of any measurement but the first
  bool timedOne_ = false;                                      // the runner has measured once
  std::vector<std::unique_ptr<Prepared>> kept_;                // every prepared variant, by recipe, for best.cu
  size_t measured_ = 0;
  bool storeFailed_ = false;  // the database refused a measurement (warned once)
  double fastestMs_ = 0;      // the fastest correct variant so far: what the next one races (0: none yet)
};

// A short stable hash of a text, as hex (FNV-1a, 64 bits): names loop nests in the database.
std::string textHash(const std::string& text);
// A kernel's sizes as the database's sizes column holds them: "M=2048,N=2048,K=2048".
std::string sizesText(const Kernel& k);

}  // namespace cudaburg
