// The tensor-core steps: a register-tiled nest whose block-loop iterations become warps and whose
// tiles become mma.sync instructions (mmaTile in transforms.hpp), or warpgroups whose tiles become
// wgmma instructions (wgmmaTile).
#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "src/loop/scalar_types.hpp"
#include "src/transform/loop_facts.hpp"
#include "src/transform/loop_names.hpp"
#include "src/transform/strip.hpp"
#include "src/transform/transforms.hpp"
#include "src/transform/tree_edit.hpp"

namespace cudaburg {

namespace {

// Whether subscript `s` is `index` plus terms of other loops (coefficient 1, `others` unused).
bool runsAlong(const Affine& s, const std::string& index, const std::vector<std::string>& others) {
  if (s.coef(index) != 1) return false;
  for (const auto& o : others)
    if (s.uses(o)) return false;
  return true;
}

// Whether `a` reads two of the three indices: `x` and `y`, and not `z`, each in one subscript.
bool usesPair(const Access& a, const std::string& x, const std::string& y, const std::string& z) {
  int xs = 0, ys = 0;
  for (const auto& s : a.subscripts) {
    if (s.uses(z)) return false;
    xs += s.uses(x), ys += s.uses(y);
    if (s.uses(x) && s.uses(y)) return false;
  }
  return xs == 1 && ys == 1;
}

// The tiles a register tile is cut into: rows x cols x k for the accumulation (one instruction
// of the warp or warpgroup), rows x elementCols for its other statements.
struct TileShape {
  int64_t rows = 16, cols = 8, k = 16, elementCols = 8;
  bool wgmma = false;      // warpgroup tiles (wgmma), else warp tiles (mma.sync)
  bool registerA = false;  // wgmma's A from registers (WgmmaTile::registerA)
  bool tf32x3 = false;     // with registerA, float operands as three tf32 products (WgmmaTile::splitBuffer)
};

// Why wgmma cannot read `a` (A[i][k], `isA`) or `b` (B[k][j]) as it is stored, or "": from a
// swizzled shared buffer whose rows are 128 bytes (one swizzle atom wide). A is K-major (its
// rows along i, each of k); B of 16-bit elements is N-major (rows along k, each a slab of 64 n)
// or, for tf32 (whose wgmma reads both operands K-major), stored transposed: rows along j, each
// of 32 k, as A's.
std::string wgmmaOperandProblem(const Access& a, const Array& buffer, bool isA, const std::string& row,
                                const std::string& col) {
  const bool tf32 = scalarTypeBytes(buffer.type) == 4;  // tf32, or float split into tf32 parts
  std::string what = isA ? "A from a shared buffer whose rows hold " + std::string(tf32 ? "32" : "64") +
                               " elements of " + col + " (128 bytes), swizzled: strip " + col + " by " +
                               (tf32 ? "32" : "64") + " and `stage A at ... swizzle`"
                     : tf32 ? "B K-major for tf32, from a shared buffer whose rows hold 32 elements of " + row +
                                  " (128 bytes), swizzled: stage B transposed (`stage B at ... transposed swizzle`)"
                            : "B from a shared buffer whose rows hold " + col +
                                  " in swizzled slabs of 64 elements (128 bytes): `stage B at ... swizzle slabs 64`";
  int64_t rowElements = buffer.slab != 0 ? buffer.slab : buffer.extents.empty() ? 0 : buffer.extents.back();
  // Whether the buffer holds the operand with `down` along its rows and `along` along each row.
  auto storedAs = [&](bool kMajor, const std::string& down, const std::string& along) {
    return buffer.space == MemorySpace::Shared && buffer.swizzled && buffer.extents.size() == 2 &&
           a.subscripts.size() == 2 && rowElements * scalarTypeBytes(buffer.type) == 128 &&
           (!kMajor || buffer.slab == 0) && a.subscripts[0].coef(down) == 1 && a.subscripts[1].coef(along) == 1;
  };
  // A K-major (rows of i, each of k); B N-major (rows of k, in slabs of j), or K-major as A (rows
  // of j: tf32's always; a 16-bit B stored so, such as an implicit GEMM's filters).
  bool stored = isA ? storedAs(true, row, col) : (!tf32 && storedAs(false, row, col)) || storedAs(true, col, row);
  if (!isA && !tf32) what += ", or K-major as A (`stage B at ... transposed swizzle`)";
  return stored ? "" : "wgmma reads " + what + ", not `" + a.str() + "`";
}

// Why the threads cannot load wgmma's A fragments of tf32 from `a` (B[k][m], read along the
// instruction's M) as it is stored, or "": from a swizzled stage whose 128-byte rows (or slabs)
// hold 32 elements: rows of k in slabs of m, as the TMA lands B (its natural layout), or rows of m,
// each of k (K-major: an implicit GEMM's gathers stored transposed).
std::string registerOperandProblem(const Access& a, const Array& buffer, const std::string& m, const std::string& k) {
  int64_t rowElements = buffer.slab != 0 ? buffer.slab : buffer.extents.empty() ? 0 : buffer.extents.back();
  bool swizzledRows = buffer.space == MemorySpace::Shared && buffer.swizzled && buffer.extents.size() == 2 &&
                      a.subscripts.size() == 2 &&
                      (buffer.type == ScalarType::TF32 || buffer.type == ScalarType::Float) &&
                      rowElements * scalarTypeBytes(buffer.type) == 128;
  bool natural = a.subscripts.size() == 2 && a.subscripts[0].coef(k) == 1 && a.subscripts[1].coef(m) == 1;
  bool kMajor =
      a.subscripts.size() == 2 && buffer.slab == 0 && a.subscripts[0].coef(m) == 1 && a.subscripts[1].coef(k) == 1;
  return swizzledRows && (natural || kMajor)
             ? ""
             : "wgmma's A from registers is loaded from a shared buffer whose rows hold " + m +
                   " in swizzled slabs of 32 tf32 elements (128 bytes), rows of " + k + " (`stage " + a.array +
                   " at ... swizzle slabs 32`), or rows of " + m + " each of 32 elements of " + k +
                   " (`transposed swizzle`), not `" + a.str() + "`";
}

class MmaRewriter {
 public:
  MmaRewriter(const Kernel& kernel, std::string i, std::string j, std::string k, TileShape shape,
              std::vector<std::string> names)
      : i_(std::move(i)), j_(std::move(j)), k_(std::move(k)), shape_(shape), names_(std::move(names)) {
    for (const auto& p : kernel.params) arrays_[p.name] = p;
  }

