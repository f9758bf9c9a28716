#include "src/transform/loop_names.hpp"

#include <algorithm>

#include "src/transform/tree_edit.hpp"

namespace cudaburg {

namespace {

// What in `kernel` is called `name`, for a refusal ("" when nothing is).
std::string whatIsCalled(const Kernel& kernel, const std::string& name) {
  for (const auto& [size, value] : kernel.sizes)
    if (size == name) return "a size";
  if (kernel.findParam(name)) return "an array";
  std::string what;
  walk(kernel.body, [&](const NodePtr& n, const Ancestors&) {
    if (n->kind == NodeKind::For && n->index == name) what = "a loop";
    if (n->kind == NodeKind::For)
      for (const auto& c : n->collapsed)
        if (c.index == name) what = "a collapsed loop";
    if (n->kind == NodeKind::Alloc && n->buffer.name == name && what.empty()) what = "a buffer";
  });
  return what;
}

}  // namespace

bool makesLoops(StepKind kind) {
  switch (kind) {
    case StepKind::StripMine:
    case StepKind::Tile:
    case StepKind::Unroll:
    case StepKind::Vectorize:
    case StepKind::RegisterTile:
    case StepKind::Split:
    case StepKind::Collapse:
      return true;
    default:
      return false;
  }
}

std::vector<std::string> loopsNamedFrom(const RecipeStep& step) {
  std::vector<std::string> loops = step.loops;
  if (step.kind == StepKind::RegisterTile && step.factors.size() > step.loops.size())
    loops.insert(loops.end(), step.loops.begin(), step.loops.end());
  return loops;
}

std::vector<std::string> defaultLoopNamesWhere(StepKind kind, const std::vector<std::string>& loops,
                                               const std::function<bool(const std::string&)>& taken) {
  auto fresh = [&](const std::string& base, const std::vector<std::string>& chosen) {
    auto used = [&](const std::string& name) {
      return taken(name) || std::find(chosen.begin(), chosen.end(), name) != chosen.end();
    };
    if (!used(base)) return base;
    for (int i = 2;; ++i)
      if (std::string candidate = base + std::to_string(i); !used(candidate)) return candidate;
  };
  if (kind == StepKind::Collapse) {
    std::string joined;
    for (const auto& loop : loops) joined += (joined.empty() ? "" : "_") + loop;
    return {fresh(joined, {})};
  }
  const char* suffix = kind == StepKind::Split ? "_s" : "_o";
  std::vector<std::string> names;
  for (const auto& loop : loops) names.push_back(fresh(loop + suffix, names));
  return names;
}

std::vector<std::string> defaultLoopNames(StepKind kind, const std::vector<std::string>& loops,
                                          const std::set<std::string>& taken) {
  return defaultLoopNamesWhere(kind, loops, [&](const std::string& name) { return taken.count(name) > 0; });
}

NewLoopNames newLoopNames(const Kernel& kernel, StepKind kind, const std::vector<std::string>& loops,
                          const std::vector<std::string>& given) {
  if (given.empty()) return {defaultLoopNames(kind, loops, usedNames(kernel)), {}};
  size_t made = kind == StepKind::Collapse ? 1 : loops.size();
  if (given.size() != made)
    return {{},
            std::to_string(made) + (made == 1 ? " new loop is" : " new loops are") + " given " +
                std::to_string(given.size()) + (given.size() == 1 ? " name" : " names")};
  for (size_t i = 0; i < given.size(); ++i) {
    if (std::string what = whatIsCalled(kernel, given[i]); !what.empty())
      return {{}, "the new loop cannot be named " + given[i] + ": " + what + " of the kernel has that name"};
    if (std::find(given.begin(), given.begin() + static_cast<long>(i), given[i]) !=
        given.begin() + static_cast<long>(i))
      return {{}, "two new loops cannot both be named " + given[i]};
  }
  return {given, {}};
}

Recipe withDefaultNamesLeftOut(const Kernel& kernel, Recipe recipe) {
  // The names taken when a step applies lie between those certainly taken and those perhaps
  // taken (by an unroll or a vectorize that made no loop): where the rule names a step's loops
  // alike from both, it names them so when the recipe applies.
  std::set<std::string> certain = usedNames(kernel), possible = certain;
  for (RecipeStep& step : recipe.steps) {
    if (!makesLoops(step.kind)) continue;
    std::vector<std::string> fromCertain = defaultLoopNames(step.kind, loopsNamedFrom(step), certain);
    std::vector<std::string> fromPossible = defaultLoopNames(step.kind, loopsNamedFrom(step), possible);
    bool known = fromCertain == fromPossible;
    if (known && step.into == fromCertain) step.into.clear();
    const std::vector<std::string>& names = step.into.empty() ? fromCertain : step.into;
    bool alwaysMakes = step.kind != StepKind::Unroll && step.kind != StepKind::Vectorize;
    for (const auto& n : names) {
      possible.insert(n);
      if (alwaysMakes && (known || !step.into.empty())) certain.insert(n);
    }
    if (step.into.empty()) possible.insert(fromPossible.begin(), fromPossible.end());
  }
  return recipe;
}

}  // namespace cudaburg
