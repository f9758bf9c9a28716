#include "src/fusion/nest_epilogue.hpp"

#include <functional>
#include <vector>

namespace cudaburg {

std::optional<NestEpilogue> splitNestEpilogue(const Kernel& kernel, std::string* why) {
  NestEpilogue split{kernel, kernel, {}, {}};
  // The body of the parallel loops, and the same loops around another body.
  const Node* inner = kernel.body.get();
  while (inner && inner->kind == NodeKind::For && inner->loopKind == LoopKind::Parallel) inner = inner->body().get();
  if (!inner || inner == kernel.body.get()) return split;
  std::function<NodePtr(const NodePtr&, const NodePtr&)> around = [&](const NodePtr& loop, const NodePtr& body) {
    if (loop.get() == inner) return body;
    return withKids(loop, {around(loop->body(), body)});
  };
  std::vector<NodePtr> stmts = flattenSeq(std::make_shared<Node>(*inner));
  size_t r = 0;
  while (r < stmts.size() && stmts[r]->kind != NodeKind::For) ++r;
  if (r + 1 >= stmts.size()) return split;  // no statement after a reduction: no epilogue
  if (std::string reason = whyNoTiledEpilogue(*inner); !reason.empty()) {
    if (why) *why = reason;
    return std::nullopt;
  }
  const Node* update = stmts[r].get();
  while (update->kind == NodeKind::For) update = update->body().get();
  split.target = update->target;
  std::vector<NodePtr> reduction(stmts.begin(), stmts.begin() + static_cast<long>(r) + 1);
  std::vector<NodePtr> after(stmts.begin() + static_cast<long>(r) + 1, stmts.end());
  readEpilogue(after, split.target, split.epilogue);
  split.bare = kernel.withBody(around(kernel.body, makeSeq(reduction)));
  split.epilogueNest = kernel.withBody(around(kernel.body, makeSeq(after)));
  return split;
}

}  // namespace cudaburg
