// The copy of a gather (a Stage whose dimensions are loops, see loop_tree.hpp): the part of the
// CUDA emitter's writer (kernel_writer.hpp) that fills a shared buffer with what is no box, such
// as the im2col tile of a convolution's input.
#include <algorithm>
#include <cstdlib>
#include <optional>

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

// The innermost digits of a collapsed gather dimension that the flat source offset reads as one
// run (their coefficients are the digits' own strides), as few as make a run whose length is a
// multiple of `width`: their indices, outermost last; nothing when no such run exists.
std::optional<std::vector<std::string>> runDigits(const GatherDim& dim, const Affine& flat, int64_t width) {
  std::vector<std::string> digits;
  int64_t length = 1;
  for (size_t j = dim.collapsed.size(); j-- > 0;) {
    const CollapsedLoop& c = dim.collapsed[j];
    if (flat.coef(c.index) * c.step != digitStride(dim.collapsed, j)) break;
    length *= c.trips;
    digits.push_back(c.index);
    if (length % width == 0) return digits;
  }
  return std::nullopt;
}

}  // namespace

// The width (up to 16 bytes: 4, 2 or 1 elements of float, 8, 4, 2 or 1 of 16-bit types) a gather
// copies at a time along its fastest dimension `f`: where that many consecutive values of its
// index, from a multiple of the width, read consecutive, aligned elements of the source, all
// inside it or all outside (the bounds that the run's indices enter are proven), and of the
// buffer's type. A 1x1 convolution's input gathered along n*oh*ow reads whole rows of 4; a filter
// Wt[k][c][r][s] gathered along c*r*s does too; an NHWC input In[n][h][w][c] gathered along
// r*s*c reads runs of c (C a multiple of the width), each at one pixel, inside or in the padding.
// 16-bit elements go as packed words, which only a buffer whose rows run along `f` takes whole.
int KernelWriter::gatherWidth(const Node& node, size_t f, const Array& source, const Scope& scope) {
  const GatherDim& dim = node.gather[f];
  const Array& buffer = node.buffer;
  ScalarType t = typeOf(buffer);
  int bytes = scalarTypeBytes(t);
  bool alongRow = f + 1 == buffer.extents.size();
  if (t != typeOf(source) || t == ScalarType::Int || (bytes == 2 && !alongRow)) return 1;
  Access from{node.source, node.gatherSubscripts};
  Affine flat = flatOffset(from, source);
  for (int width : {8, 4, 2}) {
    if (width * bytes > 16) continue;
    // The indices that vary along a run, and the offset they leave when they are at their first values.
    std::vector<std::string> varying;
    Affine rest = flat;
    if (dim.collapsed.empty()) {  // a loop of its own: no run ends inside a group
      if (flat.coef(dim.index) != 1) return 1;
      varying = {dim.index};
      rest = flat.substitute(dim.index, Affine());
    } else {
      auto digits = runDigits(dim, flat, width);
      if (!digits || flat.uses(dim.index)) continue;
      varying = *digits;
      for (const CollapsedLoop& c : dim.collapsed)
        if (std::find(varying.begin(), varying.end(), c.index) != varying.end())
          rest = rest.substitute(c.index, Affine(c.lower));
    }
    bool inside = true;
    for (size_t d = 0; d < node.gatherSubscripts.size(); ++d) {
      const Affine& sub = node.gatherSubscripts[d];
      bool runs = std::any_of(varying.begin(), varying.end(), [&](const std::string& v) { return sub.uses(v); });
      auto span = scope.ranges.bounds(sub);
      if (runs && (!span || span->first < 0 || span->second >= source.extents[d])) inside = false;
    }
    if (!inside || buffer.extents[f] % width != 0) continue;
    if (scope.ranges.multipleOf(node.origin[f]) % width != 0 || scope.ranges.multipleOf(rest) % width != 0) continue;
    if (alongRow && (buffer.extents[f] + buffer.padding) % width != 0) continue;  // each padded row stays aligned
    return width;
  }
  return 1;
}

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
  if (node.gather.size() != rank || node.origin.size() != rank ||
      node.gatherSubscripts.size() != source->extents.size()) {
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
  size_t fastest = order.back();
  // The box's place in the scope, for the width's proofs: each dimension's index over its range.
  Scope probe = scope;
  for (size_t d = 0; d < rank; ++d) {
    Affine at = node.origin[d] + Affine::var("stage_" + std::to_string(d));
    probe.ranges.bind("stage_" + std::to_string(d), IndexRange{0, buffer.extents[d] - 1, 1});
    auto span = probe.ranges.bounds(at);
    IndexRange range = span ? IndexRange{span->first, span->second, 1} : IndexRange{INT64_MIN, INT64_MAX, 1};
    probe.ranges.bind(node.gather[d].index, range);
    probe.ranges.bindDerived(node.gather[d].collapsed, range);
  }
  // Counted gathers number their items alike in every copy (the counters follow the items): the
  // width planned over all the strips, which holds for any of them.
  const GatherCounters* counted = gathers_.counters(buffer.name);
  const GatherRows* tabled = gathers_.rows(buffer.name);
  int width = counted ? counted->width : tabled ? tabled->width : gatherWidth(node, fastest, *source, probe);
  c.items = buffer.elements() / width;
  std::vector<int64_t> spans = splitItems(c, buffer.extents, order, width, inner);
  // An item a round later lies `threads` on: the same place along d where that is whole periods of d.
  c.sameForItems.assign(rank, c.items <= plan_.threads());
  for (size_t k = 1; k < rank; ++k)
    if (plan_.threads() % spans[k] == 0) c.sameForItems[order[k]] = true;
  for (size_t d = 0; d < rank && !tabled; ++d) {
    const GatherDim& g = node.gather[d];
    Affine at = node.origin[d] + Affine::var("stage_" + std::to_string(d));
    c.coords += " const " + index_ + " " + g.index + " = " + affineText(at) + ";";
    auto span = inner.ranges.bounds(at);
    IndexRange range =
        span ? IndexRange{span->first, span->second, inner.ranges.multipleOf(at)} : IndexRange{INT64_MIN, INT64_MAX, 1};
    inner.ranges.bind(g.index, range);
    inner.ranges.bindDerived(g.collapsed, range);
    if (counted && counted->dim == d) {
      for (const CollapsedLoop& digit : g.collapsed)
        c.coords += " const " + index_ + " " + digit.index + " = " + gathers_.counterOf(buffer.name, digit) + ";";
      c.counters = buffer.name;
      c.byItem = true;
      continue;
    }
    for (const std::string& declaration : derivedDeclarations(g.index, g.collapsed)) c.coords += " " + declaration;
  }
  if (tabled) {
    readThroughTable(c, node, *source, *tabled, inner);
  } else {
    // Zero past the end of a collapsed loop too, where the box runs past it (wgmma's whole k steps
    // read there; the derived indices may still point inside the source): there its outermost
    // derived index passes its own end, which the source's bounds often check already.
    std::vector<std::string> ends;
    for (size_t d = 0; d < rank; ++d) {
      const GatherDim& g = node.gather[d];
      auto span = inner.ranges.bounds(Affine::var(g.index));
      int64_t trips = collapsedTrips(g.collapsed);
      if (g.collapsed.empty() || (span && span->second < trips)) continue;
      const CollapsedLoop& outer = g.collapsed.front();
      ends.push_back(outer.step > 0 ? outer.index + " < " + std::to_string(outer.lower + outer.step * outer.trips)
                                    : g.index + " < " + std::to_string(trips));
    }
    readItem(c, from, buffer, *source, width, inner, ends);
  }
  ScalarType bufferType = typeOf(buffer);
  // The buffer element lane `lane` of an item goes to: along its row where the fastest dimension
  // is the buffer's last (one wide store), else down a column, an element a lane.
  bool alongRow = fastest + 1 == rank;
  auto to = [&](int lane) {
    Access a{buffer.name, {}};
    for (size_t d = 0; d < rank; ++d)
      a.subscripts.push_back(Affine::var("stage_" + std::to_string(d)) + Affine(d == fastest ? lane : 0));
    return a;
  };
  c.pieceBytes = scalarTypeBytes(bufferType) * (alongRow ? width : 1);
  for (int v = 0; v < (alongRow ? 1 : width); ++v) c.pieces.push_back(accessText(to(v), inner));
  if (width == 1)
    c.stores.push_back(accessText(to(0), inner) + " = $");
  else if (alongRow)
    c.stores.push_back("*reinterpret_cast<" + c.type + "*>(&" + accessText(to(0), inner) + ") = $");
  else
    for (int v = 0; v < width; ++v) c.stores.push_back(accessText(to(v), inner) + " = $." + "xyzw"[v]);
  std::string over;
  for (size_t d = 0; d < rank; ++d)
    over += (d ? ", " : "") + node.gather[d].index + " from " + affineText(node.origin[d]);
  c.comment = "// Gather " + from.str() + " over " + over + " -> " + buffer.name + ", zero outside " + node.source;
  if (width > 1) c.comment += ", " + std::to_string(width) + " elements at a time";
  if (tabled) c.comment += ", offsets of " + node.gather[tabled->table.dim].index + " from " + buffer.name + "_table";
  return c;
}

