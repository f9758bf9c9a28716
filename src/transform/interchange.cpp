#include "src/transform/legality_rules.hpp"
#include "src/transform/transforms.hpp"
#include "src/transform/tree_edit.hpp"

namespace cudaburg {

// Of several loops over `outer` (copies made by fission), those whose body is a loop over `inner`
// are interchanged; the others stay as they are.
TransformResult interchange(const Kernel& kernel, const std::string& outer, const std::string& inner) {
  int swapped = 0;
  TransformResult r = editLoops(kernel, outer, [&](const NodePtr& o, const Ancestors&) -> LoopEdit {
    const NodePtr& i = o->body();
    if (i->kind != NodeKind::For || i->index != inner) return {o, {}};
    if (std::string why = interchangeProblem(kernel, *o, *i); !why.empty()) return {nullptr, why};
    ++swapped;
    return {withBody(i, withBody(o, i->body())), {}};
  });
  if (r.ok() && swapped == 0)
    return TransformResult::refuse("loop " + inner + " is not the whole body of loop " + outer +
                                   " (only adjacent loops are interchanged)");
  return r;
}

}  // namespace cudaburg
