// The copy of a gather (a Stage whose dimensions are loops, see loop_tree.hpp): the part of the
// CUDA emitter's writer (kernel_writer.hpp) that fills a shared buffer with what is no box, such
// as the im2col tile of a convolution's input.
#include <algorithm>
#include <cstdlib>

#include "src/cuda/emit/kernel_writer.hpp"

namespace cudaburg::emit_internal {

namespace {

// How far the flat source element moves when a gather dimension's index steps by one (its
// innermost derived index, for a collapsed one): 0 when it does not move.
int64_t sourceStep(const GatherDim& dim, const Affine& flat) {
  if (dim.collapsed.empty()) return std::abs(flat.coef(dim.index));
  const CollapsedLoop& innermost = dim.collapsed.back();
  return std::abs(flat.coef(innermost.index) * innermost.step);
}

}  // namespace

// The block's threads take the buffer's elements in turn, the dimension along which the source
// moves least fastest (consecutive threads read side by side where the layout allows it). Each
// item sets its loops' indices and derives what they collapse once, then reads the source there,
// zero outside it.
StageCopy KernelWriter::planGatherCopy(const Node& node, const Scope& scope) {
  StageCopy c;
  const Array& buffer = node.buffer;
  const Array* source = findArray(node.source, scope);
  if (!source) return c;
  size_t rank = buffer.extents.size();
  if (node.gather.size() != rank || node.origin.size() != rank || node.gatherSubscripts.size() != source->extents.size()) {
    refuse("gather into `" + buffer.name + "`: its dimensions do not match its buffer and source");
    return c;
  }
  Access from{node.source, node.gatherSubscripts};
  Affine flat = flatOffset(from, *source);
  std::vector<size_t> order(rank);  // slowest first
  for (size_t d = 0; d < rank; ++d) order[d] = d;
  auto moves = [&](size_t d) {
    int64_t s = sourceStep(node.gather[d], flat);
    return s == 0 ? INT64_MAX : s;
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return moves(a) > moves(b); });

  Scope inner = scope;
  c.items = buffer.elements();
  int64_t innerSize = c.items;
  std::string declarations;
  for (size_t k = 0; k < rank; ++k) {
    size_t d = order[k];
    std::string var = "stage_" + std::to_string(d);
    int64_t extent = buffer.extents[d];
    innerSize /= extent;
    std::string value = "stage_e";
    if (innerSize != 1) value += " / " + std::to_string(innerSize);
    if (k > 0) value = (innerSize != 1 ? "(" + value + ")" : value) + " % " + std::to_string(extent);
    c.coords += (k ? ", " : "const int ") + var + " = " + value;
    inner.ranges.bind(var, IndexRange{0, extent - 1, 1});
  }
  c.coords += ";";
  for (size_t d = 0; d < rank; ++d) {
    const GatherDim& g = node.gather[d];
    Affine at = node.origin[d] + Affine::var("stage_" + std::to_string(d));
    c.coords += " const " + index_ + " " + g.index + " = " + affineText(at) + ";";
    auto span = inner.ranges.bounds(at);
    IndexRange range = span ? IndexRange{span->first, span->second, inner.ranges.multipleOf(at)}
                            : IndexRange{INT64_MIN, INT64_MAX, 1};
    inner.ranges.bind(g.index, range);
    inner.ranges.bindDerived(g.collapsed, range);
    for (const std::string& declaration : derivedDeclarations(g.index, g.collapsed)) c.coords += " " + declaration;
  }
  ScalarType bufferType = typeOf(buffer), sourceType = typeOf(*source);
  c.type = cudaType(bufferType);
  c.value = bufferType == sourceType ? accessText(from, inner) : loadText(from, computeType(bufferType), inner);
  if (bufferType != sourceType && bufferType == ScalarType::Half) c.value = "__float2half(" + c.value + ")";
  std::string zero = bufferType == ScalarType::Half ? "__float2half(0.0f)" : literal(0, bufferType);
  auto conds = outsideConditions(from, *source, inner);
  if (!conds.empty()) c.value = "(" + joinConditions(conds) + ") ? " + c.value + " : " + zero;
  c.from = accessText(from, inner);
  c.inside = joinConditions(conds);
  c.sameType = bufferType == sourceType;
  c.pieceBytes = scalarTypeBytes(bufferType);
  Access to{buffer.name, {}};
  for (size_t d = 0; d < rank; ++d) to.subscripts.push_back(Affine::var("stage_" + std::to_string(d)));
  c.pieces.push_back(accessText(to, inner));
  c.stores.push_back(accessText(to, inner) + " = $");
  std::string over;
  for (size_t d = 0; d < rank; ++d)
    over += (d ? ", " : "") + node.gather[d].index + " from " + affineText(node.origin[d]);
  c.comment = "// Gather " + from.str() + " over " + over + " -> " + buffer.name + ", zero outside " + node.source;
  return c;
}

}  // namespace cudaburg::emit_internal
