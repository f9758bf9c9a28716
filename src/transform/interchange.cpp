#include "src/transform/legality_rules.hpp"
#include "src/transform/transforms.hpp"
#include "src/transform/tree_edit.hpp"

namespace cudaburg {

TransformResult interchange(const Kernel& kernel, const std::string& outer, const std::string& inner) {
  return editLoops(kernel, outer, [&](const NodePtr& o, const Ancestors&) -> LoopEdit {
    const NodePtr& i = o->body();
    if (i->kind != NodeKind::For || i->index != inner)
      return {nullptr, "loop " + inner + " is not the whole body of loop " + outer + " (only adjacent loops are interchanged)"};
    if (std::string why = interchangeProblem(kernel, *o, *i); !why.empty()) return {nullptr, why};
    return {withBody(i, withBody(o, i->body())), {}};
  });
}

}  // namespace cudaburg
