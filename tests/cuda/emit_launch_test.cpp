// The emitter's launch configurations, guards, buffers and refusals.
#include <gtest/gtest.h>

#include <regex>

#include "src/cuda/emit/emitter.hpp"
#include "tests/cuda/emit_test_kernels.hpp"

namespace cudaburg {
namespace {

using namespace testing;

CudaKernel emitted(const Kernel& k) {
  EmitResult r = emitKernel(k);
  EXPECT_TRUE(r.ok()) << r.reason;
  return r.ok() ? *r.kernel : CudaKernel{};
}

std::string refusalOf(const Kernel& k) {
  EmitResult r = emitKernel(k);
  EXPECT_FALSE(r.ok()) << "emitted a kernel that breaks the model:\n" << (r.ok() ? r.kernel->source : "");
  return r.reason;
}

TEST(EmitLaunch, NaiveMappingCoversTheOuterParallelLoops) {
  CudaKernel k = emitted(naiveMatmul(100, 70, 33));
  EXPECT_EQ(k.entry, "matmul");
  EXPECT_EQ(k.block, (std::array<unsigned, 3>{32, 8, 1}));
  EXPECT_EQ(k.grid, (std::array<unsigned, 3>{3, 13, 1}));  // ceil(70 / 32), ceil(100 / 8)
  EXPECT_NE(k.source.find("__launch_bounds__(256)"), std::string::npos);
  EXPECT_NE(k.source.find("if (j < 70)"), std::string::npos) << k.source;
  EXPECT_NE(k.source.find("if (i < 100)"), std::string::npos) << k.source;
  EXPECT_NE(k.source.find("const float* __restrict__ A"), std::string::npos);
  EXPECT_NE(k.source.find("float* __restrict__ C"), std::string::npos);
  EXPECT_EQ(k.params, (std::vector<std::string>{"C", "A", "B"}));
}

TEST(EmitLaunch, SmallLoopsGetSmallBlocks) {
  CudaKernel k = emitted(naiveMatmul(3, 5, 7));
  EXPECT_EQ(k.block, (std::array<unsigned, 3>{8, 4, 1}));
  EXPECT_EQ(k.grid, (std::array<unsigned, 3>{1, 1, 1}));
}

TEST(EmitLaunch, NaiveMappingFoldsOuterLoopsOntoZ) {
  Kernel k;
  k.name = "fill4";
  k.params = {param("T", {2, 3, 50, 70}, false)};
  NodePtr body = makeAssign(at("T", {ix("a"), ix("b"), ix("y"), ix("x")}), Expr::constant(1), false);
  for (auto [index, extent] : std::vector<std::pair<std::string, int64_t>>{{"x", 70}, {"y", 50}, {"b", 3}, {"a", 2}})
    body = loop(index, c(0), {c(extent)}, 1, LoopKind::Parallel, Mapping::None, body);
  k.body = body;
  CudaKernel out = emitted(k);
  EXPECT_EQ(out.block, (std::array<unsigned, 3>{32, 8, 1}));
  EXPECT_EQ(out.grid, (std::array<unsigned, 3>{3, 7, 6}));  // z: 2 x 3 iterations of a and b
  EXPECT_NE(out.source.find("const int a = block_z / 3;"), std::string::npos) << out.source;
  EXPECT_NE(out.source.find("const int b = block_z % 3;"), std::string::npos) << out.source;
  EXPECT_EQ(out.source.find("if (a <"), std::string::npos) << out.source;
}

TEST(EmitLaunch, TiledKernelRunsOnItsMappedGridAndBlock) {
  CudaKernel k = emitted(tiledMatmul(128, 128, 128));
  EXPECT_EQ(k.grid, (std::array<unsigned, 3>{2, 2, 1}));
  EXPECT_EQ(k.block, (std::array<unsigned, 3>{16, 16, 1}));
  EXPECT_EQ(k.sharedBytes, size_t{(64 * 16 + 16 * 64) * 4});
  EXPECT_EQ(k.dynamicSharedBytes, 0u);
  EXPECT_NE(k.source.find("__shared__ __align__(16) float As[64][16];"), std::string::npos);
  // Tiles divide the sizes: no guard is needed anywhere.
  EXPECT_EQ(k.source.find("if ("), std::string::npos) << k.source;
  EXPECT_EQ(std::regex_search(k.source, std::regex("__syncthreads\\(\\);[^]*__syncthreads\\(\\);")), true);
}

TEST(EmitLaunch, TailsAreGuardedWhereTilesDoNotDivide) {
  CudaKernel k = emitted(tiledMatmul(98, 120, 40));
  EXPECT_EQ(k.grid, (std::array<unsigned, 3>{2, 2, 1}));
  EXPECT_NE(k.source.find("if (i1 < 98)"), std::string::npos) << k.source;
  EXPECT_NE(k.source.find("if (i2 < 98)"), std::string::npos) << k.source;
  EXPECT_NE(k.source.find("if (j1 < 120)"), std::string::npos) << k.source;
  // j1 is a multiple of 4 below 120: the 4 columns of a thread never cross N, so they stay a vector.
  EXPECT_EQ(k.source.find("j2 < 120"), std::string::npos) << k.source;
  EXPECT_NE(k.source.find("float4"), std::string::npos) << k.source;
  // The last k tile is short: k1 stops at K, and the stage reads zeros outside A.
  EXPECT_NE(k.source.find("k1 < k0 + 16 && k1 < 40"), std::string::npos) << k.source;
  EXPECT_NE(k.source.find(": make_float4(0.0f, 0.0f, 0.0f, 0.0f);"), std::string::npos) << k.source;
  // Where the tile divides, the bound of a full tile alone remains.
  CudaKernel even = emitted(tiledMatmul(128, 128, 128));
  EXPECT_NE(even.source.find("k1 < k0 + 16; ++k1"), std::string::npos) << even.source;
}

TEST(EmitLaunch, RegisterTilesAreIndexedByConstantsOnly) {
  CudaKernel k = emitted(tiledMatmul(128, 128, 128));
  std::regex registerUse("acc\\[([^\\]]*)\\]\\[([^\\]]*)\\]");
  int uses = 0;
  for (auto it = std::sregex_iterator(k.source.begin(), k.source.end(), registerUse); it != std::sregex_iterator();
       ++it, ++uses) {
    for (int d = 1; d <= 2; ++d) {
      std::string sub = (*it)[d];
      EXPECT_TRUE(std::regex_match(sub, std::regex("[0-9]+|i2_u|j2_u"))) << "acc indexed by `" << sub << "`";
    }
  }
  EXPECT_GT(uses, 0);
  EXPECT_NE(k.source.find("#pragma unroll"), std::string::npos);
}

TEST(EmitLaunch, VectorLoopsUseWideAccesses) {
  CudaKernel vec = emitted(tiledMatmul(128, 128, 128, 16, Mapping::Vector));
  EXPECT_NE(vec.source.find("const float4 Bs_v0 = *reinterpret_cast<const float4*>(&Bs[k1 - k0][j1 - j0]);"),
            std::string::npos)
      << vec.source;
  EXPECT_NE(vec.source.find("*reinterpret_cast<float4*>(&C[128*i2 + j1]) = make_float4("), std::string::npos);
  CudaKernel scalar = emitted(tiledMatmul(128, 128, 128, 16, Mapping::Unrolled));
  EXPECT_EQ(scalar.source.find("Bs_v"), std::string::npos) << scalar.source;
  EXPECT_EQ(scalar.source.find("make_float4(acc"), std::string::npos) << scalar.source;
  // A tail in the vector loop's range makes it scalar again, with a reason in a comment.
  CudaKernel tail = emitted(tiledMatmul(128, 126, 128, 16, Mapping::Vector));
  EXPECT_NE(tail.source.find("done as scalars"), std::string::npos) << tail.source;
}

// out[i][k] = in[i][k] over a vector of 4 in k: wide only where every row starts 16-byte aligned.
Kernel rowCopy(int64_t width) {
  Kernel k;
  k.name = "row_copy";
  k.params = {param("out", {32, width}, false), param("in", {32, width}, true)};
  k.body = loop("i", c(0), {c(32)}, 1, LoopKind::Parallel, Mapping::BlockX,
                loop("k", c(0), {c(4)}, 1, LoopKind::Parallel, Mapping::Vector,
                     makeAssign(at("out", {ix("i"), ix("k")}), load("in", {ix("i"), ix("k")}), false)));
  return k;
}

TEST(EmitLaunch, MisalignedVectorAccessesStayScalar) {
  CudaKernel aligned = emitted(rowCopy(8));
  EXPECT_NE(aligned.source.find("*reinterpret_cast<const float4*>(&in[8*i])"), std::string::npos) << aligned.source;
  EXPECT_NE(aligned.source.find("*reinterpret_cast<float4*>(&out[8*i]) = make_float4("), std::string::npos);
  CudaKernel odd = emitted(rowCopy(6));  // rows start 24 bytes apart
  EXPECT_EQ(odd.source.find("float4"), std::string::npos) << odd.source;
  EXPECT_NE(odd.source.find("out[6*i + 3] = in[6*i + 3];"), std::string::npos) << odd.source;
}

TEST(EmitLaunch, StagesCopyWholeAlignedVectors) {
  // A has rows of 40 floats (whole vectors); B rows of 126 do not split into vectors of 4.
  CudaKernel k = emitted(tiledMatmul(100, 126, 40, 8, Mapping::Vector));
  EXPECT_NE(k.source.find("// Stage A[i0][k0] -> As, zero outside A, 4 elements at a time\n"), std::string::npos)
      << k.source;
  EXPECT_NE(k.source.find("// Stage B[k0][j0] -> Bs, zero outside B, 2 elements at a time\n"), std::string::npos)
      << k.source;
  // 64 x 8 floats of A are 128 vectors for 256 threads: one each at most, no loop.
  EXPECT_NE(k.source.find("if (thread_rank < 128) {"), std::string::npos) << k.source;
}

TEST(EmitLaunch, ConstantsAreWrittenAsExactLiterals) {
  Kernel k = naiveMatmul(4, 4, 4);
  auto assign = [](int64_t column, double v) {
    return makeAssign(at("C", {ix("i"), c(column)}), Expr::constant(v), false);
  };
  k.body = loop("i", c(0), {c(4)}, 1, LoopKind::Parallel, Mapping::None,
                makeSeq({assign(0, 0.1), assign(1, 3), assign(2, -1.0 / 0.0), assign(3, 1e-30)}));
  CudaKernel f = emitted(k);
  EXPECT_NE(f.source.find("= 0.1f;"), std::string::npos) << f.source;
  EXPECT_NE(f.source.find("= 3.0f;"), std::string::npos);
  EXPECT_NE(f.source.find("= __int_as_float(0xff800000);"), std::string::npos);
  EXPECT_NE(f.source.find("= 1e-30f;"), std::string::npos);
  CudaKernel d = *emitReference(k).kernel;
  EXPECT_NE(d.source.find("= 0.1;"), std::string::npos) << d.source;  // reads back as the same double
  EXPECT_NE(d.source.find("= __longlong_as_double(0xfff0000000000000LL);"), std::string::npos);
}

TEST(EmitLaunch, LargeSharedMemoryIsDynamicAndNeedsTheAttribute) {
  CudaKernel small = emitted(sharedCopy(16));
  EXPECT_EQ(small.dynamicSharedBytes, 0u);
  EXPECT_FALSE(small.needsSharedMemoryAttribute);
  CudaKernel big = emitted(sharedCopy(128));  // 128 x 128 floats = 64 KB
  EXPECT_EQ(big.sharedBytes, size_t{128 * 128 * 4});
  EXPECT_EQ(big.dynamicSharedBytes, big.sharedBytes);
  EXPECT_TRUE(big.needsSharedMemoryAttribute);
  EXPECT_NE(big.source.find("extern __shared__"), std::string::npos);
  EXPECT_NE(big.source.find("(dynamic)"), std::string::npos);
}

TEST(EmitLaunch, HalfKernelsIncludeFp16AndAccumulateAtomically) {
  CudaKernel k = emitted(halfSumOfSquares(1000, 256));
  EXPECT_NE(k.source.find("#include <cuda_fp16.h>"), std::string::npos);
  EXPECT_NE(k.source.find("atomicAdd(&sum[0], __float2half("), std::string::npos) << k.source;
  EXPECT_EQ(k.zeroFirst, std::vector<std::string>{"sum"});
  EXPECT_EQ(k.grid[0], 4u);
  EXPECT_EQ(k.block[0], 256u);
}

TEST(EmitLaunch, ReferenceIsTheSameNestInDouble) {
  EmitResult r = emitReference(naiveMatmul(64, 64, 64));
  ASSERT_TRUE(r.ok()) << r.reason;
  EXPECT_EQ(r.kernel->entry, "matmul_reference");
  EXPECT_EQ(r.kernel->elementType, ScalarType::Double);
  EXPECT_NE(r.kernel->source.find("double* __restrict__ C"), std::string::npos);
  EXPECT_EQ(r.kernel->source.find("float"), std::string::npos) << r.kernel->source;
  EXPECT_EQ(r.kernel->grid, emitted(naiveMatmul(64, 64, 64)).grid);
}

TEST(EmitLaunch, RecipeAndLaunchAreWrittenAtTheTop) {
  EmitOptions options;
  options.recipe = "tile i,j 64,64\nmap i_o grid.y";
  EmitResult r = emitKernel(tiledMatmul(128, 128, 128), options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.kernel->recipe, options.recipe);
  EXPECT_EQ(r.kernel->source.rfind("// matmul: generated by cudaburg", 0), 0u) << r.kernel->source;
  EXPECT_NE(r.kernel->source.find("//   tile i,j 64,64\n//   map i_o grid.y\n"), std::string::npos);
  EXPECT_NE(r.kernel->source.find("// Launch: grid (2, 2, 1), block (16, 16, 1) = 256 threads"), std::string::npos);
}

TEST(EmitLaunch, WarpLanesNumberTheBlocksThreadsByWarpPatches) {
  Kernel k = tiledMatmul(128, 128, 128);  // blocks of 16 x 16 threads
  k.laneRows = 8;
  k.laneCols = 4;
  CudaKernel arranged = emitted(k);
  EXPECT_EQ(arranged.block, (std::array<unsigned, 3>{16, 16, 1}));
  // Warp w of the block covers rows 8 * (w / 4) .. + 7 and columns 4 * (w % 4) .. + 3; the stages
  // still copy by the hardware's thread number, so that their reads stay coalesced.
  EXPECT_NE(arranged.source.find("const int thread_rank = threadIdx.x + 16 * threadIdx.y;"), std::string::npos)
      << arranged.source;
  EXPECT_NE(arranged.source.find("const int thread_y = (thread_rank >> 5) / 4 * 8 + (thread_rank & 31) / 4;"),
            std::string::npos);
  EXPECT_NE(arranged.source.find("const int thread_x = (thread_rank >> 5) % 4 * 4 + (thread_rank & 31) % 4;"),
            std::string::npos);
  EXPECT_EQ(arranged.source.find("threadIdx.x;"), std::string::npos);
  // Warps of 32 x 1 cannot tile a block 16 threads tall.
  Kernel flat = tiledMatmul(128, 128, 128);
  flat.laneRows = 32;
  flat.laneCols = 1;
  EXPECT_EQ(refusalOf(flat), "warps of 32 by 1 threads do not tile a block of 16 by 16 threads (block.y by block.x)");
}

// --- refusals: trees that break the mapped-tree model --------------------------------------

NodePtr store(const std::string& i) { return makeAssign(at("C", {ix(i), c(0)}), Expr::constant(1), false); }

Kernel withBody(NodePtr body) {
  Kernel k = naiveMatmul(64, 64, 64);
  k.body = std::move(body);
  return k;
}

TEST(EmitRefusal, BarrierInsideABlockLoop) {
  NodePtr body = loop("i", c(0), {c(64)}, 1, LoopKind::Parallel, Mapping::BlockX, makeSeq({store("i"), makeBarrier()}));
  EXPECT_NE(refusalOf(withBody(body)).find("Barrier inside a block loop"), std::string::npos);
}

TEST(EmitRefusal, GridLoopWithBoundsThatAreNotConstants) {
  NodePtr body = loop("i0", c(0), {c(64)}, 16, LoopKind::Parallel, Mapping::GridY,
                      loop("i", ix("i0"), {ix("i0") + c(16)}, 1, LoopKind::Parallel, Mapping::GridX, store("i")));
  EXPECT_NE(refusalOf(withBody(body)).find("not constants"), std::string::npos);
}

TEST(EmitRefusal, BlockOverTheThreadLimit) {
  Kernel k = naiveMatmul(2048, 2, 2);
  k.body = loop("i", c(0), {c(2048)}, 1, LoopKind::Parallel, Mapping::BlockX, store("i"));
  EXPECT_NE(refusalOf(k).find("at most 1024"), std::string::npos);
  Kernel k2 = naiveMatmul(64, 64, 2);
  k2.body = loop("i", c(0), {c(64)}, 1, LoopKind::Parallel, Mapping::BlockY,
                 loop("j", c(0), {c(64)}, 1, LoopKind::Parallel, Mapping::BlockX,
                      makeAssign(at("C", {ix("i"), ix("j")}), Expr::constant(1), false)));
  EXPECT_NE(refusalOf(k2).find("4096 threads"), std::string::npos);
}

TEST(EmitRefusal, GridLoopBelowOtherLoops) {
  NodePtr body = loop("s", c(0), {c(2)}, 1, LoopKind::Serial, Mapping::ThreadSerial,
                      loop("i", c(0), {c(64)}, 1, LoopKind::Parallel, Mapping::GridX, store("i")));
  EXPECT_NE(refusalOf(withBody(body)).find("not among the outermost"), std::string::npos);
}

TEST(EmitRefusal, TwoLoopsOnOneAxis) {
  NodePtr body = loop("i", c(0), {c(8)}, 1, LoopKind::Parallel, Mapping::BlockX,
                      loop("j", c(0), {c(8)}, 1, LoopKind::Parallel, Mapping::BlockX,
                           makeAssign(at("C", {ix("i"), ix("j")}), Expr::constant(1), false)));
  EXPECT_NE(refusalOf(withBody(body)).find("another loop on block.x"), std::string::npos);
}

TEST(EmitRefusal, RegisterBufferIndexedAtRunTime) {
  NodePtr body = makeAlloc(buffer("acc", {64}, MemorySpace::Register),
                           loop("i", c(0), {c(64)}, 1, LoopKind::Parallel, Mapping::BlockX,
                                loop("k", c(0), {c(64)}, 1, LoopKind::Reduce, Mapping::ThreadSerial,
                                     makeAssign(at("acc", {ix("k")}), Expr::constant(1), false))));
  EXPECT_NE(refusalOf(withBody(body)).find("not a compile-time constant"), std::string::npos);
}

TEST(EmitRefusal, StatementOutsideBlockLoopsWithManyThreads) {
  NodePtr body = makeSeq({store("i0"), loop("i", c(0), {c(64)}, 1, LoopKind::Parallel, Mapping::BlockX, store("i"))});
  body = loop("i0", c(0), {c(4)}, 1, LoopKind::Parallel, Mapping::GridX, body);
  EXPECT_NE(refusalOf(withBody(body)).find("every thread"), std::string::npos);
}

TEST(EmitRefusal, StageInsideABlockLoop) {
  Array S = buffer("S", {8, 8}, MemorySpace::Shared);
  NodePtr body = makeAlloc(S, loop("i", c(0), {c(64)}, 1, LoopKind::Parallel, Mapping::BlockX,
                                   makeSeq({makeStage(S, "A", {ix("i"), c(0)}), store("i")})));
  EXPECT_NE(refusalOf(withBody(body)).find("inside a block loop"), std::string::npos);
}

TEST(EmitRefusal, UnknownArraysAndIndices) {
  NodePtr body = loop("i", c(0), {c(64)}, 1, LoopKind::Parallel, Mapping::BlockX,
                      makeAssign(at("Z", {ix("i")}), Expr::constant(1), false));
  EXPECT_NE(refusalOf(withBody(body)).find("unknown array `Z`"), std::string::npos);
  NodePtr stray = loop("i", c(0), {c(64)}, 1, LoopKind::Parallel, Mapping::BlockX,
                       makeAssign(at("C", {ix("i"), ix("q")}), Expr::constant(1), false));
  EXPECT_NE(refusalOf(withBody(stray)).find("`q` outside its loop"), std::string::npos);
}

}  // namespace
}  // namespace cudaburg
