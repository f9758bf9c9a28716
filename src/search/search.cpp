#include "src/search/search.hpp"

#include <map>

#include "src/idioms/registry.hpp"

namespace cudaburg {

namespace {

// The decisions of a candidate, one entry each: neighbours differ in exactly one.
// The idioms' own come from their units (src/idioms/), so that a strategy may move them too.
std::vector<int64_t> decisions(const CandidateShape& s) {
  std::vector<int64_t> d{s.blockRows,
                         s.blockCols,
                         s.threadRows,
                         s.threadCols,
                         s.staged ? s.stageDepth : 0,
                         s.split,
                         s.pipelined,
                         s.asyncCopies,
                         s.interleaved,
                         s.spread,
                         s.transposed,
                         s.serial,
                         s.outer,
                         s.laneRows,
                         s.peeled,
                         s.asyncCopies ? s.asyncStages : 0,
                         s.swizzled,
                         s.rasterRows,
                         s.prefetched,
                         s.residentBlocks,
                         s.tabled,
                         s.persistentBlocks,
                         s.pingPong,
                         s.clusterRows,
                         s.clusterCols};
  std::vector<int64_t> idiom = idiomDecisions(s.idiom);
  d.insert(d.end(), idiom.begin(), idiom.end());
  return d;
}

// The cover text on one line, for the report: "kernel: t:tiled / tiled: ... [bm=64, ...] / ...".
std::string oneLine(const std::string& cover) {
  std::string out;
  std::istringstream lines(cover);
  for (std::string line; std::getline(lines, line);) {
    size_t start = line.find_first_not_of(' ');
    if (start == std::string::npos) continue;
    out += (out.empty() ? "" : " / ") + line.substr(start);
  }
  return out;
}

constexpr size_t kFolds = 5;
// Without a GPU, the model's first kCompiledWithoutGpu candidates that compile are kept, looked
// for among its first kTriedWithoutGpu: where all of those fail, the rest would fail for the same
// reason (a type or instruction the target lacks), and going through thousands takes minutes.
constexpr size_t kCompiledWithoutGpu = 16;
constexpr size_t kTriedWithoutGpu = 8 * kCompiledWithoutGpu;

// Spearman's rho of the model refitted on the other folds against the measured times: how well
// the calibrated model ranks candidates it was not fitted on.
double crossValidatedRho(const CalibratedModel& prior, const std::vector<ModelSample>& samples) {
  if (samples.size() < 2 * kFolds) return 0;
  std::vector<double> predicted(samples.size()), measured(samples.size());
  for (size_t fold = 0; fold < kFolds; ++fold) {
    std::vector<ModelSample> train;
    for (size_t i = 0; i < samples.size(); ++i)
      if (i % kFolds != fold) train.push_back(samples[i]);
    CalibratedModel m = prior.fitted(train);
    for (size_t i = fold; i < samples.size(); i += kFolds) predicted[i] = m.predictMs(samples[i].features);
  }
  for (size_t i = 0; i < samples.size(); ++i) measured[i] = samples[i].ms;
  return rankCorrelation(predicted, measured);
}

}  // namespace

std::map<std::string, std::optional<double>> measureCovers(const LoopRules& rules,
                                                           const std::vector<KernelCover>& covers, Evaluator& evaluator,
                                                           Strategy& strategy) {
  std::vector<Candidate> candidates;
  std::vector<StrategyCandidate> forStrategy;
  std::vector<std::string> lines;
  std::map<std::string, size_t> seen;
  for (const auto& c : covers) {
    Recipe recipe = c.fragment.recipe(rules.kernel());
    std::string line = printRecipeLine(recipe);
    if (!evaluator.answers(line)) continue;                       // a replay: not in its database
    if (!seen.emplace(line, candidates.size()).second) continue;  // another cover, the same kernel
    candidates.push_back({recipe, oneLine(c.cover), c.modelMs});
    forStrategy.push_back({decisions(c.fragment.shape), CalibratedModel::features(c.fragment.shape, rules.gpu())});
    lines.push_back(line);
  }
  SearchOutcome& outcome = evaluator.outcome();
  outcome.candidates = candidates.size();
  strategy.start(forStrategy, rules.calibratedModel());

  std::map<std::string, std::optional<double>> table;
  std::vector<ModelSample> samples, compiledSamples;  // the latter with what the compiler made
  std::vector<size_t> sampleVariant;                  // each sample's place in outcome.variants
  std::vector<double> priorMs, measuredMs;
  // Without a GPU nothing is timed: the model's best few that compile are compiled, in the model's
  // order (what a step or the compiler refuses is skipped), and the best of them wins, at its
  // estimate.
  bool timing = outcome.gpuAvailable;
  size_t next = 0, compiled = 0;
  while (!evaluator.outOfBudget()) {
    std::vector<size_t> ids;
    if (timing)
      ids = strategy.ask();
    else
      for (; next < std::min(candidates.size(), kTriedWithoutGpu) && ids.size() + compiled < kCompiledWithoutGpu;
           ++next)
        ids.push_back(next);
    if (ids.empty()) break;
    std::vector<Candidate> batch;
    for (size_t i : ids) batch.push_back(candidates[i]);
    size_t before = outcome.variants.size();
    evaluator.evaluate(batch);
    for (size_t j = 0; j < ids.size(); ++j) {
      const VariantResult& v = outcome.variants[before + j];
      size_t i = ids[j];
      std::optional<double> ms;
      if (v.measured && v.result.status == RunStatus::Ok) {
        ms = v.result.ms;
        samples.push_back({forStrategy[i].features, *ms});
        sampleVariant.push_back(before + j);
        if (const CompileResult* binary = evaluator.binaryFor(lines[i]); binary && binary->resources.instructions > 0)
          compiledSamples.push_back(
              {CalibratedModel::compiledFeatures(forStrategy[i].features, binary->resources.registers,
                                                 binary->resources.instructions),
               *ms});
        priorMs.push_back(candidates[i].model);
        measuredMs.push_back(*ms);
      }
      if (timing) strategy.tell(i, ms);
      if (v.measured) {
        table[lines[i]] = ms;
      } else if (!timing) {  // ranked at its estimate where it compiled
        bool refused = v.result.status == RunStatus::Refused;
        table[lines[i]] = refused ? std::nullopt : std::optional<double>(candidates[i].model);
        compiled += !refused;
      }
    }
  }
  outcome.strategy = strategy.name();
  outcome.modelSamples = samples.size();
  outcome.priorRho = rankCorrelation(priorMs, measuredMs);
  // The refit sees each kernel's registers and instructions too where every measured kernel was
  // compiled here (a replay compiles nothing): the estimates it gives the measured variants.
  bool onCode = !samples.empty() && compiledSamples.size() == samples.size();
  const std::vector<ModelSample>& fitOn = onCode ? compiledSamples : samples;
  CalibratedModel base = onCode ? rules.calibratedModel().withCompiledFeatures() : rules.calibratedModel();
  outcome.refitOnCompiledCode = onCode;
  outcome.calibratedRho = crossValidatedRho(base, fitOn);
  CalibratedModel refit = base.fitted(fitOn);
  for (size_t k = 0; k < fitOn.size(); ++k)
    outcome.variants[sampleVariant[k]].refittedMs = refit.predictMs(fitOn[k].features);
  return table;
}

}  // namespace cudaburg
