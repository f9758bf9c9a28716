// The wgmma step: a register tile's warpgroups on Hopper's warpgroup MMA. The CPU executor runs
// the tiles as the loops they are, so the transformed kernel computes what the register tile did;
// what wgmma cannot read or run is refused with the reason.
#include <gtest/gtest.h>

#include <stdexcept>

#include "common/source.hpp"
#include "src/exec/executor.hpp"
#include "src/loop/tree_walk.hpp"
#include "src/transform/recipe.hpp"
#include "tests/transform/test_kernels.hpp"

namespace cudaburg {
namespace {

// examples/<example>.loop (C = A * B of float, half, bfloat16 or tf32 operands) at m x n x k.
Kernel gemm(const std::string& example, int64_t m, int64_t n, int64_t k) {
  auto file = common::SourceFile::read(std::string(CUDABURG_EXAMPLES_DIR) + "/" + example + ".loop");
  if (!file) throw std::runtime_error(file.reason());
  return testing::kernelFromText(file->text(), {{"M", m}, {"N", n}, {"K", k}});
}

TransformResult applyText(const Kernel& k, const std::string& text) {
  std::string errors;
  auto recipe = testing::recipeFromText(text, &errors);
  return recipe ? applyRecipe(k, *recipe) : TransformResult::refuse(errors);
}

std::string refusal(const Kernel& k, const std::string& text) {
  TransformResult r = applyText(k, text);
  return r.ok() ? std::string("applied") : r.reason;
}

// A block tile of `block` whose warpgroups each hold a register tile of `group` (its rows i on
// block.y, or with `columnsOnY` its columns j), over strips of `depth` staged for wgmma (B as
// `stageB` says), `buffers` a stage.
std::string wgmmaStaged(const std::string& block, const std::string& group, int depth, int buffers,
                        const std::string& stageB, bool columnsOnY = false) {
  std::string d = std::to_string(depth);
  return "tile i,j " + block + "; map i_o grid.y; map j_o grid.x; " +
         (columnsOnY ? "map i block.x; map j block.y" : "map i block.y; map j block.x") + "; regtile i,j " + group +
         "; strip k " + d + "; stage A at k_o swizzle; " + stageB + "; map k_o async " + std::to_string(buffers) +
         "; unroll k " + d + "; ";
}

// Strips of 64, B in slabs of 64 columns.
std::string staged(const std::string& block, const std::string& group, int buffers = 4,
                   const std::string& stageB = "stage B at k_o swizzle slabs 64") {
  return wgmmaStaged(block, group, 64, buffers, stageB);
}

// The same for tf32: strips of 32 (A's rows and B's transposed rows 128 bytes of k).
std::string tf32Staged(const std::string& block, const std::string& group, int buffers = 4,
                       const std::string& stageB = "stage B at k_o transposed swizzle") {
  return wgmmaStaged(block, group, 32, buffers, stageB);
}

TEST(Wgmma, WarpgroupTilesComputeWhatTheRegisterTileDid) {
  struct Case {
    const char* example;
    int64_t m, n, k;
    std::string block, group, shape;
  };
  // Whole tiles; an uneven product (partial blocks and a partial last strip); two 64-row tiles a
  // warpgroup; B one slab wide.
  for (const Case& c : {Case{"hgemm", 128, 256, 128, "128,128", "64,128", "64,128,16"},
                        Case{"tf32gemm", 128, 256, 96, "128,128", "64,128", "64,128,8"},
                        Case{"tf32gemm", 100, 200, 72, "128,256", "64,256", "64,256,8"},
                        Case{"hgemm", 100, 200, 72, "128,128", "64,128", "64,128,16"},
                        Case{"bf16gemm", 256, 128, 64, "256,128", "128,128", "64,128,16"},
                        Case{"bf16gemm", 72, 136, 136, "64,64", "64,64", "64,64,16"}}) {
    SCOPED_TRACE(std::string(c.example) + " " + std::to_string(c.m) + "x" + std::to_string(c.n) + "x" +
                 std::to_string(c.k));
    Kernel k = gemm(c.example, c.m, c.n, c.k);
    std::string registers =
        std::string(c.example) == "tf32gemm" ? tf32Staged(c.block, c.group) : staged(c.block, c.group);
    TransformResult plain = applyText(k, registers);
    ASSERT_TRUE(plain.ok()) << plain.reason;
    TransformResult groups = applyText(k, registers + "wgmma i,j,k " + c.shape);
    ASSERT_TRUE(groups.ok()) << groups.reason;
    EXPECT_TRUE(groups.kernel->warpTiles());
    EXPECT_TRUE(groups.kernel->warpGroupTiles());
    EXPECT_EQ(groups.kernel->wgmmaPending(), 1);
    int tiles = 0;
    forEachNode(*groups.kernel->body,
                [&](const Node& n) { tiles += n.kind == NodeKind::For && n.mapping == Mapping::Mma; });
    EXPECT_EQ(tiles, 3);  // initialise, accumulate, write back
    Buffers expected = fillRandom(k, 7), actual = expected;
    execute(*plain.kernel, expected);
    execute(*groups.kernel, actual);
    EXPECT_EQ(expected.data["C"], actual.data["C"]);  // the same sums in the same order
    EXPECT_EQ(testing::differenceFrom(k, *groups.kernel), "");
  }
}

TEST(Wgmma, KeepsNoGroupInFlightWhenAsked) {
  Kernel k = gemm("hgemm", 128, 128, 128);
  TransformResult r = applyText(k, staged("128,128", "64,128", 3) + "wgmma i,j,k 64,128,16 wait 0");
  ASSERT_TRUE(r.ok()) << r.reason;
  EXPECT_EQ(r.kernel->wgmmaPending(), 0);
  EXPECT_FALSE(r.kernel->wgmmaProducer());
}

// A producer warpgroup changes only who copies the stages on the GPU: the tree, and so what the
// CPU executor computes, is the same (two buffers do, the producer waiting for each to empty).
TEST(Wgmma, AProducerWarpgroupChangesNotWhatIsComputed) {
  Kernel k = gemm("hgemm", 100, 200, 136);
  TransformResult plain = applyText(k, staged("128,128", "64,128", 3) + "wgmma i,j,k 64,128,16");
  TransformResult produced = applyText(k, staged("128,128", "64,128", 2) + "wgmma i,j,k 64,128,16 producer");
  ASSERT_TRUE(plain.ok()) << plain.reason;
  ASSERT_TRUE(produced.ok()) << produced.reason;
  EXPECT_TRUE(produced.kernel->wgmmaProducer());
  EXPECT_FALSE(produced.kernel->wgmmaTma());
  TransformResult tma = applyText(k, staged("128,128", "64,128", 2) + "wgmma i,j,k 64,128,16 producer tma");
  ASSERT_TRUE(tma.ok()) << tma.reason;
  EXPECT_TRUE(tma.kernel->wgmmaProducer());
  EXPECT_TRUE(tma.kernel->wgmmaTma());
  Buffers expected = fillRandom(k, 3), actual = expected;
  execute(*plain.kernel, expected);
  execute(*produced.kernel, actual);
  EXPECT_EQ(expected.data["C"], actual.data["C"]);
}

TEST(Wgmma, RefusesWhatWgmmaDoesNotRun) {
  const std::string good = staged("128,128", "64,128");
  Kernel half = gemm("hgemm", 128, 128, 128);
  EXPECT_NE(refusal(gemm("matmul", 128, 128, 128), good + "wgmma i,j,k 64,128,16").find("wgmma for float is m64nNk8"),
            std::string::npos);
  // tf32: k 8, and B K-major (stored transposed).
  Kernel tf32 = gemm("tf32gemm", 128, 128, 128);
  EXPECT_NE(refusal(tf32, tf32Staged("128,128", "64,128") + "wgmma i,j,k 64,128,16").find("wgmma for tf32 is m64nNk8"),
            std::string::npos);
  EXPECT_NE(
      refusal(tf32, tf32Staged("128,128", "64,128", 4, "stage B at k_o swizzle slabs 32") + "wgmma i,j,k 64,128,8")
          .find("B K-major for tf32"),
      std::string::npos);
  EXPECT_NE(refusal(tf32, good + "wgmma i,j,k 64,128,8").find("rows hold 32 elements"), std::string::npos);
  EXPECT_NE(refusal(half, good + "wgmma i,j,k 64,128,8").find("wgmma for half is m64nNk16"), std::string::npos);
  // The shapes: 64 rows, N a multiple of 64 up to 256, k 16 (or 8).
  for (const char* shape : {"64,96,16", "32,128,16", "64,128,4", "64,320,16"})
    EXPECT_NE(refusal(half, good + "wgmma i,j,k " + shape).find("the wgmma shapes are 64,N,16"), std::string::npos)
        << shape;
  // The register tile: rows a multiple of 64, columns of N.
  EXPECT_NE(refusal(half, staged("128,128", "32,128") + "wgmma i,j,k 64,128,16").find("multiple of 64"),
            std::string::npos);
  EXPECT_NE(refusal(half, staged("128,128", "64,64") + "wgmma i,j,k 64,128,16").find("multiple of 128"),
            std::string::npos);
  // B as it lies (rows of 128 elements), padded, or transposed: not the slabs wgmma reads.
  EXPECT_NE(refusal(half, staged("128,128", "64,128", 4, "stage B at k_o swizzle") + "wgmma i,j,k 64,128,16")
                .find("swizzle slabs 64"),
            std::string::npos);
  EXPECT_NE(refusal(half, staged("128,128", "64,128", 4, "stage B at k_o pad 8") + "wgmma i,j,k 64,128,16")
                .find("swizzle slabs 64"),
            std::string::npos);
  // A strip of 32: A's rows are 64 bytes, not one 128-byte swizzle atom.
  std::string strip32 =
      "tile i,j 128,128; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; regtile i,j 64,128; "
      "strip k 32; stage A at k_o swizzle; stage B at k_o swizzle slabs 64; map k_o async 4; unroll k 32; ";
  EXPECT_NE(refusal(half, strip32 + "wgmma i,j,k 64,128,16").find("stage A at ... swizzle"), std::string::npos);
  // Operands read from global memory, or stages not pipelined asynchronously.
  EXPECT_NE(refusal(half,
                    "tile i,j 128,128; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; "
                    "regtile i,j 64,128; wgmma i,j,k 64,128,16")
                .find("map k_o async"),
            std::string::npos);
  // One group in flight needs three buffers a stage; none, two.
  EXPECT_NE(refusal(half, staged("128,128", "64,128", 2) + "wgmma i,j,k 64,128,16").find("at least 3 buffers"),
            std::string::npos);
  EXPECT_EQ(refusal(half, staged("128,128", "64,128", 2) + "wgmma i,j,k 64,128,16 wait 0"), "applied");
  EXPECT_NE(refusal(half, good + "wgmma i,j,k 64,128,16; mma i,j,k 16,8,16").find("warps already"), std::string::npos);
}

// tf32 with the instruction's M along the register tile's columns (wgmma j,i,k): B staged as it
// lies, rows of k in slabs of 32 columns, its fragments from registers; A by descriptor.
std::string registerAStaged(const std::string& block, const std::string& group, int buffers = 4,
                            const std::string& stageB = "stage B at k_o swizzle slabs 32") {
  return wgmmaStaged(block, group, 32, buffers, stageB, true);
}

// The register tile's loops and its accumulators are interchanged (R[j][i]), so that the fragment
// rows run along j: each element is still summed in the same order, whole or uneven.
TEST(Wgmma, RegisterATilesComputeWhatTheRegisterTileDid) {
  struct Case {
    int64_t m, n, k;
    std::string block, group, shape, options;
  };
  for (const Case& c : {Case{128, 128, 96, "128,128", "128,64", "64,128,8", " producer tma"},
                        Case{100, 200, 72, "128,128", "128,64", "64,128,8", ""},
                        Case{257, 520, 300, "256,128", "256,64", "64,256,8", " producer"},
                        Case{130, 260, 40, "128,256", "128,128", "64,128,8", " wait 0 producer tma"}}) {
    SCOPED_TRACE(std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k) + " " + c.block);
    Kernel k = gemm("tf32gemm", c.m, c.n, c.k);
    std::string registers = registerAStaged(c.block, c.group);
    TransformResult plain = applyText(k, registers);
    ASSERT_TRUE(plain.ok()) << plain.reason;
    TransformResult groups = applyText(k, registers + "wgmma j,i,k " + c.shape + c.options);
    ASSERT_TRUE(groups.ok()) << groups.reason;
    EXPECT_TRUE(groups.kernel->warpGroupTiles());
    EXPECT_TRUE(groups.kernel->wgmmaRegisterA());
    int tiles = 0, transposed = 0;
    forEachNode(*groups.kernel->body, [&](const Node& n) {
      tiles += n.kind == NodeKind::For && n.mapping == Mapping::Mma && n.index == "j";
      transposed += n.kind == NodeKind::Alloc && n.buffer.space == MemorySpace::Register &&
                    n.buffer.extents == std::vector<int64_t>{std::stoll(c.group.substr(c.group.find(',') + 1)),
                                                             std::stoll(c.group.substr(0, c.group.find(',')))};
    });
    EXPECT_EQ(tiles, 3);  // initialise, accumulate, write back: each a tile of 64 j
    EXPECT_EQ(transposed, 1);
    Buffers expected = fillRandom(k, 11), actual = expected;
    execute(*plain.kernel, expected);
    execute(*groups.kernel, actual);
    EXPECT_EQ(expected.data["C"], actual.data["C"]);
  }
}

TEST(Wgmma, RegisterARefusesWhatItCannotLoad) {
  Kernel tf32 = gemm("tf32gemm", 128, 128, 128);
  // B as it lies in rows of 128 columns: neither the slabs of 32 the fragments are read from nor
  // rows of k (B stored transposed, K-major, as an implicit GEMM's gathers are), which apply.
  EXPECT_EQ(refusal(tf32, registerAStaged("128,128", "128,64", 4, "stage B at k_o transposed swizzle") +
                              "wgmma j,i,k 64,128,8"),
            "applied");
  EXPECT_NE(refusal(tf32, registerAStaged("128,128", "128,64", 4, "stage B at k_o swizzle") + "wgmma j,i,k 64,128,8")
                .find("swizzle slabs 32"),
            std::string::npos);
  // B not staged at all.
  EXPECT_NE(refusal(tf32,
                    "tile i,j 128,128; map i_o grid.y; map j_o grid.x; map i block.x; map j block.y; "
                    "regtile i,j 128,64; strip k 32; stage A at k_o swizzle; map k_o async 4; unroll k 32; "
                    "wgmma j,i,k 64,128,8")
                .find("swizzle slabs 32"),
            std::string::npos);
  // The shape: 64 rows of M, k 8, N a multiple of 8 up to 256.
  for (const char* shape : {"64,128,16", "32,128,8", "64,320,8", "64,100,8"})
    EXPECT_NE(refusal(tf32, registerAStaged("128,128", "128,64") + "wgmma j,i,k " + shape).find("64,N,8 for tf32"),
              std::string::npos)
        << shape;
  // 16-bit operands: not built (their B is read N-major by descriptor).
  Kernel half = gemm("hgemm", 128, 128, 128);
  std::string halfStaged =
      "tile i,j 128,128; map i_o grid.y; map j_o grid.x; map i block.x; map j block.y; "
      "regtile i,j 128,64; strip k 64; stage A at k_o swizzle; stage B at k_o swizzle slabs 64; "
      "map k_o async 4; unroll k 64; ";
  EXPECT_NE(refusal(half, halfStaged + "wgmma j,i,k 64,128,16").find("64,N,8 for tf32"), std::string::npos);
}

// tf32x3: float operands in the register-A form with a TMA producer. The tree is the same as the
// tf32 form's (the split is how the GPU runs it), so the CPU executor computes what the register
// tile did; the stage read by descriptor is named for its second copy, the low parts.
TEST(Wgmma, Tf32x3TilesComputeWhatTheRegisterTileDidAndNameTheSplitStage) {
  for (const auto& [m, n, k] : {std::tuple{128, 128, 96}, {100, 200, 72}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
    Kernel fp32 = gemm("matmul", m, n, k);
    std::string registers = registerAStaged("128,128", "128,64");
    TransformResult plain = applyText(fp32, registers);
    ASSERT_TRUE(plain.ok()) << plain.reason;
    TransformResult split = applyText(fp32, registers + "wgmma j,i,k 64,128,8 producer tma tf32x3");
    ASSERT_TRUE(split.ok()) << split.reason;
    EXPECT_TRUE(split.kernel->wgmmaRegisterA());
    EXPECT_TRUE(split.kernel->wgmmaTma());
    EXPECT_EQ(split.kernel->wgmmaSplitBuffer(), "A_s");
    Buffers expected = fillRandom(fp32, 5), actual = expected;
    execute(*plain.kernel, expected);
    execute(*split.kernel, actual);
    EXPECT_EQ(expected.data["C"], actual.data["C"]);
  }
  // The tf32 form splits nothing.
  TransformResult tf32 = applyText(gemm("tf32gemm", 128, 128, 96),
                                   registerAStaged("128,128", "128,64") + "wgmma j,i,k 64,128,8 producer tma");
  ASSERT_TRUE(tf32.ok()) << tf32.reason;
  EXPECT_EQ(tf32.kernel->wgmmaSplitBuffer(), "");
}

// Split-K on tf32x3 tiles: the reduction split into parts on grid.z before the tile, each part's
// strips filled by TMA from its own range of k, the parts' sums added atomically as each writes
// its tile back. The CPU executor runs the parts in turn, so the tiles compute what the register
// tile split the same way did, element for element: parts of whole strips, and a last part
// shorter than the others, its partial strip zero past the array's edge. A part that ends inside
// a strip is refused: wgmma would multiply the next part's elements in that strip.
TEST(Wgmma, SplitTf32x3TilesComputeWhatTheSplitRegisterTileDid) {
  struct Case {
    int64_t m, n, k, parts;
    std::string promote;
  };
  auto splitRegisters = [](int64_t parts) {
    std::string registers = registerAStaged("128,128", "128,64");
    registers.replace(registers.find("map i_o grid.y"), 0, "map k_s grid.z; ");
    return "split k " + std::to_string(parts) + "; " + registers;
  };
  for (const Case& c :
       {Case{128, 128, 512, 4, " promote 1"}, Case{100, 200, 508, 8, " promote 2"}, Case{64, 136, 256, 2, ""}}) {
    SCOPED_TRACE(std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k) + " in " +
                 std::to_string(c.parts) + " parts" + c.promote);
    Kernel fp32 = gemm("matmul", c.m, c.n, c.k);
    std::string registers = splitRegisters(c.parts);
    TransformResult plain = applyText(fp32, registers);
    ASSERT_TRUE(plain.ok()) << plain.reason;
    TransformResult split = applyText(fp32, registers + "wgmma j,i,k 64,128,8 producer tma tf32x3" + c.promote);
    ASSERT_TRUE(split.ok()) << split.reason;
    EXPECT_TRUE(split.kernel->wgmmaTma());
    EXPECT_EQ(split.kernel->wgmmaSplitBuffer(), "A_s");
    EXPECT_EQ(split.kernel->zeroFirst, std::vector<std::string>{"C"});  // the parts add into outputs zeroed first
    int atomicStores = 0;
    forEachNode(*split.kernel->body, [&](const Node& n) { atomicStores += n.kind == NodeKind::Assign && n.atomic; });
    EXPECT_EQ(atomicStores, 1);
    Buffers expected = fillRandom(fp32, 13), actual = expected;
    execute(*plain.kernel, expected);
    execute(*split.kernel, actual);
    EXPECT_EQ(expected.data["C"], actual.data["C"]);
  }
  // 300 in 2 parts of 150: the first part's last strip runs into the second part.
  EXPECT_NE(
      refusal(gemm("matmul", 128, 128, 300), splitRegisters(2) + "wgmma j,i,k 64,128,8 producer tma tf32x3 promote 1")
          .find("is not the edge of the array"),
      std::string::npos);
}

// tf32x3 where TMA cannot copy the rows (A's of 129 floats, no multiple of 16 bytes; M = 127, a
// tile of 64 rows past it): the producer warpgroup's threads fill the stages by cp.async and it
// splits A's strips all the same. The tree is the same as with TMA, so the CPU executor computes
// what the register tile did; split into parts too.
TEST(Wgmma, Tf32x3TilesFilledByCpAsyncComputeWhatTheRegisterTileDid) {
  struct Case {
    int64_t m, n, k;
    std::string block, group, shape, split;
  };
  for (const Case& c :
       {Case{127, 260, 129, "64,64", "64,64", "64,64,8", ""}, Case{127, 200, 99, "128,128", "128,64", "64,128,8", ""},
        Case{127, 200, 256, "64,128", "64,64", "64,64,8", "split k 2; "}}) {
    SCOPED_TRACE(std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k) + " " + c.split + c.block);
    Kernel fp32 = gemm("matmul", c.m, c.n, c.k);
    std::string registers = c.split + registerAStaged(c.block, c.group);
    if (!c.split.empty()) registers.replace(registers.find("map i_o grid.y"), 0, "map k_s grid.z; ");
    TransformResult plain = applyText(fp32, registers);
    ASSERT_TRUE(plain.ok()) << plain.reason;
    TransformResult split = applyText(fp32, registers + "wgmma j,i,k " + c.shape + " producer tf32x3 promote 1");
    ASSERT_TRUE(split.ok()) << split.reason;
    EXPECT_TRUE(split.kernel->wgmmaProducer());
    EXPECT_FALSE(split.kernel->wgmmaTma());
    EXPECT_EQ(split.kernel->wgmmaSplitBuffer(), "A_s");
    Buffers expected = fillRandom(fp32, 17), actual = expected;
    execute(*plain.kernel, expected);
    execute(*split.kernel, actual);
    EXPECT_EQ(expected.data["C"], actual.data["C"]);
  }
}

