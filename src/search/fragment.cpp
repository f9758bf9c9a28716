#include "src/search/fragment.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace cudaburg {

namespace {

void collectNames(const Node& n, std::set<std::string>& names) {
  if (n.kind == NodeKind::For) names.insert(n.index);
  if (n.kind == NodeKind::Alloc || n.kind == NodeKind::Stage) names.insert(n.buffer.name);
  for (const auto& k : n.kids) collectNames(*k, names);
}

}  // namespace

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

Recipe Fragment::recipe(const Kernel& kernel) const {
  std::vector<std::pair<Phase, RecipeStep>> ordered = steps;
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  // Strip marks become the names the transformations will choose, in the order steps apply.
  std::set<std::string> used;
  collectNames(*kernel.body, used);
  for (const auto& p : kernel.params) used.insert(p.name);
  for (const auto& [name, value] : kernel.sizes) used.insert(name);
  std::map<std::string, std::string> lastStrip;
  auto freshName = [&](const std::string& from, const std::string& suffix) {
    std::string name = from + suffix;
    for (int n = 2; used.count(name); ++n) name = from + suffix + std::to_string(n);
    used.insert(name);
    return name;
  };
  Recipe r;
  for (auto& [phase, s] : ordered) {
    for (auto& l : s.loops)
      if (!l.empty() && l.back() == kStripMark) l = lastStrip[l.substr(0, l.size() - 1)];
    bool strips = s.kind == StepKind::Tile || s.kind == StepKind::StripMine || s.kind == StepKind::RegisterTile;
    if (strips)
      for (const auto& l : s.loops) lastStrip[l] = freshName(l, "_o");
    if (s.kind == StepKind::Split) lastStrip[s.loops[0]] = freshName(s.loops[0], "_s");
    r.steps.push_back(s);
  }
  return r;
}

}  // namespace cudaburg
