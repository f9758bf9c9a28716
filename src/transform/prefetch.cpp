// prefetch: which unrolled loops read their shared operands one iteration ahead on the GPU
// (Kernel::prefetched, rule 9 of loop_tree.hpp). The tree is unchanged; the emitter keeps two
// register copies of what an iteration reads from shared memory and fills the next one while the
// current one is used.
#include <algorithm>

#include "src/transform/transforms.hpp"
#include "src/transform/tree_edit.hpp"

namespace cudaburg {

namespace {

// Whether `node` reads a shared buffer allocated around it (one of `shared`).
bool readsShared(const Node& node, const std::vector<std::string>& shared) {
  bool reads = false;
  std::function<void(const Expr&)> visit = [&](const Expr& e) {
    if (e.kind == Expr::Kind::Load && std::find(shared.begin(), shared.end(), e.load.array) != shared.end()) reads = true;
    for (const auto& a : e.args) visit(*a);
  };
  std::function<void(const Node&)> walkNode = [&](const Node& n) {
    if (n.kind == NodeKind::Assign) visit(*n.value);
    for (const auto& k : n.kids) walkNode(*k);
  };
  walkNode(node);
  return reads;
}

// "" when the loop `loop` (below `above`) can read its operands ahead, else why not.
std::string prefetchProblem(const Kernel& kernel, const Node& loop, const Ancestors& above) {
  const std::string name = "loop " + loop.index;
  if (kernel.warpTiles) return "the operands of tensor-core tiles are read by ldmatrix, not prefetched";
  if (loop.mapping != Mapping::Unrolled)
    return name + " is not unrolled (it is " + mappingName(loop.mapping) + "): only an unrolled loop knows its next iteration's registers";
  bool straight = true;  // only loops and statements: no copy, barrier or buffer of its own
  std::function<void(const Node&)> check = [&](const Node& n) {
    if (n.kind == NodeKind::Stage || n.kind == NodeKind::Barrier || n.kind == NodeKind::Alloc) straight = false;
    for (const auto& k : n.kids) check(*k);
  };
  check(*loop.body());
  if (!straight) return name + " copies, synchronises or allocates inside: only loops and statements read ahead";
  std::vector<std::string> shared;
  for (const auto& a : above)
    if (a->kind == NodeKind::Alloc && a->buffer.space == MemorySpace::Shared) shared.push_back(a->buffer.name);
  if (!readsShared(loop, shared)) return name + " reads no shared buffer: nothing to read ahead";
  return "";
}

}  // namespace

TransformResult prefetch(const Kernel& kernel, const std::string& index) {
  if (std::find(kernel.prefetched.begin(), kernel.prefetched.end(), index) != kernel.prefetched.end())
    return TransformResult::refuse("loop " + index + " reads ahead already");
  int count = 0;
  std::string problem;
  walk(kernel.body, [&](const NodePtr& n, const Ancestors& above) {
    if (n->kind != NodeKind::For || n->index != index) return;
    if (++count == 1) problem = prefetchProblem(kernel, *n, above);
  });
  if (count == 0) return TransformResult::refuse("there is no loop over index " + index);
  if (count > 1)
    return TransformResult::refuse(std::to_string(count) + " loops run over index " + index + "; only a loop of its own reads ahead");
  if (!problem.empty()) return TransformResult::refuse(problem);
  Kernel out = kernel;
  out.prefetched.push_back(index);
  return TransformResult::success(std::move(out));
}

}  // namespace cudaburg
