#include "src/export/tuned_kernel.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "common/diagnostics.hpp"
#include "src/cuda/run/reference_check.hpp"
#include "src/cuda/run/timing.hpp"
#include "src/loop/printer.hpp"
#include "src/search/evaluator.hpp"
#include "src/transform/recipe.hpp"

namespace cudaburg {

namespace {

// Rows verified under the contract asked for: strict takes strict rows and those verified before
// there was a contract (against the nest's own rounding bound); tf32 takes every verified row.
bool takes(const RowFilter& filter, const MeasurementKey& key, const Measurement& m) {
  if (!filter.gpu.empty() && key.gpu != filter.gpu) return false;
  if (filter.precision == Precision::Tf32) return true;
  return m.precision.empty() || m.precision == precisionName(Precision::Strict);
}

// The bound the row was verified within, as best.cu states it: twice the library's error where it
// was measured, else the nest's own rounding bound.
void setBound(TunedKernel& t) {
  const Measurement& m = t.measurement;
  ScalarType output = ScalarType::Float;
  for (const Array& a : t.nest.params)
    if (!a.input) output = a.type;
  if (m.libraryError >= 0) {
    char error[32];
    std::snprintf(error, sizeof error, "%.2e", m.libraryError);
    t.bound = contractBound(m.libraryError, output);
    t.boundSource = "twice the reference library's error (" + std::string(error) + "), --precision " + m.precision;
  } else {
    t.bound = kernelTolerance(t.nest, {}, countWork(t.nest).reductionLength);
    t.boundSource = "the nest's rounding bound (measured before the precision contract)";
  }
}

}  // namespace

std::optional<TunedKernel> findTunedKernel(const ExportProblem& problem, const Kernel& nest,
                                           const std::vector<std::pair<std::string, const TuningDb*>>& databases,
                                           const RowFilter& filter, std::string& error) {
  std::string nestKey = textHash(printKernel(nest)), sizes = sizesText(nest);
  std::optional<TunedKernel> best;
  size_t verified = 0;
  for (const auto& [path, db] : databases)
    for (const auto& [key, m] : db->verified(nestKey, sizes)) {
      ++verified;
      if (!takes(filter, key, m) || (best && best->measurement.ms <= m.ms)) continue;
      best.emplace();
      best->problem = problem;
      best->nest = nest;
      best->key = key;
      best->measurement = m;
      best->database = path;
    }
  if (!best) {
    std::ostringstream why;
    why << "no verified kernel of " << nest.name << " at " << sizes << " in " << databases.front().first
        << (databases.size() > 1 ? " or the other databases" : "");
    if (verified > 0)
      why << " that " << (filter.gpu.empty() ? "" : "ran on " + filter.gpu + " and ") << "passed --precision "
          << precisionName(filter.precision) << " (" << verified << " verified under other terms)";
    why << "; tune it with `cudaburg " << problemText(problem) << " --db " << databases.front().first
        << (filter.precision == Precision::Strict ? "" : " --precision " + std::string(precisionName(filter.precision)))
        << "`";
    error = why.str();
    return std::nullopt;
  }
  for (const std::string& d : problem.defines) best->defined.push_back(d.substr(0, d.find('=')));
  setBound(*best);
  return best;
}

bool rebuildKernel(TunedKernel& tuned, const std::string& entry, std::string& error) {
  std::string where =
      tuned.nest.name + " at " + tuned.key.sizes + " (recipe '" + tuned.key.recipe + "' of " + tuned.database + ")";
  common::SourceFile text("recipe", tuned.key.recipe);
  common::Diagnostics diags(text);
  std::optional<Recipe> recipe = parseRecipe(text, diags);
  if (!recipe) {
    error = "the stored recipe of " + where + " does not parse in this version";
    return false;
  }
  TransformResult applied = applyRecipe(tuned.nest, *recipe);
  if (!applied) {
    error = "the stored recipe of " + where + " does not apply in this version: " + applied.reason;
    return false;
  }
  EmitOptions options;
  options.recipe = printRecipe(*recipe);
  options.entry = entry;
  EmitResult emitted = emitKernel(*applied.kernel, options);
  if (!emitted.ok()) {
    error = "the kernel of " + where + " cannot be emitted in this version: " + emitted.reason;
    return false;
  }
  tuned.cuda = *emitted.kernel;
  bool sameArrays = tuned.cuda.params.size() == tuned.nest.params.size();
  for (size_t i = 0; sameArrays && i < tuned.cuda.params.size(); ++i)
    sameArrays = tuned.cuda.params[i] == tuned.nest.params[i].name;
  if (!sameArrays) {
    error = "the kernel of " + where + " takes other arrays than the nest";
    return false;
  }
  tuned.bound = std::max(tuned.bound, tuned.cuda.minTolerance);
  return true;
}

}  // namespace cudaburg
