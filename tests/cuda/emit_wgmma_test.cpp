// wgmma in the emitted kernel: the matrix descriptors' fields for the layouts the stages store
// (worked out by hand from the PTX ISA's "Matrix Descriptor Format"), and the kernel a wgmma
// recipe becomes: warpgroups, 1024-byte aligned stages, B in slabs, fences, commits and waits.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "src/cuda/emit/wgmma_descriptor.hpp"
#include "src/loop/swizzle.hpp"
#include "src/transform/transforms.hpp"
#include "tests/cuda/emitted_example.hpp"

namespace cudaburg {
namespace {

TEST(WgmmaDescriptor, FieldsOfTheSwizzledLayouts) {
  // A (K-major) at shared address 0x400: start 0x400 >> 4 = 0x40 (bits 0-13), leading offset 16
  // bytes (unused with a swizzle, "assumed 1": 1 at bit 16), stride offset 1024 bytes between
  // 8-row groups (64 at bit 32), 128-byte swizzle (1 at bit 62).
  WgmmaOffsets a = wgmmaKMajorOffsets();
  EXPECT_EQ(wgmmaDescriptor(0x400, a.leadingBytes, a.strideBytes), 0x4000004000010040ull);
  // B (N-major) in slabs of 64 columns over a strip of 64 k: slabs 64 x 128 = 8192 bytes apart
  // (0x200 at bit 16), 8-row groups of k 1024 bytes apart; at 0x10800: start 0x1080.
  WgmmaOffsets b = wgmmaMnMajorOffsets(64 * 128);
  EXPECT_EQ(wgmmaDescriptor(0x10800, b.leadingBytes, b.strideBytes), 0x4000004002001080ull);
  // Addresses are taken modulo 2^18 and lose their low 4 bits.
  EXPECT_EQ(wgmmaDescriptor(0x40000 + 0x400 + 0xF, a.leadingBytes, a.strideBytes), 0x4000004000010040ull);
  // The fields one at a time.
  EXPECT_EQ(wgmmaDescriptor(0, 0, 0), 1ull << 62);
  EXPECT_EQ(wgmmaDescriptor(0x3FFF0, 0, 0) & 0x3FFF, 0x3FFFull);
  EXPECT_EQ(wgmmaDescriptor(0, 0x3FFF0, 0) >> 16 & 0x3FFF, 0x3FFFull);
  EXPECT_EQ(wgmmaDescriptor(0, 0, 0x3FFF0) >> 32 & 0x3FFF, 0x3FFFull);
}

// Where the hardware reads element (row, col) of an operand tile through a descriptor of the
// 128-byte swizzle, per the ISA's canonical layouts: the unswizzled byte address, then the
// swizzle on the address itself (its bits 4-6, the 16-byte chunk, XORed with bits 7-9).
uint64_t canonicalAddress(uint64_t desc, bool kMajor, int64_t row, int64_t col) {
  uint64_t start = (desc & 0x3FFF) << 4, leading = (desc >> 16 & 0x3FFF) << 4, stride = (desc >> 32 & 0x3FFF) << 4;
  uint64_t a =
      kMajor ? start + (row / 8) * stride + (row % 8) * 128 + col * 2                                 // A: row m, col k
             : start + (col / 64) * leading + (row / 8) * stride + (row % 8) * 128 + (col % 64) * 2;  // B: row k, col n
  return a ^ ((a >> 7 & 7) << 4);
}

// Where the stages store element (row, col) of a buffer of `rows` rows (src/loop/swizzle.hpp; in
// slabs of 64 columns where `slabs`) that starts at `base`.
uint64_t storedAddress(uint64_t base, bool slabs, int64_t rows, int64_t row, int64_t col) {
  Swizzle swizzle;
  EXPECT_EQ(swizzleFor(128, swizzle), "");
  int64_t slab = slabs ? col / 64 : 0, within = slabs ? col % 64 : col;
  return base + slab * rows * 128 + row * 128 + swizzle.chunkAt(row, within / 8) * 16 + within % 8 * 2;
}

// Every element each wgmma of a strip reads is the one the stage stored there: A (128 rows of 64
// k) by its 64-row tiles and k steps, B (64 k by 256 n in slabs) by its k steps and 128-column
// tiles, at 1024-aligned buffers, with the descriptors the emitter computes (start address as in
// the emitted offsets: A 128 bytes a row and 32 a k step; B a slab's bytes a 64 columns and 2048
// a k step).
TEST(WgmmaDescriptor, ReadsWhatTheSwizzledStagesStore) {
  const uint64_t aBase = 0x8000, bBase = 0x10000;
  WgmmaOffsets a = wgmmaKMajorOffsets(), b = wgmmaMnMajorOffsets(64 * 128);
  for (int64_t tile = 0; tile < 2; ++tile)
    for (int64_t step = 0; step < 4; ++step) {
      uint64_t desc = wgmmaDescriptor(aBase + 128 * 64 * tile + 32 * step, a.leadingBytes, a.strideBytes);
      for (int64_t m = 0; m < 64; ++m)
        for (int64_t k = 0; k < 16; ++k)
          ASSERT_EQ(canonicalAddress(desc, true, m, k), storedAddress(aBase, false, 128, 64 * tile + m, 16 * step + k))
              << "A tile " << tile << " step " << step << " m " << m << " k " << k;
    }
  for (int64_t tile = 0; tile < 2; ++tile)
    for (int64_t step = 0; step < 4; ++step) {
      uint64_t desc = wgmmaDescriptor(bBase + 2 * 64 * 128 * tile + 2048 * step, b.leadingBytes, b.strideBytes);
      for (int64_t k = 0; k < 16; ++k)
        for (int64_t n = 0; n < 128; ++n)
          ASSERT_EQ(canonicalAddress(desc, false, k, n), storedAddress(bBase, true, 64, 16 * step + k, 128 * tile + n))
              << "B tile " << tile << " step " << step << " k " << k << " n " << n;
    }
}

// tf32: both operands K-major, 32 k (128 bytes) a row. Where the hardware reads element (row, k)
// through a K-major descriptor (T = 4 elements of 32 bits, ((8,m),(T,2k)) : ((8T,SBO),(1,T))),
// and where the stage stored it: chunk k / 4 of the row, swizzled, word k % 4 of it.
uint64_t canonicalKMajorTf32(uint64_t desc, int64_t row, int64_t k) {
  uint64_t start = (desc & 0x3FFF) << 4, stride = (desc >> 32 & 0x3FFF) << 4;
  uint64_t a = start + (row / 8) * stride + (row % 8) * 128 + k * 4;
  return a ^ ((a >> 7 & 7) << 4);
}

uint64_t storedTf32(uint64_t base, int64_t row, int64_t k) {
  Swizzle swizzle;
  EXPECT_EQ(swizzleFor(128, swizzle), "");
  return base + row * 128 + swizzle.chunkAt(row, k / 4) * 16 + k % 4 * 4;
}

// B[k][n] stored transposed as B_s[n][k] is read by the same descriptors as A: every element of
// each k step of 8 (32 bytes on) and each 64-row tile (n) is where the stage put it.
TEST(WgmmaDescriptor, Tf32ReadsBothOperandsKMajor) {
  const uint64_t base = 0x10000;
  WgmmaOffsets o = wgmmaKMajorOffsets();
  for (int64_t tile = 0; tile < 4; ++tile)
    for (int64_t step = 0; step < 4; ++step) {
      uint64_t desc = wgmmaDescriptor(base + 128 * 64 * tile + 32 * step, o.leadingBytes, o.strideBytes);
      for (int64_t row = 0; row < 64; ++row)
        for (int64_t k = 0; k < 8; ++k)
          ASSERT_EQ(canonicalKMajorTf32(desc, row, k), storedTf32(base, 64 * tile + row, 8 * step + k))
              << "tile " << tile << " step " << step << " row " << row << " k " << k;
    }
}

// The transposed swizzled stage's copy in warp tiles (emit_stage.cpp): item e of a box of
// `rows` k by `cols` n goes to source row stage_0 and column stage_1 as the emitted places say.
// Every element is copied once, and each warp's 32 stores into B_s[n][k] fall in 32 banks while
// its reads are 4 whole 32-byte sectors.
TEST(EmitWgmma, Tf32TransposedStageStoresWarpTilesInEveryBank) {
  const int64_t rows = 32, cols = 256, tilesARow = cols / 8;
  std::vector<int> copied(rows * cols, 0);
  for (int64_t warp = 0; warp < rows * cols / 32; ++warp) {
    std::set<int64_t> banks, sectors;
    for (int64_t lane = 0; lane < 32; ++lane) {
      int64_t e = 32 * warp + lane;
      int64_t k = e / 8 % 4 + 4 * (e / (32 * tilesARow)), n = e % 8 + 8 * (e / 32 % tilesARow);
      ASSERT_LT(k, rows);
      ASSERT_LT(n, cols);
      ++copied[k * cols + n];
      banks.insert(storedTf32(0, n, k) / 4 % 32);
      sectors.insert((k * cols + n) * 4 / 32);
    }
    EXPECT_EQ(banks.size(), 32u) << "warp " << warp;
    EXPECT_EQ(sectors.size(), 4u) << "warp " << warp;
  }
  for (int c : copied) ASSERT_EQ(c, 1);
}

const std::string kWgmma128x256 =
    "tile i,j 128,256; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; regtile i,j 64,256; strip k 64; "
    "stage A at k_o swizzle; stage B at k_o swizzle slabs 64; map k_o async 4; unroll k 64; wgmma i,j,k 64,256,16";

TEST(EmitWgmma, WarpgroupsReadSwizzledStagesByDescriptor) {
  auto k = testing::emittedKernel("hgemm.loop", {{"M", 4096}, {"N", 4096}, {"K", 4096}}, kWgmma128x256);
  ASSERT_TRUE(k);
  const std::string& src = k->source;
  EXPECT_EQ(k->requiredArch, "sm_90a");
  // Two warpgroups of 128 threads, one a 64-row half of the block tile.
  EXPECT_EQ(k->block[0], 128u);
  EXPECT_EQ(k->block[1], 2u);
  EXPECT_NE(src.find("const int warp_y = threadIdx.y;"), std::string::npos) << src;
  EXPECT_NE(src.find("const int mma_w = (threadIdx.x >> 5) & 3;"), std::string::npos) << src;
  EXPECT_NE(src.find("float C_r[1][32][4];"), std::string::npos) << src;
  // Four buffers of A (128 rows of 64) and of B (4 slabs of 64 rows of 64 columns), 1024-byte
  // aligned; the write-back's rows, 2 KB for each of the 8 warps.
  EXPECT_EQ(k->sharedBytes, 4u * (128 * 64 + 64 * 256) * 2 + 8 * 2048);
  EXPECT_NE(src.find("extern __shared__ __align__(1024) unsigned char shared_memory[];"), std::string::npos);
  EXPECT_NE(src.find("__half (*B_s)[4][64][64]"), std::string::npos) << src;
  // B's copies go into their slab, the column swizzled within it.
  EXPECT_NE(src.find("&B_s[0][(stage_1) >> 6][stage_0][((stage_1) & 63) ^ ((stage_0 & 7) << 3)]"), std::string::npos)
      << src;
  // One wgmma a k step of 16: A's start 32 bytes on, B's 16 rows (2048 bytes) on; the layouts'
  // constant fields (K-major: 16 and 1024 bytes; N-major: 8192 and 1024 bytes; 128-byte swizzle).
  EXPECT_NE(src.find("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {%0, %1,"), std::string::npos) << src;
  EXPECT_NE(src.find(", p, 1, 1, 0, 1;"), std::string::npos);  // B transposed (N-major), A not
  EXPECT_NE(
      src.find("wgmma_m64n256k16_f16(C_r[i_o3_u][32*j_o3_u], wgmma_descriptor(0x4000004000010000ull, "
               "reinterpret_cast<const char*>(&A_s[stage_slot][0][0]) + 128*i_o2 + 8192*i_o3_u + 32*k_o2_u - 128*i_o), "
               "wgmma_descriptor(0x4000004002000000ull, reinterpret_cast<const char*>(&B_s[stage_slot][0][0][0]) + "
               "128*j_o2 + 32768*j_o3_u + 2048*k_o2_u - 128*j_o));"),
      std::string::npos)
      << src;
  // A strip: its copies issued two strips ahead (one group of wgmma still reads the strip before),
  // fenced, committed as one group, all but it waited for; every group waited for after the loop.
  for (const char* step : {"async_wait<1>();", "wgmma_proxy_fence();", "__syncthreads();", "(stage_slot + 2) % 4",
                           "async_commit();", "wgmma_fence();", "wgmma_m64n256k16_f16(", "wgmma_commit();",
                           "wgmma_wait<1>();", "wgmma_wait<0>();", "*reinterpret_cast<uint4*>(&C["}) {
    size_t at = src.find(step, src.find("for (int k_o = 0;"));
    EXPECT_NE(at, std::string::npos) << step << "\n" << src;
  }
  EXPECT_LT(src.find("wgmma_wait<1>();", src.find("for (int k_o = 0;")), src.find("wgmma_wait<0>();"));
  EXPECT_LT(src.find("wgmma_wait<0>();"), src.find("*reinterpret_cast<uint4*>(&C["));
}

// The producer's registers go to the warpgroups that multiply only as far as it gave them back:
// setmaxnreg.inc waits for the block's pool to hold them, so more would hang the block. Of a
// block of 384 threads (168 registers a thread at launch) the two take 232; of 640 (96), four
// take 104; a warpgroup that multiplies alone (255 at launch) takes none.
TEST(EmitWgmma, TheProducerHandsBackRegistersTheOthersMayTake) {
  const std::string registerA =
      "tile i,j 128,256; map i_o grid.y; map j_o grid.x; map i block.x; map j block.y; regtile i,j 128,64; strip k "
      "32; stage A at k_o swizzle; stage B at k_o swizzle slabs 32; map k_o async 3; unroll k 32; wgmma j,i,k "
      "64,128,8 producer tma";
  struct Split {
    const char* example;
    std::string recipe;
    int threads, launched, producer, consumers;  // consumers 0: no split
  };
  for (const Split& c :
       {Split{"hgemm.loop", kWgmma128x256 + " producer tma", 384, 168, 40, 232},
        Split{"tf32gemm.loop", registerA, 640, 96, 40, 104},
        Split{"hgemm.loop", std::string(kWgmma128x256).replace(0, 16, "tile i,j 64,256") + " producer tma", 256, 255, 0,
              0}}) {
    SCOPED_TRACE(c.recipe);
    auto k = testing::emittedKernel(c.example, {{"M", 1024}, {"N", 1024}, {"K", 1024}}, c.recipe);
    ASSERT_TRUE(k);
    EXPECT_EQ(k->block[0] * k->block[1], static_cast<unsigned>(c.threads));
    const std::string fewer = "warpgroup_registers_fewer<" + std::to_string(c.producer) + ">();",
                      more = "warpgroup_registers_more<" + std::to_string(c.consumers) + ">();";
    EXPECT_EQ(k->source.find(fewer) != std::string::npos, c.consumers > 0) << k->source;
    EXPECT_EQ(k->source.find(more) != std::string::npos, c.consumers > 0);
    if (c.consumers == 0) continue;
    const int warpgroups = c.threads / 128 - 1;
    EXPECT_LE(warpgroups * (c.consumers - c.launched), c.launched - c.producer);
    EXPECT_LE(128 * (c.producer + warpgroups * c.consumers), 65536);
  }
}

// A bound on the columns guards each tile of 8: the write-back goes by whole rows of 128 bytes
// only where no run of 4 tiles can be cut, the bound a multiple of 32 columns; otherwise by pairs.
TEST(EmitWgmma, RowRunsOnlyWhereNoBoundCutsARun) {
  for (const auto& [n, runs] : std::vector<std::pair<int64_t, bool>>{{992, true}, {1000, false}, {1008, false}}) {
    auto k = testing::emittedKernel("hgemm.loop", {{"M", 1000}, {"N", n}, {"K", 512}}, kWgmma128x256);
    ASSERT_TRUE(k) << n;
    EXPECT_EQ(k->source.find("*reinterpret_cast<uint4*>(&C[") != std::string::npos, runs) << n << "\n" << k->source;
    EXPECT_EQ(k->source.find("*reinterpret_cast<float2*>(&C[") != std::string::npos, !runs) << n;
  }
}

TEST(EmitWgmma, RowsOfTheWarpgroupAndNoGroupInFlight) {
  auto k = testing::emittedKernel(
      "bf16gemm.loop", {{"M", 512}, {"N", 256}, {"K", 256}},
      "tile i,j 256,128; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; "
      "regtile i,j 128,128; strip k 64; stage A at k_o swizzle; stage B at k_o swizzle slabs 64; "
      "map k_o async 3; unroll k 64; wgmma i,j,k 64,128,16 wait 0");
  ASSERT_TRUE(k);
  const std::string& src = k->source;
  EXPECT_NE(src.find("float C_r[2][16][4];"), std::string::npos) << src;  // two 64-row tiles a warpgroup
  EXPECT_NE(src.find("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"), std::string::npos) << src;
  EXPECT_NE(src.find("const int i = i_o3 + 16 * mma_w + mma_g + 8 * mma_p;"), std::string::npos) << src;
  EXPECT_NE(src.find("async_wait<1>();"), std::string::npos) << src;  // the copies two strips ahead
  EXPECT_NE(src.find("(stage_slot + 2) % 3"), std::string::npos) << src;
  EXPECT_NE(src.find("wgmma_wait<0>();  // all done"), std::string::npos) << src;
}

// A producer warpgroup (the last along block.y) fills each copy of the stages once its readers
// have released it; the warpgroups that multiply wait for it to land and release the strip
// before once its group of wgmma is done. No guard of theirs depends on the warpgroup (ptxas
// would serialize the wgmma behind one).
TEST(EmitWgmma, AProducerWarpgroupFillsTheStages) {
  auto k = testing::emittedKernel("hgemm.loop", {{"M", 4096}, {"N", 4096}, {"K", 4096}}, kWgmma128x256 + " producer");
  ASSERT_TRUE(k);
  const std::string& src = k->source;
  EXPECT_EQ(k->block[0], 128u);
  EXPECT_EQ(k->block[1], 3u);
  // The buffers, a full and an empty barrier each, and the write-back's rows (2 KB a warp that multiplies).
  EXPECT_EQ(k->sharedBytes, 4u * (128 * 64 + 64 * 256) * 2 + 2 * 8 * 4 + 8 * 2048);
  for (const char* text :
       {"mbarrier_init(&wgmma_full[s], 128);", "mbarrier_init(&wgmma_empty[s], 256);",
        "if (threadIdx.y == 2) {  // the producer warpgroup", "const int producer_rank = threadIdx.x;",
        "const int stage_e = producer_rank + 128 * stage_r;",
        "if (stage_round > 0) mbarrier_wait(&wgmma_empty[stage_slot], (stage_round - 1) & 1);",
        "async_arrive(&wgmma_full[stage_slot]);", "} else {  // the warpgroups that multiply",
        "mbarrier_wait(&wgmma_full[stage_slot], stage_round & 1);", "wgmma_proxy_fence();", "wgmma_fence();",
        "wgmma_m64n256k16_f16(", "wgmma_commit();", "wgmma_wait<1>();",
        "if (k_o / 64 > 0) mbarrier_arrive(&wgmma_empty[(stage_slot + 3) % 4]);", "wgmma_wait<0>();",
        "*reinterpret_cast<uint4*>(&C["}) {
    EXPECT_NE(src.find(text), std::string::npos) << text << "\n" << src;
  }
  // The producer's items are placed by its own rank among its 128 threads, not the block's.
  size_t produces = src.find("if (threadIdx.y == 2) {"),
         consumes = src.find("} else {  // the warpgroups that multiply");
  const std::string producer = src.substr(produces, consumes - produces);
  EXPECT_NE(producer.find("stage_0 = producer_rank / 8 + 16 * stage_r"), std::string::npos) << producer;
  EXPECT_EQ(producer.find("thread_rank"), std::string::npos) << producer;
  // In order: set up, produce, consume, write back.
  size_t setUp = src.find("__syncthreads();"), produce = src.find("async_arrive(&wgmma_full"),
         consume = src.find("wgmma_m64n256k16_f16(C_r"), written = src.find("*reinterpret_cast<float2*>(&C[");
  EXPECT_LT(src.find("mbarrier_init(&wgmma_full"), setUp);
  EXPECT_LT(setUp, produce);
  EXPECT_LT(produce, consume);
  EXPECT_LT(consume, written);
  // The warpgroups' guard (the producer's row of block.y has no tile) only outside the loop.
  size_t consumers = src.find("} else {  // the warpgroups that multiply");
  EXPECT_EQ(src.substr(consumers, src.find("wgmma_wait<0>();", consumers) - consumers).find("if (i_o2 <"),
            std::string::npos);
  EXPECT_NE(src.find("if (i_o2 < i_o + 128) {"), std::string::npos) << src;
}

// The producer's barriers count its cp.async copies: rows too narrow for them (K = 1001 halves:
// an element at a time) are refused, not copied by plain stores the barriers would not order.
TEST(EmitWgmma, AProducerCopiesByCpAsyncAlone) {
  EmitResult e =
      testing::emitExample("hgemm.loop", {{"M", 1001}, {"N", 1001}, {"K", 1001}}, kWgmma128x256 + " producer");
  EXPECT_FALSE(e.ok());
  EXPECT_NE(e.reason.find("a producer warpgroup fills the stages by cp.async alone"), std::string::npos) << e.reason;
}

// `producer tma`: the producer warpgroup's one thread fills each copy of the stages by the Tensor
// Memory Accelerator, a box of A's 128 rows of 64 k and one a slab of B's 64 k by 64 columns,
// through the tensor maps the kernel takes after its arrays; full[s] completes on its one arrival
// and the bytes it expects, no thread copies by cp.async.
TEST(EmitWgmma, AProducerThreadFillsTheStagesByTma) {
  auto k =
      testing::emittedKernel("hgemm.loop", {{"M", 4096}, {"N", 4096}, {"K", 4096}}, kWgmma128x256 + " producer tma");
  ASSERT_TRUE(k);
  const std::string& src = k->source;
  EXPECT_EQ(k->block[1], 3u);
  EXPECT_EQ(k->sharedBytes, 4u * (128 * 64 + 64 * 256) * 2 + 2 * 8 * 4 + 8 * 2048);
  for (const char* text :
       {"struct __align__(64) tensor_map { unsigned long long opaque[16]; };",
        "const __half* __restrict__ B, const __grid_constant__ tensor_map A_map, "
        "const __grid_constant__ tensor_map B_map) {",
        "mbarrier_init(&wgmma_full[s], 1);", "mbarrier_init(&wgmma_empty[s], 256);", "mbarrier_init_fence();",
        "if (threadIdx.y == 2) {  // the producer warpgroup", "if (threadIdx.x == 0) {",
        "if (stage_round > 0) mbarrier_wait(&wgmma_empty[stage_slot], (stage_round - 1) & 1);",
        "mbarrier_expect_bytes(&wgmma_full[stage_slot], 49152);",
        "mbarrier_wait(&wgmma_full[stage_slot], stage_round & 1);", "wgmma_m64n256k16_f16(",
        "if (k_o / 64 > 0) mbarrier_arrive(&wgmma_empty[(stage_slot + 3) % 4]);"})
    EXPECT_NE(src.find(text), std::string::npos) << text << "\n" << src;
  // The producer hands its registers to the two warpgroups that multiply (40 and 232 of the 512 a
  // thread of each warpgroup has), and each role runs its own copy of the work.
  const size_t producer = src.find("  if (threadIdx.y == 2) {  // the producer warpgroup: its registers handed");
  const size_t consumers = src.find("} else {  // the warpgroups that multiply, with the producer's registers");
  ASSERT_NE(producer, std::string::npos) << src;
  ASSERT_NE(consumers, std::string::npos) << src;
  EXPECT_EQ(src.find("warpgroup_registers_fewer<40>();"), src.find("\n", producer) + 5);
  EXPECT_EQ(src.find("warpgroup_registers_more<232>();"), src.find("\n", consumers) + 5);
  EXPECT_NE(src.find("__launch_bounds__(384, 1)"), std::string::npos);
  EXPECT_LT(src.find("mbarrier_init_fence();"), producer);  // the barriers set up before the roles split
  // One box of A, four of B (a slab's 8192 bytes apart), at the strip's k and the block's rows or
  // columns: in each role's copy of the work.
  size_t loads = 0;
  for (size_t at = src.find("tma_load_2d("); at != std::string::npos; at = src.find("tma_load_2d(", at + 1)) ++loads;
  EXPECT_EQ(loads, 1u + 2 * (1 + 4));  // the helper's definition, then the copies
  EXPECT_NE(src.find(", A_map, static_cast<int>(k_o), static_cast<int>(i_o), &wgmma_full[stage_slot]);"),
            std::string::npos)
      << src;
  EXPECT_NE(src.find(" + 24576, B_map, static_cast<int>(j_o + 192), static_cast<int>(k_o), &wgmma_full[stage_slot]);"),
            std::string::npos)
      << src;
  for (const char* absent : {"async_copy<", "async_arrive(&", "producer_rank", "async_wait<"})
    EXPECT_EQ(src.find(absent), std::string::npos) << absent << "\n" << src;
  // The launch's description of each map: the array's extents and row pitch, the box, innermost first.
  ASSERT_EQ(k->tensorMaps.size(), 2u);
  const TensorMapParam& a = k->tensorMaps[0];
  EXPECT_EQ(a.name, "A_map");
  EXPECT_EQ(a.array, "A");
  EXPECT_EQ(a.arrayParam, 1u);
  EXPECT_EQ(a.type, ScalarType::Half);
  EXPECT_EQ(a.dims, (std::vector<int64_t>{4096, 4096}));
  EXPECT_EQ(a.strides, (std::vector<int64_t>{8192}));
  EXPECT_EQ(a.box, (std::vector<int64_t>{64, 128}));
  EXPECT_EQ(a.swizzleBytes, 128);
  const TensorMapParam& b = k->tensorMaps[1];
  EXPECT_EQ(b.name, "B_map");
  EXPECT_EQ(b.arrayParam, 2u);
  EXPECT_EQ(b.box, (std::vector<int64_t>{64, 64}));
}

// `persistent 132`: 132 blocks take the 32 x 16 tiles of a 4096 x 4096 product in turn (block b:
// tiles b, b + 132, ...), rastered by the tile's number; the barriers are set up once, before the
// tiles; the strips are numbered on from tile to tile (16 a tile), so that the producer fills the
// next tile's stages as the consumers free them, the last strip of each tile freed after its
// loop. No barrier of the whole block inside the loop over tiles: the producer runs ahead.
TEST(EmitWgmma, PersistentBlocksTakeTheTilesInTurn) {
  const std::string recipe = kWgmma128x256 + " producer tma; persistent 132; raster 8";
  auto k = testing::emittedKernel("hgemm.loop", {{"M", 4096}, {"N", 4096}, {"K", 1024}}, recipe);
  ASSERT_TRUE(k);
  const std::string& src = k->source;
  EXPECT_EQ(k->grid[0], 132u);
  EXPECT_EQ(k->grid[1], 1u);
  EXPECT_EQ(k->grid[2], 1u);
  const size_t tiles = src.find(
      "for (unsigned block_tile = blockIdx.x, tile_turn = 0; block_tile < 512u; block_tile += gridDim.x, ++tile_turn) "
      "{");
  ASSERT_NE(tiles, std::string::npos) << src;
  const size_t setUp = src.find("mbarrier_init(&wgmma_full[s], 1);"), synced = src.find("__syncthreads();");
  EXPECT_LT(setUp, synced);
  EXPECT_LT(synced, tiles);
  EXPECT_EQ(src.find("__syncthreads();", synced + 1), std::string::npos) << src;
  for (const char* text :
       {"const unsigned block_linear = block_tile;",
        "const int stage_slot = (tile_turn * 16 + k_o / 64) % 4, stage_round = (tile_turn * 16 + k_o / 64) / 4;",
        "if (k_o / 64 > 0) mbarrier_arrive(&wgmma_empty[(stage_slot + 3) % 4]);",
        "mbarrier_arrive(&wgmma_empty[(tile_turn * 16 + 15) % 4]);"})
    EXPECT_GT(src.find(text), tiles) << text << "\n" << src;
  EXPECT_NE(src.find("persistent: each block takes the 32 x 16 tiles in turn"), std::string::npos);
  // Fewer tiles than blocks: a block a tile, each taking one turn.
  auto few = testing::emittedKernel("hgemm.loop", {{"M", 256}, {"N", 512}, {"K", 1024}}, recipe);
  ASSERT_TRUE(few);
  EXPECT_EQ(few->grid[0], 4u);
  // The same tiles one a block: no loop over tiles, the barriers set up in the body.
  auto one =
      testing::emittedKernel("hgemm.loop", {{"M", 4096}, {"N", 4096}, {"K", 1024}}, kWgmma128x256 + " producer tma");
  ASSERT_TRUE(one);
  EXPECT_EQ(one->grid[0] * one->grid[1], 512u);
  EXPECT_EQ(one->source.find("block_tile"), std::string::npos);
}

// `persistent 132 pingpong` on 64 x 256 tiles of one warpgroup: two groups of it (block.y 0 and
// 1) take alternate tiles, the producer (block.y 2) fills the strips of all of them in turn; each
// strip is one group's, so its empty barrier waits for 128 threads; a group takes a tile's strips
// once the group before is done with the tile before's (a barrier's parity tells one round from
// the next only); both groups' warpgroups sit at row 0 of their tile.
TEST(EmitWgmma, PingPongGroupsTakeAlternateTiles) {
  const std::string recipe =
      "tile i,j 64,256; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; regtile i,j 64,256; strip k "
      "64; stage A at k_o swizzle; stage B at k_o swizzle slabs 64; map k_o async 4; unroll k 64; wgmma i,j,k "
      "64,256,16 producer tma; persistent 132 pingpong; raster 8";
  auto k = testing::emittedKernel("hgemm.loop", {{"M", 4096}, {"N", 4096}, {"K", 1024}}, recipe);
  ASSERT_TRUE(k);
  const std::string& src = k->source;
  EXPECT_EQ(k->grid[0], 132u);
  EXPECT_EQ(k->block[0], 128u);
  EXPECT_EQ(k->block[1], 3u);
  for (const char* text :
       {"const unsigned tile_group = threadIdx.y < 2 ? threadIdx.y : 0u;",
        "const unsigned tile_stride = threadIdx.y < 2 ? 2u : 1u;",
        "for (unsigned block_tile = blockIdx.x + tile_group * gridDim.x, tile_turn = tile_group; block_tile < 1024u; "
        "block_tile += tile_stride * gridDim.x, tile_turn += tile_stride) {",
        "mbarrier_init(&wgmma_empty[s], 128);", "if (threadIdx.y == 2) {  // the producer warpgroup",
        "for (int g = 0; g < 2; ++g) mbarrier_init(&tile_order[g], 128);",
        "if (tile_turn > 0) mbarrier_wait(&tile_order[tile_turn % 2], ((tile_turn - 1) / 2) & 1);",
        "mbarrier_arrive(&tile_order[(tile_turn + 1) % 2]);", "const int stage_slot = (tile_turn * 16 + k_o / 64) % 4"})
    EXPECT_NE(src.find(text), std::string::npos) << text << "\n" << src;
  // A group's warpgroup is at row 0 of its tile, the producer past it: the write-back's guard
  // leaves the producer out.
  EXPECT_NE(src.find("const int warp_y = (threadIdx.y == 2 ? 1 : 0);"), std::string::npos) << src;
  EXPECT_NE(src.find("if (i_o2 < i_o + 64) {"), std::string::npos) << src;
  // Two warpgroups a tile: four groups' rows and the producer's.
  auto two = testing::emittedKernel("hgemm.loop", {{"M", 4096}, {"N", 4096}, {"K", 1024}},
                                    kWgmma128x256 + " producer tma; persistent 66 pingpong");
  ASSERT_TRUE(two);
  EXPECT_EQ(two->block[1], 5u);
  EXPECT_NE(two->source.find("const unsigned tile_group = threadIdx.y < 4 ? threadIdx.y / 2u : 0u;"),
            std::string::npos);
  EXPECT_NE(two->source.find("const int warp_y = (threadIdx.y == 4 ? 2 : threadIdx.y % 2);"), std::string::npos)
      << two->source;
  EXPECT_NE(two->source.find("mbarrier_init(&wgmma_empty[s], 256);"), std::string::npos);
}

// `cluster 2 grid.y`: clusters of two blocks on neighbouring block rows, launched side by side
// along x (the grid of 16 x 32 tiles launched as 32 x 16 blocks); a block's rank in its cluster
// picks its row of the pair; B's box is the same for both, so each copies its half of each slab's
// rows into both blocks (multicast, mask 3) while A's box is each block's own; the empty barriers
// count both blocks' warpgroups, whose arrivals reach both; the blocks set up together and leave
// together. A ping-pong recipe is refused a cluster (both orders), as is a third block.
TEST(EmitWgmma, ClustersOfTwoBlocksMulticastTheStageTheyShare) {
  auto k = testing::emittedKernel("hgemm.loop", {{"M", 4096}, {"N", 4096}, {"K", 1024}},
                                  kWgmma128x256 + " producer tma; cluster 2 grid.y");
  ASSERT_TRUE(k);
  const std::string& src = k->source;
  EXPECT_EQ(k->grid[0], 32u);
  EXPECT_EQ(k->grid[1], 16u);
  ASSERT_EQ(k->tensorMaps.size(), 2u);
  EXPECT_EQ(k->tensorMaps[0].box, (std::vector<int64_t>{64, 128}));  // A's whole box
  EXPECT_EQ(k->tensorMaps[1].box, (std::vector<int64_t>{64, 32}));   // half of each of B's slabs
  for (const char* text :
       {"__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(384, 1)",
        "const unsigned cluster_rank = blockIdx.x % 2u;", "const int block_x = blockIdx.x / 2u;",
        "const int cluster_y = blockIdx.y;", "const int block_y = 2 * cluster_y + cluster_rank;",
        "mbarrier_init(&wgmma_empty[s], 4);", "cluster_sync();  // every block of the cluster set up",
        "tma_load_2d(reinterpret_cast<char*>(&A_s[stage_slot][0][0]), A_map, static_cast<int>(k_o), "
        "static_cast<int>(i_o), &wgmma_full[stage_slot]);",
        "tma_load_2d_multicast(reinterpret_cast<char*>(&B_s[stage_slot][0][0][0]) + 8192 + cluster_rank * 4096, "
        "B_map, static_cast<int>(j_o + 64), static_cast<int>(k_o) + 32 * static_cast<int>(cluster_rank), "
        "&wgmma_full[stage_slot], 3);",
        "mbarrier_expect_bytes(&wgmma_full[stage_slot], 49152);",
        "if (k_o / 64 > 0) mbarrier_arrive_cluster(&wgmma_empty[(stage_slot + 3) % 4], 2);",
        "cluster_sync();  // the cluster's blocks leave together"})
    EXPECT_NE(src.find(text), std::string::npos) << text << "\n" << src;
  EXPECT_EQ(src.find("__syncthreads();"), std::string::npos);
  for (const std::string& refused : {kWgmma128x256 + " producer tma; persistent 132 pingpong; cluster 2 grid.y",
                                     kWgmma128x256 + " producer tma; cluster 2 grid.y; persistent 132 pingpong",
                                     kWgmma128x256 + " producer tma; cluster 3 grid.y"})
    EXPECT_NE(testing::refusalOf("hgemm.loop", {{"M", 4096}, {"N", 4096}, {"K", 1024}}, refused), "") << refused;
}

// Persistent blocks need a producer warpgroup to fill the next tile's stages: refused without one,
// and for tf32x3's splitting producer, each with its sentence.
TEST(EmitWgmma, PersistentBlocksNeedAProducer) {
  auto file = common::SourceFile::read(std::string(CUDABURG_EXAMPLES_DIR) + "/hgemm.loop");
  ASSERT_TRUE(file);
  common::Diagnostics diags(*file);
  auto kernel = parseLoopFile(*file, diags, {{"M", 1024}, {"N", 1024}, {"K", 1024}});
  ASSERT_TRUE(kernel) << diags.str();
  common::SourceFile recipeFile("recipe", kWgmma128x256 + "; persistent 132");
  common::Diagnostics recipeDiags(recipeFile);
  auto recipe = parseRecipe(recipeFile, recipeDiags);
  ASSERT_TRUE(recipe) << recipeDiags.str();
  EXPECT_EQ(printRecipeLine(*recipe), kWgmma128x256 + "; persistent 132");
  common::SourceFile pingPongFile("recipe", kWgmma128x256 + "; persistent 132 pingpong");
  auto pingPong = parseRecipe(pingPongFile, recipeDiags);
  ASSERT_TRUE(pingPong) << recipeDiags.str();
  EXPECT_EQ(printRecipeLine(*pingPong), kWgmma128x256 + "; persistent 132 pingpong");
  TransformResult t = applyRecipe(*kernel, *recipe);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.reason.find("only wgmma tiles with a producer run so"), std::string::npos) << t.reason;
  EXPECT_FALSE(runPersistent(*kernel, 132).ok());
  for (int64_t bad : {0, 65536}) EXPECT_FALSE(runPersistent(*kernel, bad).ok()) << bad;
}

// Partial tiles need nothing of the kernel (the boxes past the edges read zeros); a row pitch
// that is no multiple of 16 bytes has no tensor map.
TEST(EmitWgmma, TmaTakesUnevenSizesButNotUnalignedRows) {
  auto k =
      testing::emittedKernel("bf16gemm.loop", {{"M", 1000}, {"N", 200}, {"K", 88}}, kWgmma128x256 + " producer tma");
  ASSERT_TRUE(k);
  ASSERT_EQ(k->tensorMaps.size(), 2u);
  EXPECT_EQ(k->tensorMaps[0].dims, (std::vector<int64_t>{88, 1000}));
  EXPECT_EQ(k->tensorMaps[0].type, ScalarType::BFloat16);
  EXPECT_EQ(k->tensorMaps[1].dims, (std::vector<int64_t>{200, 88}));
  EXPECT_EQ(k->tensorMaps[1].strides, (std::vector<int64_t>{400}));
  EmitResult e =
      testing::emitExample("hgemm.loop", {{"M", 512}, {"N", 512}, {"K", 1004}}, kWgmma128x256 + " producer tma");
  EXPECT_FALSE(e.ok());
  EXPECT_NE(e.reason.find("a stage of A by TMA: A's rows of 2008 bytes are no multiple of 16"), std::string::npos)
      << e.reason;
}

// The tensor map's 128-byte swizzle, as the PTX ISA describes it for a box whose rows are 128
// bytes landing at a 1024-byte aligned address: rows one after another, then the address's bits
// 4-6 (its 16-byte chunk) XORed with bits 7-9. It puts every element of A's box, and of each of
// B's slab boxes at the slab's offset, where the stages' swizzle stores it (and the descriptors
// read it: ReadsWhatTheSwizzledStagesStore).
TEST(WgmmaDescriptor, TmaBoxesLandWhereTheSwizzledStagesStore) {
  auto landed = [](uint64_t to, int64_t row, int64_t col) {
    uint64_t a = to + row * 128 + col * 2;
    return a ^ ((a >> 7 & 7) << 4);
  };
  const uint64_t aBase = 0x8000, bBase = 0x10000;
  for (int64_t m = 0; m < 128; ++m)
    for (int64_t k = 0; k < 64; ++k)
      ASSERT_EQ(landed(aBase, m, k), storedAddress(aBase, false, 128, m, k)) << "A m " << m << " k " << k;
  for (int64_t slab = 0; slab < 4; ++slab)
    for (int64_t k = 0; k < 64; ++k)
      for (int64_t n = 0; n < 64; ++n)
        ASSERT_EQ(landed(bBase + slab * 64 * 128, k, n), storedAddress(bBase, true, 64, k, 64 * slab + n))
            << "B slab " << slab << " k " << k << " n " << n;
}

const std::string kTf32Wgmma128x256 =
    "tile i,j 128,256; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; regtile i,j 64,256; strip k 32; "
    "stage A at k_o swizzle; stage B at k_o transposed swizzle; map k_o async 4; unroll k 32; wgmma i,j,k 64,256,8";

// tf32: m64nNk8 without transpose operands, B copied transposed (4 bytes a cp.async, in warp
// tiles) and read K-major by a descriptor of A's kind; a producer warpgroup copies it so too,
// the Tensor Memory Accelerator (which copies 16-bit types as they are) not.
TEST(EmitWgmma, Tf32ReadsBTransposedByKMajorDescriptors) {
  auto k = testing::emittedKernel("tf32gemm.loop", {{"M", 4096}, {"N", 4096}, {"K", 4096}}, kTf32Wgmma128x256);
  ASSERT_TRUE(k);
  const std::string& src = k->source;
  EXPECT_EQ(k->requiredArch, "sm_90a");
  EXPECT_EQ(k->sharedBytes, 4u * (128 * 32 + 256 * 32) * 4 + 8 * 2048);  // and the write-back's rows
  EXPECT_NE(src.find("wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {%0, %1,"), std::string::npos) << src;
  EXPECT_NE(src.find(", p, 1, 1;\\n}"), std::string::npos) << src;
  EXPECT_EQ(src.find(", p, 1, 1, 0, 1;"), std::string::npos);
  // Both descriptors K-major (16 and 1024 bytes); B's tile 128 bytes a row of n, 32 bytes a k step.
  size_t call = src.find("wgmma_m64n256k8_tf32(C_r");
  ASSERT_NE(call, std::string::npos) << src;
  std::string line = src.substr(call, src.find('\n', call) - call);
  EXPECT_NE(line.find("wgmma_descriptor(0x4000004000010000ull, reinterpret_cast<const char*>(&A_s["), std::string::npos)
      << line;
  EXPECT_NE(line.find("wgmma_descriptor(0x4000004000010000ull, reinterpret_cast<const char*>(&B_s["), std::string::npos)
      << line;
  EXPECT_NE(line.find("32*k_o2_u"), std::string::npos) << line;
  EXPECT_NE(
      src.find("stage_0 = stage_e / 8 % 4 + 4 * (stage_e / 1024), stage_1 = stage_e % 8 + 8 * (stage_e / 32 % 32);"),
      std::string::npos)
      << src;
  EXPECT_NE(src.find("async_copy<4>(&B_s["), std::string::npos) << src;
  EXPECT_NE(src.find("async_copy<16>(&A_s["), std::string::npos) << src;

  auto produced =
      testing::emittedKernel("tf32gemm.loop", {{"M", 1000}, {"N", 1000}, {"K", 1000}}, kTf32Wgmma128x256 + " producer");
  ASSERT_TRUE(produced);
  EXPECT_NE(produced->source.find("async_copy<4>(&B_s["), std::string::npos);
  EmitResult tma =
      testing::emitExample("tf32gemm.loop", {{"M", 512}, {"N", 512}, {"K", 512}}, kTf32Wgmma128x256 + " producer tma");
  EXPECT_FALSE(tma.ok());
  EXPECT_NE(tma.reason.find("not transposed"), std::string::npos) << tma.reason;
}

const std::string kTf32RegisterA128x128 =
    "tile i,j 128,128; map i_o grid.y; map j_o grid.x; map i block.x; map j block.y; regtile i,j 128,64; strip k 32; "
    "stage A at k_o swizzle; stage B at k_o swizzle slabs 32; map k_o async 4; unroll k 32; wgmma j,i,k 64,128,8";

// The threads' loads of wgmma's A fragments (tf32, A from registers) from B's stage, rows of k in
// swizzled slabs of 32 columns: lane (g, t) of warp w loads register q from row 16w + g + 8 (q % 2)
// of the instruction, which is column 32 (w / 2) + 8 (w % 2) + 16 (g / 4) + g % 4 + 4 (q % 2) of
// the tile, at k t + 4 (q / 2) of its k step. Each load of a warp falls in 32 different banks.
TEST(EmitWgmma, Tf32RegisterAFragmentLoadsMeetNoBankConflict) {
  Swizzle swizzle;
  ASSERT_EQ(swizzleFor(128, swizzle), "");
  for (int64_t step = 0; step < 32; step += 8)
    for (int64_t w = 0; w < 4; ++w)
      for (int64_t q = 0; q < 4; ++q) {
        std::set<int64_t> banks, columns;
        for (int64_t lane = 0; lane < 32; ++lane) {
          const int64_t g = lane / 4, t = lane % 4;
          const int64_t column = 32 * (w / 2) + 8 * (w % 2) + 16 * (g / 4) + g % 4 + 4 * (q % 2),
                        k = step + t + 4 * (q / 2);
          const int64_t within = column % 32, chunk = swizzle.chunkAt(k, within / 4);
          const int64_t word = column / 32 * 32 * 32 + k * 32 + chunk * 4 + within % 4;
          banks.insert(word % 32);
          columns.insert(column);
        }
        EXPECT_EQ(banks.size(), 32u) << "k step " << step << ", warp " << w << ", register " << q;
        EXPECT_EQ(columns.size(), 8u);
      }
  // The permutation covers the 64 columns of the tile once.
  std::set<int64_t> rows;
  for (int64_t w = 0; w < 4; ++w)
    for (int64_t g = 0; g < 8; ++g)
      for (int64_t h = 0; h < 2; ++h) rows.insert(32 * (w / 2) + 8 * (w % 2) + 16 * (g / 4) + g % 4 + 4 * h);
  EXPECT_EQ(rows.size(), 64u);
  EXPECT_EQ(*rows.rbegin(), 63);
}

// tf32 with A from registers: the m64nNk8 instruction with four registers for A, the fragments
// loaded from B's stage (through its swizzle) a k step at a time, each step one group fenced after
// its loads and waited for by the next; B staged as it lies, by TMA in boxes of 32 columns; the
// accumulators written back transposed, element by element.
TEST(EmitWgmma, Tf32RegisterAReadsBFromRegistersAndWritesCTransposed) {
  auto k = testing::emittedKernel("tf32gemm.loop", {{"M", 1000}, {"N", 1000}, {"K", 1000}},
                                  kTf32RegisterA128x128 + " producer tma");
  ASSERT_TRUE(k);
  const std::string& src = k->source;
  EXPECT_EQ(k->requiredArch, "sm_90a");
  EXPECT_NE(src.find("wgmma_m64n128k8_tf32_rs(float* d, const unsigned* a, unsigned long long b)"), std::string::npos)
      << src;
  EXPECT_NE(src.find("wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {%0, %1,"), std::string::npos) << src;
  EXPECT_NE(src.find("}, {%64, %65, %66, %67}, %68, p, 1, 1;"), std::string::npos) << src;
  // Rounded to tf32 as loaded (wgmma would truncate).
  EXPECT_NE(src.find("wgmma_a[j_o3_u][0] = __float_as_uint(tf32_round(B_s[stage_slot]["), std::string::npos) << src;
  EXPECT_NE(src.find("^ (((mma_t + 4) & 7) << 2)]));"), std::string::npos) << src;  // the swizzle, k t + 4
  size_t call = src.find("wgmma_m64n128k8_tf32_rs(C_r");
  ASSERT_NE(call, std::string::npos) << src;
  std::string line = src.substr(call, src.find('\n', call) - call);
  EXPECT_NE(line.find("wgmma_a[j_o3_u], wgmma_descriptor(0x4000004000010000ull, reinterpret_cast<const char*>(&A_s["),
            std::string::npos)
      << line;
  // Fence after the loads, one group a k step, the one before waited for.
  size_t loads = src.find("wgmma_a[j_o3_u][3] ="), fence = src.find("wgmma_fence();", loads);
  ASSERT_NE(fence, std::string::npos);
  EXPECT_LT(fence, call);
  size_t commit = src.find("wgmma_commit();", call);
  ASSERT_NE(commit, std::string::npos);
  EXPECT_EQ(src.find("wgmma_wait<1>();", commit), src.find("wgmma_wait<", commit));
  // TMA: A's box of 128 rows of 32 k, B's 4 boxes of 32 columns by 32 rows of k, tf32 copied as floats.
  EXPECT_NE(src.find("// Stage B -> B_s: 4 boxes of 32 x 32, zero outside B"), std::string::npos) << src;
  ASSERT_EQ(k->tensorMaps.size(), 2u);
  for (const TensorMapParam& m : k->tensorMaps) {
    EXPECT_EQ(m.type, ScalarType::Float);
    EXPECT_EQ(m.box[0], 32);
  }
  // C transposed in the accumulators: D's rows run along j, permuted; stored an element at a time.
  EXPECT_NE(src.find("const int j = j_o3 + 32 * mma_wh + 8 * mma_wl + 16 * mma_gh + mma_gl + 4 * (mma_r >> 1);"),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("const int i = i_o3 + 2 * mma_t + (mma_r & 1);"), std::string::npos);
  EXPECT_NE(src.find("C[1000*i + j] = C_r[j_o3_u][i_o3_u][mma_r];"), std::string::npos) << src;
  EXPECT_EQ(src.find("float2"), std::string::npos);
}

}  // namespace
}  // namespace cudaburg
