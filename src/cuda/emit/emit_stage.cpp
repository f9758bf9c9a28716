// The copies into shared memory (Stages) and the pipelined loops that overlap them with work:
// the part of the CUDA emitter's writer (kernel_writer.hpp) that fills shared buffers.
#include <algorithm>

#include "src/cuda/emit/kernel_writer.hpp"
#include "src/loop/pipeline.hpp"

namespace cudaburg::emit_internal {

namespace {

// A store of a StageCopy with `item` as the value.
std::string fillStore(const std::string& store, const std::string& item) {
  std::string s = store;
  s.replace(s.find('$'), 1, item);
  return s + ";";
}

// `stage`, reading the box `shift` iterations of `loop` later.
Node shiftedStage(const Node& stage, const Node& loop, int64_t shift) {
  Node shifted = stage;
  for (Affine& o : shifted.origin) o = o.substitute(loop.index, Affine::var(loop.index) + Affine(shift * loop.step));
  return shifted;
}

}  // namespace

// The width (8, 4, 2 or 1 elements, at most 16 bytes) a Stage copies at a time: rows of both
// arrays that hold whole vectors, aligned, of the same type. A vector then lies wholly inside or wholly outside the
// source, so the bounds of its first element decide for all of it. `box` is the box's extents in
// the source's order: the buffer's for the natural layout, whose rows are the box's rows; a
// permuted buffer is written an element at a time, so only the source's rows count.
int KernelWriter::stageWidth(const Node& node, const Array& source, const std::vector<int64_t>& box,
                             const Scope& scope) {
  const Array& buffer = node.buffer;
  ScalarType t = typeOf(buffer);
  if (t != typeOf(source) || source.space == MemorySpace::Register || box.empty() || t == ScalarType::Int) return 1;
  // 16-bit elements travel as packed words (uint4, ...), which only a buffer in the source's order
  // can take whole.
  int bytes = scalarTypeBytes(t);
  if (bytes == 2 && isPermuted(node.layout)) return 1;
  int64_t row = declaredExtents(node, 1, elementType_).back();
  for (int width : {8, 4, 2}) {
    if (width * bytes > 16 || (bytes == 4 && width == 8)) continue;
    if (box.back() % width != 0 || source.extents.back() % width != 0) continue;
    if (!isPermuted(node.layout) && row % width != 0) continue;  // stored whole: the buffer's rows keep it aligned
    Scope probe = scope;
    Access first{source.name, {}};
    for (size_t d = 0; d < box.size(); ++d) {
      std::string var = "stage_" + std::to_string(d);
      bool last = d + 1 == box.size();
      probe.ranges.bind(var, IndexRange{0, box[d] - (last ? width : 1), last ? width : 1});
      first.subscripts.push_back(node.origin[d] + Affine::var(var));
    }
    if (probe.ranges.multipleOf(flatOffset(first, source)) % width == 0) return width;
  }
  return 1;
}

void KernelWriter::readItem(StageCopy& c, const Access& from, const Array& buffer, const Array& source, int width,
                            const Scope& inner, const std::vector<std::string>& alsoInside) {
  ScalarType bufferType = typeOf(buffer), sourceType = typeOf(source);
  std::string converted;
  if (width == 1 && bufferType != sourceType)
    converted = fromFloat(bufferType, loadText(from, computeType(bufferType), inner));
  std::vector<std::string> conds = outsideConditions(from, source, inner);
  for (const std::string& cond : alsoInside)
    if (std::find(conds.begin(), conds.end(), cond) == conds.end()) conds.push_back(cond);
  readElementAt(c, accessText(from, inner), converted, conds, bufferType, sourceType, width);
}

void KernelWriter::readElementAt(StageCopy& c, const std::string& element, const std::string& converted,
                                 const std::vector<std::string>& conds, ScalarType bufferType, ScalarType sourceType,
                                 int width) {
  std::string zero;
  if (width > 1) {
    // 16-bit elements as packed 32-bit words: 8 in a uint4, 4 in a uint2, 2 in an unsigned.
    bool packed = scalarTypeBytes(bufferType) == 2;
    int lanes = packed ? width / 2 : width;
    c.type = packed ? (lanes == 1 ? "unsigned" : "uint" + std::to_string(lanes))
                    : cudaType(bufferType) + std::to_string(width);
    c.value = "*reinterpret_cast<const " + c.type + "*>(&" + element + ")";
    zero = packed && lanes == 1 ? "0u" : "make_" + c.type + "(";
    for (int v = 0; v < lanes && !(packed && lanes == 1); ++v)
      zero += (v ? ", " : "") + (packed ? "0u" : literal(0, bufferType));
    if (!(packed && lanes == 1)) zero += ")";
  } else {
    c.type = cudaType(bufferType);
    c.value = converted.empty() ? element : converted;
    zero = fromFloat(bufferType, literal(0, computeType(bufferType)));
  }
  if (!conds.empty()) c.value = "(" + joinConditions(conds) + ") ? " + c.value + " : " + zero;
  c.from = element;
  c.inside = joinConditions(conds);
  c.sameType = bufferType == sourceType;
}

std::vector<int64_t> KernelWriter::splitItems(StageCopy& c, const std::vector<int64_t>& extents,
                                              const std::vector<size_t>& order, int width, Scope& inner) const {
  std::vector<int64_t> spans;
  // The threads that copy (a producer warpgroup's, or the block's) and a thread's rank among them.
  int64_t innerSize = c.items, threads = copyThreads();
  const std::string rank = copyRankName();
  for (size_t k = 0; k < order.size(); ++k) {
    size_t d = order[k];
    spans.push_back(innerSize);
    std::string var = "stage_" + std::to_string(d);
    bool last = k + 1 == order.size();
    int64_t extent = extents[d] / (last ? width : 1);
    innerSize /= extent;
    std::string quotient = "stage_e", numbered = quotient;
    if (innerSize != 1) quotient += " / " + std::to_string(innerSize);
    // Item stage_r of a thread is rank + threads * stage_r (0 <= rank < threads):
    // its place apart from the thread's, a constant of the unrolled item loop, where the threads
    // are whole multiples or divisors of the span.
    bool wraps = k > 0;  // the place is taken modulo the extent
    if (threads % innerSize == 0) {
      int64_t step = threads / innerSize;
      numbered = innerSize == 1 ? rank : rank + " / " + std::to_string(innerSize);
      if (!wraps || step % extent != 0) numbered += " + " + std::to_string(step) + " * stage_r";
    } else if (innerSize % threads == 0) {
      numbered = std::to_string(threads) + " * stage_r / " + std::to_string(innerSize);
    } else {
      numbered = quotient;
    }
    auto place = [&](const std::string& q) {
      std::string operand = q.find(' ') != std::string::npos ? "(" + q + ")" : q;
      std::string value = wraps ? operand + " % " + std::to_string(extent) : q;
      return last && width > 1 ? std::to_string(width) + " * (" + value + ")" : value;
    };
    c.places += (k ? ", " : "const int ") + var + " = " + place(quotient);
    c.numberedPlaces += (k ? ", " : "const int ") + var + " = " + place(numbered);
    inner.ranges.bind(var, IndexRange{0, extents[d] - (last ? width : 1), last ? width : 1});
  }
  c.places += ";";
  c.numberedPlaces += ";";
  return spans;
}

// A 2-D box of 32-bit elements stored transposed and swizzled (tf32's B for wgmma, [n][k] from
// B[k][n]): each element goes to a row of its own, so a warp copying 32 consecutive elements of a
// source row would store into 32 rows whose swizzle spreads them over 8 banks only. Its items go
// instead an element at a time in warp tiles of 4 source rows by 8 elements: 8 buffer rows of
// different swizzle (8 chunks) by 4 consecutive words of a chunk, 32 banks, while the reads stay
// whole 32-byte sectors.
constexpr int64_t kWarpTileRows = 4, kWarpTileColumns = 8;

bool KernelWriter::transposedSwizzleTiles(const Node& node, const std::vector<int64_t>& box) const {
  return isPermuted(node.layout) && node.buffer.swizzled && box.size() == 2 &&
         scalarTypeBytes(typeOf(node.buffer)) == 4 && box[0] % kWarpTileRows == 0 && box[1] % kWarpTileColumns == 0;
}

void KernelWriter::splitIntoWarpTiles(StageCopy& c, const std::vector<int64_t>& box, Scope& inner) const {
  const int64_t tile = kWarpTileRows * kWarpTileColumns, tilesARow = box[1] / kWarpTileColumns;
  c.places = "const int stage_0 = stage_e / " + std::to_string(kWarpTileColumns) + " % " +
             std::to_string(kWarpTileRows) + " + " + std::to_string(kWarpTileRows) + " * (stage_e / " +
             std::to_string(tile * tilesARow) + "), stage_1 = stage_e % " + std::to_string(kWarpTileColumns) + " + " +
             std::to_string(kWarpTileColumns) + " * (stage_e / " + std::to_string(tile) + " % " +
             std::to_string(tilesARow) + ");";
  c.numberedPlaces = c.places;  // stage_e is declared there too, a constant apart from the rank
  inner.ranges.bind("stage_0", IndexRange{0, box[0] - 1, 1});
  inner.ranges.bind("stage_1", IndexRange{0, box[1] - 1, 1});
}

// A Stage is a cooperative copy: the block's threads take the box's items (elements, or vectors
// of a source row's elements) in turn, in the source's order (consecutive threads read
// consecutive elements of a row, coalesced), zero outside the source, and store each at its
// place in the buffer: the whole vector where the buffer keeps the source's order, lane by lane
// where its layout permutes the box (e.g. transposed).
StageCopy KernelWriter::planStageCopy(const Node& node, const Scope& scope) {
  if (!node.gather.empty()) return planGatherCopy(node, scope);
  StageCopy c;
  const Array& buffer = node.buffer;
  const Array* source = findArray(node.source, scope);
  if (!source) return c;
  size_t rank = buffer.extents.size();
  if (source->extents.size() != rank || (!node.layout.empty() && node.layout.size() != rank)) {
    refuse("Stage from `" + node.source + "` into `" + buffer.name + "`: the ranks differ");
    return c;
  }
  bool permuted = isPermuted(node.layout);
  std::vector<int64_t> box(rank, 0);  // the box's extents in the source's order
  for (size_t d = 0; d < rank; ++d) {
    auto s = permuted ? static_cast<size_t>(node.layout[d]) : d;
    if (s >= rank || box[s] != 0) {
      refuse("Stage into `" + buffer.name + "`: its layout is not a permutation");
      return c;
    }
    box[s] = buffer.extents[d];
  }
  const bool warpTiles = transposedSwizzleTiles(node, box);
  int width = warpTiles ? 1 : stageWidth(node, *source, box, scope);
  Scope inner = scope;
  Access from{node.source, {}};
  c.items = buffer.elements() / width;
  if (warpTiles) {
    splitIntoWarpTiles(c, box, inner);
  } else {
    std::vector<size_t> inOrder(rank);
    for (size_t d = 0; d < rank; ++d) inOrder[d] = d;
    splitItems(c, box, inOrder, width, inner);
  }
  for (size_t d = 0; d < rank; ++d)
    from.subscripts.push_back(node.origin[d] + Affine::var("stage_" + std::to_string(d)));
  // The buffer element that lane `lane` of an item goes to.
  auto to = [&](int lane) {
    Access a{buffer.name, {}};
    for (size_t d = 0; d < rank; ++d) {
      auto s = permuted ? static_cast<size_t>(node.layout[d]) : d;
      a.subscripts.push_back(Affine::var("stage_" + std::to_string(s)) + Affine(s + 1 == rank ? lane : 0));
    }
    return a;
  };
  readItem(c, from, buffer, *source, width, inner);
  ScalarType bufferType = typeOf(buffer);
  int elementBytes = scalarTypeBytes(bufferType);
  c.pieceBytes = permuted ? elementBytes : width * elementBytes;
  for (int v = 0; v < (permuted ? width : 1); ++v) c.pieces.push_back(accessText(to(v), inner));
  if (width == 1) {
    c.stores.push_back(accessText(to(0), inner) + " = $");
  } else if (!permuted) {
    c.stores.push_back("*reinterpret_cast<" + c.type + "*>(&" + accessText(to(0), inner) + ") = $");
  } else {
    for (int v = 0; v < width; ++v) c.stores.push_back(accessText(to(v), inner) + " = $." + "xyzw"[v]);
  }
  std::string origin, layout;
  for (const auto& o : node.origin) origin += "[" + affineText(o) + "]";
  for (int d : node.layout) layout += (layout.empty() ? "" : ", ") + std::to_string(d);
  c.comment = "// Stage " + node.source + origin + " -> " + buffer.name +
              (permuted ? " in layout (" + layout + ")" : "") + ", zero outside " + node.source;
  if (width > 1) c.comment += (permuted ? ", read " : ", ") + std::to_string(width) + " elements at a time";
  return c;
}

void KernelWriter::emitStage(const Node& node, const Scope& scope) {
  StageCopy c = planStageCopy(node, scope);
  if (!refusal_.empty()) return;
  line(c.comment);
  if (c.byItem) {  // each item reads its counters or its row: the items by their number
    bool guarded = openThreadItems(c);
    storeItem(c);
    closeThreadItems(guarded);
    advanceGatherCounters(c);
    return;
  }
  // Threads take the items in turn; with no more items than threads, each takes one at most.
  std::string rank = coordinate("thread_rank");
  if (c.items > plan_.threads())
    open("for (int stage_e = " + rank + "; stage_e < " + std::to_string(c.items) +
         "; stage_e += " + std::to_string(plan_.threads()) + ") {");
  else
    open(c.items == plan_.threads() ? "{" : "if (" + rank + " < " + std::to_string(c.items) + ") {");
  if (c.items <= plan_.threads()) line("const int stage_e = " + rank + ";");
  line(c.places + c.coords);
  storeItem(c);
  close();
}

void KernelWriter::storeItem(const StageCopy& c) {
  if (c.stores.size() == 1) {
    line(fillStore(c.stores[0], c.value));
  } else {
    line("const " + c.type + " stage_v = " + c.value + ";");
    for (const auto& s : c.stores) line(fillStore(s, "stage_v"));
  }
}

int64_t KernelWriter::itemsPerThread(const StageCopy& c) const { return (c.items + copyThreads() - 1) / copyThreads(); }

bool KernelWriter::openThreadItems(const StageCopy& c) {
  int64_t threads = copyThreads();
  line("#pragma unroll");
  open("for (int stage_r = 0; stage_r < " + std::to_string(itemsPerThread(c)) + "; ++stage_r) {");
  line("const int stage_e = " + copyRank() + " + " + std::to_string(threads) + " * stage_r;");
  bool guarded = c.items % threads != 0;
  if (guarded) open("if (stage_e < " + std::to_string(c.items) + ") {");
  line(c.numberedPlaces + c.coords);
  return guarded;
}

void KernelWriter::closeThreadItems(bool guarded) {
  if (guarded) close();
  close();
}

// Half of a pipelined copy: each thread's items read into the registers `regs` (load), or
// stored from them into the buffer (store).
void KernelWriter::emitStageRegisters(const StageCopy& c, const std::string& regs, bool load) {
  bool guarded = openThreadItems(c);
  if (load) {
    line(regs + "[stage_r] = " + c.value + ";");
  } else {
    for (const auto& s : c.stores) line(fillStore(s, regs + "[stage_r]"));
  }
  closeThreadItems(guarded);
  if (load) advanceGatherCounters(c);
}

std::optional<int64_t> KernelWriter::pipelineTrips(const Node& loop, const PipelineParts& parts, const Scope& scope) {
  if (!parts.ok()) {
    refuse(parts.problem);
    return std::nullopt;
  }
  if (!loop.collapsed.empty()) {
    refuse("pipelined loop `" + loop.index + "` is collapsed: pipeline the strip loop of a collapsed loop");
    return std::nullopt;
  }
  auto trips = scope.ranges.maxTripCount(loop);
  if (!trips || *trips < 1) {
    refuse("pipelined loop `" + loop.index + "` has no bounded trip count");
    return std::nullopt;
  }
  return trips;
}

std::vector<std::string> KernelWriter::laterConditions(const Node& loop, int64_t shift, const Scope& body) {
  Affine later = Affine::var(loop.index) + Affine(shift * loop.step);
  std::vector<std::string> conds;
  for (const Affine& u : loop.upper)
    if (!body.ranges.provesLess(later, u)) conds.push_back(affineText(later) + " < " + affineText(u));
  return conds;
}

// A pipelined loop (rule 6 of loop_tree.hpp): each shared buffer is declared twice over; the
// first iteration's stages fill half 0 before the loop; each iteration then reads the next
// iteration's stages into registers, works on its own half, stores the registers into the other
// half, and synchronises once.
void KernelWriter::emitPipelinedLoop(const Node& loop, const Scope& scope) {
  PipelineParts parts = pipelineParts(loop);
  auto trips = pipelineTrips(loop, parts, scope);
  if (!trips) return;
  Scope inner = scope;
  for (const Node* b : parts.buffers) {
    inner.arrays[b->buffer.name] = b->buffer;
    inner.slots[b->buffer.name] = "stage_slot";
  }
  line("// " + loop.index + " pipelined: while the block works on one half of each buffer, the next stages go");
  line("// through registers into the other half");
  for (const Node* b : parts.buffers) declareShared(*b, 2);
  declareGatherCounters(loop, parts.stages, inner);

  Scope first = inner;
  first.ranges.bind(loop.index, scope.ranges.loopIndexRange(loop, 1));
  for (const Node* b : parts.buffers) first.slots[b->buffer.name] = "0";
  open("{");
  line("const " + index_ + " " + loop.index + " = " + affineText(loop.lower) + ";");
  for (const Node* s : parts.stages) emitStage(*s, first);
  close();
  line("__syncthreads();");
  // A prefetched work loop (rule 9 of loop_tree.hpp) of an even trip count reads each strip's
  // first operands at the end of the strip before: the first strip's here.
  const Node* prefetched = prefetchedWork(loop, parts, scope);
  std::shared_ptr<OperandRegisters> regs;
  if (prefetched) {
    regs = openOperandRegisters(*prefetched);
    line("// " + prefetched->index +
         ": each iteration reads the next one's shared operands into registers first, the last");
    line("// the next strip's, after the barrier");
    readFirstStripAhead(loop, *prefetched, first, regs);
  }

  // The next iteration's stages: the loop's index one step on, in the iterations that have one.
  Scope next = inner;
  next.ranges.bind(loop.index, scope.ranges.loopIndexRange(loop, std::max<int64_t>(1, *trips - 1)));
  for (const Node* b : parts.buffers) next.slots[b->buffer.name] = "stage_slot ^ 1";
  std::vector<StageCopy> copies;
  for (const Node* s : parts.stages) copies.push_back(planStageCopy(shiftedStage(*s, loop, 1), next));
  // Peeled, of constant bounds: in its whole iterations but the last the next strip is whole too,
  // and its copies need no check of the strip's bounds (planned for those iterations alone).
  std::vector<StageCopy> wholeCopies;
  int64_t lower = 0, upper = 0, wholeStrips = 0;
  if (isPeeled(loop.index) && constantBounds(loop, lower, upper) && (wholeStrips = (upper - lower) / loop.step) >= 2) {
    Scope nextWhole = next;
    nextWhole.ranges.bind(loop.index, scope.ranges.loopIndexRange(loop, wholeStrips - 1));
    bool fewerChecks = false;
    for (size_t i = 0; i < parts.stages.size(); ++i) {
      wholeCopies.push_back(planStageCopy(shiftedStage(*parts.stages[i], loop, 1), nextWhole));
      fewerChecks = fewerChecks || wholeCopies[i].value != copies[i].value;
    }
    if (!fewerChecks) wholeCopies.clear();
  }
  if (!refusal_.empty()) return;
  emitIterations(loop, inner, *trips, [&](const Scope& body, Iterations part) {
    std::vector<std::string> nextConds = laterConditions(loop, 1, body);  // this iteration has a next one
    bool more = *trips > 1 && part != Iterations::Last;
    line("const int stage_slot = (" + iterationText(loop) + ") & 1;");
    if (more) {
      for (size_t i = 0; i < copies.size(); ++i)
        line(copies[i].type + " " + parts.stages[i]->buffer.name + "_next[" +
             std::to_string(itemsPerThread(copies[i])) + "];");
      bool split = part == Iterations::Whole && !wholeCopies.empty();
      if (split) {
        open("if (" + loop.index + " < " + std::to_string(lower + (wholeStrips - 1) * loop.step) +
             ") {  // the next strip is whole");
        for (size_t i = 0; i < wholeCopies.size(); ++i)
          emitStageRegisters(wholeCopies[i], parts.stages[i]->buffer.name + "_next", true);
        otherwise("the next strip is the partial last one, if any");
      }
      if (!nextConds.empty()) open("if (" + joinConditions(nextConds) + ") {");
      for (size_t i = 0; i < copies.size(); ++i)
        emitStageRegisters(copies[i], parts.stages[i]->buffer.name + "_next", true);
      if (!nextConds.empty()) close();
      if (split) close();
    }
    auto handOver = [&] {  // the next strip's stores, then the barrier
      if (more) {
        if (!nextConds.empty()) open("if (" + joinConditions(nextConds) + ") {");
        for (size_t i = 0; i < copies.size(); ++i)
          emitStageRegisters(copies[i], parts.stages[i]->buffer.name + "_next", false);
        if (!nextConds.empty()) close();
      }
      line("__syncthreads();");
    };
    StripTail tail{handOver, more, nextConds, loop.index, Affine::var(loop.index) + Affine(loop.step), {}, regs};
    for (const Node* b : parts.buffers) tail.nextSlots[b->buffer.name] = "stage_slot ^ 1";
    for (const auto& w : parts.work) {
      position_.inStrip(prefetched ? &tail : nullptr,
                        [&] { emit(part == Iterations::Whole ? *dropImpliedBounds(w, loop) : *w, body); });
    }
    if (!prefetched) handOver();
  });
  if (regs) declareOperandRegisters(*regs);
  dropGatherCounters(parts.stages);
}

void KernelWriter::readFirstStripAhead(const Node& loop, const Node& prefetched, const Scope& first,
                                       const std::shared_ptr<OperandRegisters>& regs) {
  open("{");
  size_t mark = text_.mark();
  line("const " + index_ + " " + loop.index + " = " + affineText(loop.lower) + ";");
  emitReadAhead(prefetched, first, regs, "0", {{prefetched.index, prefetched.lower}});
  dropIfUnused(mark, loop.index);
  close();
}

const Node* KernelWriter::prefetchedWork(const Node& loop, const PipelineParts& parts, const Scope& scope) {
  if (parts.work.size() != 1) return nullptr;
  const Node& work = *parts.work[0];
  if (work.kind != NodeKind::For || work.mapping != Mapping::Unrolled || !isPrefetched(work.index)) return nullptr;
  Scope strips = scope;
  strips.ranges.bindLoop(loop, scope.ranges.loopIndexRange(loop, scope.ranges.maxTripCount(loop).value_or(1)));
  auto trips = strips.ranges.maxTripCount(work);
  return trips && *trips % 2 == 0 ? &work : nullptr;  // an even count: each strip's first copy is copy 0
}

void KernelWriter::emitAsyncCopies(const StageCopy& c, const std::string& source) {
  if (!c.sameType) return refuse("an asynchronous copy cannot convert " + source + "'s elements to the buffer's type");
  bool guarded = openThreadItems(c);
  if (c.pieceBytes < 4 && position_.producerCopies())  // its barriers count cp.async copies only
    return refuse("a producer warpgroup fills the stages by cp.async alone: " + source + "'s rows of " +
                  "16-bit elements must come in pieces of at least 4 bytes");
  if (c.pieceBytes < 4) {
    // cp.async moves 4, 8 or 16 bytes: a gather of 16-bit elements that goes an element at a time
    // (channels not a multiple of the width, say) is copied by the threads themselves. The copy it
    // fills was freed by the barrier before, and the barrier of its own iteration comes after.
    line("// " + source + "'s elements one at a time: too narrow for cp.async");
    storeItem(c);
    return closeThreadItems(guarded);
  }
  if (!c.inside.empty()) line("const bool stage_in = " + c.inside + ";");
  for (size_t p = 0; p < c.pieces.size(); ++p) {
    std::string from = "&" + c.from + (p ? " + " + std::to_string(p) : "");
    if (!c.inside.empty()) from = "stage_in ? " + from + " : " + source;  // a valid address, not read
    line("async_copy<" + std::to_string(c.pieceBytes) + ">(&" + c.pieces[p] + ", " + from + ", " +
         (c.inside.empty() ? "true" : "stage_in") + ");");
  }
  closeThreadItems(guarded);
}

// An asynchronously pipelined loop (rule 6 of loop_tree.hpp): Kernel::asyncStages copies of each
// shared buffer; the first asyncStages - 1 iterations' stages are issued before the loop; each
// iteration waits for its own, synchronises (which also frees the copy the previous iteration
// used), issues the stages asyncStages - 1 iterations ahead into that copy, and works. Around
// wgmma (Kernel::warpGroupTiles), an iteration's wgmma are one group, of which the last
// Kernel::wgmmaPending stay in flight into the next iteration: the copies then go that many
// iterations less far ahead, into the copy the iteration before the previous one used.
void KernelWriter::emitAsyncPipelinedLoop(const Node& loop, const Scope& scope) {
  PipelineParts parts = pipelineParts(loop);
  auto trips = pipelineTrips(loop, parts, scope);
  if (!trips) return;
  const int64_t buffers = kernel_.asyncStages;
  Scope inner = scope;
  for (const Node* b : parts.buffers) inner.arrays[b->buffer.name] = b->buffer;
  // The scope of the copies into the copy `slot`, where `iterations` of the loop have them.
  auto scopeAt = [&](const std::string& slot, int64_t iterations) {
    Scope at = inner;
    at.ranges.bind(loop.index, scope.ranges.loopIndexRange(loop, iterations));
    for (const Node* b : parts.buffers) at.slots[b->buffer.name] = slot;
    return at;
  };
  if (kernel_.wgmmaTma()) {  // the producer's one thread fills each copy by the Tensor Memory Accelerator
    std::vector<TmaStage> tma;
    for (const Node* s : parts.stages) {
      auto t = planTmaStage(*s, scopeAt("0", *trips));
      if (!t) return;
      tma.push_back(*t);
      uses_.useTensorMap(t->map);
    }
    if (plan_.clusterBlocks > 0 && std::none_of(tma.begin(), tma.end(), [](const TmaStage& t) { return t.multicast; }))
      return refuse(std::string("a cluster along grid.") + (plan_.clusterAxis == 0 ? "x" : "y") +
                    " shares no stage: each depends on the blocks' tiles along it");
    for (const Node* b : parts.buffers) declareShared(*b, bufferCopies(kernel_, loop.mapping, b->buffer.name));
    return emitProducerPipelinedLoop(loop, *trips, inner, [&](const std::string& slot) {
      emitTmaCopies(tma, "wgmma_full[" + slot + "]", scopeAt(slot, *trips));
    });
  }
  uses_.useAsyncCopies();
  // The stages of iteration `index + shift`, into the copy `slot`, where `iterations` of the
  // loop have such a later iteration.
  auto issue = [&](int64_t shift, const std::string& slot, int64_t iterations) {
    Scope at = scopeAt(slot, iterations);
    for (const Node* s : parts.stages) {
      StageCopy c = planStageCopy(shiftedStage(*s, loop, shift), at);
      if (!refusal_.empty()) return;
      line(c.comment);
      emitAsyncCopies(c, s->source);
      advanceGatherCounters(c);
    }
  };
  if (kernel_.wgmmaProducer()) {
    for (const Node* b : parts.buffers) declareShared(*b, bufferCopies(kernel_, loop.mapping, b->buffer.name));
    return emitProducerPipelinedLoop(loop, *trips, inner, [&](const std::string& slot) { issue(0, slot, *trips); });
  }
  // Around wgmma, the groups left in flight still read the buffers of the iterations before:
  // the copies go that many iterations less far ahead.
  const int64_t pending = kernel_.warpGroupTiles() ? kernel_.wgmmaPending() : 0;
  const int64_t ahead = buffers - 1 - pending;
  if (ahead < 1)
    return refuse("an asynchronous pipeline of " + std::to_string(buffers) + " buffers a stage cannot keep " +
                  std::to_string(pending) + " group of wgmma in flight");
  line("// " + loop.index + " pipelined asynchronously: " + std::to_string(buffers) +
       " copies of each buffer, the stages issued " + std::to_string(ahead) + " iterations ahead");
  for (const Node* b : parts.buffers) declareShared(*b, buffers);
  declareGatherCounters(loop, parts.stages, inner);
  for (int64_t s = 0; s < ahead; ++s) {
    if (s < *trips) {
      open("{");
      line("const " + index_ + " " + loop.index + " = " + affineText(loop.lower) + ";");
      issue(s, std::to_string(s), 1);
      close();
    }
    line("async_commit();");
  }
  const std::string wait = "async_wait<" + std::to_string(ahead - 1) + ">();  // this iteration's stages have landed";
  // A prefetched work loop of mma.sync tiles' k steps reads each strip's first fragments right after
  // the barrier of the strip before, ahead of that strip's last multiplies: the first strip's here.
  // (Other prefetched loops under an asynchronous pipeline read ahead within each strip.)
  const bool mmaSync = kernel_.warpTiles() && !kernel_.warpGroupTiles();
  const Node* prefetched = mmaSync ? prefetchedWork(loop, parts, scope) : nullptr;
  std::shared_ptr<OperandRegisters> regs;
  if (prefetched) {
    line(wait);
    line("__syncthreads();");
    regs = openOperandRegisters(*prefetched);
    line("// " + prefetched->index +
         ": each iteration reads the next one's fragments first, the last the next strip's,");
    line("// after the barrier");
    readFirstStripAhead(loop, *prefetched, scopeAt("0", 1), regs);
  }
  Scope working = inner;
  for (const Node* b : parts.buffers) working.slots[b->buffer.name] = "stage_slot";
  emitIterations(loop, working, *trips, [&](const Scope& body, Iterations part) {
    line("const int stage_slot = (" + iterationText(loop) + ") % " + std::to_string(buffers) + ";");
    if (!prefetched) {
      line(wait);
      if (kernel_.warpGroupTiles()) line("wgmma_proxy_fence();  // and are visible to wgmma's reads");
      line("__syncthreads();");
    }
    if (*trips > ahead && part != Iterations::Last) {
      std::vector<std::string> conds = laterConditions(loop, ahead, body);
      if (!conds.empty()) open("if (" + joinConditions(conds) + ") {");
      issue(ahead, "(stage_slot + " + std::to_string(ahead) + ") % " + std::to_string(buffers), *trips - ahead);
      if (!conds.empty()) close();
    }
    line("async_commit();");
    if (kernel_.warpGroupTiles()) wgmmaGroups_.openStrip();
    StripTail tail{[&] { line(wait), line("__syncthreads();"); },
                   *trips > 1 && part != Iterations::Last,
                   laterConditions(loop, 1, body),
                   loop.index,
                   Affine::var(loop.index) + Affine(loop.step),
                   {},
                   regs};
    for (const Node* b : parts.buffers)
      tail.nextSlots[b->buffer.name] = "(stage_slot + 1) % " + std::to_string(buffers);
    for (const auto& w : parts.work) {
      position_.inStrip(prefetched ? &tail : nullptr,
                        [&] { emit(part == Iterations::Whole ? *dropImpliedBounds(w, loop) : *w, body); });
    }
    if (kernel_.warpGroupTiles()) wgmmaGroups_.closeStrip();
  });
  if (regs) declareOperandRegisters(*regs);
  if (kernel_.warpGroupTiles()) line("wgmma_wait<0>();  // every wgmma done: the accumulators may be read");
  dropGatherCounters(parts.stages);
}

// An asynchronously pipelined loop around wgmma whose stages a producer warpgroup (the last along
// block.y) fills by itself while the others multiply (Kernel::wgmmaProducer). Each copy s of the
// buffers has two barriers: full[s] completes as the producer's copies into it land (each
// producer thread's cp.async arrive on it), empty[s] as every consumer thread is done with the
// strip it held. Iteration t uses copy t % B in round t / B: the producer waits for empty[s] of
// the round before, fills it and arrives; the consumers wait for full[s] of this round, multiply,
// and, once their group of wgmma for the strip before is done, release that strip's copy.
// With the Tensor Memory Accelerator (Kernel::wgmmaTma), one producer thread fills each copy:
// full[s] then completes on its one arrival and the bytes that arrival said would land.
// With Kernel::wgmmaSplitBuffer, the producer warpgroup also splits each landed strip of that
// buffer into tf32 parts (emitProducerSplit) and the consumers wait for ready[s] instead.
void KernelWriter::emitProducerPipelinedLoop(const Node& loop, int64_t trips, const Scope& inner,
                                             const std::function<void(const std::string& slot)>& issue) {
  if (isPeeled(loop.index)) return refuse("a loop pipelined by a producer warpgroup runs whole, not peeled");
  // The warpgroups that multiply a tile: each strip is theirs alone, even where ping-pong groups
  // take alternate tiles.
  const int64_t buffers = kernel_.asyncStages, consumers = plan_.consumerRows();
  const std::string b = std::to_string(buffers);
  const bool split = !kernel_.wgmmaSplitBuffer().empty();
  // A persistent block's strips are numbered on from tile to tile, the barriers' phases with them:
  // the producer fills the next tile's copies as the last tile's readers free them. The barriers
  // are set up once, before the tiles.
  const bool persistent = plan_.persistentBlocks > 0, setUpFirst = persistent || plan_.consumerRegisters > 0;
  const std::string it =
      persistent ? "tile_turn * " + std::to_string(trips) + " + " + iterationText(loop) : iterationText(loop);
  line("// " + loop.index + " pipelined by the producer warpgroup: " + b + " copies of each buffer, each filled once " +
       "its readers are done with it");
  std::vector<std::string> setup = barrierDeclarations(buffers);
  setup.push_back(
      "if (" +
      (setUpFirst ? std::string("threadIdx.x == 0 && threadIdx.y == 0") : coordinate("thread_rank") + " == 0") + ") {");
  setup.push_back("  #pragma unroll");
  setup.push_back("  for (int s = 0; s < " + b + "; ++s) {");
  if (kernel_.wgmmaTma())
    setup.push_back("    mbarrier_init(&wgmma_full[s], 1);  // the producer's thread, and the bytes it expects");
  else
    setup.push_back("    mbarrier_init(&wgmma_full[s], 128);  // the producer's threads, as their copies land");
  if (plan_.clusterBlocks > 0)  // a cluster's blocks fill each other's buffers: both must be done with them
    setup.push_back("    mbarrier_init(&wgmma_empty[s], " + std::to_string(consumers * plan_.clusterBlocks) +
                    ");  // every consumer warpgroup of the cluster's " + std::to_string(plan_.clusterBlocks) +
                    " blocks");
  else
    setup.push_back("    mbarrier_init(&wgmma_empty[s], " + std::to_string(128 * consumers) +
                    ");  // every consumer thread");
  if (split) setup.push_back("    mbarrier_init(&wgmma_ready[s], 128);  // the producer's threads, the strip split");
  setup.push_back("  }");
  if (plan_.tileGroups > 1)
    setup.push_back("  for (int g = 0; g < " + std::to_string(plan_.tileGroups) +
                    "; ++g) mbarrier_init(&tile_order[g], " + std::to_string(128 * consumers) +
                    ");  // a group's threads, done with a tile's strips");
  if (kernel_.wgmmaTma()) setup.push_back("  mbarrier_init_fence();  // the barriers set up for the TMA's copies too");
  setup.push_back("}");
  // A cluster's blocks arrive on each other's barriers and copy into each other's buffers: all
  // must be set up first.
  setup.push_back(plan_.clusterBlocks > 0 ? "cluster_sync();  // every block of the cluster set up"
                                          : "__syncthreads();");
  if (setUpFirst)  // before the tiles and the roles split (KernelPrologue::text), naming no coordinate
    beforeTiles_ = setup;
  else
    for (const std::string& l : setup) line(l);
  const std::string header = "for (" + index_ + " " + loop.index + " = " + affineText(loop.lower) + "; " +
                             loopConditions(loop, inner) + "; " + loopStep(loop) + ") {";
  const std::string slot = "const int stage_slot = (" + it + ") % " + b + ", stage_round = (" + it + ") / " + b + ";";
  Scope body = inner;
  body.ranges.bindLoop(loop, inner.ranges.loopIndexRange(loop, trips));
  const PipelineParts parts = pipelineParts(loop);
  for (const Node* n : parts.buffers) body.slots[n->buffer.name] = "stage_slot";
  open("if (threadIdx.y == " + std::to_string(plan_.block[1] - 1) + ") {  // the producer warpgroup");
  if (split) {
    emitProducerSplit(header, slot, inner, [&] { issue("stage_slot"); });
  } else if (kernel_.wgmmaTma()) {
    open("if (threadIdx.x == 0) {  // its one thread issues the Tensor Memory Accelerator's copies");
    open(header);
    line(slot);
    line("if (stage_round > 0) mbarrier_wait(&wgmma_empty[stage_slot], (stage_round - 1) & 1);  // emptied");
    issue("stage_slot");
    close();
    close();
  } else {
    line("const int producer_rank = threadIdx.x;");
    open(header);
    line(slot);
    line("if (stage_round > 0) mbarrier_wait(&wgmma_empty[stage_slot], (stage_round - 1) & 1);  // emptied");
    position_.asProducerCopies([&] { issue("stage_slot"); });
    line("async_arrive(&wgmma_full[stage_slot]);  // full[stage_slot] completes as they land");
    close();
    line("async_commit();");
    line("async_wait<0>();  // the last copies landed before the producer's threads end");
  }
  otherwise("the warpgroups that multiply");
  // Ping-pong groups take their tiles' strips in the order of the tiles: a barrier's phase parity
  // tells one round from the next only, so a group waits for the group before to have taken its
  // strips (tile_order[turn % groups] completes as that group is done with them).
  const std::string groups = std::to_string(plan_.tileGroups);
  if (plan_.tileGroups > 1)
    line("if (tile_turn > 0) mbarrier_wait(&tile_order[tile_turn % " + groups + "], ((tile_turn - 1) / " + groups +
         ") & 1);  // the tile before's strips taken");
  open(header);
  line(slot);
  if (split)
    line("mbarrier_wait(&wgmma_ready[stage_slot], stage_round & 1);  // this strip has landed and been split");
  else
    line("mbarrier_wait(&wgmma_full[stage_slot], stage_round & 1);  // this strip has landed");
  // The TMA writes through the async proxy, which wgmma reads through; cp.async's copies do not.
  if (!kernel_.wgmmaTma()) line("wgmma_proxy_fence();  // and is visible to wgmma's reads");
  wgmmaGroups_.openStrip();
  position_.asConsumers([&] {
    for (const auto& w : parts.work) emit(*w, body);
  });
  wgmmaGroups_.closeStrip();
  wgmmaGroups_.promotePartialSums(it);
  if (kernel_.wgmmaPending() == 0)
    line(releaseText("wgmma_empty[stage_slot]") + "  // done with this strip");
  else
    line("if (" + iterationText(loop) + " > 0) " +
         releaseText("wgmma_empty[(stage_slot + " + std::to_string(buffers - 1) + ") % " + b + "]") +
         "  // done with the strip before");
  close();
  if (plan_.tileGroups > 1)
    line("mbarrier_arrive(&tile_order[(tile_turn + 1) % " + groups +
         "]);  // the next tile's group may take its strips");
  line("wgmma_wait<0>();  // every wgmma done: the accumulators may be read");
  if (persistent && kernel_.wgmmaPending() > 0)
    line(releaseText("wgmma_empty[(tile_turn * " + std::to_string(trips) + " + " + std::to_string(trips - 1) + ") % " +
                     b + "]") +
         "  // done with the tile's last strip: the producer may fill it for the next tile");
  wgmmaGroups_.promotePartialSums("");
  close();
}

// A consumer thread's arrival on the empty barrier `barrier` once done with its buffer: its own,
// or in a cluster, its warpgroup's on that barrier in every block of the cluster, whose producers
// copy into the buffer too.
std::string KernelWriter::releaseText(const std::string& barrier) const {
  if (plan_.clusterBlocks > 0)
    return "mbarrier_arrive_cluster(&" + barrier + ", " + std::to_string(plan_.clusterBlocks) + ");";
  return "mbarrier_arrive(&" + barrier + ");";
}

// The producer warpgroup of a tf32x3 pipeline (Kernel::wgmmaSplitBuffer): its one thread issues
// each strip's TMA copies as above (or, without TMA, its threads their cp.async copies, each
// arriving on full[s] as its copies land), and the warpgroup splits the strip `lag` iterations
// behind once it has landed: the high tf32 parts in place, the low ones into the copy `buffers` further on,
// made visible to wgmma's reads and announced on ready[s]. The split comes before the copy of its
// iteration, which may wait for the consumers to free a strip they read only once the strip
// before is split: `lag` = buffers - 1 keeps that many strips in flight without a deadlock. The
// last `lag` strips are split after the loop.
void KernelWriter::emitProducerSplit(const std::string& header, const std::string& slot, const Scope& inner,
                                     const std::function<void()>& issue) {
  const int64_t buffers = kernel_.asyncStages, lag = buffers - 1;
  const Array* split = findArray(kernel_.wgmmaSplitBuffer(), inner);
  const int64_t elements = split ? split->elements() : 0;
  if (elements == 0 || elements % (4 * 128) != 0)
    return refuse("tf32x3 splits the stage `" + kernel_.wgmmaSplitBuffer() +
                  "` in pieces of 4 elements a producer thread: " + std::to_string(elements) + " elements");
  const std::string b = std::to_string(buffers), buffer = kernel_.wgmmaSplitBuffer();
  auto splitStrip = [&](const std::string& strip) {
    line("const int split_slot = (" + strip + ") % " + b + ", split_round = (" + strip + ") / " + b + ";");
    line("mbarrier_wait(&wgmma_full[split_slot], split_round & 1);  // the strip has landed");
    line("tf32_split<" + std::to_string(elements) + ">(reinterpret_cast<float*>(" + buffer + " + split_slot), " +
         "reinterpret_cast<float*>(" + buffer + " + " + lowPartsSlot("split_slot") + "), threadIdx.x);");
    line("wgmma_proxy_fence();  // the parts visible to wgmma's reads");
    line("mbarrier_arrive(&wgmma_ready[split_slot]);");
  };
  if (!kernel_.wgmmaTma()) line("const int producer_rank = threadIdx.x;");
  line("int produced = 0;  // strips whose copies were issued");
  open(header);
  line(slot);
  open("if (produced >= " + std::to_string(lag) + ") {  // the strip " + std::to_string(lag) + " behind");
  splitStrip("produced - " + std::to_string(lag));
  close();
  const std::string emptied =
      "if (stage_round > 0) mbarrier_wait(&wgmma_empty[stage_slot], (stage_round - 1) & 1);  // emptied";
  if (kernel_.wgmmaTma()) {
    open("if (threadIdx.x == 0) {  // one thread issues the Tensor Memory Accelerator's copies");
    line(emptied);
    issue();
    close();
  } else {
    line(emptied);
    position_.asProducerCopies(issue);
    line("async_arrive(&wgmma_full[stage_slot]);  // full[stage_slot] completes as they land");
  }
  line("++produced;");
  close();
  open("for (int strip = produced < " + std::to_string(lag) + " ? 0 : produced - " + std::to_string(lag) +
       "; strip < produced; ++strip) {  // the last strips");
  splitStrip("strip");
  close();
}

}  // namespace cudaburg::emit_internal