  NodePtr rewrite(const NodePtr& node) {
    if (!why.empty()) return node;
    if (node->kind == NodeKind::Alloc) arrays_[node->buffer.name] = node->buffer;
    if (node->kind == NodeKind::Stage) stages_[node->buffer.name] = node;
    if (node->kind == NodeKind::For && node->index == k_ && reachesTile(node->body())) return accumulate(node);
    if (node->kind == NodeKind::For && node->index == i_) return elementwise(node);
    if (node->kids.empty()) return node;
    bool pipelined = node->kind == NodeKind::For && node->mapping == Mapping::AsyncPipelined;
    pipelined_ += pipelined;
    std::vector<NodePtr> kids;
    for (const auto& kid : node->kids) kids.push_back(rewrite(kid));
    pipelined_ -= pipelined;
    return withKids(node, std::move(kids));
  }

  std::string why;
  int accumulations = 0;
  std::string splitBuffer;  // with tf32x3, the stage read by descriptor (WgmmaTile::splitBuffer)

 private:
  // Whether `body` is block loops around the register tile's loop `i`.
  bool reachesTile(NodePtr body) const {
    while (body->kind == NodeKind::For && isBlockMapping(body->mapping)) body = body->body();
    return body->kind == NodeKind::For && body->index == i_;
  }

