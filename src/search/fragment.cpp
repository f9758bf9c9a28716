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

bool Fragment::sameAs(const Fragment& other) const {
  return nest.shares(other.nest) && outer.shares(other.outer) && inTile.shares(other.inTile) && shape == other.shape &&
         tileRows == other.tileRows && tileCols == other.tileCols && gridRows == other.gridRows &&
         gridCols == other.gridCols && strips == other.strips && refused == other.refused;
}

std::vector<RecipeStep> Fragment::steps() const {
  std::vector<RecipeStep> all;
  all.reserve(nest.size() + outer.size() + inTile.size());
  for (const StepList* run : {&nest, &outer, &inTile}) run->appendTo(all);
  return all;
}

bool Fragment::namesLoop(const std::string& name) const {
  // Read in place: labeling names new loops for every binding it tries.
  for (const StepList* steps : {&nest, &outer, &inTile})
    for (const auto& step : *steps)
      if (std::find(step.into.begin(), step.into.end(), name) != step.into.end()) return true;
  return false;
}

Recipe Fragment::recipe(const Kernel& kernel) const { return withDefaultNamesLeftOut(kernel, Recipe{steps()}); }

}  // namespace cudaburg
