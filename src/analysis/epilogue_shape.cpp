#include "src/analysis/epilogue_shape.hpp"

#include <cmath>
#include <functional>
#include <map>
#include <vector>

#include "src/loop/math_functions.hpp"

namespace cudaburg {
namespace {

// Stand-ins in expressions: the product's value, and the argument of the activation.
const char* const kProduct = "@product";
const char* const kArgument = "@x";

bool isMarker(const Expr& e, const char* name) { return e.kind == Expr::Kind::Load && e.load.array == name; }

bool mentions(const Expr& e, const char* name) {
  if (isMarker(e, name)) return true;
  for (const ExprPtr& a : e.args)
    if (mentions(*a, name)) return true;
  return false;
}

// `e` with every load of a known element (a local, or an output written before) replaced by the
// expression that element holds.
ExprPtr substitute(const ExprPtr& e, const std::map<std::string, ExprPtr>& held) {
  switch (e->kind) {
    case Expr::Kind::Load: {
      auto it = held.find(e->load.str());
      return it == held.end() ? e : it->second;
    }
    case Expr::Kind::Binary:
      return Expr::binary(e->op, substitute(e->args[0], held), substitute(e->args[1], held));
    case Expr::Kind::Call: {
      std::vector<ExprPtr> args;
      for (const ExprPtr& a : e->args) args.push_back(substitute(a, held));
      return Expr::call(e->callee, args);
    }
    default:
      return e;
  }
}

// `e` with every subexpression that reads as `part` replaced by `replacement`.
ExprPtr replaceAll(const ExprPtr& e, const std::string& part, const ExprPtr& replacement) {
  if (e->str() == part) return replacement;
  if (e->kind == Expr::Kind::Binary)
    return Expr::binary(e->op, replaceAll(e->args[0], part, replacement), replaceAll(e->args[1], part, replacement));
  if (e->kind == Expr::Kind::Call) {
    std::vector<ExprPtr> args;
    for (const ExprPtr& a : e->args) args.push_back(replaceAll(a, part, replacement));
    return Expr::call(e->callee, args);
  }
  return e;
}

// The value of a function of the argument alone at x; NaN when it reads anything else.
double evaluate(const Expr& e, double x) {
  switch (e.kind) {
    case Expr::Kind::Constant:
      return e.value;
    case Expr::Kind::Load:
      return isMarker(e, kArgument) ? x : NAN;
    case Expr::Kind::Binary: {
      double l = evaluate(*e.args[0], x), r = evaluate(*e.args[1], x);
      switch (e.op) {
        case '+':
          return l + r;
        case '-':
          return l - r;
        case '*':
          return l * r;
        case '/':
          return l / r;
        default:
          return NAN;
      }
    }
    case Expr::Kind::Call: {
      const MathFunction* f = findMathFunction(e.callee);
      if (!f) return NAN;
      return applyMathFunction(*f, evaluate(*e.args[0], x), e.args.size() > 1 ? evaluate(*e.args[1], x) : 0);
    }
    default:
      return NAN;
  }
}

// Which activation a function of one argument is, tried at points on both sides of 0.
std::optional<EpilogueShape::Activation> classify(const Expr& f) {
  const double kSqrt2OverPi = std::sqrt(2 / M_PI);
  const std::map<EpilogueShape::Activation, std::function<double(double)>> forms = {
      {EpilogueShape::Activation::None, [](double x) { return x; }},
      {EpilogueShape::Activation::Relu, [](double x) { return x > 0 ? x : 0; }},
      {EpilogueShape::Activation::GeluTanh,
       [&](double x) { return 0.5 * x * (1 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x))); }},
      {EpilogueShape::Activation::GeluErf, [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }},
  };
  for (const auto& [activation, form] : forms) {
    bool same = true;
    for (double x : {-3.0, -1.5, -0.5, -0.1, 0.0, 0.3, 1.0, 2.5}) {
      double got = evaluate(f, x), want = form(x);
      // The written constants may be rounded (0.7978845608 for sqrt(2 / pi)).
      if (!(std::fabs(got - want) <= 1e-7 * (1 + std::fabs(want)))) same = false;
    }
    if (same) return activation;
  }
  return std::nullopt;
}