  // The register tile's two loops `i { j { stmt } }`, checked: unrolled, constant trips that the
  // tile divides, step 1; `stmt` reads or writes a register buffer as R[i - ..][j - ..].
  bool tileLoops(const NodePtr& iLoop, NodePtr& jLoop, NodePtr& stmt, int64_t cols) {
    jLoop = iLoop->body();
    if (jLoop->kind != NodeKind::For || jLoop->index != j_)
      return fail("loop " + j_ + " is not the whole body of loop " + i_);
    stmt = jLoop->body();
    for (const NodePtr& l : {iLoop, jLoop}) {
      auto trips = constantTripCount(*l);
      int64_t tile = l == iLoop ? shape_.rows : cols;
      if (l->mapping != Mapping::Unrolled)
        return fail("loop " + l->index + " is not an unrolled loop of a register tile");
      if (l->step != 1 || !trips || *trips % tile != 0)
        return fail("loop " + l->index + " does not run a multiple of " + std::to_string(tile) + " iterations");
    }
    return true;
  }

  bool fail(const std::string& reason) {
    if (why.empty()) why = reason;
    return false;
  }

  // A register-buffer access R[i - ..][j - ..] of the tile.
  bool fragmentAccess(const Access& a) const {
    auto it = arrays_.find(a.array);
    return it != arrays_.end() && it->second.space == MemorySpace::Register && a.subscripts.size() == 2 &&
           runsAlong(a.subscripts[0], i_, {j_, k_}) && runsAlong(a.subscripts[1], j_, {i_, k_});
  }

  // i { j { S } } -> i_t { j_t { i (mma) { j { S } } } }: each tile of the warp's lanes at once.
  NodePtr tiles(const NodePtr& iLoop, const NodePtr& jLoop, NodePtr inner, int64_t cols) {
    NodePtr j8 = stripInnerLoop(*jLoop, names_[1], cols, std::move(inner));
    NodePtr i16 = stripInnerLoop(*iLoop, names_[0], shape_.rows, j8, Mapping::Mma);
    return stripOuterLoop(*iLoop, names_[0], shape_.rows, stripOuterLoop(*jLoop, names_[1], cols, i16));
  }

  NodePtr elementwise(const NodePtr& iLoop) {
    NodePtr jLoop, stmt;
    if (!tileLoops(iLoop, jLoop, stmt, shape_.elementCols)) return iLoop;
    if (stmt->kind != NodeKind::Assign) return fail("the register tile's body is not one statement"), iLoop;
    bool touches = fragmentAccess(stmt->target);
    std::function<void(const Expr&)> scan = [&](const Expr& e) {
      if (e.kind == Expr::Kind::Load && fragmentAccess(e.load)) touches = true;
      for (const auto& a : e.args) scan(*a);
    };
    scan(*stmt->value);
    if (!touches) return fail("`" + stmt->target.str() + " = ...` touches no register tile"), iLoop;
    return tiles(iLoop, jLoop, stmt, shape_.elementCols);
  }

