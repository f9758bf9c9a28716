#include "src/loop/checked_arith.hpp"
#include "src/transform/loop_facts.hpp"
#include "src/transform/loop_names.hpp"
#include "src/transform/transforms.hpp"
#include "src/transform/tree_edit.hpp"

namespace cudaburg {

namespace {

// The loop of a collapsed nest that `loop` becomes, or why it cannot be one.
std::string collapsedLoop(const Node& loop, CollapsedLoop& out) {
  if (!loop.collapsed.empty()) return "loop " + loop.index + " is collapsed already";
  if (loop.mapping != Mapping::None)
    return "loop " + loop.index + " is mapped to " + mappingName(loop.mapping) + "; collapse loops before mapping them";
  bool constant = loop.lower.isConstant();
  for (const auto& u : loop.upper) constant = constant && u.isConstant();
  if (!constant) return "loop " + loop.index + " has bounds that are not constants";
  auto trips = constantTripCount(loop);
  if (!trips || *trips < 1) return "loop " + loop.index + " runs no iteration";
  out = {loop.index, loop.lower.constant, loop.step, *trips};
  return "";
}

}  // namespace

TransformResult collapse(const Kernel& kernel, const std::vector<std::string>& loops,
                         const std::vector<std::string>& into) {
  if (loops.size() < 2) return TransformResult::refuse("collapsing needs at least 2 loops");
  NewLoopNames names = newLoopNames(kernel, StepKind::Collapse, loops, into);
  if (!names.reason.empty()) return TransformResult::refuse(names.reason);
  const std::string& name = names.names[0];
  return editLoops(kernel, loops[0], [&](const NodePtr& first, const Ancestors&) -> LoopEdit {
    std::vector<NodePtr> band;
    if (std::string why = perfectNest(first, loops, "collapsing", band); !why.empty()) return {nullptr, why};
    std::vector<CollapsedLoop> replaced(band.size());
    int64_t total = 1;
    for (size_t k = 0; k < band.size(); ++k) {
      if (std::string why = collapsedLoop(*band[k], replaced[k]); !why.empty()) return {nullptr, why};
      if (band[k]->loopKind != first->loopKind)
        return {nullptr, "loops " + first->index + " (" + loopKindName(first->loopKind) + ") and " + band[k]->index +
                             " (" + loopKindName(band[k]->loopKind) + ") are of different kinds"};
      auto product = checkedMul(total, replaced[k].trips);
      if (!product || *product > (int64_t{1} << 62))
        return {nullptr, "the collapsed loop would run more than 2^62 iterations"};
      total = *product;
    }
    // The collapsed indices are derived where the new loop sets them, for the statements; a loop
    // inside bounded by one would need it before then (and transformations that move loops read
    // bounds, not derivations): refused.
    std::string boundedBy;
    anyNode(band.back()->body(), [&](const Node& n) {
      if (n.kind != NodeKind::For) return false;
      for (const auto& b : band) {
        bool uses = n.lower.uses(b->index);
        for (const auto& u : n.upper) uses = uses || u.uses(b->index);
        if (uses)
          boundedBy = "loop " + n.index + " inside is bounded by " + b->index + ", which collapsing would derive";
        if (uses) return true;
      }
      return false;
    });
    if (!boundedBy.empty()) return {nullptr, boundedBy};
    auto loop = std::make_shared<Node>(
        *makeFor(name, Affine(0), {Affine(total)}, 1, first->loopKind, band.back()->body(), Mapping::None, first->loc));
    loop->collapsed = std::move(replaced);
    return {loop, {}};
  });
}

}  // namespace cudaburg
