#pragma once
// Loop trees built by hand for the emitter and compiler tests: untransformed nests (the naive
// mapping) and mapped trees of the shapes the transformations produce.
#include <string>
#include <vector>

#include "src/loop/loop_tree.hpp"

namespace cudaburg::testing {

inline Affine ix(const std::string& name, int64_t coef = 1) { return Affine::var(name, coef); }
inline Affine c(int64_t v) { return Affine(v); }
inline Access at(const std::string& array, std::vector<Affine> subs) { return Access{array, std::move(subs)}; }
inline ExprPtr load(const std::string& array, std::vector<Affine> subs) {
  return Expr::read(at(array, std::move(subs)));
}

inline Array param(const std::string& name, std::vector<int64_t> extents, bool input,
                   ScalarType type = ScalarType::Float, bool padded = false) {
  Array a;
  a.name = name;
  a.type = type;
  a.extents = std::move(extents);
  a.input = input;
  a.zeroPadded = padded;
  return a;
}

inline Array buffer(const std::string& name, std::vector<int64_t> extents, MemorySpace space,
                    ScalarType type = ScalarType::Float) {
  Array a = param(name, std::move(extents), false, type);
  a.space = space;
  return a;
}

inline NodePtr loop(const std::string& index, Affine lower, std::vector<Affine> upper, int64_t step, LoopKind kind,
                    Mapping mapping, NodePtr body) {
  return makeFor(index, std::move(lower), std::move(upper), step, kind, std::move(body), mapping);
}

// C[i][j] = sum over k of A[i][k] * B[k][j], untransformed.
inline Kernel naiveMatmul(int64_t M, int64_t N, int64_t K) {
  Kernel k;
  k.name = "matmul";
  k.sizes = {{"M", M}, {"N", N}, {"K", K}};
  k.params = {param("C", {M, N}, false), param("A", {M, K}, true), param("B", {K, N}, true)};
  NodePtr update = makeAssign(at("C", {ix("i"), ix("j")}),
                              Expr::binary('*', load("A", {ix("i"), ix("k")}), load("B", {ix("k"), ix("j")})), true);
  NodePtr body = makeSeq({makeAssign(at("C", {ix("i"), ix("j")}), Expr::constant(0), false),
                          loop("k", c(0), {c(K)}, 1, LoopKind::Reduce, Mapping::None, update)});
  k.body = loop("i", c(0), {c(M)}, 1, LoopKind::Parallel, Mapping::None,
                loop("j", c(0), {c(N)}, 1, LoopKind::Parallel, Mapping::None, body));
  return k;
}

// The same product mapped as the transformations map it: 64x64 tiles on the grid, 16x16 threads
// each with a 4x4 register tile (its columns a vector of 4), the k loop in steps of `kt` with A
// and B staged through shared memory.
inline Kernel tiledMatmul(int64_t M, int64_t N, int64_t K, int64_t kt = 16, Mapping columns = Mapping::Vector) {
  Kernel k = naiveMatmul(M, N, K);
  auto threadTile = [&](NodePtr body) {
    return loop("i2", ix("i1"), {ix("i1") + c(4), c(M)}, 1, LoopKind::Parallel, Mapping::Unrolled,
                loop("j2", ix("j1"), {ix("j1") + c(4), c(N)}, 1, LoopKind::Parallel, columns, body));
  };
  auto threads = [&](NodePtr body) {
    return loop("i1", ix("i0"), {ix("i0") + c(64), c(M)}, 4, LoopKind::Parallel, Mapping::BlockY,
                loop("j1", ix("j0"), {ix("j0") + c(64), c(N)}, 4, LoopKind::Parallel, Mapping::BlockX, body));
  };
  Access acc = at("acc", {ix("i2") - ix("i1"), ix("j2") - ix("j1")});
  NodePtr zero = threads(threadTile(makeAssign(acc, Expr::constant(0), false)));
  NodePtr update = makeAssign(acc,
                              Expr::binary('*', load("As", {ix("i2") - ix("i0"), ix("k1") - ix("k0")}),
                                           load("Bs", {ix("k1") - ix("k0"), ix("j2") - ix("j0")})),
                              true);
  NodePtr compute = threads(
      loop("k1", ix("k0"), {ix("k0") + c(kt), c(K)}, 1, LoopKind::Reduce, Mapping::ThreadSerial, threadTile(update)));
  Array As = buffer("As", {64, kt}, MemorySpace::Shared), Bs = buffer("Bs", {kt, 64}, MemorySpace::Shared);
  NodePtr ktile = loop("k0", c(0), {c(K)}, kt, LoopKind::Reduce, Mapping::ThreadSerial,
                       makeSeq({makeStage(As, "A", {ix("i0"), ix("k0")}), makeStage(Bs, "B", {ix("k0"), ix("j0")}),
                                makeBarrier(), compute, makeBarrier()}));
  NodePtr store = threads(threadTile(makeAssign(at("C", {ix("i2"), ix("j2")}), Expr::read(acc), false)));
  NodePtr block = makeAlloc(buffer("acc", {4, 4}, MemorySpace::Register),
                            makeAlloc(As, makeAlloc(Bs, makeSeq({zero, ktile, store}))));
  k.body = loop("i0", c(0), {c(M)}, 64, LoopKind::Parallel, Mapping::GridY,
                loop("j0", c(0), {c(N)}, 64, LoopKind::Parallel, Mapping::GridX, block));
  return k;
}

// out[y][x] = sum over r, s of in[y + r - 1][x + s - 1] * w[r][s], reading zeros outside `in`.
inline Kernel conv2d(int64_t H, int64_t W) {
  Kernel k;
  k.name = "conv2d";
  k.sizes = {{"H", H}, {"W", W}};
  k.params = {param("out", {H, W}, false), param("in", {H, W}, true, ScalarType::Float, true),
              param("w", {3, 3}, true)};
  NodePtr update = makeAssign(at("out", {ix("y"), ix("x")}),
                              Expr::binary('*', load("in", {ix("y") + ix("r") - c(1), ix("x") + ix("s") - c(1)}),
                                           load("w", {ix("r"), ix("s")})),
                              true);
  NodePtr body = makeSeq({makeAssign(at("out", {ix("y"), ix("x")}), Expr::constant(0), false),
                          loop("r", c(0), {c(3)}, 1, LoopKind::Reduce, Mapping::None,
                               loop("s", c(0), {c(3)}, 1, LoopKind::Reduce, Mapping::None, update))});
  k.body = loop("y", c(0), {c(H)}, 1, LoopKind::Parallel, Mapping::None,
                loop("x", c(0), {c(W)}, 1, LoopKind::Parallel, Mapping::None, body));
  return k;
}

// A half-precision sum of squares split over blocks: each block adds its part atomically.
inline Kernel halfSumOfSquares(int64_t n, int64_t part) {
  Kernel k;
  k.name = "sumsq";
  k.sizes = {{"N", n}};
  k.params = {param("sum", {1}, false, ScalarType::Half), param("v", {n}, true, ScalarType::Half)};
  k.zeroFirst = {"sum"};
  NodePtr add = makeAssign(at("sum", {c(0)}), Expr::binary('*', load("v", {ix("t")}), load("v", {ix("t")})), true);
  std::const_pointer_cast<Node>(add)->atomic = true;
  k.body = loop("p", c(0), {c(n)}, part, LoopKind::Reduce, Mapping::GridX,
                loop("t", ix("p"), {ix("p") + c(part), c(n)}, 1, LoopKind::Reduce, Mapping::BlockX, add));
  return k;
}

// Copies `rows` x 128 floats through one shared buffer of that size (over 48 KB: dynamic).
inline Kernel sharedCopy(int64_t rows) {
  Kernel k;
  k.name = "shared_copy";
  k.sizes = {{"R", rows}};
  k.params = {param("dst", {rows, 128}, false), param("src", {rows, 128}, true)};
  Array S = buffer("S", {rows, 128}, MemorySpace::Shared);
  NodePtr copy = loop("r", c(0), {c(rows)}, 1, LoopKind::Parallel, Mapping::ThreadSerial,
                      loop("x", c(0), {c(128)}, 1, LoopKind::Parallel, Mapping::BlockX,
                           makeAssign(at("dst", {ix("r"), ix("x")}), load("S", {ix("r"), ix("x")}), false)));
  k.body = makeAlloc(S, makeSeq({makeStage(S, "src", {c(0), c(0)}), makeBarrier(), copy}));
  return k;
}

// Each thread accumulates `n` values in a register buffer over a run-time loop, so all of them
// stay live at once: past 255 they must spill.
inline Kernel registerHog(int64_t n) {
  Kernel k;
  k.name = "register_hog";
  k.params = {param("out", {64, n}, false), param("in", {64, 64}, true), param("w", {64, n}, true)};
  auto lanes = [&](NodePtr body) { return loop("u", c(0), {c(n)}, 1, LoopKind::Parallel, Mapping::Unrolled, body); };
  NodePtr zero = lanes(makeAssign(at("keep", {ix("u")}), Expr::constant(0), false));
  NodePtr update =
      loop("v", c(0), {c(64)}, 1, LoopKind::Reduce, Mapping::ThreadSerial,
           lanes(makeAssign(at("keep", {ix("u")}),
                            Expr::binary('*', load("in", {ix("x"), ix("v")}), load("w", {ix("v"), ix("u")})), true)));
  NodePtr store = lanes(makeAssign(at("out", {ix("x"), ix("u")}), load("keep", {ix("u")}), false));
  k.body = makeAlloc(buffer("keep", {n}, MemorySpace::Register),
                     loop("x", c(0), {c(64)}, 1, LoopKind::Parallel, Mapping::BlockX, makeSeq({zero, update, store})));
  return k;
}

}  // namespace cudaburg::testing