// Planned as the loop's own copies are (its index over all its strips), so that the items are
// numbered alike in every copy.
StageCopy KernelWriter::planOverStrips(const Node& loop, const Node& stage, const Scope& scope) {
  auto trips = scope.ranges.maxTripCount(loop);
  Scope first = scope;
  first.ranges.bindLoop(loop, scope.ranges.loopIndexRange(loop, trips.value_or(1)));
  first.arrays[stage.buffer.name] = stage.buffer;
  first.slots[stage.buffer.name] = "0";
  return planStageCopy(stage, first);
}

// A gather dimension whose origin moves with `loop` by a positive step, collapsing loops of
// positive steps, is counted where a thread's counters fit in kMaxCounterRegisters: each thread keeps the indices it
// derives for each of its items, set here for the loop's first strip, so that a strip's copy divides nothing on that
// side.
void KernelWriter::declareGatherCounters(const Node& loop, const std::vector<const Node*>& stages, const Scope& scope) {
  for (const Node* stage : stages) {
    if (stage->gather.empty() || stage->origin.size() != stage->gather.size()) continue;
    if (stage->tableDim >= 0 && declareGatherRows(loop, *stage, scope)) continue;
    if (!refusal_.empty()) return;
    for (size_t d = 0; d < stage->gather.size(); ++d) {
      const std::vector<CollapsedLoop>& digits = stage->gather[d].collapsed;
      int64_t advance = stage->origin[d].coef(loop.index) * loop.step;
      bool forward = std::all_of(digits.begin(), digits.end(), [](const CollapsedLoop& c) { return c.step > 0; });
      if (digits.empty() || advance <= 0 || !forward) continue;
      StageCopy plain = planOverStrips(loop, *stage, scope);
      if (!refusal_.empty()) return;
      // A thread's items share them, or each has its own where they fit in a few registers (past
      // that, the divisions cost less than spills).
      bool shared = plain.sameForItems[d];
      GatherCounters counters{d, digits, advance, shared ? 1 : itemsPerThread(plain),
                              static_cast<int>(stage->buffer.elements() / plain.items)};
      if (counters.items * static_cast<int64_t>(digits.size()) > kMaxCounterRegisters) continue;
      std::string names;
      for (const CollapsedLoop& digit : digits)
        names += (names.empty() ? "" : ", ") + GatherState::counterName(stage->buffer.name, digit) +
                 (shared ? "" : "[" + std::to_string(counters.items) + "]");
      line(index_ + " " + names + ";  // what " + stage->gather[d].index + " derives for this thread's items of " +
           stage->buffer.name + ", a strip at a time");
      open("{");
      line("const " + index_ + " " + loop.index + " = " + affineText(loop.lower) + ";");
      if (shared) {  // the first item's, whether or not the thread has one
        line("const int stage_e = " + coordinate("thread_rank") + ";");
        line(plain.places + plain.coords);
        for (const CollapsedLoop& digit : digits)
          line(GatherState::counterName(stage->buffer.name, digit) + " = " + digit.index + ";");
      } else {
        bool guarded = openThreadItems(plain);
        for (const CollapsedLoop& digit : digits)
          line(GatherState::counterName(stage->buffer.name, digit) + "[stage_r] = " + digit.index + ";");
        closeThreadItems(guarded);
      }
      close();
      gathers_.keepCounters(stage->buffer.name, counters);
      break;
    }
  }
}

