#include "src/transform/tree_edit.hpp"

#include "src/transform/mapped_tree_check.hpp"

namespace cudaburg {

namespace {

NodePtr editBelow(const NodePtr& node, const std::string& index,
                  const std::function<LoopEdit(const NodePtr&, const Ancestors&)>& edit, Ancestors& above, int& count,
                  std::string& reason) {
  if (!reason.empty()) return node;
  if (node->kind == NodeKind::For && node->index == index) {
    ++count;
    LoopEdit e = edit(node, above);
    if (!e.node) reason = e.reason.empty() ? "the edit of loop " + index + " failed" : e.reason;
    return e.node ? e.node : node;
  }
  if (node->kids.empty()) return node;
  above.push_back(node);
  std::vector<NodePtr> kids;
  bool changed = false;
  for (const auto& kid : node->kids) {
    kids.push_back(editBelow(kid, index, edit, above, count, reason));
    changed |= kids.back() != kid;
  }
  above.pop_back();
  return changed ? withKids(node, std::move(kids)) : node;
}

void walkBelow(const NodePtr& node, const std::function<void(const NodePtr&, const Ancestors&)>& visit,
               Ancestors& above) {
  visit(node, above);
  above.push_back(node);
  for (const auto& kid : node->kids) walkBelow(kid, visit, above);
  above.pop_back();
}

}  // namespace

TransformResult editLoops(const Kernel& kernel, const std::string& index,
                          const std::function<LoopEdit(const NodePtr&, const Ancestors&)>& edit) {
  Ancestors above;
  int count = 0;
  std::string reason;
  NodePtr body = editBelow(kernel.body, index, edit, above, count, reason);
  if (count == 0) return TransformResult::refuse("there is no loop over index " + index);
  if (!reason.empty()) return TransformResult::refuse(reason);
  return accept(kernel, body);
}

TransformResult accept(const Kernel& kernel, NodePtr body) {
  Kernel result = kernel.withBody(std::move(body));
  std::string broken = checkMappedTree(result);
  if (!broken.empty()) return TransformResult::refuse("the result would break the mapped-tree model: " + broken);
  return TransformResult::success(std::move(result));
}

std::set<std::string> usedNames(const Kernel& kernel) {
  std::set<std::string> names;
  for (const auto& [name, value] : kernel.sizes) names.insert(name);
  for (const auto& a : kernel.params) names.insert(a.name);
  walk(kernel.body, [&](const NodePtr& n, const Ancestors&) {
    if (n->kind == NodeKind::For) names.insert(n->index);
    for (const auto& c : n->collapsed) names.insert(c.index);
    if (n->kind == NodeKind::Alloc) names.insert(n->buffer.name);
  });
  return names;
}

std::string freshName(const std::set<std::string>& taken, const std::string& base) {
  if (!taken.count(base)) return base;
  for (int i = 2;; ++i) {
    std::string candidate = base + std::to_string(i);
    if (!taken.count(candidate)) return candidate;
  }
}

std::string freshName(const Kernel& kernel, const std::string& base) { return freshName(usedNames(kernel), base); }

void walk(const NodePtr& node, const std::function<void(const NodePtr&, const Ancestors&)>& visit) {
  Ancestors above;
  walkBelow(node, visit, above);
}

std::string soleLoopProblem(const NodePtr& body, const std::string& index, const std::string& what,
                            const std::function<std::string(const Node&, const Ancestors&)>& check) {
  int count = 0;
  std::string problem;
  walk(body, [&](const NodePtr& n, const Ancestors& above) {
    if (n->kind != NodeKind::For || n->index != index) return;
    if (++count == 1) problem = check(*n, above);
  });
  if (count == 0) return "there is no loop over index " + index;
  if (count > 1) return std::to_string(count) + " loops run over index " + index + "; only a loop of its own " + what;
  return problem;
}

bool anyNode(const NodePtr& node, const std::function<bool(const Node&)>& pred) {
  if (pred(*node)) return true;
  for (const auto& kid : node->kids)
    if (anyNode(kid, pred)) return true;
  return false;
}

ExprPtr rewriteAccesses(const ExprPtr& expr, const std::function<Access(const Access&)>& rewrite) {
  switch (expr->kind) {
    case Expr::Kind::Load:
      return Expr::read(rewrite(expr->load));
    case Expr::Kind::Binary:
      return Expr::binary(expr->op, rewriteAccesses(expr->args[0], rewrite), rewriteAccesses(expr->args[1], rewrite));
    case Expr::Kind::Call: {
      std::vector<ExprPtr> args;
      for (const ExprPtr& arg : expr->args) args.push_back(rewriteAccesses(arg, rewrite));
      return Expr::call(expr->callee, std::move(args));
    }
    default:
      return expr;
  }
}

NodePtr rewriteAccesses(const NodePtr& node, const std::function<Access(const Access&)>& rewrite) {
  if (node->kind == NodeKind::Assign) {
    auto n = std::make_shared<Node>(*node);
    n->target = rewrite(node->target);
    n->value = rewriteAccesses(node->value, rewrite);
    return n;
  }
  if (node->kids.empty()) return node;
  std::vector<NodePtr> kids;
  for (const auto& kid : node->kids) kids.push_back(rewriteAccesses(kid, rewrite));
  return withKids(node, std::move(kids));
}

bool reads(const ExprPtr& expr, const std::string& array) {
  if (expr->kind == Expr::Kind::Load) return expr->load.array == array;
  for (const auto& a : expr->args)
    if (reads(a, array)) return true;
  return false;
}

bool boundsUse(const Node& loop, const std::string& index) {
  if (loop.lower.uses(index)) return true;
  for (const auto& u : loop.upper)
    if (u.uses(index)) return true;
  return false;
}

std::string perfectNest(const NodePtr& first, const std::vector<std::string>& loops, const std::string& what,
                        std::vector<NodePtr>& band) {
  band = {first};
  for (size_t k = 1; k < loops.size(); ++k) {
    const NodePtr& body = band.back()->body();
    if (body->kind != NodeKind::For || body->index != loops[k])
      return "loop " + loops[k] + " is not the whole body of loop " + loops[k - 1] + " (" + what +
             " needs a perfect nest)";
    band.push_back(body);
  }
  return "";
}

NodePtr withBody(const NodePtr& loop, NodePtr body) { return withKids(loop, {std::move(body)}); }

}  // namespace cudaburg