TEST(Wgmma, Tf32x3RefusesWhatItCannotSplit) {
  Kernel fp32 = gemm("matmul", 128, 128, 128), tf32 = gemm("tf32gemm", 128, 128, 128);
  const std::string registers = registerAStaged("128,128", "128,64");
  // Without a producer warpgroup, nobody splits A's strips; the plain tf32 form reads float operands
  // as tf32, one product each (--precision tf32).
  for (const char* options : {"", " wait 0"})
    EXPECT_NE(refusal(fp32, registers + "wgmma j,i,k 64,128,8" + options + " tf32x3").find("a producer warpgroup"),
              std::string::npos)
        << options;
  EXPECT_EQ(refusal(fp32, registers + "wgmma j,i,k 64,128,8 producer tma"), "applied");
  // tf32 operands are not split (their reads are rounded to tf32 already).
  EXPECT_NE(refusal(tf32, registers + "wgmma j,i,k 64,128,8 producer tma tf32x3").find("splits float operands"),
            std::string::npos);
  // Only the register-A form.
  EXPECT_NE(refusal(fp32, tf32Staged("128,128", "64,128") + "wgmma i,j,k 64,128,8 producer tma tf32x3")
                .find("A from registers"),
            std::string::npos);
}

// A reduction bound that is no edge of the staged arrays would let wgmma multiply what lies past
// it (the stages hold the arrays' elements there, not zeros).
TEST(Wgmma, RefusesAReductionCutShortOfItsArrays) {
  Kernel k = testing::kernelFromText(
      "size M = 128, N = 128, K = 128;\n"
      "kernel gemm(float C[M][N], const half A[M][K], const half B[K][N]) {\n"
      "  parallel for (i = 0; i < M; i++)\n"
      "    parallel for (j = 0; j < N; j++) {\n"
      "      C[i][j] = 0;\n"
      "      reduce for (k = 0; k < K - 8; k++) C[i][j] += A[i][k] * B[k][j];\n"
      "    }\n"
      "}\n");
  EXPECT_NE(refusal(k, staged("128,128", "64,128") + "wgmma i,j,k 64,128,16").find("not the edge of the array"),
            std::string::npos);
}

