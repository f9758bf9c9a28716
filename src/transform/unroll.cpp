#include "src/transform/loop_facts.hpp"
#include "src/transform/loop_names.hpp"
#include "src/transform/strip.hpp"
#include "src/transform/transforms.hpp"
#include "src/transform/tree_edit.hpp"

namespace cudaburg {

TransformResult unroll(const Kernel& kernel, const std::string& loop, int64_t factor,
                       const std::vector<std::string>& into) {
  if (factor < 2)
    return TransformResult::refuse("unrolling needs a factor of at least 2, not " + std::to_string(factor));
  NewLoopNames names = newLoopNames(kernel, StepKind::Unroll, {loop}, into);
  if (!names.reason.empty()) return TransformResult::refuse(names.reason);
  const std::string& outer = names.names[0];
  return editLoops(kernel, loop, [&](const NodePtr& l, const Ancestors&) -> LoopEdit {
    if (l->mapping == Mapping::Vector) return {nullptr, "loop " + loop + " is already a vector loop"};
    auto trips = constantTripCount(*l);
    bool inPlace = trips && *trips <= factor && !isGridMapping(l->mapping) && !isBlockMapping(l->mapping);
    if (inPlace) {
      auto n = std::make_shared<Node>(*l);
      n->mapping = Mapping::Unrolled;
      return {n, {}};
    }
    return {stripOuterLoop(*l, outer, factor, stripInnerLoop(*l, outer, factor, l->body(), Mapping::Unrolled)), {}};
  });
}

}  // namespace cudaburg
