#include "src/cuda/run/reference_shape.hpp"

#include <algorithm>
#include <map>


namespace cudaburg {
namespace {

// The one accumulating statement of a nest with its enclosing loops; nullptr when the nest has any
// other statement than that one and plain `target = 0` initialisations of the same element.
struct Contraction {
  const Node* update = nullptr;
  std::vector<const Node*> loops;
  const Access* left = nullptr;  // the two loads multiplied
  const Access* right = nullptr;
};

bool findUpdate(const Node& node, std::vector<const Node*>& stack, Contraction& out, std::vector<const Node*>& inits) {
  switch (node.kind) {
    case NodeKind::For:
      stack.push_back(&node);
      if (!findUpdate(*node.body(), stack, out, inits)) return false;
      stack.pop_back();
      return true;
    case NodeKind::Seq:
      return findUpdate(*node.kids[0], stack, out, inits) && findUpdate(*node.kids[1], stack, out, inits);
    case NodeKind::Assign:
      if (!node.accumulate) {
        if (node.value->kind != Expr::Kind::Constant || node.value->value != 0) return false;
        inits.push_back(&node);
        return true;
      }
      if (out.update) return false;
      out.update = &node;
      out.loops = stack;
      return true;
    default:
      return false;
  }
}

// `floatOnly`: every array holds float; else the inputs may hold half, bfloat16 or tf32 too.
std::optional<Contraction> findContraction(const Kernel& kernel, bool floatOnly = true) {
  if (!kernel.body || !kernel.zeroFirst.empty()) return std::nullopt;
  for (const auto& a : kernel.params) {
    bool reduced = a.input && (a.type == ScalarType::Half || a.type == ScalarType::BFloat16 || a.type == ScalarType::TF32);
    if (a.type != ScalarType::Float && (floatOnly || !reduced)) return std::nullopt;
  }
  Contraction c;
  std::vector<const Node*> stack, inits;
  if (!findUpdate(*kernel.body, stack, c, inits) || !c.update) return std::nullopt;
  for (const Node* init : inits)
    if (init->target.str() != c.update->target.str()) return std::nullopt;
  const Expr& v = *c.update->value;
  if (v.kind != Expr::Kind::Binary || v.op != '*') return std::nullopt;
  if (v.args[0]->kind != Expr::Kind::Load || v.args[1]->kind != Expr::Kind::Load) return std::nullopt;
  c.left = &v.args[0]->load;
  c.right = &v.args[1]->load;
  for (const Node* loop : c.loops) {
    if (loop->step != 1 || !loop->lower.isConstant() || loop->lower.constant != 0 || loop->upper.size() != 1 ||
        !loop->upper[0].isConstant())
      return std::nullopt;
  }
  return c;
}

// The index a subscript is, when it is exactly one loop index; "" otherwise.
std::string plainIndex(const Affine& sub) {
  if (sub.constant != 0 || sub.terms.size() != 1 || sub.terms.begin()->second != 1) return "";
  return sub.terms.begin()->first;
}

std::vector<std::string> plainIndices(const Access& a) {
  std::vector<std::string> names;
  for (const auto& sub : a.subscripts) names.push_back(plainIndex(sub));
  return names;
}

std::map<std::string, int64_t> tripCounts(const Contraction& c) {
  std::map<std::string, int64_t> trips;
  for (const Node* loop : c.loops) trips[loop->index] = loop->upper[0].constant;
  return trips;
}

bool isOutput(const Kernel& kernel, const std::string& name) {
  const Array* a = kernel.findParam(name);
  return a && !a->input;
}

bool isInput(const Kernel& kernel, const std::string& name) {
  const Array* a = kernel.findParam(name);
  return a && a->input;
}

// Matches one gemm operand: its last two subscripts are {row, col} plain (row-major, not
// transposed) or {col, row} (transposed); a leading third one must be the batch index.
bool matchOperand(const Kernel& kernel, const Access& access, const std::string& row, const std::string& col,
                  const std::string& batch, bool& transposed, int64_t& ld, int64_t& stride) {
  const Array* a = kernel.findParam(access.array);
  auto names = plainIndices(access);
  size_t rank = names.size();
  if (!a || rank < 2 || rank > 3 || (rank == 3 && (batch.empty() || names[0] != batch))) return false;
  if (names[rank - 2] == row && names[rank - 1] == col) transposed = false;
  else if (names[rank - 2] == col && names[rank - 1] == row) transposed = true;
  else return false;
  ld = a->extents[rank - 1];
  stride = rank == 3 ? a->extents[1] * a->extents[2] : 0;
  return true;
}

bool fits(const Array& a, const std::vector<int64_t>& needed) {
  if (a.extents.size() != needed.size()) return false;
  for (size_t d = 0; d < needed.size(); ++d)
    if (a.extents[d] < needed[d]) return false;
  return true;
}

}  // namespace

std::optional<GemmShape> recognizeGemm(const Kernel& kernel) {
  auto c = findContraction(kernel, false);
  if (!c) return std::nullopt;
  const Access& out = c->update->target;
  auto outNames = plainIndices(out);
  if (!isOutput(kernel, out.array) || outNames.size() < 2 || outNames.size() > 3) return std::nullopt;
  auto trips = tripCounts(*c);
  for (const auto& n : outNames)
    if (!trips.count(n)) return std::nullopt;
  std::string batch = outNames.size() == 3 ? outNames[0] : "";
  std::string i = outNames[outNames.size() - 2], j = outNames.back();
  std::string k;
  for (const Node* loop : c->loops) {
    if (std::find(outNames.begin(), outNames.end(), loop->index) != outNames.end()) continue;
    if (!k.empty()) return std::nullopt;  // more than one reduction loop
    k = loop->index;
  }
  if (k.empty() || c->loops.size() != outNames.size() + 1) return std::nullopt;

  GemmShape g;
  const Access* a = c->left;
  const Access* b = c->right;
  auto mentions = [](const Access& x, const std::string& name) {
    for (const auto& sub : x.subscripts)
      if (sub.uses(name)) return true;
    return false;
  };
  if (mentions(*a, j)) std::swap(a, b);
  if (!isInput(kernel, a->array) || !isInput(kernel, b->array) || a->array == b->array) return std::nullopt;
  if (!matchOperand(kernel, *a, i, k, batch, g.aTransposed, g.lda, g.strideA)) return std::nullopt;
  if (!matchOperand(kernel, *b, k, j, batch, g.bTransposed, g.ldb, g.strideB)) return std::nullopt;
  g.a = a->array, g.b = b->array, g.c = out.array;
  g.operands = kernel.findParam(g.a)->type;
  if (kernel.findParam(g.b)->type != g.operands) return std::nullopt;  // the library takes one type for both
  g.m = trips[i], g.n = trips[j], g.k = trips[k], g.batch = batch.empty() ? 1 : trips[batch];
  const Array* cArray = kernel.findParam(g.c);
  std::vector<int64_t> cExtents = {g.m, g.n};
  if (!batch.empty()) cExtents.insert(cExtents.begin(), g.batch);
  if (cArray->extents != cExtents) return std::nullopt;  // the library writes the whole of C
  g.ldc = g.n;
  g.strideC = batch.empty() ? 0 : g.m * g.n;
  const Array* aArray = kernel.findParam(g.a);
  const Array* bArray = kernel.findParam(g.b);
  size_t aRank = a->subscripts.size(), bRank = b->subscripts.size();
  if (aArray->extents[aRank - 2] < (g.aTransposed ? g.k : g.m) || g.lda < (g.aTransposed ? g.m : g.k))
    return std::nullopt;
  if (bArray->extents[bRank - 2] < (g.bTransposed ? g.n : g.k) || g.ldb < (g.bTransposed ? g.k : g.n))
    return std::nullopt;
  if ((aRank == 3 && aArray->extents[0] < g.batch) || (bRank == 3 && bArray->extents[0] < g.batch))
    return std::nullopt;
  return g;
}

std::optional<Conv2dShape> recognizeConv2d(const Kernel& kernel) {
  auto c = findContraction(kernel);
  if (!c) return std::nullopt;
  const Access& out = c->update->target;
  auto o = plainIndices(out);
  if (!isOutput(kernel, out.array) || o.size() != 4) return std::nullopt;
  auto trips = tripCounts(*c);
  for (const auto& n : o)
    if (n.empty() || !trips.count(n)) return std::nullopt;
  const Access* in = c->left;
  const Access* wt = c->right;
  auto allPlain = [](const Access& x) {
    auto names = plainIndices(x);
    return std::none_of(names.begin(), names.end(), [](const std::string& s) { return s.empty(); });
  };
  if (allPlain(*in) && !allPlain(*wt)) std::swap(in, wt);
  if (in->subscripts.size() != 4 || wt->subscripts.size() != 4 || !allPlain(*wt)) return std::nullopt;
  if (!isInput(kernel, in->array) || !isInput(kernel, wt->array)) return std::nullopt;
  auto w = plainIndices(*wt);  // [k][c][r][s]
  if (w[0] != o[1] || plainIndex(in->subscripts[0]) != o[0] || plainIndex(in->subscripts[1]) != w[1]) return std::nullopt;
  if (c->loops.size() != 7) return std::nullopt;
  for (const auto& n : {w[1], w[2], w[3]})
    if (!trips.count(n) || std::find(o.begin(), o.end(), n) != o.end()) return std::nullopt;

  Conv2dShape s;
  s.input = in->array, s.weight = wt->array, s.output = out.array;
  s.n = trips[o[0]], s.k = trips[o[1]], s.p = trips[o[2]], s.q = trips[o[3]];
  s.c = trips[w[1]], s.r = trips[w[2]], s.s = trips[w[3]];
  // Spatial subscripts: stride * (output index) + dilation * (filter index) - pad.
  auto spatial = [&](const Affine& sub, const std::string& outIdx, const std::string& filterIdx, int64_t& stride,
                     int64_t& dilation, int64_t& pad) {
    if (sub.terms.size() != 2) return false;
    stride = sub.coef(outIdx), dilation = sub.coef(filterIdx), pad = -sub.constant;
    return stride > 0 && dilation > 0 && pad >= 0;
  };
  if (!spatial(in->subscripts[2], o[2], w[2], s.strideH, s.dilationH, s.padH)) return std::nullopt;
  if (!spatial(in->subscripts[3], o[3], w[3], s.strideW, s.dilationW, s.padW)) return std::nullopt;
  const Array* inArray = kernel.findParam(s.input);
  s.h = inArray->extents[2], s.w = inArray->extents[3];
  if ((s.padH > 0 || s.padW > 0) && !inArray->zeroPadded) return std::nullopt;
  if (!fits(*inArray, {s.n, s.c, 1, 1})) return std::nullopt;
  if (kernel.findParam(s.weight)->extents != std::vector<int64_t>{s.k, s.c, s.r, s.s}) return std::nullopt;
  if (kernel.findParam(s.output)->extents != std::vector<int64_t>{s.n, s.k, s.p, s.q}) return std::nullopt;
  // The library pads both sides equally: its output size must be the nest's.
  int64_t libP = (s.h + 2 * s.padH - s.dilationH * (s.r - 1) - 1) / s.strideH + 1;
  int64_t libQ = (s.w + 2 * s.padW - s.dilationW * (s.s - 1) - 1) / s.strideW + 1;
  if (libP != s.p || libQ != s.q) return std::nullopt;
  return s;
}

std::string ReferencePlan::library() const {
  switch (kind) {
    case Kind::Gemm:
      return gemm.operands == ScalarType::Float ? "cuBLAS SGEMM"
                                                : std::string("cuBLAS GemmEx (") + scalarTypeName(gemm.operands) + ")";
    case Kind::Conv2d: return "cuDNN convolution";
    case Kind::Exact: return "FP64 reference";
  }
  return "FP64 reference";
}

std::string ReferencePlan::describe() const {
  std::string s = library();
  if (kind == Kind::Gemm) {
    s += " " + std::to_string(gemm.m) + "x" + std::to_string(gemm.n) + "x" + std::to_string(gemm.k);
    if (gemm.batch > 1) s += " batch " + std::to_string(gemm.batch);
    if (gemm.aTransposed) s += " (A^T)";
    if (gemm.bTransposed) s += " (B^T)";
  } else if (kind == Kind::Conv2d) {
    s += " N" + std::to_string(conv.n) + " C" + std::to_string(conv.c) + " " + std::to_string(conv.h) + "x" +
         std::to_string(conv.w) + " K" + std::to_string(conv.k) + " " + std::to_string(conv.r) + "x" +
         std::to_string(conv.s);
  }
  return s;
}

ReferencePlan planReference(const Kernel& kernel, bool conv2dLibraryAvailable) {
  ReferencePlan plan;
  if (auto g = recognizeGemm(kernel)) {
    plan.kind = ReferencePlan::Kind::Gemm;
    plan.gemm = *g;
  } else if (auto c = conv2dLibraryAvailable ? recognizeConv2d(kernel) : std::nullopt) {
    plan.kind = ReferencePlan::Kind::Conv2d;
    plan.conv = *c;
  }
  return plan;
}

}  // namespace cudaburg