TEST(Wgmma, StagesInSlabsOnlySwizzledTwoDimensionalBoxes) {
  Kernel half = gemm("hgemm", 128, 128, 128);
  std::string tiles =
      "tile i,j 128,128; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; regtile i,j 64,128; "
      "strip k 64; ";
  EXPECT_NE(refusal(half, tiles + "stage B at k_o swizzle slabs 48").find("not whole slabs of 48"), std::string::npos);
  EXPECT_NE(refusal(half, tiles + "stage B at k_o swizzle slabs 4").find("cannot be swizzled"), std::string::npos);
  TransformResult r = applyText(half, tiles + "stage B at k_o swizzle slabs 64");
  ASSERT_TRUE(r.ok()) << r.reason;
  int slabbed = 0;
  forEachNode(*r.kernel->body, [&](const Node& n) { slabbed += n.kind == NodeKind::Alloc && n.buffer.slab == 64; });
  EXPECT_EQ(slabbed, 1);
}

TEST(Wgmma, PrintsAndParsesBack) {
  const std::string text =
      "stage B at k_o swizzle slabs 64\nwgmma i,j,k 64,256,16\nwgmma i,j,k 64,128,16 wait 0\n"
      "wgmma i,j,k 64,128,16 producer\nwgmma i,j,k 64,64,16 wait 0 producer\n"
      "wgmma i,j,k 64,256,16 producer tma\nwgmma i,j,k 64,128,16 wait 0 producer tma\n"
      "stage B at k_o transposed swizzle\nwgmma i,j,k 64,256,8 producer\n"
      "wgmma j,i,k 64,128,8 producer tma tf32x3\n";
  std::string errors;
  auto recipe = testing::recipeFromText(text, &errors);
  ASSERT_TRUE(recipe) << errors;
  EXPECT_EQ(printRecipe(*recipe), text);
  // The step's idiom, typed: shape, groups in flight, producer, tf32x3 and promotion.
  auto tile = [](int64_t n, int64_t k, int pending, WgmmaProducer producer, bool tf32x3 = false) {
    WgmmaTile t;
    t.n = n, t.k = k, t.pending = pending, t.producer = producer, t.tf32x3 = tf32x3;
    return TileIdiom(t);
  };
  EXPECT_EQ(recipe->steps[1].idiom, tile(256, 16, 1, WgmmaProducer::None));
  EXPECT_EQ(recipe->steps[4].idiom, tile(64, 16, 0, WgmmaProducer::CpAsync));
  EXPECT_EQ(recipe->steps[5].idiom, tile(256, 16, 1, WgmmaProducer::Tma));
  EXPECT_EQ(recipe->steps[6].idiom, tile(128, 16, 0, WgmmaProducer::Tma));
  EXPECT_TRUE(recipe->steps[7].transposed && recipe->steps[7].swizzled);
  EXPECT_EQ(recipe->steps[8].idiom, tile(256, 8, 1, WgmmaProducer::CpAsync));
  EXPECT_EQ(recipe->steps[9].idiom, tile(128, 8, 1, WgmmaProducer::Tma, true));
}

TEST(Wgmma, BadStepsGetAClearError) {
  for (const auto& [text, message] :
       {std::pair<std::string, std::string>{"wgmma i,j,k 64,256,16 wait 2", "1:28: error: wgmma leaves 0 or 1 groups"},
        {"wgmma i,j,k 64,256", "1:13: error: 3 loops need 3 factors, not 2"},
        {"wgmma i,j,k 64,256,16 wait", "expected the groups of wgmma left in flight"},
        {"stage B at k_o swizzle slabs", "expected the columns of a slab"},
        {"wgmma i,j,k 64,256,16 tma",
         "1:23: error: `tma` is how a producer warpgroup fills the stages: write `producer tma`"},
        {"wgmma i,j,k 64,256,16 producer tma tma", "1:36: error:"}}) {
    std::string errors;
    EXPECT_FALSE(testing::recipeFromText(text, &errors)) << text;
    EXPECT_NE(errors.find(message), std::string::npos) << text << "\n" << errors;
  }
}

}  // namespace
}  // namespace cudaburg
