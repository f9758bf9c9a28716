#include "src/transform/loop_facts.hpp"
#include "src/transform/loop_names.hpp"
#include "src/transform/strip.hpp"
#include "src/transform/transforms.hpp"
#include "src/transform/tree_edit.hpp"

namespace cudaburg {

TransformResult vectorize(const Kernel& kernel, const std::string& loop, int width,
                          const std::vector<std::string>& into) {
  NewLoopNames names = newLoopNames(kernel, StepKind::Vectorize, {loop}, into);
  if (!names.reason.empty()) return TransformResult::refuse(names.reason);
  const std::string& outer = names.names[0];
  return editLoops(kernel, loop, [&](const NodePtr& l, const Ancestors& above) -> LoopEdit {
    if (l->mapping == Mapping::Vector) return {nullptr, "loop " + loop + " is already a vector loop"};
    if (std::string why = vectorProblem(kernel, above, *l, width); !why.empty()) return {nullptr, why};
    auto trips = constantTripCount(*l);
    if (trips && *trips == width && !isGridMapping(l->mapping) && !isBlockMapping(l->mapping)) {
      auto n = std::make_shared<Node>(*l);
      n->mapping = Mapping::Vector;
      return {n, {}};
    }
    return {stripOuterLoop(*l, outer, width, stripInnerLoop(*l, outer, width, l->body(), Mapping::Vector)), {}};
  });
}

}  // namespace cudaburg
