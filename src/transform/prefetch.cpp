// prefetch: which unrolled loops read their shared operands one iteration ahead on the GPU
// (Kernel::prefetched, rule 9 of loop_tree.hpp). The tree is unchanged; the emitter keeps two
// register copies of what an iteration reads from shared memory and fills the next one while the
// current one is used.
#include <algorithm>

#include "src/transform/transforms.hpp"
#include "src/transform/tree_edit.hpp"

namespace cudaburg {

namespace {

// Whether `e` reads one of the buffers `shared`.
bool readsShared(const Expr& e, const std::vector<std::string>& shared) {
  if (e.kind == Expr::Kind::Load && std::find(shared.begin(), shared.end(), e.load.array) != shared.end()) return true;
  for (const auto& a : e.args)
    if (readsShared(*a, shared)) return true;
  return false;
}

// "" when the loop `loop` (below `above`) can read its operands ahead, else why not.
std::string prefetchProblem(const Kernel& kernel, const Node& loop, const Ancestors& above) {
  const std::string name = "loop " + loop.index;
  if (kernel.warpTiles()) return "the operands of tensor-core tiles are read by ldmatrix, not prefetched";
  if (loop.mapping != Mapping::Unrolled)
    return name + " is not unrolled (it is " + mappingName(loop.mapping) +
           "): only an unrolled loop knows its next iteration's registers";
  if (anyNode(loop.body(), [](const Node& n) {
        return n.kind == NodeKind::Stage || n.kind == NodeKind::Barrier || n.kind == NodeKind::Alloc;
      }))
    return name + " copies, synchronises or allocates inside: only loops and statements read ahead";
  std::vector<std::string> shared;
  for (const auto& a : above)
    if (a->kind == NodeKind::Alloc && a->buffer.space == MemorySpace::Shared) shared.push_back(a->buffer.name);
  if (!anyNode(loop.body(), [&](const Node& n) { return n.kind == NodeKind::Assign && readsShared(*n.value, shared); }))
    return name + " reads no shared buffer: nothing to read ahead";
  return "";
}

}  // namespace

TransformResult prefetch(const Kernel& kernel, const std::string& index) {
  if (std::find(kernel.prefetched.begin(), kernel.prefetched.end(), index) != kernel.prefetched.end())
    return TransformResult::refuse("loop " + index + " reads ahead already");
  std::string problem =
      soleLoopProblem(kernel.body, index, "reads ahead",
                      [&](const Node& loop, const Ancestors& above) { return prefetchProblem(kernel, loop, above); });
  if (!problem.empty()) return TransformResult::refuse(problem);
  Kernel out = kernel;
  out.prefetched.push_back(index);
  return TransformResult::success(std::move(out));
}

}  // namespace cudaburg