  // k { blocks { i { j { R[..] += A[i][k] * B[k][j] } } } } ->
  // k_t { blocks { i_t { j_t { i (mma) { j { k { R += A * B } } } } } } }
  NodePtr accumulate(const NodePtr& kLoop) {
    std::vector<NodePtr> blocks;
    NodePtr at = kLoop->body();
    while (at->kind == NodeKind::For && isBlockMapping(at->mapping)) blocks.push_back(at), at = at->body();
    NodePtr jLoop, stmt;
    if (!tileLoops(at, jLoop, stmt, shape_.cols)) return kLoop;
    auto kTrips = constantTripCount(*kLoop);
    if (kLoop->step != 1 || !kTrips || *kTrips % shape_.k != 0)
      return fail("loop " + k_ + " does not run a multiple of " + std::to_string(shape_.k) + " iterations"), kLoop;
    if (stmt->kind != NodeKind::Assign || !stmt->accumulate || stmt->atomic || !fragmentAccess(stmt->target))
      return fail("the register tile's body is not `R[..] += A * B` into a register buffer"), kLoop;
    const Expr& v = *stmt->value;
    if (v.kind != Expr::Kind::Binary || v.op != '*' || v.args[0]->kind != Expr::Kind::Load ||
        v.args[1]->kind != Expr::Kind::Load)
      return fail("the register tile accumulates `" + v.str() + "`, not the product of two elements"), kLoop;
    const Access* a = &v.args[0]->load;
    const Access* b = &v.args[1]->load;
    if (usesPair(*a, k_, j_, i_)) std::swap(a, b);
    if (!usesPair(*a, i_, k_, j_) || !usesPair(*b, k_, j_, i_))
      return fail("the operands are not A[" + i_ + "][" + k_ + "] and B[" + k_ + "][" + j_ + "] in some layout"), kLoop;
    ScalarType ta = arrays_.at(a->array).type, tb = arrays_.at(b->array).type;
    ScalarType target = arrays_.at(stmt->target.array).type;
    bool k16 = ta == tb && (ta == ScalarType::Half || ta == ScalarType::BFloat16);
    // k 8 multiplies tf32 operands, or float ones read as tf32 (one product: --precision tf32;
    // three: tf32x3, float alone).
    bool k8 = ta == tb && (ta == ScalarType::Float || (ta == ScalarType::TF32 && !shape_.tf32x3));
    if (shape_.tf32x3 && !k8)
      return fail(std::string("tf32x3 splits float operands into tf32 parts, not ") + scalarTypeName(ta) + " and " +
                  scalarTypeName(tb)),
             kLoop;
    if (!(k16 || k8))
      return fail(std::string(
                      "tensor cores multiply half, bfloat16, tf32 or float (as tf32) operands of one type, not ") +
                  scalarTypeName(ta) + " and " + scalarTypeName(tb)),
             kLoop;
    if (target != ScalarType::Float) return fail("tensor cores accumulate here in float registers"), kLoop;
    if ((k16 && shape_.k != 16) || (k8 && shape_.k != 8))
      return fail(std::string(shape_.wgmma ? "wgmma for " : "mma.sync for ") + scalarTypeName(ta) + " is m" +
                  (shape_.wgmma ? "64nN" : "16n8") + "k" + (k16 ? "16" : "8")),
             kLoop;
    if (shape_.wgmma) {
      if (pipelined_ == 0)
        return fail(
                   "wgmma reads its operands from the buffers of an asynchronously pipelined loop around it "
                   "(`map k_o async N`), which it waits for"),
               kLoop;
      if (shape_.registerA) {
        // A (read along M) from registers; B (A[i][k] of the product, read along N) by descriptor,
        // K-major as wgmma reads A.
        if (!k8)
          return fail("wgmma's A from registers (the instruction's M along " + i_ +
                      ") is built here for tf32 operands, whose wgmma reads no MN-major operand by descriptor"),
                 kLoop;
        if (std::string why = registerOperandProblem(*a, arrays_.at(a->array), i_, k_); !why.empty())
          return fail(why), kLoop;
        if (std::string why = wgmmaOperandProblem(*b, arrays_.at(b->array), true, j_, k_); !why.empty())
          return fail(why), kLoop;
        if (shape_.tf32x3) splitBuffer = b->array;
      } else {
        for (const auto& [x, isA] : {std::pair{a, true}, {b, false}})
          if (std::string why = wgmmaOperandProblem(*x, arrays_.at(x->array), isA, isA ? i_ : k_, isA ? k_ : j_);
              !why.empty())
            return fail(why), kLoop;
      }
      if (std::string why = kEdgeProblem(*kLoop, {a->array, b->array}); !why.empty()) return fail(why), kLoop;
    }
    ++accumulations;
    // wgmma's k steps run whole, past the arrays' edge, where the stages hold zeros (a guard
    // around them would have ptxas serialize the wgmma).
    Node steps = *kLoop;
    if (shape_.wgmma) steps.upper = stripBounds(*kLoop);
    NodePtr k16Loop = stripInnerLoop(steps, names_[2], shape_.k, stmt);
    NodePtr inner = tiles(at, jLoop, k16Loop, shape_.cols);
    // A warpgroup whose rows (or columns) start past the arrays' edge multiplies too: a guard
    // around wgmma would have ptxas serialize it, and its rows of the stages lie inside them
    // (their accumulators are never written back, where the guards stay).
    for (size_t b2 = blocks.size(); b2-- > 0;)
      inner = withBody(shape_.wgmma ? withinTile(*blocks[b2]) : blocks[b2], inner);
    return stripOuterLoop(steps, names_[2], shape_.k, inner);
  }

