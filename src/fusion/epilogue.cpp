#include "src/fusion/epilogue.hpp"

#include "src/loop/printer.hpp"

namespace cudaburg {

namespace {

bool sameElement(const Access& a, const Access& b) { return a.array == b.array && a.subscripts == b.subscripts; }

// "`Y[i][j] = max(Y[i][j] + b[j], 0);` (line 12)": a statement as written, where it is.
std::string quoted(const Node& stmt) {
  std::string text = stmt.kind == NodeKind::Assign ? printNode(stmt) : "for (" + stmt.index + " ...)";
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  std::string where = stmt.loc.valid() ? " (line " + std::to_string(stmt.loc.line) + ")" : "";
  return "`" + text + "`" + where;
}

// A read in `e` of `element`'s array at another element, or null.
const Access* otherElementRead(const Expr& e, const Access& element) {
  if (e.kind == Expr::Kind::Load && e.load.array == element.array && !sameElement(e.load, element)) return &e.load;
  for (const ExprPtr& arg : e.args)
    if (const Access* a = otherElementRead(*arg, element)) return a;
  return nullptr;
}

// `e` with every read of `element` replaced by `by`.
ExprPtr substituted(const ExprPtr& e, const Access& element, const ExprPtr& by) {
  if (e->kind == Expr::Kind::Load) return sameElement(e->load, element) ? by : e;
  if (e->args.empty()) return e;
  auto copy = std::make_shared<Expr>(*e);
  for (ExprPtr& arg : copy->args) arg = substituted(arg, element, by);
  return copy;
}

}  // namespace

std::string readEpilogue(const std::vector<NodePtr>& statements, const Access& target, Epilogue& epilogue) {
  epilogue.statements.clear();
  for (const NodePtr& stmt : statements) {
    if (stmt->kind != NodeKind::Assign || stmt->accumulate)
      return "the statement " + quoted(*stmt) + " after the reduction into " + target.str() +
             " reduces again (a reduction after the epilogue): a tile writes each output once, after its one reduction";
    if (!sameElement(stmt->target, target))
      return "the statement " + quoted(*stmt) + " writes " + stmt->target.str() + ", not the reduced " + target.str() +
             ": an epilogue only rewrites the element its tile holds";
    if (const Access* other = otherElementRead(*stmt->value, target))
      return "the statement " + quoted(*stmt) + " reads " + other->str() + ", an output element other than the " +
             target.str() + " it follows: a tile holds only its own elements when it writes them back";
    epilogue.statements.push_back(stmt);
  }
  return "";
}

std::string whyNoTiledEpilogue(const Node& body) {
  std::vector<NodePtr> stmts = flattenSeq(std::make_shared<Node>(body));
  if (stmts.size() < 3 || stmts[0]->kind != NodeKind::Assign || stmts[0]->accumulate ||
      stmts[1]->kind != NodeKind::For)
    return "the body is not an initialisation, a reduction and the statements after it";
  const Node* update = stmts[1].get();
  while (update->kind == NodeKind::For) update = update->body().get();
  if (update->kind != NodeKind::Assign || !update->accumulate || !sameElement(update->target, stmts[0]->target))
    return "the reduction does not accumulate into the element initialised before it";
  Epilogue epilogue;
  return readEpilogue({stmts.begin() + 2, stmts.end()}, update->target, epilogue);
}

ExprPtr epilogueValue(const Epilogue& epilogue, const Access& target, ExprPtr sum) {
  for (const NodePtr& stmt : epilogue.statements) sum = substituted(stmt->value, target, sum);
  return sum;
}

}  // namespace cudaburg
