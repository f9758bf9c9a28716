#include "src/idioms/write_back.hpp"

#include <cstdio>
#include <functional>

#include "src/idioms/registry.hpp"

namespace cudaburg {

namespace {

// "4.00 MiB", "24.0 KiB", "96 B".
std::string byteText(double bytes) {
  char text[32];
  if (bytes >= 1024.0 * 1024.0)
    std::snprintf(text, sizeof text, "%.2f MiB", bytes / (1024.0 * 1024.0));
  else if (bytes >= 1024.0)
    std::snprintf(text, sizeof text, "%.1f KiB", bytes / 1024.0);
  else
    std::snprintf(text, sizeof text, "%.0f B", bytes);
  return text;
}

}  // namespace

std::string readEpilogue(const std::vector<NodePtr>& statements, const Access& target, Epilogue& epilogue) {
  epilogue = Epilogue{};
  if (statements.empty()) return "";
  std::string first;
  for (const WriteBackUnit* unit : writeBackUnits()) {
    std::string why = unit->read(statements, target);
    if (why.empty()) {
      epilogue = {statements, unit};
      return "";
    }
    if (first.empty()) first = why;
  }
  return first;
}

std::string whyNoTiledEpilogue(const Node& body) {
  std::vector<NodePtr> stmts = flattenSeq(std::make_shared<Node>(body));
  if (stmts.size() < 3 || stmts[0]->kind != NodeKind::Assign || stmts[0]->accumulate || stmts[1]->kind != NodeKind::For)
    return "the body is not an initialisation, a reduction and the statements after it";
  const Node* update = stmts[1].get();
  while (update->kind == NodeKind::For) update = update->body().get();
  if (update->kind != NodeKind::Assign || !update->accumulate || update->target.array != stmts[0]->target.array ||
      update->target.subscripts != stmts[0]->target.subscripts)
    return "the reduction does not accumulate into the element initialised before it";
  Epilogue epilogue;
  return readEpilogue({stmts.begin() + 2, stmts.end()}, update->target, epilogue);
}

ExprPtr epilogueValue(const Epilogue& epilogue, const Access& target, ExprPtr sum) {
  return epilogue.unit ? epilogue.unit->value(epilogue, target, sum) : sum;
}

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

std::string epilogueCuda(const NestEpilogue& nest, const Kernel& kernel,
                         const std::map<std::string, std::string>& indices, const std::string& sum,
                         std::string& refusal) {
  if (!nest.epilogue.unit) return sum;
  return nest.epilogue.unit->cuda(nest.epilogue, nest.target, kernel, indices, sum, refusal);
}

std::string fusionSavings(const Kernel& kernel) {
  std::optional<NestEpilogue> nest = splitNestEpilogue(kernel);
  if (!nest || !nest->epilogue.unit) return "";
  const Array* output = kernel.findParam(nest->target.array);
  if (!output) return "";
  int64_t statements = static_cast<int64_t>(nest->epilogue.statements.size());
  EpilogueTraffic t = nest->epilogue.unit->traffic(nest->epilogue, output->elements(), scalarTypeBytes(output->type));
  char share[16];
  std::snprintf(share, sizeof share, "%.0f%%", 100.0 * t.savedBytes() / t.unfusedBytes);
  return "fusion: applied at the write-back, the epilogue (" + std::to_string(statements) +
         (statements == 1 ? " statement" : " statements") + ") leaves " + output->name + " stored once, " +
         byteText(t.fusedBytes) +
         "; unfused, the product stored, then read back and stored again by a pass a "
         "statement, " +
         byteText(t.unfusedBytes) + ": " + byteText(t.savedBytes()) + " (" + share + ") of traffic saved";
}

}  // namespace cudaburg
