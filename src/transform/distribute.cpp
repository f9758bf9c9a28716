#include "src/transform/legality_rules.hpp"
#include "src/transform/transforms.hpp"
#include "src/transform/tree_edit.hpp"

namespace cudaburg {

TransformResult distribute(const Kernel& kernel, const std::string& loop) {
  return editLoops(kernel, loop, [&](const NodePtr& l, const Ancestors&) -> LoopEdit {
    std::vector<NodePtr> stmts = flattenSeq(l->body());
    if (stmts.size() < 2)
      return {nullptr, "the body of loop " + loop + " is a single statement: nothing to distribute"};
    if (std::string why = distributionProblem(kernel, *l); !why.empty()) return {nullptr, why};
    std::vector<NodePtr> loops;
    for (const auto& s : stmts) loops.push_back(withBody(l, s));
    return {makeSeq(loops), {}};
  });
}

}  // namespace cudaburg
