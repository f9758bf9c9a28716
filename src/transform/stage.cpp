#include <algorithm>

#include "src/loop/gather_table.hpp"
#include "src/loop/swizzle.hpp"
#include "src/target/gpu_target.hpp"
#include "src/transform/gather.hpp"
#include "src/transform/loop_facts.hpp"
#include "src/transform/transforms.hpp"
#include "src/transform/tree_edit.hpp"

namespace cudaburg {

std::string rangeOf(const Affine& subscript, const std::vector<const Node*>& innerLoops, SubscriptRange& out) {
  out = {subscript, 0, 0};
  for (size_t k = innerLoops.size(); k-- > 0;) {
    const Node& loop = *innerLoops[k];
    for (const auto& d : loop.collapsed)
      if (subscript.uses(d.index))
        return "the subscript " + subscript.str() + " uses " + d.index + ", derived from the collapsed loop " +
               loop.index + " inside: what it reads is no box";
    int64_t c = out.base.coef(loop.index);
    if (c == 0) continue;
    auto span = constantSpan(loop);
    if (!span) return "loop " + loop.index + " has no constant trip count, so the staged box has no constant size";
    out.base = out.base.substitute(loop.index, loop.lower);
    (c > 0 ? out.hi : out.lo) += c * *span;
  }
  return "";
}

namespace {

struct Box {
  std::vector<Affine> origin;
  std::vector<int64_t> extents;
};

// The box of `array` that the loads below `body` read, in terms of the loops outside `body`.
std::string boxOf(const NodePtr& body, const std::string& array, Box& box) {
  std::string why;
  bool first = true;
  std::vector<int64_t> hi;
  walk(body, [&](const NodePtr& n, const Ancestors& above) {
    if (!why.empty() || n->kind != NodeKind::Assign) return;
    std::vector<const Node*> innerLoops;
    for (const auto& a : above)
      if (a->kind == NodeKind::For) innerLoops.push_back(a.get());
    std::vector<Access> loads;
    std::function<void(const ExprPtr&)> collect = [&](const ExprPtr& e) {
      if (e->kind == Expr::Kind::Load && e->load.array == array) loads.push_back(e->load);
      for (const auto& a : e->args) collect(a);
    };
    collect(n->value);
    for (const auto& load : loads) {
      if (first) {
        box.origin.assign(load.subscripts.size(), Affine());
        box.extents.assign(load.subscripts.size(), 0);
        hi.assign(load.subscripts.size(), 0);
      }
      for (size_t d = 0; d < load.subscripts.size() && why.empty(); ++d) {
        SubscriptRange r;
        why = rangeOf(load.subscripts[d], innerLoops, r);
        if (!why.empty()) return;
        if (first) {
          box.origin[d] = r.base + Affine(r.lo);
          hi[d] = r.hi - r.lo;
          continue;
        }
        Affine shift = r.base - box.origin[d];  // this load's base relative to the box's origin
        if (!shift.isConstant()) {
          why = "the loads of " + array + " do not lie a constant distance apart (" + load.str() + ")";
          return;
        }
        int64_t lo = std::min<int64_t>(0, shift.constant + r.lo);
        hi[d] = std::max(hi[d], shift.constant + r.hi) - lo;
        box.origin[d] = box.origin[d] + Affine(lo);
      }
      first = false;
    }
  });
  if (!why.empty()) return why;
  if (first) return "nothing inside reads " + array;
  for (size_t d = 0; d < hi.size(); ++d) box.extents[d] = hi[d] + 1;
  return "";
}

// Inserts the stage into a loop body: next to the stages already there when the body has the
// staged shape Alloc...(Seq(Stage..., Barrier, core..., Barrier)), else around the whole body.
NodePtr insertStage(const NodePtr& body, const Array& buffer, const NodePtr& stageNode,
                    const std::function<NodePtr(const NodePtr&)>& rewriteCore) {
  auto makeAlloc = [&](const Array& b, NodePtr inner) {
    auto alloc = std::make_shared<Node>(*cudaburg::makeAlloc(b, std::move(inner)));
    alloc->layout = stageNode->layout;
    return NodePtr(alloc);
  };
  std::vector<NodePtr> allocs;
  NodePtr inner = body;
  while (inner->kind == NodeKind::Alloc && inner->buffer.space == MemorySpace::Shared) {
    allocs.push_back(inner);
    inner = inner->body();
  }
  std::vector<NodePtr> stmts = flattenSeq(inner);
  size_t stages = 0;
  while (stages < stmts.size() && stmts[stages]->kind == NodeKind::Stage) ++stages;
  bool staged = !allocs.empty() && stages > 0 && stmts.size() >= stages + 3 &&
                stmts[stages]->kind == NodeKind::Barrier && stmts.back()->kind == NodeKind::Barrier;
  if (!staged) {
    return makeAlloc(buffer, makeSeq({stageNode, makeBarrier(), rewriteCore(body), makeBarrier()}));
  }
  std::vector<NodePtr> core(stmts.begin() + static_cast<long>(stages) + 1, stmts.end() - 1);
  std::vector<NodePtr> seq(stmts.begin(), stmts.begin() + static_cast<long>(stages));
  seq.push_back(stageNode);
  seq.push_back(makeBarrier());
  seq.push_back(rewriteCore(makeSeq(core)));
  seq.push_back(makeBarrier());
  NodePtr result = makeSeq(seq);
  for (size_t k = allocs.size(); k-- > 0;) result = withKids(allocs[k], {result});
  return makeAlloc(buffer, result);
}

// The part of a staged body the stage reads for: the body itself, or the core of a staged shape.
NodePtr stagedCore(const NodePtr& body) {
  NodePtr inner = body;
  while (inner->kind == NodeKind::Alloc && inner->buffer.space == MemorySpace::Shared) inner = inner->body();
  std::vector<NodePtr> stmts = flattenSeq(inner);
  size_t stages = 0;
  while (stages < stmts.size() && stmts[stages]->kind == NodeKind::Stage) ++stages;
  if (inner == body || stages == 0 || stmts.size() < stages + 3) return body;
  return makeSeq(std::vector<NodePtr>(stmts.begin() + static_cast<long>(stages) + 1, stmts.end() - 1));
}

// Sets the gather's table dimension: the one `atLoop` moves, which no other dimension's place and
// no subscript reads otherwise; why not, where there is no such dimension or its table does not fit.
std::string tableDimension(Node& stage, const Array& source, const std::string& atLoop) {
  int dim = -1;
  for (size_t d = 0; d < stage.gather.size(); ++d) {
    if (!stage.origin[d].uses(atLoop)) continue;
    if (dim >= 0)
      return "the gather of " + source.name + " moves along " + stage.gather[static_cast<size_t>(dim)].index + " and " +
             stage.gather[d].index + " with loop " + atLoop + ": a table serves one of them";
    dim = static_cast<int>(d);
  }
  if (dim < 0)
    return "no dimension of the gather of " + source.name + " moves with loop " + atLoop + ": nothing to tabulate";
  for (const Affine& s : stage.gatherSubscripts)
    if (s.uses(atLoop)) return "the gather of " + source.name + " reads loop " + atLoop + " outside its dimensions";
  GatherTable t;
  if (std::string why = gatherTableOf(stage, source, static_cast<size_t>(dim), t); !why.empty())
    return "no table for the gather of " + source.name + ": " + why;
  stage.tableDim = dim;
  return "";
}

}  // namespace

TransformResult stage(const Kernel& kernel, const std::string& array, const std::string& atLoop, bool transposed,
                      int64_t interleave, int64_t padding, bool swizzled, int64_t slab, bool table) {
  if (padding < 0 || padding > 64)
    return TransformResult::refuse("a buffer's rows are padded by 1 to 64 elements, not " + std::to_string(padding));
  if (padding > 0 && interleave != 0)
    return TransformResult::refuse("a buffer is stored either interleaved or padded, not both");
  if (swizzled && (padding > 0 || interleave != 0))
    return TransformResult::refuse("a buffer is stored either swizzled, padded or interleaved, not two of them");
  if (slab != 0 && !swizzled) return TransformResult::refuse("only a swizzled buffer is stored in slabs");
  const Array* source = kernel.findParam(array);
  if (!source) return TransformResult::refuse(array + " is not an array parameter of the kernel");
  std::string bufferName = freshName(kernel, array + "_s");
  return editLoops(kernel, atLoop, [&](const NodePtr& loop, const Ancestors& above) -> LoopEdit {
    for (const auto& a : above)
      if (a->kind == NodeKind::For && isPipelined(a->mapping))
        return {nullptr, "loop " + atLoop + " lies inside the pipelined loop " + a->index +
                             ": stage everything first, then pipeline"};
    if (isPipelined(loop->mapping))
      return {nullptr, "loop " + atLoop + " is pipelined already: stage everything first, then pipeline"};
    for (const auto& a : above)
      if (a->kind == NodeKind::For && a->mapping != Mapping::None && !isGridMapping(a->mapping))
        return {nullptr, "loop " + atLoop + " lies inside loop " + a->index + " (" + mappingName(a->mapping) +
                             "): a stage is done by the whole block, outside thread loops"};
    if (loop->mapping != Mapping::None && !isGridMapping(loop->mapping))
      return {nullptr, "loop " + atLoop + " is mapped to " + std::string(mappingName(loop->mapping)) +
                           ": a stage is done by the whole block, outside thread loops"};
    NodePtr core = stagedCore(loop->body());
    bool written = anyNode(core, [&](const Node& n) { return n.kind == NodeKind::Assign && n.target.array == array; });
    if (written) return {nullptr, array + " is written inside loop " + atLoop + ", so a copy of it would go stale"};
    Box box;
    Gather gather;
    bool gathered = readsThroughCollapsedLoops(core, array);
    if (transposed && !gathered && source->extents.size() < 2)
      return {nullptr, array + " has 1 dimension: only an array of 2 or more (or a gather) can be staged transposed"};
    if (gathered) {
      if (interleave != 0)
        return {nullptr, array +
                             " is read through a collapsed loop: its gather is stored in the order of the "
                             "loops (or the reverse, transposed), not interleaved"};
      if (std::string why = gatherOf(core, array, gather); !why.empty()) return {nullptr, why};
      // Transposed, the innermost loop's dimension comes first: an implicit GEMM's rows (or
      // columns) by its reduction, each row of the tile holding a strip of the reduction as ldmatrix
      // and wide copies of NHWC channels want it.
      if (transposed) {
        std::reverse(gather.dims.begin(), gather.dims.end());
        std::reverse(gather.origin.begin(), gather.origin.end());
        std::reverse(gather.extents.begin(), gather.extents.end());
      }
      box = {gather.origin, gather.extents};
    } else if (std::string why = boxOf(core, array, box); !why.empty()) {
      return {nullptr, why};
    }
    Array buffer;
    buffer.name = bufferName;
    buffer.type = source->type;
    buffer.extents = box.extents;
    std::vector<int> layout;
    if (transposed && !gathered) {  // the last two dimensions swapped: buffer[..][c][r] holds source[..][r][c]
      size_t rank = buffer.extents.size();
      for (size_t d = 0; d < rank; ++d) layout.push_back(static_cast<int>(d));
      std::swap(layout[rank - 2], layout[rank - 1]);
      std::swap(buffer.extents[rank - 2], buffer.extents[rank - 1]);
    }
    buffer.space = MemorySpace::Shared;
    if (interleave != 0) {
      if (transposed) return {nullptr, "a buffer is stored either transposed or interleaved, not both"};
      if (interleave < 8 || interleave % 4 != 0)
        return {nullptr,
                "interleaved runs are a multiple of 4 elements, at least 8, not " + std::to_string(interleave)};
      if (buffer.extents.back() % interleave != 0)
        return {nullptr, "the rows of " + array + "'s box at loop " + atLoop + " hold " +
                             std::to_string(buffer.extents.back()) + " elements, not a multiple of " +
                             std::to_string(interleave)};
      buffer.interleave = interleave;
    }
    buffer.padding = padding;
    if (swizzled) {
      Swizzle swizzle;
      if (buffer.extents.size() < 2)
        return {nullptr,
                "only a box or gather of two or more dimensions is stored swizzled: its rows are what a "
                "swizzle permutes"};
      // A gather's rows are whole rows of the buffer (an implicit GEMM's pixels or filters by a strip
      // of the reduction): swizzled as a box's, the layout wgmma reads its K-major operands in.
      if (gathered && (slab != 0 || table))
        return {nullptr, "a swizzled gather is stored in whole rows, without slabs or a table"};
      if (slab != 0 && buffer.extents.size() != 2)
        return {nullptr, "only a box of two dimensions is stored in slabs, not the " +
                             std::to_string(buffer.extents.size()) + " of " + array + " at loop " + atLoop};
      if (slab != 0 && buffer.extents.back() % slab != 0)
        return {nullptr, "the rows of " + array + "'s box at loop " + atLoop + " hold " +
                             std::to_string(buffer.extents.back()) + " elements, not whole slabs of " +
                             std::to_string(slab)};
      int64_t rowElements = slab != 0 ? slab : buffer.extents.back();
      if (std::string why = swizzleFor(rowElements * scalarTypeBytes(buffer.type), swizzle); !why.empty())
        return {nullptr, "the buffer of " + array + " at loop " + atLoop + " cannot be swizzled: " + why};
      buffer.swizzled = true;
      buffer.slab = slab;
    }
    int64_t rowElements = buffer.extents.back() + padding;
    int64_t bytes = buffer.elements() / buffer.extents.back() * rowElements * scalarTypeBytes(buffer.type);
    if (bytes > kMaxSharedBytesPerBlock)
      return {nullptr, "the box of " + array + " at loop " + atLoop + " needs " + std::to_string(bytes) +
                           " bytes of shared memory, more than " + std::to_string(kMaxSharedBytesPerBlock)};
    auto rewriteCore = [&](const NodePtr& n) {
      return rewriteAccesses(n, [&](const Access& a) {
        if (a.array != array) return a;
        Access r{bufferName, {}};
        if (gathered) {  // the buffer's element at the gather's loops
          for (size_t d = 0; d < gather.dims.size(); ++d)
            r.subscripts.push_back(Affine::var(gather.dims[d].index) - gather.origin[d]);
          return r;
        }
        for (size_t d = 0; d < a.subscripts.size(); ++d) {
          auto s = layout.empty() ? d : static_cast<size_t>(layout[d]);  // the source dimension it holds
          r.subscripts.push_back(a.subscripts[s] - box.origin[s]);
        }
        return r;
      });
    };
    auto stageNode = std::make_shared<Node>(*makeStage(buffer, array, box.origin, layout));
    stageNode->gather = gather.dims;
    stageNode->gatherSubscripts = gather.subscripts;
    if (table) {
      if (!gathered)
        return {nullptr, "only a gather's offsets come from a table: " + array + " is read as a box at loop " + atLoop};
      if (std::string why = tableDimension(*stageNode, *source, atLoop); !why.empty()) return {nullptr, why};
    }
    return {withBody(loop, insertStage(loop->body(), buffer, stageNode, rewriteCore)), {}};
  });
}

}  // namespace cudaburg