void flattenSum(const ExprPtr& e, std::vector<ExprPtr>& terms) {
  if (e->kind == Expr::Kind::Binary && e->op == '+') {
    flattenSum(e->args[0], terms);
    flattenSum(e->args[1], terms);
  } else {
    terms.push_back(e);
  }
}

// The one plain loop index a 1-D access reads at; "" otherwise.
std::string channelOf(const Kernel& kernel, const Access& a) {
  const Array* array = kernel.findParam(a.array);
  if (!array || !array->input || a.subscripts.size() != 1) return "";
  const Affine& s = a.subscripts[0];
  if (s.constant != 0 || s.terms.size() != 1 || s.terms.begin()->second != 1) return "";
  return s.terms.begin()->first;
}

// Fills scale, shift, channel and shortcut from x = product [* scale[c]] + shift[c] + shortcut.
bool matchAffine(const Kernel& kernel, const ExprPtr& x, const Access& out, EpilogueShape& e) {
  std::vector<ExprPtr> terms;
  flattenSum(x, terms);
  bool product = false;
  auto setChannel = [&](const std::string& c) {
    if (c.empty() || (!e.channel.empty() && e.channel != c)) return false;
    e.channel = c;
    return true;
  };
  for (const ExprPtr& t : terms) {
    if (isMarker(*t, kProduct)) {
      if (product) return false;
      product = true;
    } else if (t->kind == Expr::Kind::Binary && t->op == '*' && mentions(*t, kProduct)) {
      const ExprPtr& other = isMarker(*t->args[0], kProduct) ? t->args[1] : t->args[0];
      if (product || other->kind != Expr::Kind::Load || !setChannel(channelOf(kernel, other->load))) return false;
      product = true;
      e.scale = other->load.array;
    } else if (t->kind == Expr::Kind::Load) {
      const Array* array = kernel.findParam(t->load.array);
      if (!array || !array->input) return false;
      if (t->load.subscripts.size() == 1 && e.shift.empty() && setChannel(channelOf(kernel, t->load))) {
        e.shift = t->load.array;
      } else if (e.shortcut.empty() && t->load.subscripts.size() == out.subscripts.size() &&
                 Access{"", t->load.subscripts}.str() == Access{"", out.subscripts}.str()) {
        e.shortcut = t->load.array;
      } else {
        return false;
      }
    } else {
      return false;
    }
  }
  return product;
}

// Every subexpression of `e` that depends on the product, outermost first.
void productParts(const ExprPtr& e, std::vector<ExprPtr>& parts) {
  if (!mentions(*e, kProduct)) return;
  parts.push_back(e);
  for (const ExprPtr& a : e->args) productParts(a, parts);
}

// The statements of a nest in order, each with whether it lies inside a reduction loop, and the
// types of the locals declared around them.
void collect(const Node& node, bool inReduce, std::vector<std::pair<const Node*, bool>>& stmts,
             std::map<std::string, ScalarType>& locals) {
  switch (node.kind) {
    case NodeKind::For:
      collect(*node.body(), inReduce || node.loopKind == LoopKind::Reduce, stmts, locals);
      break;
    case NodeKind::Alloc:
      if (isLocalScalar(node.buffer)) locals[node.buffer.name] = node.buffer.type;
      collect(*node.body(), inReduce, stmts, locals);
      break;
    case NodeKind::Assign:
      stmts.emplace_back(&node, inReduce);
      break;
    default:
      for (const NodePtr& kid : node.kids) collect(*kid, inReduce, stmts, locals);
  }
}

std::optional<EpilogueShape> refuse(std::string* whyNot, const std::string& why) {
  if (whyNot) *whyNot = why;
  return std::nullopt;
}

}  // namespace

