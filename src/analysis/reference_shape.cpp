#include "src/analysis/reference_shape.hpp"

#include "src/analysis/gemm_epilogue.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

namespace cudaburg {
namespace {

// The one accumulating statement of a nest with its enclosing loops; nullptr when the nest has any
// other statement than that one and plain `target = 0` initialisations of the same element (or,
// with an epilogue, the element-wise statements after it that recognizeEpilogue reads).
struct Contraction {
  const Node* update = nullptr;
  std::vector<const Node*> loops;
  const Access* left = nullptr;  // the two loads multiplied
  const Access* right = nullptr;
  Access out;              // the output element the product ends in
  EpilogueShape epilogue;  // the statements after the product; empty without them
};

// `withEpilogue`: local scalars and statements after the product are allowed (`after` gets the
// latter); else only the product and its initialisations.
bool findUpdate(const Node& node, bool withEpilogue, std::vector<const Node*>& stack, Contraction& out,
                std::vector<const Node*>& inits, std::vector<const Node*>& after) {
  switch (node.kind) {
    case NodeKind::For:
      stack.push_back(&node);
      if (!findUpdate(*node.body(), withEpilogue, stack, out, inits, after)) return false;
      stack.pop_back();
      return true;
    case NodeKind::Seq:
      return findUpdate(*node.kids[0], withEpilogue, stack, out, inits, after) &&
             findUpdate(*node.kids[1], withEpilogue, stack, out, inits, after);
    case NodeKind::Alloc:
      return withEpilogue && isLocalScalar(node.buffer) &&
             findUpdate(*node.body(), withEpilogue, stack, out, inits, after);
    case NodeKind::Assign:
      if (!node.accumulate) {
        if (withEpilogue && out.update) {
          after.push_back(&node);
          return true;
        }
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

// The types the libraries take: float arrays, and inputs of half, bfloat16 or tf32; with an
// epilogue, also its output stored in half or bfloat16 from an fp32 sum.
bool libraryTypes(const Kernel& kernel, const EpilogueShape& epilogue) {
  for (const auto& a : kernel.params) {
    bool narrow = a.type == ScalarType::Half || a.type == ScalarType::BFloat16;
    bool reduced = a.input && (narrow || a.type == ScalarType::TF32);
    bool stored = !a.input && narrow && a.name == epilogue.output && epilogue.accumulator == ScalarType::Float;
    if (a.type != ScalarType::Float && !reduced && !stored) return false;
  }
  return true;
}

std::optional<Contraction> findContraction(const Kernel& kernel, bool withEpilogue) {
  if (!kernel.body || !kernel.zeroFirst.empty()) return std::nullopt;
  Contraction c;
  std::vector<const Node*> stack, inits, after;
  if (!findUpdate(*kernel.body, withEpilogue, stack, c, inits, after) || !c.update) return std::nullopt;
  for (const Node* init : inits)
    if (init->target.str() != c.update->target.str()) return std::nullopt;
  c.out = c.update->target;
  if (withEpilogue) {
    auto epilogue = recognizeEpilogue(kernel);
    if (!epilogue) return std::nullopt;
    c.epilogue = *epilogue;
    for (const Node* s : after)
      if (s->target.array == epilogue->output) c.out = s->target;
  }
  if (!libraryTypes(kernel, c.epilogue)) return std::nullopt;
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
  if (names[rank - 2] == row && names[rank - 1] == col)
    transposed = false;
  else if (names[rank - 2] == col && names[rank - 1] == row)
    transposed = true;
  else
    return false;
  ld = a->extents[rank - 1];
  stride = rank == 3 ? a->extents[1] * a->extents[2] : 0;
  return true;
}

// The matrix product a contraction is, its epilogue's scale and shift along a row or a column.
std::optional<GemmShape> gemmOf(const Kernel& kernel, const std::optional<Contraction>& c) {
  if (!c) return std::nullopt;
  const Access& out = c->out;
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
  if ((aRank == 3 && aArray->extents[0] < g.batch) || (bRank == 3 && bArray->extents[0] < g.batch)) return std::nullopt;
  g.epilogue = c->epilogue;
  const std::string& channel = g.epilogue.channel;
  if (!channel.empty() && channel != i && channel != j) return std::nullopt;  // a bias per batch
  g.epilogueAlongColumns = channel != i;
  return g;
}

// One spatial dimension of a convolution's input subscript: stride * out + dilation * tap - pad.
struct SpatialDim {
  std::string out, tap;  // the output (parallel) and filter tap (reduction) indices
  int64_t stride = 0, dilation = 0, pad = 0;
};

// The non-spatial subscripts of an operand around its run of spatial ones: an optional batch
// subscript first, and an optional channel subscript right after it (channels first) or last.
struct OperandLayout {
  std::optional<Affine> batch, channel;
  size_t firstSpatial = 0;
  bool channelsLast = false;
};

// `channel` holds `index * coef` plus at most one other index with coefficient 1 (the channel
// within a group) and nothing else; returns that other index ("" when there is none).
bool splitGroupedChannel(const Affine& channel, const std::string& group, int64_t& coef, std::string& within) {
  if (channel.constant != 0 || !channel.uses(group)) return false;
  coef = channel.coef(group);
  within.clear();
  for (const auto& [name, c] : channel.terms) {
    if (name == group) continue;
    if (c != 1 || !within.empty()) return false;
    within = name;
  }
  return coef > 0;
}

// The convolution a contraction is, its epilogue's scale and shift per output channel.
std::optional<ConvShape> convOf(const Kernel& kernel, const std::optional<Contraction>& c) {
  if (!c) return std::nullopt;
  const Access& out = c->out;
  if (!isOutput(kernel, out.array)) return std::nullopt;
  auto trips = tripCounts(*c);
  std::set<std::string> parallel;  // the indices the output uses
  for (const auto& sub : out.subscripts)
    for (const auto& [name, coef] : sub.terms) parallel.insert(name);
  auto isReduction = [&](const std::string& name) { return trips.count(name) && !parallel.count(name); };
  auto uses = [](const Access& x, const std::string& name) {
    for (const auto& sub : x.subscripts)
      if (sub.uses(name)) return true;
    return false;
  };
  // A spatial subscript of operand `x` whose other operand is `other`: the output index it
  // strides (which never indexes the filter) and the tap of the filter.
  auto spatial = [&](const Affine& sub, const Access& other) -> std::optional<SpatialDim> {
    if (sub.terms.size() != 2) return std::nullopt;
    SpatialDim d;
    for (const auto& [name, coef] : sub.terms) {
      if (parallel.count(name))
        d.out = name, d.stride = coef;
      else if (isReduction(name))
        d.tap = name, d.dilation = coef;
    }
    d.pad = -sub.constant;
    if (d.out.empty() || d.tap.empty() || d.stride <= 0 || d.dilation <= 0 || d.pad < 0 || uses(other, d.out))
      return std::nullopt;
    return d;
  };
  auto spatialDims = [&](const Access& x, const Access& other) {
    std::vector<size_t> at;
    for (size_t i = 0; i < x.subscripts.size(); ++i)
      if (spatial(x.subscripts[i], other)) at.push_back(i);
    return at;
  };
  // A 1x1 convolution has no taps: its spatial subscripts are output indices that the filter does
  // not use. Its input is the operand of the higher rank, whose leading such subscript, when there
  // are more, is the batch.
  auto taplessDims = [&](const Access& x, const Access& other) {
    std::vector<size_t> at;
    for (size_t i = 0; i < x.subscripts.size(); ++i) {
      std::string name = plainIndex(x.subscripts[i]);
      if (!name.empty() && parallel.count(name) && !uses(other, name)) at.push_back(i);
    }
    if (at.size() > 1 && at.front() == 0) at.erase(at.begin());
    return at;
  };
  const Access* in = c->left;
  const Access* wt = c->right;
  if (spatialDims(*in, *wt).empty()) std::swap(in, wt);
  std::vector<size_t> at = spatialDims(*in, *wt);
  bool oneByOne = at.empty() && spatialDims(*wt, *in).empty();
  if (oneByOne) {
    if (in->subscripts.size() < wt->subscripts.size()) std::swap(in, wt);
    if (in->subscripts.size() == wt->subscripts.size()) return std::nullopt;
    at = taplessDims(*in, *wt);
  }
  if (at.empty() || !spatialDims(*wt, *in).empty() || at.size() > 3 || at.back() - at.front() + 1 != at.size())
    return std::nullopt;
  if (!isInput(kernel, in->array) || !isInput(kernel, wt->array) || in->array == wt->array) return std::nullopt;
  // Operands of one type that cuDNN convolves: float, or half or bfloat16 on tensor cores (tf32
  // and mixed operands are left to the exact reference).
  ScalarType operands = kernel.findParam(in->array)->type;
  bool library = operands == ScalarType::Float || operands == ScalarType::Half || operands == ScalarType::BFloat16;
  if (!library || kernel.findParam(wt->array)->type != operands) return std::nullopt;
  std::vector<SpatialDim> dims;
  for (size_t i : at)
    dims.push_back(oneByOne ? SpatialDim{plainIndex(in->subscripts[i]), "", 1, 1, 0}
                            : *spatial(in->subscripts[i], *wt));
  size_t rank = dims.size();

  // The input's layout: [batch] [channel] spatial... [channel].
  OperandLayout inLayout;
  inLayout.firstSpatial = at.front();
  std::vector<Affine> before(in->subscripts.begin(), in->subscripts.begin() + at.front());
  std::vector<Affine> after(in->subscripts.begin() + at.back() + 1, in->subscripts.end());
  if (before.size() > 2 || after.size() > 1 || before.size() + after.size() > 2) return std::nullopt;
  if (!before.empty()) {
    std::string b = plainIndex(before[0]);
    if (!b.empty() && parallel.count(b) && !uses(*wt, b)) inLayout.batch = before[0], before.erase(before.begin());
  }
  if (before.size() + after.size() > 1) return std::nullopt;
  if (!before.empty()) inLayout.channel = before[0];
  if (!after.empty()) inLayout.channel = after[0], inLayout.channelsLast = true;

  ConvShape s;
  s.input = in->array, s.weight = wt->array, s.output = out.array;
  s.operands = operands;
  s.layout = inLayout.channelsLast ? ConvShape::Layout::ChannelsLast : ConvShape::Layout::ChannelsFirst;
  std::string batch = inLayout.batch ? plainIndex(*inLayout.batch) : "";
  if (!batch.empty()) s.n = trips[batch];

  // The output: the same layout, the output indices of the spatial dimensions in their order.
  std::vector<Affine> expectedOut;
  if (inLayout.batch) expectedOut.push_back(*inLayout.batch);
  size_t outChannelAt = expectedOut.size();
  for (const auto& d : dims) expectedOut.push_back(Affine::var(d.out));
  std::optional<Affine> outChannel;
  if (out.subscripts.size() == expectedOut.size() + 1) {
    if (s.layout == ConvShape::Layout::ChannelsLast) outChannelAt = expectedOut.size();
    outChannel = out.subscripts[outChannelAt];
    expectedOut.insert(expectedOut.begin() + outChannelAt, *outChannel);
  }
  if (out.subscripts != expectedOut) return std::nullopt;

  // Channels: ungrouped (out channel k, in channel c), or grouped by an index g both use.
  std::string group, outWithin, inWithin;
  int64_t outPerGroup = 1, inPerGroup = 1;
  if (outChannel && inLayout.channel) {
    for (const auto& [name, coef] : outChannel->terms)
      if (inLayout.channel->uses(name)) group = name;
  }
  if (!group.empty()) {
    if (!splitGroupedChannel(*outChannel, group, outPerGroup, outWithin) ||
        !splitGroupedChannel(*inLayout.channel, group, inPerGroup, inWithin))
      return std::nullopt;
    if ((outWithin.empty() ? 1 : trips[outWithin]) != outPerGroup ||
        (inWithin.empty() ? 1 : trips[inWithin]) != inPerGroup)
      return std::nullopt;
    s.groups = trips[group];
    s.k = s.groups * outPerGroup, s.c = s.groups * inPerGroup;
  } else {
    outWithin = outChannel ? plainIndex(*outChannel) : "";
    inWithin = inLayout.channel ? plainIndex(*inLayout.channel) : "";
    if ((outChannel && outWithin.empty()) || (inLayout.channel && inWithin.empty())) return std::nullopt;
    if (!outWithin.empty()) s.k = trips[outWithin];
    if (!inWithin.empty()) s.c = trips[inWithin];
  }
  if (!outWithin.empty() && !parallel.count(outWithin)) return std::nullopt;
  if (!inWithin.empty() && !isReduction(inWithin)) return std::nullopt;

  // The weight: [out channel] [in channel within the group] taps... (or the taps before it).
  std::vector<Affine> expectedWt;
  if (outChannel) expectedWt.push_back(*outChannel);
  for (const auto& d : dims)
    if (!d.tap.empty()) expectedWt.push_back(Affine::var(d.tap));
  if (!inWithin.empty()) {
    auto where =
        s.layout == ConvShape::Layout::ChannelsLast ? expectedWt.end() : expectedWt.begin() + (outChannel ? 1 : 0);
    expectedWt.insert(where, Affine::var(inWithin));
  }
  if (wt->subscripts != expectedWt) return std::nullopt;

  // Every loop has its role, once.
  std::set<std::string> roles;
  for (const auto& name : {batch, group, outWithin, inWithin})
    if (!name.empty()) roles.insert(name);
  for (const auto& d : dims) {
    roles.insert(d.out);
    if (!d.tap.empty()) roles.insert(d.tap);
  }
  size_t named = (batch.empty() ? 0 : 1) + (group.empty() ? 0 : 1) + (outWithin.empty() ? 0 : 1) +
                 (inWithin.empty() ? 0 : 1) + (oneByOne ? 1 : 2) * rank;
  if (roles.size() != named || c->loops.size() != named) return std::nullopt;

  const Array* inArray = kernel.findParam(s.input);
  std::vector<int64_t> inExtents;
  for (const auto& d : dims) {
    s.filter.push_back(d.tap.empty() ? 1 : trips[d.tap]);
    s.out.push_back(trips[d.out]);
    s.outIndices.push_back(d.out);
    s.pad.push_back(d.pad), s.stride.push_back(d.stride), s.dilation.push_back(d.dilation);
    if (d.pad > 0 && !inArray->zeroPadded) return std::nullopt;
  }
  for (size_t i : at) s.in.push_back(inArray->extents[i]);
  // The library reads and writes whole packed tensors, padded equally on both sides: the arrays
  // must be exactly the tensors, and its output size the nest's.
  auto withChannels = [&](std::vector<int64_t> spatialExtents, bool hasBatch, bool hasChannel, int64_t channels) {
    if (hasChannel) {
      auto where = s.layout == ConvShape::Layout::ChannelsLast ? spatialExtents.end() : spatialExtents.begin();
      spatialExtents.insert(where, channels);
    }
    if (hasBatch) spatialExtents.insert(spatialExtents.begin(), s.n);
    return spatialExtents;
  };
  if (inArray->extents != withChannels(s.in, inLayout.batch.has_value(), inLayout.channel.has_value(), s.c))
    return std::nullopt;
  if (kernel.findParam(s.output)->extents !=
      withChannels(s.out, inLayout.batch.has_value(), outChannel.has_value(), s.k))
    return std::nullopt;
  std::vector<int64_t> wtExtents;  // the taps' extents (a 1x1 filter has none)
  if (!oneByOne) wtExtents = s.filter;
  if (!inWithin.empty())
    wtExtents.insert(s.layout == ConvShape::Layout::ChannelsLast ? wtExtents.end() : wtExtents.begin(), s.c / s.groups);
  if (outChannel) wtExtents.insert(wtExtents.begin(), s.k);
  if (kernel.findParam(s.weight)->extents != wtExtents) return std::nullopt;
  for (size_t d = 0; d < rank; ++d) {
    int64_t libraryOut = (s.in[d] + 2 * s.pad[d] - s.dilation[d] * (s.filter[d] - 1) - 1) / s.stride[d] + 1;
    if (libraryOut != s.out[d]) return std::nullopt;
  }
  s.epilogue = c->epilogue;
  if (!s.epilogue.channel.empty() && s.epilogue.channel != outWithin) return std::nullopt;
  // cuDNN sums in fp32 and writes the operands' type: an fp32 sum stored as it is into an output of
  // that type (a half layer's local accumulator) is the library's own output, no epilogue.
  const EpilogueShape& e = s.epilogue;
  if (e.scale.empty() && e.shift.empty() && e.shortcut.empty() && e.activation == EpilogueShape::Activation::None &&
      e.accumulator == ScalarType::Float && e.outputType == s.libraryOutput())
    s.epilogue = EpilogueShape{};
  return s;
}

}  // namespace

std::optional<GemmShape> recognizeGemm(const Kernel& kernel) { return gemmOf(kernel, findContraction(kernel, false)); }
std::optional<ConvShape> recognizeConv(const Kernel& kernel) { return convOf(kernel, findContraction(kernel, false)); }
std::optional<GemmShape> recognizeFusedGemm(const Kernel& kernel) {
  return gemmOf(kernel, findContraction(kernel, true));
}
std::optional<ConvShape> recognizeFusedConv(const Kernel& kernel) {
  return convOf(kernel, findContraction(kernel, true));
}

std::string ReferencePlan::library(const std::string& algorithm) const {
  std::string name = "FP64 reference";
  std::vector<std::string> details;  // in parentheses after the name
  std::string engine = algorithm;
  std::string fused;  // how the epilogue is computed, after the name: " + RELU_BIAS epilogue"
  if (kind == Kind::Gemm) {
    // A cuBLASLt engine that was faster than the classic call names itself: "cuBLASLt algo 23, ...".
    const std::string lt = "cuBLASLt ";
    bool byLt = engine.rfind(lt, 0) == 0;
    GemmEpilogue epilogue = chooseGemmEpilogue(gemm);
    // Only cuBLASLt fuses an epilogue into the product (a 16-bit store included).
    bool ltEpilogue = !gemm.epilogue.empty() && epilogue != GemmEpilogue::ElementWise;
    name = byLt || ltEpilogue                   ? "cuBLASLt matmul"
           : gemm.operands == ScalarType::Float ? "cuBLAS SGEMM"
                                                : "cuBLAS GemmEx";
    if (byLt) engine = engine.substr(lt.size());
    if (gemm.operands != ScalarType::Float) details.push_back(scalarTypeName(gemm.operands));
    if (epilogue != GemmEpilogue::None) fused = std::string(" + ") + gemmEpilogueName(epilogue) + " epilogue";
  } else if (kind == Kind::Conv) {
    name = "cuDNN convolution";
    if (conv.operands != ScalarType::Float) details.push_back(scalarTypeName(conv.operands));
    if (!conv.epilogue.empty()) fused = " + element-wise epilogue";
  }
  if (!engine.empty()) details.push_back(engine);
  for (size_t i = 0; i < details.size(); ++i) name += (i ? ", " : " (") + details[i];
  return (details.empty() ? name : name + ")") + fused;
}

std::string ReferencePlan::describe() const {
  std::string s = library();
  if (kind == Kind::Gemm) {
    s += " " + std::to_string(gemm.m) + "x" + std::to_string(gemm.n) + "x" + std::to_string(gemm.k);
    if (gemm.batch > 1) s += " batch " + std::to_string(gemm.batch);
    if (gemm.aTransposed) s += " (A^T)";
    if (gemm.bTransposed) s += " (B^T)";
  } else if (kind == Kind::Conv) {
    auto dims = [](const std::vector<int64_t>& v) {
      std::string t;
      for (int64_t e : v) t += (t.empty() ? "" : "x") + std::to_string(e);
      return t;
    };
    s += " N" + std::to_string(conv.n) + " C" + std::to_string(conv.c) + " " + dims(conv.in) + " K" +
         std::to_string(conv.k) + " " + dims(conv.filter);
    if (conv.groups > 1) s += " groups " + std::to_string(conv.groups);
    if (conv.layout == ConvShape::Layout::ChannelsLast) s += " channels last";
  }
  return s;
}

ReferencePlan planReference(const Kernel& kernel, bool convLibraryAvailable) {
  ReferencePlan plan;
  if (auto g = recognizeFusedGemm(kernel)) {
    plan.kind = ReferencePlan::Kind::Gemm;
    plan.gemm = *g;
  } else if (auto c = convLibraryAvailable ? recognizeFusedConv(kernel) : std::nullopt) {
    plan.kind = ReferencePlan::Kind::Conv;
    plan.conv = *c;
  }
  return plan;
}

}  // namespace cudaburg