  // Block loop `loop` bounded by its tile alone: its bounds that are no constant (the arrays' edge).
  static NodePtr withinTile(const Node& loop) {
    auto bounded = std::make_shared<Node>(loop);
    std::vector<Affine> tile;
    for (const Affine& u : loop.upper)
      if (!u.isConstant()) tile.push_back(u);
    if (!tile.empty()) bounded->upper = tile;
    return bounded;
  }

  // The bounds of `kLoop` its strip sets (those that use the strip loop's index).
  static std::vector<Affine> stripBounds(const Node& kLoop) {
    std::vector<Affine> out;
    for (const Affine& u : kLoop.upper) {
      bool strip = false;
      for (const auto& [name, c] : kLoop.lower.terms) strip |= u.uses(name);
      if (strip) out.push_back(u);
    }
    return out;
  }

  // wgmma multiplies whole steps of 16 k, past k's bound too: every bound of k but its strip's
  // must be the edge of the arrays the `buffers` are staged from, outside which the stages hold
  // zeros (an uneven K), or of the collapsed loop a gather runs along (an implicit GEMM's c*r*s,
  // past whose end it holds zeros); else why not.
  std::string kEdgeProblem(const Node& kLoop, const std::vector<std::string>& buffers) const {
    std::vector<Affine> strip = stripBounds(kLoop);
    for (const Affine& u : kLoop.upper) {
      if (std::find(strip.begin(), strip.end(), u) != strip.end()) continue;
      for (const auto& buffer : buffers) {
        auto stage = stages_.find(buffer);
        const Array* source = stage == stages_.end() ? nullptr : &arrays_.at(stage->second->source);
        const std::vector<GatherDim>& gather = source ? stage->second->gather : std::vector<GatherDim>{};
        bool edge = false;
        for (size_t d = 0; d < gather.size(); ++d)
          if (gather[d].index == k_ && !gather[d].collapsed.empty())
            edge = u.isConstant() && u.constant == collapsedTrips(gather[d].collapsed);
        for (size_t d = 0; source && gather.empty() && d < stage->second->origin.size() && d < source->extents.size();
             ++d)
          for (const auto& [name, c] : kLoop.lower.terms)
            if (stage->second->origin[d].uses(name)) edge = u.isConstant() && u.constant == source->extents[d];
        if (!edge)
          return "loop " + k_ + "'s bound " + u.str() + " is not the edge of the array staged into " + buffer +
                 ": wgmma would multiply the elements past it";
      }
    }
    return "";
  }

