#include "src/idioms/epilogue/epilogue_idiom.hpp"

#include "src/loop/math_functions.hpp"
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

// An expression as CUDA in float: a read of `sum` is `sumText`, each loop index the variable
// `indices` maps it to; the first thing it cannot write is kept in `refusal`.
class CudaText {
 public:
  CudaText(const Kernel& kernel, const std::map<std::string, std::string>& indices, const Access& sum,
           const std::string& sumText)
      : kernel_(kernel), indices_(indices), sum_(sum), sumText_(sumText) {}

  std::string text(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::Constant:
        return cudaFloatLiteral(e.value);
      case Expr::Kind::Index:
        return "static_cast<float>(" + affine(e.index) + ")";
      case Expr::Kind::Load: {
        if (e.load.array == sum_.array) return sumText_;
        const Array* a = kernel_.findParam(e.load.array);
        if (!a) return refusal = "the epilogue reads `" + e.load.array + "`, no parameter", "0.0f";
        std::string at;
        for (size_t d = 0; d < e.load.subscripts.size(); ++d)
          at = d == 0 ? affine(e.load.subscripts[d])
                      : "(" + at + ") * " + std::to_string(a->extents[d]) + " + " + affine(e.load.subscripts[d]);
        return a->name + "[" + (at.empty() ? "0" : at) + "]";
      }
      case Expr::Kind::Binary:
        return "(" + text(*e.args[0]) + " " + e.op + " " + text(*e.args[1]) + ")";
      case Expr::Kind::Call: {
        const MathFunction* f = findMathFunction(e.callee);
        if (!f) return refusal = "unknown function `" + e.callee + "`", "0.0f";
        std::string args;
        for (const ExprPtr& arg : e.args) args += (args.empty() ? "" : ", ") + text(*arg);
        return std::string(f->cudaFloat) + "(" + args + ")";
      }
    }
    return "0.0f";
  }

  std::string refusal;

 private:
  std::string affine(const Affine& a) {
    std::string s;
    for (const auto& [name, coef] : a.terms) {
      auto it = indices_.find(name);
      if (it == indices_.end()) {
        refusal = "the epilogue reads `" + name + "`, which is not an index of the output";
        return "0";
      }
      s += (s.empty() ? "" : " + ") + (coef == 1 ? "" : std::to_string(coef) + " * ") + it->second;
    }
    if (s.empty() || a.constant != 0) s += (s.empty() ? "" : " + ") + std::to_string(a.constant);
    return a.terms.size() == 1 && a.constant == 0 ? s : "(" + s + ")";
  }

  const Kernel& kernel_;
  const std::map<std::string, std::string>& indices_;
  const Access& sum_;
  const std::string& sumText_;
};

}  // namespace

std::string EpilogueIdiom::read(const std::vector<NodePtr>& statements, const Access& target) const {
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
  }
  return "";
}

ExprPtr EpilogueIdiom::value(const Epilogue& epilogue, const Access& target, ExprPtr sum) const {
  for (const NodePtr& stmt : epilogue.statements) sum = substituted(stmt->value, target, sum);
  return sum;
}

std::string EpilogueIdiom::cuda(const Epilogue& epilogue, const Access& target, const Kernel& kernel,
                                const std::map<std::string, std::string>& indices, const std::string& sum,
                                std::string& refusal) const {
  Access marker;
  marker.array = "@sum";  // no array's name: stands for the sum in the composed value
  CudaText cuda(kernel, indices, marker, sum);
  std::string text = cuda.text(*value(epilogue, target, Expr::read(marker)));
  refusal = cuda.refusal;
  return text;
}

EpilogueTraffic EpilogueIdiom::traffic(const Epilogue& epilogue, int64_t outputs, int elementBytes) const {
  double store = static_cast<double>(outputs) * elementBytes;
  return {store, store + 2.0 * store * static_cast<double>(epilogue.statements.size())};
}

}  // namespace cudaburg
