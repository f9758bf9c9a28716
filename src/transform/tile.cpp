#include "src/transform/legality_rules.hpp"
#include "src/transform/loop_names.hpp"
#include "src/transform/strip.hpp"
#include "src/transform/transforms.hpp"
#include "src/transform/tree_edit.hpp"

namespace cudaburg {

TransformResult tile(const Kernel& kernel, const std::vector<std::string>& loops, const std::vector<int64_t>& factors,
                     const std::vector<std::string>& into) {
  if (loops.empty() || loops.size() != factors.size()) return TransformResult::refuse("tiling needs one factor a loop");
  for (int64_t f : factors)
    if (f < 2) return TransformResult::refuse("tiling needs factors of at least 2, not " + std::to_string(f));
  // Names are chosen before the edit so that every copy of the band gets the same ones.
  NewLoopNames names = newLoopNames(kernel, StepKind::Tile, loops, into);
  if (!names.reason.empty()) return TransformResult::refuse(names.reason);
  const std::vector<std::string>& outer = names.names;
  return editLoops(kernel, loops[0], [&](const NodePtr& first, const Ancestors&) -> LoopEdit {
    std::vector<NodePtr> band;
    if (std::string why = perfectNest(first, loops, "tiling", band); !why.empty()) return {nullptr, why};
    std::vector<const Node*> raw;
    for (const auto& l : band) raw.push_back(l.get());
    if (std::string why = permutationProblem(kernel, raw); !why.empty()) return {nullptr, why};
    NodePtr result = band.back()->body();
    for (size_t k = band.size(); k-- > 0;) result = stripInnerLoop(*band[k], outer[k], factors[k], result);
    for (size_t k = band.size(); k-- > 0;) result = stripOuterLoop(*band[k], outer[k], factors[k], result);
    return {result, {}};
  });
}

}  // namespace cudaburg