  std::string i_, j_, k_;
  TileShape shape_;
  std::vector<std::string> names_;
  std::map<std::string, Array> arrays_;
  std::map<std::string, NodePtr> stages_;  // by buffer
  int pipelined_ = 0;                      // asynchronously pipelined loops around the node being rewritten
};

// The register tile's warps (or warpgroups) on tensor cores, tiles of `shape`.
TransformResult tensorCoreTiles(const Kernel& kernel, const std::vector<std::string>& loops, const TileShape& shape) {
  if (kernel.warpTiles()) return TransformResult::refuse("the kernel's block loops are warps already");
  if (kernel.laneRows > 0)
    return TransformResult::refuse("a warp's lanes hold mma fragments, not a patch of threads (lanes)");
  NewLoopNames names = newLoopNames(kernel, StepKind::Mma, loops, {});
  if (!names.reason.empty()) return TransformResult::refuse(names.reason);
  MmaRewriter rewriter(kernel, loops[0], loops[1], loops[2], shape, names.names);
  NodePtr body = rewriter.rewrite(kernel.body);
  if (!rewriter.why.empty()) return TransformResult::refuse(rewriter.why);
  if (rewriter.accumulations == 0)
    return TransformResult::refuse("no reduction loop " + loops[2] +
                                   " runs right around the block loops of the register tile " + loops[0] + "," +
                                   loops[1] + " (regtile first)");
  // Every statement the warps run is a tile their lanes share: nothing else may run in block loops.
  std::string stray;
  walk(body, [&](const NodePtr& n, const Ancestors& above) {
    if (n->kind != NodeKind::Assign || !stray.empty()) return;
    bool block = false, tile = false;
    for (const auto& a : above) {
      block |= a->kind == NodeKind::For && isBlockMapping(a->mapping);
      tile |= a->kind == NodeKind::For && a->mapping == Mapping::Mma;
    }
    if (block && !tile) stray = n->target.str();
  });
  if (!stray.empty()) return TransformResult::refuse("the statement into " + stray + " is no tile of the warps");
  Kernel warps = kernel;
  if (shape.wgmma) {
    WgmmaTile tile;
    tile.m = shape.rows, tile.n = shape.cols, tile.k = shape.k;
    tile.registerA = shape.registerA, tile.tf32x3 = shape.tf32x3;
    tile.splitBuffer = rewriter.splitBuffer;
    warps.tile = tile;
  } else {
    warps.tile = MmaTile{shape.rows, shape.cols, shape.k, false};
  }
  return accept(warps, body);
}

// Whether `body` holds a register tile nest `outer { inner { .. } }`, both loops unrolled.
bool hasTileNest(const NodePtr& body, const std::string& outer, const std::string& inner) {
  return anyNode(body, [&](const Node& n) {
    return n.kind == NodeKind::For && n.index == outer && n.mapping == Mapping::Unrolled &&
           n.body()->kind == NodeKind::For && n.body()->index == inner && n.body()->mapping == Mapping::Unrolled;
  });
}

// The register tile nests n { m { S } } of `kernel` made m { n { S } }, and the register buffers
// their statements touch, R[n..][m..], transposed into R[m..][n..]: the instruction's M loop then
// leads, as the rewriter reads a tile, and the accumulators' fragment rows run along it. Only the
// order of a tile's iterations changes (each computes its own element); or a refusal.
TransformResult interchangeTiles(const Kernel& kernel, const std::string& m, const std::string& n) {
  std::map<std::string, Array> registers;  // the register buffers, by name
  walk(kernel.body, [&](const NodePtr& node, const Ancestors&) {
    if (node->kind == NodeKind::Alloc && node->buffer.space == MemorySpace::Register)
      registers[node->buffer.name] = node->buffer;
  });
  std::set<std::string> touched;
  std::string why;
  std::function<NodePtr(const NodePtr&)> swap = [&](const NodePtr& node) -> NodePtr {
    if (node->kind == NodeKind::For && node->index == n && node->mapping == Mapping::Unrolled &&
        node->body()->kind == NodeKind::For && node->body()->index == m && node->body()->mapping == Mapping::Unrolled) {
      const NodePtr& inner = node->body();
      if (boundsUse(*inner, n) || boundsUse(*node, m)) {
        if (why.empty())
          why = "the bounds of register loops " + n + " and " + m + " use each other: they cannot be interchanged";
        return node;
      }
      rewriteAccesses(inner->body(), [&](const Access& a) {
        if (registers.count(a.array)) touched.insert(a.array);
        return a;
      });
      return withBody(inner, withBody(node, inner->body()));
    }
    if (node->kids.empty()) return node;
    std::vector<NodePtr> kids;
    for (const auto& kid : node->kids) kids.push_back(swap(kid));
    return withKids(node, std::move(kids));
  };
  NodePtr body = swap(kernel.body);
  if (!why.empty()) return TransformResult::refuse(why);
  // Each touched buffer must be read as R[n..][m..] wherever it is read, to be transposed whole.
  bool transposable = true;
  rewriteAccesses(body, [&](const Access& a) {
    if (touched.count(a.array) && (a.subscripts.size() != 2 || a.subscripts[0].uses(m) || a.subscripts[1].uses(n)))
      transposable = false;
    return a;
  });
  if (!transposable)
    return TransformResult::refuse("a register buffer of the tile is not read as R[" + n + "][" + m +
                                   "] everywhere: it cannot hold the instruction's M (" + m + ") along its rows");
  body = rewriteAccesses(body, [&](const Access& a) {
    if (!touched.count(a.array)) return a;
    Access t = a;
    std::swap(t.subscripts[0], t.subscripts[1]);
    return t;
  });
  std::function<NodePtr(const NodePtr&)> transpose = [&](const NodePtr& node) -> NodePtr {
    if (node->kids.empty()) return node;
    std::vector<NodePtr> kids;
    for (const auto& kid : node->kids) kids.push_back(transpose(kid));
    if (node->kind == NodeKind::Alloc && touched.count(node->buffer.name)) {
      Array buffer = node->buffer;
      std::reverse(buffer.extents.begin(), buffer.extents.end());
      return makeAlloc(buffer, kids.at(0));
    }
    return withKids(node, std::move(kids));
  };
  Kernel swapped = kernel;
  swapped.body = transpose(body);
  return TransformResult::success(std::move(swapped));
}

}  // namespace

TransformResult mmaTile(const Kernel& kernel, const std::vector<std::string>& loops, const std::vector<int64_t>& shape,
                        bool prefetch) {
  if (loops.size() != 3 || shape.size() != 3)
    return TransformResult::refuse("mma takes the loops i,j,k of a register tile and a shape m,n,k");
  bool supported = shape[0] == 16 && shape[1] == 8 && (shape[2] == 16 || shape[2] == 8);
  if (!supported)
    return TransformResult::refuse("the tensor-core shapes are 16,8,16 (half, bfloat16) and 16,8,8 (tf32)");
  TransformResult r = tensorCoreTiles(kernel, loops, TileShape{16, 8, shape[2], 8, false});
  if (!r.ok() || !prefetch) return r;
  // The k steps' loop, named as the rewrite named it.
  const std::string steps = newLoopNames(kernel, StepKind::Mma, loops, {}).names[2];
  std::string why = soleLoopProblem(r.kernel->body, steps, "k steps", [&](const Node& loop, const Ancestors& above) {
    auto trips = constantTripCount(loop);
    bool pipelined = std::any_of(above.begin(), above.end(), [](const auto& n) {
      return n->kind == NodeKind::For && n->mapping == Mapping::AsyncPipelined;
    });
    if (loop.mapping != Mapping::Unrolled)
      return "the k steps (loop " + steps + ") are not unrolled (`unroll k N` first)";
    if (!trips || *trips % 2 != 0) return "the k steps (loop " + steps + ") are no even number: nothing to alternate";
    if (!pipelined) return std::string("the k steps are no work of an asynchronously pipelined loop (`map k_o async`)");
    return std::string();
  });
  if (!why.empty()) return TransformResult::refuse("mma ... prefetch: " + why);
  r.kernel->prefetched.push_back(steps);
  std::get<MmaTile>(r.kernel->tile).prefetch = true;
  return r;
}

TransformResult wgmmaTile(const Kernel& kernel, const std::vector<std::string>& loops,
                          const std::vector<int64_t>& shape, int pending, int64_t producer, bool tf32x3, int promote) {
  if (loops.size() != 3 || shape.size() != 3)
    return TransformResult::refuse("wgmma takes the loops i,j,k of a register tile and a shape 64,N,16 (tf32: 64,N,8)");
  // `wgmma j,i,k` on a register tile i { j }: the instruction's M along the tile's columns, its A
  // (the operand read along them) from registers.
  const bool registerA = !hasTileNest(kernel.body, loops[0], loops[1]) && hasTileNest(kernel.body, loops[1], loops[0]);
  if (registerA && (shape[0] != 64 || shape[2] != 8 || shape[1] % 8 != 0 || shape[1] > 256))
    return TransformResult::refuse("wgmma with its A from registers (M along the register tile's columns " + loops[0] +
                                   ") is 64,N,8 for tf32, N a multiple of 8 up to 256, not " +
                                   std::to_string(shape[0]) + "," + std::to_string(shape[1]) + "," +
                                   std::to_string(shape[2]));
  if (!registerA && (shape[0] != 64 || (shape[2] != 16 && shape[2] != 8) || shape[1] % 64 != 0 || shape[1] > 256))
    return TransformResult::refuse(
        "the wgmma shapes are 64,N,16 (half, bfloat16) and 64,N,8 (tf32) with N 64, 128, "
        "192 or 256 (B's slabs are 64 "
        "columns wide), not " +
        std::to_string(shape[0]) + "," + std::to_string(shape[1]) + "," + std::to_string(shape[2]));
  if (pending < 0 || pending > 1)
    return TransformResult::refuse("wgmma leaves 0 or 1 groups in flight across iterations, not " +
                                   std::to_string(pending));
  if (producer < kWgmmaNoProducer || producer > kWgmmaTmaProducer)
    return TransformResult::refuse("a producer warpgroup fills the stages by cp.async (1) or by TMA (2), not " +
                                   std::to_string(producer));
  if (producer == kWgmmaNoProducer && kernel.asyncStages < 2 + pending)
    return TransformResult::refuse("with " + std::to_string(pending) +
                                   " group of wgmma in flight, the pipelined loop "
                                   "needs at least " +
                                   std::to_string(2 + pending) + " buffers a stage, not " +
                                   std::to_string(kernel.asyncStages));
  if (tf32x3 && (!registerA || producer == kWgmmaNoProducer))
    return TransformResult::refuse(
        "tf32x3 is built for wgmma with its A from registers (`wgmma j,i,k` on a tile i { j }) "
        "and a producer warpgroup (`producer`, or `producer tma`), which splits the strips "
        "read by descriptor");
  if (promote < 0 || promote > kMaxWgmmaPromote || (promote > 0 && !tf32x3))
    return TransformResult::refuse(
        "`promote P` adds tf32x3's partial sums into fp32 registers every P strips, P from 1 to " +
        std::to_string(kMaxWgmmaPromote) + ", not " + std::to_string(promote) +
        (tf32x3 ? "" : " (and only with tf32x3)"));
  if (producer == kWgmmaTmaProducer && anyNode(kernel.body, [](const Node& n) { return !n.gather.empty(); }))
    return TransformResult::refuse(
        "the Tensor Memory Accelerator copies boxes, not gathers (an implicit GEMM's): "
        "fill them by cp.async (`producer`, without `tma`)");
  TransformResult swapped = registerA ? interchangeTiles(kernel, loops[0], loops[1]) : TransformResult::success(kernel);
  if (!swapped.ok()) return swapped;
  TransformResult r =
      tensorCoreTiles(*swapped.kernel, loops, TileShape{64, shape[1], shape[2], 8, true, registerA, tf32x3});
  if (r.ok()) {
    WgmmaTile& tile = std::get<WgmmaTile>(r.kernel->tile);
    tile.pending = pending;
    tile.producer = wgmmaProducer(producer);
    tile.promote = promote;
  }
  return r;
}

}  // namespace cudaburg
