// Peeled loops (rule 7 of src/loop/loop_tree.hpp): the part of the CUDA emitter's writer
// (kernel_writer.hpp) that writes whole tiles and whole strips without the guards only an edge
// needs, and the edges apart. What is left out is what the index ranges then prove: a whole tile's
// grid indices range over whole tiles only, a whole strip's index over whole strips, and loops
// inside a whole strip lose the bounds its strip bound implies.
#include <algorithm>

#include "src/cuda/emit/kernel_writer.hpp"
#include "src/loop/pipeline.hpp"

namespace cudaburg::emit_internal {

namespace {

IndexRange exactly(int64_t v) { return IndexRange{v, v, v < 0 ? -v : v}; }

}  // namespace

NodePtr dropImpliedBounds(const NodePtr& node, const Node& peeled) {
  if (node->kids.empty()) return node;
  std::vector<NodePtr> kids;
  bool changed = false;
  for (const auto& kid : node->kids) {
    kids.push_back(dropImpliedBounds(kid, peeled));
    changed |= kids.back() != kid;
  }
  NodePtr out = changed ? withKids(node, std::move(kids)) : node;
  if (node->kind != NodeKind::For) return out;
  bool strip = false;  // bounded by index + c, c <= step: within every bound of `peeled`
  for (const Affine& u : node->upper) {
    Affine above = u - Affine::var(peeled.index);
    strip = strip || (above.isConstant() && above.constant <= peeled.step);
  }
  if (!strip) return out;
  std::vector<Affine> kept;
  for (const Affine& u : node->upper)
    if (std::find(peeled.upper.begin(), peeled.upper.end(), u) == peeled.upper.end()) kept.push_back(u);
  if (kept.size() == node->upper.size()) return out;
  auto n = std::make_shared<Node>(*out);
  n->upper = std::move(kept);
  return n;
}

bool KernelWriter::isPeeled(const std::string& index) const {
  return std::find(kernel_.peeled.begin(), kernel_.peeled.end(), index) != kernel_.peeled.end();
}

void KernelWriter::emitPhases(const Scope& scope) {
  Scope whole = scope;
  std::vector<std::string> conds;
  for (const auto& g : plan_.gridLoops) {
    const Node& loop = *g.loop;
    int64_t lower = 0, upper = 0;
    if (!isPeeled(loop.index) || plan_.naive || !constantBounds(loop, lower, upper) || upper <= lower) continue;
    int64_t blocks = (upper - lower) / loop.step;  // whole tiles
    if (blocks < 1 || (upper - lower) % loop.step == 0) continue;
    whole.ranges.bindLoop(loop, scope.ranges.loopIndexRange(loop, blocks));
    conds.push_back(loop.index + " < " + std::to_string(lower + blocks * loop.step));
  }
  if (conds.empty()) return emit(*plan_.phases, scope);
  // One declaration of each shared buffer serves both copies of the work (a declaration in each
  // would take its memory twice).
  hoistShared(*plan_.phases, 1);
  open("if (" + joinConditions(conds) + ") {  // a whole tile: the guards only an edge needs left out");
  emit(*plan_.phases, whole);
  otherwise("a tile at an edge");
  emit(*plan_.phases, scope);
  close();
}

void KernelWriter::hoistShared(const Node& node, int copies) {
  if (!refusal_.empty()) return;
  if (node.kind == NodeKind::Alloc && node.buffer.space == MemorySpace::Shared) {
    std::vector<int64_t> extents = declaredExtents(node, copies, elementType_);
    const std::vector<int64_t>* hoisted = shared_.hoisted(node.buffer.name);
    if (!hoisted) {
      declareShared(node, copies);
      shared_.hoist(node.buffer.name, extents);
    } else if (*hoisted != extents) {
      return refuse("two shared buffers named `" + node.buffer.name + "` of different sizes in a peeled block");
    }
    return hoistShared(*node.body(), copies);  // a pipelined loop's buffers come one inside the other
  }
  int inner = node.kind == NodeKind::For && isPipelined(node.mapping) ? bufferCopies(kernel_, node.mapping) : 1;
  for (const auto& kid : node.kids) hoistShared(*kid, inner);
}

void KernelWriter::emitIterations(const Node& loop, const Scope& inner, int64_t trips,
                                  const std::function<void(const Scope&, Iterations)>& iteration) {
  std::string from = "for (" + index_ + " " + loop.index + " = " + affineText(loop.lower) + "; ";
  if (!isPeeled(loop.index)) {
    Scope body = inner;
    body.ranges.bindLoop(loop, inner.ranges.loopIndexRange(loop, trips));
    open(from + loopConditions(loop, inner) + "; " + loopStep(loop) + ") {");
    iteration(body, Iterations::All);
    close();
    return;
  }
  int64_t lower = 0, upper = 0;
  if (constantBounds(loop, lower, upper)) {
    int64_t whole = upper > lower ? (upper - lower) / loop.step : 0;
    int64_t last = lower + whole * loop.step;
    if (whole > 0) {
      Scope body = inner;
      body.ranges.bindLoop(loop, inner.ranges.loopIndexRange(loop, whole));
      open(from + loop.index + " < " + std::to_string(last) + "; " + loopStep(loop) + ") {  // whole iterations");
      iteration(body, Iterations::Whole);
      close();
    }
    if (last < upper) {
      Scope body = inner;
      body.ranges.bindLoop(loop, exactly(last));
      open("{  // the last iteration, partial");
      line("const " + index_ + " " + loop.index + " = " + std::to_string(last) + ";");
      iteration(body, Iterations::Last);
      close();
    }
    return;
  }
  // Bounds that differ from block to block (a split reduction's part): whole iterations while the
  // next step stays within every bound, then the last one if something is left.
  Scope body = inner;
  body.ranges.bindLoop(loop, inner.ranges.loopIndexRange(loop, trips));
  std::vector<std::string> whole;
  for (const Affine& u : loop.upper)
    whole.push_back(loop.index + " + " + std::to_string(loop.step) + " <= " + affineText(u));
  open("{");
  line(index_ + " " + loop.index + " = " + affineText(loop.lower) + ";");
  open("for (; " + joinConditions(whole) + "; " + loopStep(loop) + ") {  // whole iterations");
  iteration(body, Iterations::Whole);
  close();
  open("if (" + loopConditions(loop, inner) + ") {  // the last iteration, partial");
  iteration(body, Iterations::Last);
  close();
  close();
}

}  // namespace cudaburg::emit_internal
