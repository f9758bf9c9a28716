#include "src/transform/loop_names.hpp"
#include "src/transform/strip.hpp"
#include "src/transform/transforms.hpp"
#include "src/transform/tree_edit.hpp"

namespace cudaburg {

NodePtr stripOuterLoop(const Node& loop, const std::string& outerName, int64_t factor, NodePtr body) {
  return makeFor(outerName, loop.lower, loop.upper, loop.step * factor, loop.loopKind, std::move(body), loop.mapping,
                 loop.loc);
}

NodePtr stripInnerLoop(const Node& loop, const std::string& outerName, int64_t factor, NodePtr body, Mapping mapping) {
  int64_t strip = loop.step * factor;
  std::vector<Affine> upper = {Affine::var(outerName) + Affine(strip)};
  for (const auto& u : loop.upper) {
    Affine distance = u - loop.lower;
    bool neverPassed = distance.isConstant() && distance.constant % strip == 0;
    if (!neverPassed) upper.push_back(u);
  }
  auto inner = std::make_shared<Node>(*makeFor(loop.index, Affine::var(outerName), std::move(upper), loop.step,
                                               loop.loopKind, std::move(body), mapping, loop.loc));
  inner->collapsed = loop.collapsed;  // the element loop keeps the index, and so what derives from it
  return inner;
}

TransformResult stripMine(const Kernel& kernel, const std::string& loop, int64_t factor,
                          const std::vector<std::string>& into) {
  if (factor < 2)
    return TransformResult::refuse("strip-mining needs a factor of at least 2, not " + std::to_string(factor));
  NewLoopNames names = newLoopNames(kernel, StepKind::StripMine, {loop}, into);
  if (!names.reason.empty()) return TransformResult::refuse(names.reason);
  const std::string& outer = names.names[0];
  return editLoops(kernel, loop, [&](const NodePtr& l, const Ancestors&) -> LoopEdit {
    return {stripOuterLoop(*l, outer, factor, stripInnerLoop(*l, outer, factor, l->body())), {}};
  });
}

}  // namespace cudaburg
