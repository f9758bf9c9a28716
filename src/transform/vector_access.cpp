#include <set>

#include "src/transform/loop_facts.hpp"
#include "src/transform/tree_edit.hpp"

namespace cudaburg {

namespace {

// Whether an affine value is always a multiple of `width`, knowing which indices are.
bool aligned(const Affine& a, const std::set<std::string>& alignedIndices, int width) {
  if (a.constant % width != 0) return false;
  for (const auto& [name, c] : a.terms)
    if (c % width != 0 && !alignedIndices.count(name)) return false;
  return true;
}

const Array* findArray(const Kernel& kernel, const std::vector<NodePtr>& above, const std::string& name) {
  if (const Array* a = kernel.findParam(name)) return a;
  for (const auto& n : above)
    if (n->kind == NodeKind::Alloc && n->buffer.name == name) return &n->buffer;
  return nullptr;
}

std::string accessProblem(const Kernel& kernel, const std::vector<NodePtr>& above, const Access& access,
                          const std::string& index, const std::set<std::string>& alignedIndices, int width) {
  const Array* array = findArray(kernel, above, access.array);
  if (!array) return "array " + access.array + " is not declared";
  for (size_t d = 0; d + 1 < access.subscripts.size(); ++d)
    if (access.subscripts[d].uses(index))
      return "access " + access.str() + " uses " + index + " outside its last subscript: not contiguous";
  if (access.subscripts.empty() || !access.subscripts.back().uses(index)) return "";
  const Affine& last = access.subscripts.back();
  if (last.coef(index) != 1) return "access " + access.str() + " steps over elements of " + index + ": not contiguous";
  if (array->zeroPadded) return "access " + access.str() + " reads a padded array, which a wide load cannot guard";
  if (array->extents.back() % width != 0)
    return "the last extent of " + array->name + " (" + std::to_string(array->extents.back()) +
           ") is not a multiple of " + std::to_string(width);
  if (!aligned(last - Affine::var(index), alignedIndices, width))
    return "access " + access.str() + " is not aligned to " + std::to_string(width) + " elements";
  return "";
}

std::string valueProblem(const Kernel& kernel, const std::vector<NodePtr>& above, const ExprPtr& e,
                         const std::string& index, const std::set<std::string>& alignedIndices, int width) {
  if (e->kind == Expr::Kind::Load) return accessProblem(kernel, above, e->load, index, alignedIndices, width);
  if (e->kind == Expr::Kind::Index && e->index.uses(index))
    return "the value of index " + index + " is used in arithmetic";
  for (const auto& a : e->args)
    if (std::string why = valueProblem(kernel, above, a, index, alignedIndices, width); !why.empty()) return why;
  return "";
}

}  // namespace

std::string vectorProblem(const Kernel& kernel, const std::vector<NodePtr>& above, const Node& loop, int width) {
  if (width != 2 && width != 4) return "vectors are 2 or 4 elements wide, not " + std::to_string(width);
  if (loop.step != 1) return "loop " + loop.index + " has step " + std::to_string(loop.step) + ", not 1";
  if (!loop.collapsed.empty())
    return "loop " + loop.index + " is collapsed: the elements of consecutive iterations need not lie side by side";
  if (anyNode(loop.body(), [](const Node& n) { return n.kind != NodeKind::Assign && n.kind != NodeKind::Seq; }))
    return "loop " + loop.index + " is not innermost";
  // Indices whose every value is a multiple of the width.
  std::set<std::string> alignedIndices;
  for (const auto& n : above)
    if (n->kind == NodeKind::For && n->step % width == 0 && aligned(n->lower, alignedIndices, width))
      alignedIndices.insert(n->index);
  if (!aligned(loop.lower, alignedIndices, width))
    return "loop " + loop.index + " starts at " + loop.lower.str() + ", not a multiple of " + std::to_string(width);
  for (const auto& u : loop.upper)
    if (!aligned(u, alignedIndices, width))
      return "loop " + loop.index + " ends at " + u.str() + ", not a multiple of " + std::to_string(width);
  std::vector<NodePtr> scope = above;
  std::string why;
  walk(loop.body(), [&](const NodePtr& n, const Ancestors&) {
    if (!why.empty() || n->kind != NodeKind::Assign) return;
    if (!n->target.subscripts.empty() && !n->target.subscripts.back().uses(loop.index))
      why = "the target " + n->target.str() + " does not vary with " + loop.index + " (a reduction across the vector)";
    else
      why = accessProblem(kernel, scope, n->target, loop.index, alignedIndices, width);
    if (why.empty()) why = valueProblem(kernel, scope, n->value, loop.index, alignedIndices, width);
  });
  return why;
}

}  // namespace cudaburg