void KernelWriter::dropGatherCounters(const std::vector<const Node*>& stages) {
  for (const Node* stage : stages) {
    gathers_.forget(stage->buffer.name);
  }
}

// The counters move on by the strip's length as a mixed-radix addition: each index, innermost
// first, adds its digit of the length and carries one into the next when it passes its end.
void KernelWriter::advanceGatherCounters(const StageCopy& c) {
  if (c.counters.empty()) return;
  const GatherCounters& g = *gathers_.counters(c.counters);
  if (g.items == 1) {
    open("{  // the next strip's " + c.counters + " indices");
  } else {
    line("#pragma unroll");
    open("for (int stage_r = 0; stage_r < " + std::to_string(g.items) + "; ++stage_r) {  // the next strip's " +
         c.counters + " indices");
  }
  for (size_t j = g.digits.size(); j-- > 0;) {
    const CollapsedLoop& digit = g.digits[j];
    int64_t steps = g.advance / digitStride(g.digits, j);
    if (j > 0) steps %= digit.trips;
    std::string name = gathers_.counterOf(c.counters, digit);
    if (steps != 0) line(name + " += " + std::to_string(steps * digit.step) + ";");
    if (j == 0) continue;
    const CollapsedLoop& outer = g.digits[j - 1];
    line("if (" + name + " >= " + std::to_string(digit.lower + digit.step * digit.trips) + ") { " + name +
         " -= " + std::to_string(digit.step * digit.trips) + "; " + gathers_.counterOf(c.counters, outer) +
         " += " + std::to_string(outer.step) + "; }");
  }
  close();
}

}  // namespace cudaburg::emit_internal
