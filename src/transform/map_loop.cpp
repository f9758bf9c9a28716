#include "src/transform/loop_facts.hpp"
#include "src/transform/transforms.hpp"
#include "src/transform/tree_edit.hpp"

namespace cudaburg {

TransformResult mapLoop(const Kernel& kernel, const std::string& loop, Mapping mapping, int asyncStages) {
  if (asyncStages != 0 && mapping != Mapping::AsyncPipelined)
    return TransformResult::refuse("only an asynchronously pipelined loop (async) takes a number of buffers");
  if (asyncStages != 0 && (asyncStages < 2 || asyncStages > kMaxAsyncStages))
    return TransformResult::refuse("an asynchronous pipeline keeps 2 to " + std::to_string(kMaxAsyncStages) +
                                   " buffers of each stage, not " + std::to_string(asyncStages));
  Kernel buffered = kernel;
  if (mapping == Mapping::AsyncPipelined) buffered.asyncStages = asyncStages ? asyncStages : kAsyncStages;
  return editLoops(buffered, loop, [&](const NodePtr& l, const Ancestors& above) -> LoopEdit {
    if ((isGridMapping(mapping) || isBlockMapping(mapping)) && l->loopKind != LoopKind::Parallel)
      return {nullptr, "loop " + loop + " is " + loopKindName(l->loopKind) + ", and only parallel loops map to " +
                           mappingName(mapping)};
    if (mapping == Mapping::Vector) {
      auto trips = constantTripCount(*l);
      if (!trips || (*trips != 2 && *trips != 4))
        return {nullptr, "loop " + loop + " does not run 2 or 4 times (vectorize strip-mines it first)"};
      if (std::string why = vectorProblem(kernel, above, *l, static_cast<int>(*trips)); !why.empty())
        return {nullptr, why};
    }
    auto n = std::make_shared<Node>(*l);
    n->mapping = mapping;
    return {n, {}};
  });
}

}  // namespace cudaburg
