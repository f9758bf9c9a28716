#include "src/search/fragment.hpp"

#include <algorithm>

#include "src/transform/loop_names.hpp"

namespace cudaburg {

RecipeStep makeStep(StepKind kind, std::vector<std::string> loops, std::vector<int64_t> factors, Mapping mapping,
                    std::string array) {
  RecipeStep s;
  s.kind = kind;
  s.loops = std::move(loops);
  s.factors = std::move(factors);
  s.mapping = mapping;
  s.array = std::move(array);
  return s;
}

std::vector<RecipeStep> Fragment::steps() const {
  std::vector<RecipeStep> all = nest;
  all.insert(all.end(), outer.begin(), outer.end());
  all.insert(all.end(), inTile.begin(), inTile.end());
  return all;
}

bool Fragment::namesLoop(const std::string& name) const {
  // Read in place: labeling names new loops for every binding it tries.
  for (const auto* steps : {&nest, &outer, &inTile})
    for (const auto& step : *steps)
      if (std::find(step.into.begin(), step.into.end(), name) != step.into.end()) return true;
  return false;
}

Recipe Fragment::recipe(const Kernel& kernel) const { return withDefaultNamesLeftOut(kernel, Recipe{steps()}); }

}  // namespace cudaburg
