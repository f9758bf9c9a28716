#include "src/search/untiled_reason.hpp"

#include <vector>

#include "src/analysis/nest_sequence.hpp"
#include "src/idioms/back_to_back/back_to_back_pair.hpp"
#include "src/idioms/epilogue/local_accumulator.hpp"
#include "src/idioms/write_back.hpp"
#include "src/loop/printer.hpp"
#include "src/loop/tree_walk.hpp"

namespace cudaburg {

namespace {

// "`Y[i][j] = max(Y[i][j] + b[j], 0);` (line 12)": a statement as written, where it is.
std::string quoted(const Node& stmt) {
  std::string text = stmt.kind == NodeKind::Assign ? printNode(stmt) : "for (" + stmt.index + " ...)";
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  std::string where = stmt.loc.valid() ? " (line " + std::to_string(stmt.loc.line) + ")" : "";
  return "`" + text + "`" + where;
}

// The `+=` a reduction nest ends in, or null where its innermost body is anything else.
const Node* accumulation(const Node* loop) {
  while (loop->kind == NodeKind::For && loop->loopKind == LoopKind::Reduce) loop = loop->body().get();
  return loop->kind == NodeKind::Assign && loop->accumulate ? loop : nullptr;
}

}  // namespace

std::string whyNotTiled(const Kernel& kernel) {
  std::vector<NodePtr> nests = flattenSeq(kernel.body);
  if (nests.size() > 1) {  // parallel nests in a row are searched one by one (nest_sequence.hpp)
    std::string notNests;
    if (!splitNests(kernel, notNests).empty()) {  // as one kernel, only two products back to back
      std::string notPair;
      recognizeBackToBack(kernel, notPair);
      return notPair.empty() ? "no back-to-back tile within the parameters' ranges fits the two products"
                             : "the kernel's nests are no two products back to back: " + notPair;
    }
    return "the kernel's body is " + std::to_string(nests.size()) + " statements in a row and " + notNests +
           ": each rule of the grammar tiles one nest, so the whole body runs as written";
  }
  NodePtr cur = kernel.body;
  bool parallel = false;
  for (; cur->kind == NodeKind::For && cur->loopKind == LoopKind::Parallel; cur = cur->body()) parallel = true;
  if (!parallel) return "the nest has no parallel loop outermost, whose iterations the grid and blocks would share";
  if (cur->kind == NodeKind::Alloc) {
    LocalAccumulator local;
    if (std::string why = readLocalAccumulator(cur, local); !why.empty())
      return "the local `" + std::string(scalarTypeName(cur->buffer.type)) + " " + cur->buffer.name + "` (line " +
             std::to_string(cur->buffer.loc.line) + ") cannot become a register tile's accumulator: " + why;
    cur = local.body;
  }
  if (const Node* local = findNode(*cur, [](const Node& n) { return n.kind == NodeKind::Alloc; }))
    return "the local `" + std::string(scalarTypeName(local->buffer.type)) + " " + local->buffer.name + "` (line " +
           std::to_string(local->buffer.loc.line) +
           ") is declared inside the reduction; only a local that holds the whole sum becomes a tile's accumulator";
  std::vector<NodePtr> stmts = flattenSeq(cur);
  size_t r = 0;
  while (r < stmts.size() && !(stmts[r]->kind == NodeKind::For && stmts[r]->loopKind == LoopKind::Reduce)) ++r;
  if (r == stmts.size())
    return "the nest reduces nothing: the tiled rules cover products and convolutions, each output a reduction";
  const Node* update = accumulation(stmts[r].get());
  if (!update)
    return "the reduction over " + stmts[r]->index + " " + quoted(*stmts[r]) +
           " does more than one `+=` into an output: the tiled rules reduce one product into each output";
  for (size_t s = 0; s < r; ++s) {
    const Node& stmt = *stmts[s];
    if (stmt.kind == NodeKind::Assign && !stmt.accumulate && stmt.value->kind == Expr::Kind::Constant &&
        stmt.target.str() == update->target.str())
      continue;
    return "the statement " + quoted(stmt) + " before the reduction over " + stmts[r]->index +
           ": the tiled rules only set each output to 0 before they reduce into it";
  }
  Epilogue epilogue;
  if (std::string why = readEpilogue({stmts.begin() + static_cast<long>(r) + 1, stmts.end()}, update->target, epilogue);
      !why.empty())
    return why;
  if (r + 1 < stmts.size())
    return "the statement " + quoted(*stmts[r + 1]) + " after the reduction over " + stmts[r]->index +
           ": the tiled idioms apply such an epilogue at their write-back, but none of them covers this nest's shape";
  return "the nest's shape matches none of the grammar's idioms";
}

}  // namespace cudaburg