const char* activationName(EpilogueShape::Activation a) {
  switch (a) {
    case EpilogueShape::Activation::Relu:
      return "ReLU";
    case EpilogueShape::Activation::GeluTanh:
      return "GELU (tanh)";
    case EpilogueShape::Activation::GeluErf:
      return "GELU (erf)";
    default:
      return "none";
  }
}

std::string EpilogueShape::describe() const {
  std::vector<std::string> parts;
  if (!scale.empty() && !shift.empty())
    parts.push_back("scale and shift per " + channel);
  else if (!scale.empty())
    parts.push_back("scale per " + channel);
  else if (!shift.empty())
    parts.push_back("bias per " + channel);
  if (!shortcut.empty()) parts.push_back("shortcut add");
  if (activation != Activation::None) parts.push_back(activationName(activation));
  if (outputType != accumulator) parts.push_back(std::string("stored as ") + scalarTypeName(outputType));
  std::string s;
  for (const std::string& p : parts) s += (s.empty() ? "" : ", ") + p;
  return s;
}

std::optional<EpilogueShape> recognizeEpilogue(const Kernel& kernel, std::string* whyNot) {
  if (!kernel.body) return refuse(whyNot, "the kernel has no statements");
  std::vector<std::pair<const Node*, bool>> stmts;
  std::map<std::string, ScalarType> locals;
  collect(*kernel.body, false, stmts, locals);
  const Node* update = nullptr;
  for (const auto& [s, inReduce] : stmts)
    if (s->accumulate) {
      if (update) return refuse(whyNot, "the nest has more than one product");
      update = s;
    }
  if (!update || update->value->kind != Expr::Kind::Binary || update->value->op != '*')
    return refuse(whyNot, "the nest has no product of two arrays");

  // What each element written after the product holds, in terms of the product.
  std::map<std::string, ExprPtr> held = {{update->target.str(), Expr::read(Access{kProduct, {}})}};
  const Node* store = nullptr;  // the last statement writing an output array
  bool after = false;
  for (const auto& [s, inReduce] : stmts) {
    if (s == update) {
      after = true;
      continue;
    }
    if (!after) {
      bool init =
          s->target.str() == update->target.str() && s->value->kind == Expr::Kind::Constant && s->value->value == 0;
      if (!init) return refuse(whyNot, "a statement before the product is not the start of its sum");
      continue;
    }
    if (inReduce) return refuse(whyNot, "a statement after the product is inside a reduction loop");
    held[s->target.str()] = substitute(s->value, held);
    const Array* array = kernel.findParam(s->target.array);
    if (array && !array->input) {
      if (store && store->target.str() != s->target.str())
        return refuse(whyNot, "the statements after the product write more than one output element");
      store = s;
    } else if (!locals.count(s->target.array)) {
      return refuse(whyNot, "a statement after the product writes " + s->target.array);
    }
  }
  const Access& out = store ? store->target : update->target;
  const Array* outArray = kernel.findParam(out.array);
  if (!outArray || outArray->input) return refuse(whyNot, "the product is not stored to an output array");
  EpilogueShape e;
  e.output = out.array;
  e.outputType = outArray->type;
  auto local = locals.find(update->target.array);
  e.accumulator = local != locals.end() ? local->second : outArray->type;
  ExprPtr value = held[out.str()];

  // The activation's argument: the outermost part of the value that depends on the product and
  // leaves, once replaced by an argument, a function of that argument alone.
  std::vector<ExprPtr> parts;
  productParts(value, parts);
  for (const ExprPtr& x : parts) {
    ExprPtr f = replaceAll(value, x->str(), Expr::read(Access{kArgument, {}}));
    std::optional<EpilogueShape::Activation> activation = classify(*f);
    EpilogueShape candidate = e;
    if (activation && matchAffine(kernel, x, out, candidate)) {
      candidate.activation = *activation;
      return candidate;
    }
  }
  std::string written = replaceAll(value, Expr::read(Access{kProduct, {}})->str(), Expr::read(update->target))->str();
  return refuse(whyNot, "the value stored, " + written +
                            ", is not a product scaled, shifted and added to per element, then ReLU or GELU");
}

}  // namespace cudaburg
