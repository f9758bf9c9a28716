#include "src/idioms/epilogue/local_accumulator.hpp"

#include <map>
#include <set>

#include "src/loop/tree_walk.hpp"

namespace cudaburg {

namespace {

bool readsArray(const Expr& e, const std::string& array) {
  if (e.kind == Expr::Kind::Load && e.load.array == array) return true;
  for (const ExprPtr& arg : e.args)
    if (readsArray(*arg, array)) return true;
  return false;
}

// The statements after the reduction, with each local replaced by the value it holds: the sum
// (a read of the output element, which holds it in the rewritten nest) or an expression of it.
class EpilogueReader {
 public:
  // `target`: the output element the statements store the sum into first.
  EpilogueReader(const Array& accumulator, const std::set<std::string>& locals, const Access& target)
      : locals_(locals), target_(target) {
    values_[accumulator.name] = Expr::read(target);  // the rewritten nest sums into the output element
  }

  std::string read(const std::vector<NodePtr>& stmts) {
    for (const NodePtr& stmt : stmts) {
      if (stmt->kind == NodeKind::Alloc) {
        if (std::string why = read(flattenSeq(stmt->body())); !why.empty()) return why;
        continue;
      }
      if (stmt->kind != NodeKind::Assign)
        return "a loop follows the reduction into a local; a tile applies only element-wise statements at its store";
      if (stmt->accumulate)
        return "`" + stmt->target.str() +
               " += ...` after the reduction reduces again; a tile writes each output "
               "once, after its one reduction";
      ExprPtr value;
      if (std::string why = substituted(stmt->value, value); !why.empty()) return why;
      if (locals_.count(stmt->target.array)) {
        values_[stmt->target.array] = value;
        continue;
      }
      if (stmt->target.array == target_.array) stored_ = true, stale();
      statements.push_back(makeAssign(stmt->target, value, false, stmt->loc));
    }
    return "";
  }

  std::vector<NodePtr> statements;  // the epilogue, on the output element

 private:
  // Once the output element is overwritten, locals computed from its sum no longer read it.
  void stale() {
    for (auto it = values_.begin(); it != values_.end();)
      it = it->second && readsArray(*it->second, target_.array) ? values_.erase(it) : std::next(it);
  }

  std::string substituted(const ExprPtr& e, ExprPtr& out) {
    if (e->kind == Expr::Kind::Load) {
      if (!locals_.count(e->load.array)) {
        if (!stored_ && e->load.array == target_.array)
          return "a statement after the reduction reads " + e->load.str() + " before the sum is stored in it";
        out = e;
        return "";
      }
      auto it = values_.find(e->load.array);
      if (it == values_.end())
        return "the local '" + e->load.array + "' is read after the output it was computed from is overwritten";
      out = it->second;
      return "";
    }
    out = e;
    if (e->args.empty()) return "";
    auto copy = std::make_shared<Expr>(*e);
    for (ExprPtr& arg : copy->args)
      if (std::string why = substituted(arg, arg); !why.empty()) return why;
    out = copy;
    return "";
  }

  std::set<std::string> locals_;
  std::map<std::string, ExprPtr> values_;
  Access target_;
  bool stored_ = false;  // whether a statement has stored into the target's array yet
};

// The reduction with its `acc += e` made `target += e`; "" or why it is not such a reduction.
std::string retargeted(const NodePtr& node, const std::string& local, const Access& target, NodePtr& out) {
  if (node->kind == NodeKind::Assign) {
    if (!node->accumulate || node->target.array != local)
      return "the reduction does more than accumulate into the local '" + local + "'";
    if (readsArray(*node->value, local)) return "the reduction reads the local '" + local + "' it accumulates into";
    auto n = std::make_shared<Node>(*node);
    n->target = target;
    out = n;
    return "";
  }
  if (node->kind != NodeKind::For && node->kind != NodeKind::Seq)
    return "the reduction into the local '" + local + "' holds more than loops and `+=`";
  std::vector<NodePtr> kids;
  for (const NodePtr& kid : node->kids) {
    NodePtr k;
    if (std::string why = retargeted(kid, local, target, k); !why.empty()) return why;
    kids.push_back(k);
  }
  auto n = std::make_shared<Node>(*node);
  n->kids = std::move(kids);
  out = n;
  return "";
}

}  // namespace

std::string readLocalAccumulator(const NodePtr& body, LocalAccumulator& accumulator) {
  if (body->kind != NodeKind::Alloc || !isLocalScalar(body->buffer))
    return "the body does not open with a local's declaration";
  const Array& local = body->buffer;
  std::vector<NodePtr> stmts = flattenSeq(body->body());
  if (stmts.size() < 3 || stmts[0]->kind != NodeKind::Assign || stmts[0]->accumulate ||
      stmts[0]->target.array != local.name || stmts[1]->kind != NodeKind::For || stmts[1]->loopKind != LoopKind::Reduce)
    return "the local '" + local.name + "' is not set, reduced into, then used: `" + scalarTypeName(local.type) + " " +
           local.name + " = 0; reduce for (...) " + local.name + " += ...;` and the statements that store it";
  std::set<std::string> locals{local.name};
  for (size_t s = 2; s < stmts.size(); ++s)
    forEachNode(*stmts[s], [&](const Node& n) {
      if (n.kind == NodeKind::Alloc) locals.insert(n.buffer.name);
    });
  for (const std::string& name : locals)
    if (readsArray(*stmts[0]->value, name)) return "the initialisation of the local '" + local.name + "' reads a local";
  const Node* store = nullptr;
  for (size_t s = 2; s < stmts.size() && !store; ++s)
    store =
        findNode(*stmts[s], [&](const Node& n) { return n.kind == NodeKind::Assign && !locals.count(n.target.array); });
  if (!store) return "no statement after the reduction stores the local '" + local.name + "' into an output";
  const Access target = store->target;
  EpilogueReader reader(local, locals, target);
  if (std::string why = reader.read({stmts.begin() + 2, stmts.end()}); !why.empty()) return why;
  NodePtr reduction;
  if (std::string why = retargeted(stmts[1], local.name, target, reduction); !why.empty()) return why;
  std::vector<NodePtr> rewritten{makeAssign(target, stmts[0]->value, false, stmts[0]->loc), reduction};
  rewritten.insert(rewritten.end(), reader.statements.begin(), reader.statements.end());
  accumulator.body = makeSeq(rewritten);
  accumulator.type = local.type;
  return "";
}

}  // namespace cudaburg

namespace cudaburg {

namespace {

NodePtr rewrittenBelowParallelLoops(const NodePtr& node) {
  if (node->kind == NodeKind::For && node->loopKind == LoopKind::Parallel) {
    NodePtr body = rewrittenBelowParallelLoops(node->body());
    return body == node->body() ? node : withKids(node, {body});
  }
  LocalAccumulator local;
  return node->kind == NodeKind::Alloc && readLocalAccumulator(node, local).empty() ? local.body : node;
}

}  // namespace

Kernel withLocalAccumulators(const Kernel& kernel) {
  NodePtr body = rewrittenBelowParallelLoops(kernel.body);
  return body == kernel.body ? kernel : kernel.withBody(body);
}

}  // namespace cudaburg
