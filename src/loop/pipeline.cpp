#include "src/loop/pipeline.hpp"

#include <algorithm>

#include "src/loop/tree_walk.hpp"

namespace cudaburg {

namespace {

bool holdsStageOrBarrier(const Node& root) {
  return findNode(root, [](const Node& n) {
           return n.kind == NodeKind::Stage || n.kind == NodeKind::Barrier ||
                  (n.kind == NodeKind::Alloc && n.buffer.space == MemorySpace::Shared);
         }) != nullptr;
}

}  // namespace

PipelineParts pipelineParts(const Node& loop) {
  PipelineParts parts;
  auto fail = [&](const std::string& why) {
    parts.problem = "loop " + loop.index + " cannot be pipelined: " + why;
    return parts;
  };
  if (loop.kind != NodeKind::For || loop.kids.empty()) return fail("it is not a loop");
  NodePtr body = loop.body();
  while (body->kind == NodeKind::Alloc && body->buffer.space == MemorySpace::Shared) {
    parts.buffers.push_back(body.get());
    body = body->body();
  }
  if (parts.buffers.empty()) return fail("its body does not start with shared buffers (stage something at it first)");
  std::vector<NodePtr> stmts = flattenSeq(body);
  size_t i = 0;
  for (; i < stmts.size() && stmts[i]->kind == NodeKind::Stage; ++i) {
    const Node* stage = stmts[i].get();
    bool own = std::any_of(parts.buffers.begin(), parts.buffers.end(),
                           [&](const Node* b) { return b->buffer.name == stage->buffer.name; });
    if (!own) return fail("its stage into " + stage->buffer.name + " fills no buffer allocated at the loop");
    parts.stages.push_back(stage);
  }
  if (parts.stages.empty()) return fail("its body does not begin with stages");
  if (i == stmts.size() || stmts[i]->kind != NodeKind::Barrier) return fail("its stages are not followed by a barrier");
  if (stmts.size() < i + 3 || stmts.back()->kind != NodeKind::Barrier)
    return fail("its body does not end in a barrier after the work on the buffers");
  for (size_t w = i + 1; w + 1 < stmts.size(); ++w) {
    if (holdsStageOrBarrier(*stmts[w])) return fail("the work between its barriers stages or synchronises again");
    parts.work.push_back(stmts[w]);
  }
  if (parts.stages.size() != parts.buffers.size()) return fail("some of its shared buffers are not staged");
  return parts;
}

}  // namespace cudaburg
