// wgmma kernels compile with NVRTC for sm_90a, the architecture-specific target that wgmma needs,
// when the GPU is an sm_90, and are refused for any other: the half and bfloat16 products of the
// wgmma recipes keep everything in registers (no local memory) and hold the instructions asked for.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "src/cuda/compile/compiler.hpp"
#include "tests/cuda/emitted_example.hpp"

namespace cudaburg {
namespace {

std::string wgmmaRecipe(const std::string& block, const std::string& group, int64_t n, int buffers,
                        const std::string& options = "") {
  return "tile i,j " + block + "; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; regtile i,j " + group +
         "; strip k 64; stage A at k_o swizzle; stage B at k_o swizzle slabs 64; map k_o async " +
         std::to_string(buffers) + "; unroll k 64; wgmma i,j,k 64," + std::to_string(n) + ",16" + options +
         "; raster 8";
}

// `k` compiled for an sm_90 GPU (so for sm_90a), its PTX kept.
CompileResult compiledForSm90(const CudaKernel& k) {
  CompileOptions options;
  options.arch = "sm_90";
  options.keepPtx = true;
  options.useCache = false;
  return compile(k, options);
}

// Everything in registers: no stack, spills or local memory, and no wgmma that ptxas serialized.
void expectNoLocalMemory(const CompileResult& r) {
  EXPECT_EQ(r.resources.stackFrameBytes, 0) << r.log;
  EXPECT_FALSE(r.resources.spills()) << r.log;
  EXPECT_EQ(r.ptx.find(".local"), std::string::npos);
  EXPECT_EQ(r.log.find("serializ"), std::string::npos) << r.log;
}

// The square `example` of `size` under `recipe` compiled for an sm_90 GPU: checked accepted, for
// sm_90a, with `instruction` in its PTX (the caller goes on only where it compiled).
CompileResult expectWgmmaCompiled(const char* example, int64_t size, const std::string& recipe,
                                  const char* instruction) {
  auto k = testing::emittedKernel(example, {{"M", size}, {"N", size}, {"K", size}}, recipe);
  EXPECT_TRUE(k);
  if (!k) return {};
  CompileResult r = compiledForSm90(*k);
  EXPECT_TRUE(r.compiled) << r.errorLog;
  EXPECT_TRUE(r.ok) << r.reason;
  EXPECT_NE(r.ptx.find(".target sm_90a"), std::string::npos);
  EXPECT_NE(r.ptx.find(std::string("wgmma.mma_async.sync.aligned.") + instruction), std::string::npos);
  return r;
}

TEST(CompileWgmma, ProductsCompileForSm90aWithoutLocalMemory) {
  struct Case {
    const char* example;
    int64_t size;
    std::string recipe;
    const char* instruction;
  };
  for (const Case& c :
       {Case{"hgemm.loop", 4096, wgmmaRecipe("128,256", "64,256", 256, 4), "m64n256k16.f32.f16.f16"},
        Case{"bf16gemm.loop", 4096, wgmmaRecipe("256,128", "128,128", 128, 4), "m64n128k16.f32.bf16.bf16"},
        Case{"hgemm.loop", 1000, wgmmaRecipe("128,128", "64,128", 128, 3), "m64n128k16.f32.f16.f16"},
        Case{"hgemm.loop", 4096, wgmmaRecipe("128,256", "64,256", 256, 4, " producer"), "m64n256k16.f32.f16.f16"},
        Case{"bf16gemm.loop", 1000, wgmmaRecipe("256,128", "128,128", 128, 3, " producer"),
             "m64n128k16.f32.bf16.bf16"}}) {
    SCOPED_TRACE(std::string(c.example) + " " + std::to_string(c.size) + " under " + c.recipe);
    CompileResult r = expectWgmmaCompiled(c.example, c.size, c.recipe, c.instruction);
    if (!r.compiled) continue;
    EXPECT_NE(r.log.find("sm_90a"), std::string::npos) << r.log;  // ptxas compiled for the specific target
    for (const char* op :
         {"wgmma.fence.sync.aligned", "wgmma.commit_group.sync.aligned", "wgmma.wait_group.sync.aligned",
          "fence.proxy.async.shared::cta", "cp.async.cg.shared.global"})
      EXPECT_NE(r.ptx.find(op), std::string::npos) << op;
    if (c.recipe.find("producer") != std::string::npos) {
      for (const char* op : {"mbarrier.init.shared::cta.b64", "mbarrier.try_wait.parity.shared::cta.b64",
                             "mbarrier.arrive.shared::cta.b64", "cp.async.mbarrier.arrive.noinc.shared::cta.b64"})
        EXPECT_NE(r.ptx.find(op), std::string::npos) << op;
    }
    EXPECT_EQ(r.resources.stackFrameBytes, 0) << r.log;
    EXPECT_FALSE(r.resources.spills()) << r.log;
    EXPECT_EQ(r.ptx.find(".local"), std::string::npos);
    // ptxas would say so where it had to serialize the wgmma (accumulators touched in flight).
    EXPECT_EQ(r.log.find("serializ"), std::string::npos) << r.log;
  }
}

// Implicit GEMMs of channels-last convolutions on wgmma: both gathers (pixels and filters, rows
// of r*s*c) read K-major by descriptor (the filters' instruction without B's transpose), filled by
// 16-byte cp.async copies (zero-filled in the padding), with 64 channels and with 32 (a strip of
// two taps, the last strip partial), stride 2 and 1x1 taps, by the warpgroups or a producer.
TEST(CompileWgmma, ImplicitGemmsOfChannelsLastConvolutionsCompileForSm90a) {
  auto recipe = [](const std::string& tile, const std::string& group, int64_t n, const std::string& options) {
    return "collapse r,s,c; collapse n,oh,ow; tile n_oh_ow,k " + tile +
           "; map n_oh_ow_o grid.y; map k_o grid.x; "
           "map n_oh_ow block.y; map k block.x; regtile n_oh_ow,k " +
           group +
           "; strip r_s_c 64; "
           "stage In at r_s_c_o transposed swizzle; stage Wt at r_s_c_o transposed swizzle; map r_s_c_o async 4; "
           "unroll r_s_c 64; wgmma n_oh_ow,k,r_s_c 64," +
           std::to_string(n) + ",16" + options;
  };
  struct Case {
    std::map<std::string, int64_t> sizes;
    std::string recipe;
    const char* instruction;
  };
  const std::map<std::string, int64_t> resnet = {{"N", 32}, {"C", 128}, {"H", 28}, {"W", 28}, {"K", 128}};
  for (const Case& c : {Case{resnet, recipe("128,128", "64,128", 128, ""), "m64n128k16.f32.f16.f16"},
                        Case{resnet, recipe("256,128", "128,128", 128, " producer"), "m64n128k16.f32.f16.f16"},
                        Case{{{"N", 3}, {"C", 32}, {"H", 13}, {"W", 11}, {"K", 96}},
                             recipe("128,64", "64,64", 64, ""),
                             "m64n64k16.f32.f16.f16"},
                        Case{{{"N", 4}, {"C", 64}, {"H", 15}, {"W", 15}, {"K", 256}, {"ST", 2}},
                             recipe("128,256", "64,256", 256, ""),
                             "m64n256k16.f32.f16.f16"},
                        Case{{{"N", 4}, {"C", 256}, {"H", 14}, {"W", 14}, {"K", 64}, {"R", 1}, {"S", 1}, {"P", 0}},
                             recipe("128,64", "64,64", 64, ""),
                             "m64n64k16.f32.f16.f16"}}) {
    SCOPED_TRACE(c.recipe);
    auto k = testing::emittedKernel("conv2d_nhwc_half.loop", c.sizes, c.recipe);
    ASSERT_TRUE(k);
    EXPECT_NE(k->source.find("p, 1, 1, 0, 0;"), std::string::npos) << "B read K-major, untransposed";
    CompileResult r = compiledForSm90(*k);
    ASSERT_TRUE(r.compiled) << r.errorLog;
    EXPECT_TRUE(r.ok) << r.reason;
    EXPECT_NE(r.ptx.find(".target sm_90a"), std::string::npos);
    EXPECT_NE(r.ptx.find(std::string("wgmma.mma_async.sync.aligned.") + c.instruction), std::string::npos);
    for (const char* op :
         {"cp.async.cg.shared.global", "fence.proxy.async.shared::cta", "wgmma.commit_group.sync.aligned"})
      EXPECT_NE(r.ptx.find(op), std::string::npos) << op;
    expectNoLocalMemory(r);
  }
}

// The all-half layer (conv2d_nhwc_fp16.loop: half output, fp32 sums) on wgmma at ResNet-50's sizes
// (N=32): each lane's pairs of sums converted to __half2 into its warp's rows in shared memory and
// read back 16 bytes a lane, whole 128-byte rows a store, no 2-byte store left, the collapsed
// pixels' indices derived for each row (and its row checked where the last tile is partial, 7x7);
// the 1x1 layer of 64 channels in one strip, two buffers, none in flight.
TEST(CompileWgmma, AllHalfConvolutionsStoreWholeRowsForSm90a) {
  auto recipe = [](const std::string& tile, const std::string& group, int64_t n, int buffers,
                   const std::string& options) {
    return "collapse r,s,c; collapse n,oh,ow; tile n_oh_ow,k " + tile +
           "; map n_oh_ow_o grid.y; map k_o grid.x; "
           "map n_oh_ow block.y; map k block.x; regtile n_oh_ow,k " +
           group +
           "; strip r_s_c 64; "
           "stage In at r_s_c_o transposed swizzle; stage Wt at r_s_c_o transposed swizzle; map r_s_c_o async " +
           std::to_string(buffers) + "; unroll r_s_c 64; wgmma n_oh_ow,k,r_s_c 64," + std::to_string(n) + ",16" +
           options;
  };
  struct Case {
    std::map<std::string, int64_t> sizes;
    std::string recipe;
    bool rowChecked;  // the last tile of pixels is partial
  };
  const std::map<std::string, int64_t> l2 = {{"N", 32}, {"C", 128}, {"H", 28}, {"W", 28}, {"K", 128}};
  const std::map<std::string, int64_t> l4 = {{"N", 32}, {"C", 512}, {"H", 7}, {"W", 7}, {"K", 512}};
  const std::map<std::string, int64_t> expand = {{"N", 32},  {"C", 64}, {"H", 56}, {"W", 56},
                                                 {"K", 256}, {"R", 1},  {"S", 1},  {"P", 0}};
  for (const Case& c : {Case{l2, recipe("128,128", "64,128", 128, 4, ""), false},
                        Case{l4, recipe("128,128", "64,128", 128, 4, ""), true},
                        Case{expand, recipe("128,256", "64,256", 256, 2, " wait 0"), false},
                        Case{expand, recipe("128,128", "64,128", 128, 2, " wait 0 producer"), false}}) {
    SCOPED_TRACE(c.recipe);
    auto k = testing::emittedKernel("conv2d_nhwc_fp16.loop", c.sizes, c.recipe);
    ASSERT_TRUE(k);
    EXPECT_NE(k->source.find("*reinterpret_cast<uint4*>(&Out["), std::string::npos);
    EXPECT_NE(k->source.find("__floats2half2_rn(mma_pair[0], mma_pair[1]); mma_rows["), std::string::npos);
    EXPECT_EQ(k->source.find("__float2half("), std::string::npos) << "a sum stored alone";
    EXPECT_EQ(k->source.find("if (n_oh_ow < ") != std::string::npos, c.rowChecked);
    CompileResult r = compiledForSm90(*k);
    ASSERT_TRUE(r.compiled) << r.errorLog;
    EXPECT_TRUE(r.ok) << r.reason;
    EXPECT_NE(r.ptx.find("wgmma.mma_async.sync.aligned.m64n"), std::string::npos);
    EXPECT_NE(r.ptx.find("st.global.v4.u32"), std::string::npos);
    for (const char* op : {"st.global.b16", "st.global.u16", "st.global.u32"})
      EXPECT_EQ(r.ptx.find(op), std::string::npos) << op;
    expectNoLocalMemory(r);
  }
}

// Every all-half recipe of bench/cases/conv-wgmma.txt (the candidates measured on the GPU) applies
// and compiles for sm_90a with nothing in local memory, as the GPU run needs it to.
TEST(CompileWgmma, TheAllHalfBenchCasesCompileForSm90a) {
  std::ifstream in(std::string(CUDABURG_EXAMPLES_DIR) + "/../bench/cases/conv-wgmma.txt");
  ASSERT_TRUE(in);
  std::map<std::string, int64_t> sizes;
  bool allHalf = false;
  int compiled = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (line[0] != ' ') {  // an example and its sizes: FILE NAME=VALUE ...
      std::istringstream words(line);
      std::string file, assignment;
      words >> file;
      allHalf = file == "conv2d_nhwc_fp16.loop";
      sizes.clear();
      while (words >> assignment)
        sizes[assignment.substr(0, assignment.find('='))] = std::stoll(assignment.substr(assignment.find('=') + 1));
      continue;
    }
    if (!allHalf) continue;
    const std::string recipe = line.substr(line.find(':') + 1);
    SCOPED_TRACE(line);
    auto k = testing::emittedKernel("conv2d_nhwc_fp16.loop", sizes, recipe);
    if (!k) continue;
    CompileResult r = compiledForSm90(*k);
    ASSERT_TRUE(r.compiled) << r.errorLog;
    EXPECT_TRUE(r.ok) << r.reason;
    expectNoLocalMemory(r);
    ++compiled;
  }
  EXPECT_GE(compiled, 24);  // four a layer
}

// A producer warpgroup that fills the stages by the Tensor Memory Accelerator: its one thread's
// bulk tensor copies and expecting arrivals, no copy of a thread's own (cp.async) anywhere, and
// the same sane resources.
TEST(CompileWgmma, TmaProducersCompileForSm90a) {
  struct Case {
    const char* example;
    std::map<std::string, int64_t> sizes;
    std::string recipe;
  };
  for (const Case& c : {Case{"hgemm.loop",
                             {{"M", 4096}, {"N", 4096}, {"K", 4096}},
                             wgmmaRecipe("128,256", "64,256", 256, 4, " producer tma")},
                        Case{"bf16gemm.loop",
                             {{"M", 1000}, {"N", 1000}, {"K", 1000}},
                             wgmmaRecipe("256,128", "128,128", 128, 3, " producer tma")},
                        Case{"hgemm.loop",
                             {{"M", 200}, {"N", 136}, {"K", 88}},
                             wgmmaRecipe("128,128", "64,128", 128, 2, " wait 0 producer tma")}}) {
    SCOPED_TRACE(std::string(c.example) + " under " + c.recipe);
    auto k = testing::emittedKernel(c.example, c.sizes, c.recipe);
    ASSERT_TRUE(k);
    CompileResult r = compiledForSm90(*k);
    ASSERT_TRUE(r.compiled) << r.errorLog;
    EXPECT_TRUE(r.ok) << r.reason;
    EXPECT_NE(r.ptx.find(".target sm_90a"), std::string::npos);
    for (const char* op : {"cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
                           "mbarrier.arrive.expect_tx.shared::cta.b64", "fence.mbarrier_init.release.cluster",
                           "mbarrier.try_wait.parity.shared::cta.b64", "mbarrier.arrive.shared::cta.b64",
                           "wgmma.mma_async.sync.aligned"})
      EXPECT_NE(r.ptx.find(op), std::string::npos) << op;
    for (const char* op : {"cp.async.cg", "cp.async.ca", "cp.async.mbarrier.arrive", "cp.async.wait_group"})
      EXPECT_EQ(r.ptx.find(op), std::string::npos) << op;
    // The tensor maps are parameters of 128 bytes, aligned to 64.
    EXPECT_NE(r.ptx.find(".param .align 64 .b8"), std::string::npos) << r.ptx.substr(0, 4000);
    expectNoLocalMemory(r);
  }
}

// Persistent blocks, by the TMA's producer thread and by cp.async's producer warpgroup: their loop
// over tiles compiles for sm_90a with everything in registers.
TEST(CompileWgmma, PersistentBlocksCompileForSm90a) {
  for (const std::string& recipe :
       {wgmmaRecipe("128,256", "64,256", 256, 4, " producer tma; persistent 132"),
        wgmmaRecipe("128,128", "64,128", 128, 3, " producer; persistent 264"),
        wgmmaRecipe("64,256", "64,256", 256, 4, " producer tma; persistent 132 pingpong"),
        wgmmaRecipe("128,128", "128,128", 128, 4, " producer tma; persistent 132 pingpong")}) {
    SCOPED_TRACE(recipe);
    auto k = testing::emittedKernel("hgemm.loop", {{"M", 4096}, {"N", 4096}, {"K", 1024}}, recipe);
    ASSERT_TRUE(k);
    CompileResult r = compiledForSm90(*k);
    ASSERT_TRUE(r.compiled) << r.errorLog;
    EXPECT_TRUE(r.ok) << r.reason;
    expectNoLocalMemory(r);
  }
}

// The half linear layer, its bias added at the write-back through the warps' rows of shared
// memory, in persistent blocks, in clusters and in ping-pong: everything in registers.
TEST(CompileWgmma, PersistentLinearLayersWriteBackWithoutLocalMemory) {
  const std::string tile =
      "tile i,j 128,256; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; regtile i,j 64,256; strip k "
      "64; stage X at k_o swizzle; stage W at k_o swizzle slabs 64; map k_o async 4; unroll k 64; wgmma i,j,k "
      "64,256,16 producer tma; ";
  for (const std::string& rest :
       {"persistent 132; raster 8", "persistent 132; cluster 2 grid.y; raster 8", "cluster 2 grid.y; raster 8"}) {
    SCOPED_TRACE(rest);
    auto k = testing::emittedKernel("linear_half.loop", {{"M", 4096}, {"N", 4096}, {"K", 1024}}, tile + rest);
    ASSERT_TRUE(k);
    EXPECT_NE(k->source.find("*reinterpret_cast<uint4*>(&Y["), std::string::npos);
    CompileResult r = compiledForSm90(*k);
    ASSERT_TRUE(r.compiled) << r.errorLog;
    expectNoLocalMemory(r);
  }
}

// Clusters of two blocks (`cluster 2 grid.y`: neighbouring block rows, sharing B's stage;
// `grid.x`: neighbouring columns, sharing A's), with and without persistent blocks: a cluster of
// the launch, each shared box copied half by each block into both (multicast), the buffers freed
// on both blocks' barriers, and everything in registers.
TEST(CompileWgmma, ClustersShareTheirStagesByMulticastForSm90a) {
  for (const std::string& recipe :
       {wgmmaRecipe("128,256", "64,256", 256, 4, " producer tma; cluster 2 grid.y"),
        wgmmaRecipe("128,256", "64,256", 256, 4, " producer tma; persistent 132; cluster 2 grid.y"),
        wgmmaRecipe("128,128", "64,128", 128, 4, " producer tma; cluster 2 grid.x")}) {
    SCOPED_TRACE(recipe);
    auto k = testing::emittedKernel("hgemm.loop", {{"M", 4096}, {"N", 4096}, {"K", 1024}}, recipe);
    ASSERT_TRUE(k);
    EXPECT_NE(k->source.find("__cluster_dims__(2, 1, 1)"), std::string::npos);
    CompileResult r = compiledForSm90(*k);
    ASSERT_TRUE(r.compiled) << r.errorLog;
    EXPECT_TRUE(r.ok) << r.reason;
    for (const char* op : {".reqnctapercluster 2, 1, 1", "multicast::cluster", "mapa.shared::cluster",
                           "mbarrier.arrive.shared::cluster.b64", "barrier.cluster.arrive", "barrier.cluster.wait"})
      EXPECT_NE(r.ptx.find(op), std::string::npos) << op;
    expectNoLocalMemory(r);
  }
  // Grid rows that make no pairs; a producer by cp.async, which copies into its own block alone.
  EXPECT_EQ(testing::refusalOf("hgemm.loop", {{"M", 3968}, {"N", 4096}, {"K", 1024}},
                               wgmmaRecipe("128,256", "64,256", 256, 4, " producer tma; cluster 2 grid.y")),
            "clusters of 2 blocks along grid.y take whole runs of its 31 tiles");
  EXPECT_NE(testing::refusalOf("hgemm.loop", {{"M", 4096}, {"N", 4096}, {"K", 1024}},
                               wgmmaRecipe("128,128", "64,128", 128, 3, " producer; cluster 2 grid.y"))
                .find("Tensor Memory Accelerator"),
            std::string::npos);
}

// A tf32 product's recipe: a block tile of `block` (its threads mapped as `threads` says) whose
// warpgroups hold `group`, over strips of 32 (B staged as `stageB` says) in `buffers` buffers,
// multiplied by `wgmma`, rastered.
std::string tf32WgmmaRecipe(const std::string& threads, const std::string& block, const std::string& group,
                            const std::string& stageB, int buffers, const std::string& wgmma) {
  return "tile i,j " + block + "; map i_o grid.y; map j_o grid.x; " + threads + "; regtile i,j " + group +
         "; strip k 32; stage A at k_o swizzle; " + stageB + "; map k_o async " + std::to_string(buffers) +
         "; unroll k 32; " + wgmma + "; raster 8";
}

// A tf32 case: the size of its square product, its recipe and the instruction it must use.
struct Tf32Case {
  int64_t size;
  std::string recipe;
  const char* instruction;
};

// tf32 (B stored transposed, K-major): the k8 instruction, B's copies 4 bytes a cp.async, by the
// block or by a producer warpgroup, with the same sane resources. (Where a thread holds 128
// accumulators and copies 32 of B's elements a strip, 64 x 256 or one warpgroup's 128 x 128, or a
// producer's thread 64, it spills: the grammar offers no such tile, loop_rules.cpp.)
TEST(CompileWgmma, Tf32ProductsCompileForSm90aWithoutLocalMemory) {
  auto tf32Recipe = [](const std::string& block, const std::string& group, int64_t n, int buffers,
                       const std::string& options = "") {
    return tf32WgmmaRecipe("map i block.y; map j block.x", block, group, "stage B at k_o transposed swizzle", buffers,
                           "wgmma i,j,k 64," + std::to_string(n) + ",8" + options);
  };
  for (const Tf32Case& c :
       {Tf32Case{4096, tf32Recipe("256,128", "128,128", 128, 4), "m64n128k8.f32.tf32.tf32"},
        Tf32Case{4096, tf32Recipe("256,128", "128,128", 128, 3), "m64n128k8.f32.tf32.tf32"},
        Tf32Case{1000, tf32Recipe("128,128", "64,128", 128, 3, " wait 0"), "m64n128k8.f32.tf32.tf32"},
        Tf32Case{4096, tf32Recipe("128,128", "64,128", 128, 4, " producer"), "m64n128k8.f32.tf32.tf32"},
        Tf32Case{4096, tf32Recipe("256,128", "128,128", 128, 4, " producer"), "m64n128k8.f32.tf32.tf32"},
        Tf32Case{4096, tf32Recipe("256,64", "128,64", 64, 4, " producer"), "m64n64k8.f32.tf32.tf32"}}) {
    SCOPED_TRACE(std::to_string(c.size) + " under " + c.recipe);
    CompileResult r = expectWgmmaCompiled("tf32gemm.loop", c.size, c.recipe, c.instruction);
    if (!r.compiled) continue;
    for (const char* op : {"cp.async.cg.shared.global", "cp.async.ca.shared.global", "wgmma.commit_group.sync.aligned"})
      EXPECT_NE(r.ptx.find(op), std::string::npos) << op;
    expectNoLocalMemory(r);
  }
}

// tf32 with A from registers (wgmma j,i,k: M along the columns): B staged as it lies, by TMA, a
// producer's cp.async or the block's, its fragments loaded by the threads, one group a k step;
// whole and uneven sizes, with the same sane resources and no wgmma that ptxas serialized.
TEST(CompileWgmma, Tf32RegisterAProductsCompileForSm90aWithoutLocalMemory) {
  auto rsRecipe = [](const std::string& block, const std::string& group, int64_t n, int buffers,
                     const std::string& options = "") {
    return tf32WgmmaRecipe("map i block.x; map j block.y", block, group, "stage B at k_o swizzle slabs 32", buffers,
                           "wgmma j,i,k 64," + std::to_string(n) + ",8" + options);
  };
  for (const Tf32Case& c :
       {Tf32Case{4096, rsRecipe("128,128", "128,64", 128, 4, " producer tma"), "m64n128k8.f32.tf32.tf32"},
        Tf32Case{4096, rsRecipe("256,128", "256,64", 256, 4, " producer tma"), "m64n256k8.f32.tf32.tf32"},
        Tf32Case{4096, rsRecipe("256,64", "256,64", 256, 3, " producer tma"), "m64n256k8.f32.tf32.tf32"},
        Tf32Case{520, rsRecipe("128,128", "128,128", 128, 3, " producer tma"), "m64n128k8.f32.tf32.tf32"},
        Tf32Case{1000, rsRecipe("128,128", "128,64", 128, 4, " producer tma"), "m64n128k8.f32.tf32.tf32"},
        Tf32Case{4096, rsRecipe("128,128", "128,64", 128, 4, " producer"), "m64n128k8.f32.tf32.tf32"},
        Tf32Case{1000, rsRecipe("128,128", "128,64", 128, 3), "m64n128k8.f32.tf32.tf32"}}) {
    SCOPED_TRACE(std::to_string(c.size) + " under " + c.recipe);
    CompileResult r = expectWgmmaCompiled("tf32gemm.loop", c.size, c.recipe, c.instruction);
    if (!r.compiled) continue;
    // The A fragments, 4 bytes a load, rounded to tf32.
    EXPECT_TRUE(r.ptx.find("ld.shared.f32") != std::string::npos || r.ptx.find("ld.shared.u32") != std::string::npos);
    EXPECT_NE(r.ptx.find("cvt.rna.tf32.f32"), std::string::npos);
    if (c.recipe.find("tma") != std::string::npos) {
      EXPECT_NE(r.ptx.find("cp.async.bulk.tensor.2d"), std::string::npos);
    }
    expectNoLocalMemory(r);
  }
}

// Float operands read as tf32, one product each (what --precision tf32 offers): the register-A
// form, its A fragments rounded to tf32 as they are loaded (cvt.rna), and both operands by
// descriptor, B stored transposed; one wgmma a tile and k step, the same sane resources.
TEST(CompileWgmma, FloatOperandsReadAsTf32CompileToOneTf32ProductEach) {
  for (const Tf32Case& c :
       {Tf32Case{4096,
                 tf32WgmmaRecipe("map i block.x; map j block.y", "256,128", "256,64", "stage B at k_o swizzle slabs 32",
                                 4, "wgmma j,i,k 64,256,8 producer tma"),
                 "m64n256k8.f32.tf32.tf32"},
        Tf32Case{1000,
                 tf32WgmmaRecipe("map i block.x; map j block.y", "128,128", "128,64", "stage B at k_o swizzle slabs 32",
                                 3, "wgmma j,i,k 64,128,8 producer tma"),
                 "m64n128k8.f32.tf32.tf32"},
        Tf32Case{4096,
                 tf32WgmmaRecipe("map i block.y; map j block.x", "256,128", "128,128",
                                 "stage B at k_o transposed swizzle", 4, "wgmma i,j,k 64,128,8 producer"),
                 "m64n128k8.f32.tf32.tf32"}}) {
    SCOPED_TRACE(std::to_string(c.size) + " under " + c.recipe);
    CompileResult r = expectWgmmaCompiled("matmul.loop", c.size, c.recipe, c.instruction);
    if (!r.compiled) continue;
    const bool registerA = c.recipe.find("wgmma j,i,k") != std::string::npos;
    EXPECT_EQ(registerA, r.ptx.find("cvt.rna.tf32.f32") != std::string::npos);
    expectNoLocalMemory(r);
  }
  // An NHWC convolution's implicit GEMM: the filters' fragments from their gather (K-major).
  auto conv = testing::emittedKernel(
      "conv2d_nhwc.loop", {{"N", 4}, {"C", 64}, {"H", 14}, {"W", 14}, {"K", 128}},
      "collapse r,s,c; collapse n,oh,ow; tile n_oh_ow,k 128,128; map n_oh_ow_o grid.y; map k_o grid.x; "
      "map n_oh_ow block.x; map k block.y; regtile n_oh_ow,k 128,64; strip r_s_c 32; stage In at r_s_c_o "
      "transposed swizzle; stage Wt at r_s_c_o transposed swizzle; unroll r_s_c 32; map r_s_c_o async 4; "
      "wgmma k,n_oh_ow,r_s_c 64,128,8 producer");
  ASSERT_TRUE(conv);
  CompileResult r = compiledForSm90(*conv);
  EXPECT_TRUE(r.compiled) << r.errorLog;
  EXPECT_NE(r.ptx.find("wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32"), std::string::npos);
  EXPECT_NE(r.ptx.find("cvt.rna.tf32.f32"), std::string::npos);
  expectNoLocalMemory(r);
}

// FP32 as three tf32 products (tf32x3): the register-A form on float operands, B's fragments split
// in registers (cvt.rna.tf32), A's strips split by the TMA producer's warpgroup into a second copy
// of its stage, three wgmma a tile and k step; whole and uneven sizes, the same sane resources;
// with promoted partial sums (promote P) too, a second set of accumulators beside the first.
TEST(CompileWgmma, Tf32x3ProductsCompileForSm90aWithoutLocalMemory) {
  auto splitRecipe = [](const std::string& block, const std::string& group, int64_t n, int buffers,
                        const std::string& promote = "") {
    return tf32WgmmaRecipe("map i block.x; map j block.y", block, group, "stage B at k_o swizzle slabs 32", buffers,
                           "wgmma j,i,k 64," + std::to_string(n) + ",8 producer tma tf32x3" + promote);
  };
  for (const Tf32Case& c :
       {Tf32Case{4096, splitRecipe("128,128", "128,64", 128, 4), "m64n128k8.f32.tf32.tf32"},
        Tf32Case{4096, splitRecipe("256,64", "256,64", 256, 3), "m64n256k8.f32.tf32.tf32"},
        Tf32Case{1000, splitRecipe("128,128", "128,64", 128, 4), "m64n128k8.f32.tf32.tf32"},
        Tf32Case{520, splitRecipe("64,128", "64,64", 64, 3), "m64n64k8.f32.tf32.tf32"},
        Tf32Case{200, splitRecipe("128,128", "128,64", 128, 2), "m64n128k8.f32.tf32.tf32"},
        Tf32Case{4096, splitRecipe("128,128", "128,64", 128, 4, " promote 1"), "m64n128k8.f32.tf32.tf32"},
        Tf32Case{1000, splitRecipe("128,128", "128,64", 128, 3, " promote 2"), "m64n128k8.f32.tf32.tf32"},
        Tf32Case{520, splitRecipe("64,128", "64,64", 64, 3, " promote 4"), "m64n64k8.f32.tf32.tf32"}}) {
    SCOPED_TRACE(std::to_string(c.size) + " under " + c.recipe);
    CompileResult r = expectWgmmaCompiled("matmul.loop", c.size, c.recipe, c.instruction);
    if (!r.compiled) continue;
    EXPECT_NE(r.ptx.find("cvt.rna.tf32.f32"), std::string::npos);
    EXPECT_NE(r.ptx.find("cp.async.bulk.tensor.2d"), std::string::npos);
    EXPECT_NE(r.ptx.find("fence.proxy.async.shared::cta"), std::string::npos);  // the producer's split, made visible
    size_t instructions = 0;
    for (size_t at = r.ptx.find("wgmma.mma_async"); at != std::string::npos; at = r.ptx.find("wgmma.mma_async", at + 1))
      ++instructions;
    EXPECT_EQ(instructions % 3, 0u);  // three products a tile and k step, the k steps unrolled
    EXPECT_GE(instructions, 3u * 4);
    expectNoLocalMemory(r);
  }
}

// Split-K on tf32x3: the parts on grid.z, each filling its stages by TMA from its own range of k,
// their tiles added into the outputs atomically (red or atom .global.add.f32); at the shapes whose
// tiles are too few for the GPU (512^3) or whose reduction is long (256 x 256 x 65536), the same
// three products a tile and k step and the same sane resources as unsplit.
TEST(CompileWgmma, SplitTf32x3ProductsCompileForSm90aWithoutLocalMemory) {
  struct Case {
    std::map<std::string, int64_t> sizes;
    int parts;
    std::string block, group;
    int64_t n;
    std::string promote;
  };
  for (const Case& c : {Case{{{"M", 512}, {"N", 512}, {"K", 512}}, 4, "128,128", "128,64", 128, " promote 1"},
                        Case{{{"M", 512}, {"N", 512}, {"K", 512}}, 2, "64,64", "64,64", 64, " promote 2"},
                        Case{{{"M", 256}, {"N", 256}, {"K", 65536}}, 8, "64,64", "64,64", 64, " promote 1"},
                        Case{{{"M", 256}, {"N", 256}, {"K", 65536}}, 8, "128,128", "128,64", 128, " promote 2"}}) {
    const std::string recipe = "split k " + std::to_string(c.parts) + "; tile i,j " + c.block +
                               "; map k_s grid.z; map i_o grid.y; map j_o grid.x; map i block.x; map j block.y; "
                               "regtile i,j " +
                               c.group +
                               "; strip k 32; stage A at k_o swizzle; stage B at k_o "
                               "swizzle slabs 32; unroll k 32; map k_o async 4; wgmma j,i,k 64," +
                               std::to_string(c.n) + ",8 producer tma tf32x3" + c.promote;
    SCOPED_TRACE(recipe + " at K=" + std::to_string(c.sizes.at("K")));
    auto k = testing::emittedKernel("matmul.loop", c.sizes, recipe);
    ASSERT_TRUE(k);
    EXPECT_EQ(k->zeroFirst, std::vector<std::string>{"C"});  // the parts add into outputs zeroed first
    CompileResult r = compiledForSm90(*k);
    ASSERT_TRUE(r.compiled) << r.errorLog;
    EXPECT_TRUE(r.ok) << r.reason;
    EXPECT_NE(r.ptx.find("wgmma.mma_async.sync.aligned.m64n" + std::to_string(c.n) + "k8.f32.tf32.tf32"),
              std::string::npos);
    EXPECT_NE(r.ptx.find("cp.async.bulk.tensor.2d"), std::string::npos);
    EXPECT_NE(r.ptx.find("%ctaid.z"), std::string::npos);
    EXPECT_TRUE(r.ptx.find("red.global.add.f32") != std::string::npos ||
                r.ptx.find("atom.global.add.f32") != std::string::npos);
    size_t instructions = 0;
    for (size_t at = r.ptx.find("wgmma.mma_async"); at != std::string::npos; at = r.ptx.find("wgmma.mma_async", at + 1))
      ++instructions;
    EXPECT_EQ(instructions % 3, 0u);
    expectNoLocalMemory(r);
  }
}

// Split-K falls out for every form of wgmma: half operands, both read by descriptor.
TEST(CompileWgmma, SplitHalfProductsCompileForSm90a) {
  const std::string recipe = "split k 4; tile i,j 128,128; map k_s grid.z; " +
                             wgmmaRecipe("128,128", "64,128", 128, 4, " producer").substr(18);
  auto k = testing::emittedKernel("hgemm.loop", {{"M", 512}, {"N", 512}, {"K", 2048}}, recipe);
  ASSERT_TRUE(k);
  CompileResult r = compiledForSm90(*k);
  ASSERT_TRUE(r.compiled) << r.errorLog;
  EXPECT_TRUE(r.ok) << r.reason;
  EXPECT_NE(r.ptx.find("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16"), std::string::npos);
  EXPECT_NE(r.ptx.find("%ctaid.z"), std::string::npos);
  EXPECT_TRUE(r.ptx.find("red.global.add.f32") != std::string::npos ||
              r.ptx.find("atom.global.add.f32") != std::string::npos);
  expectNoLocalMemory(r);
}

// tf32x3 where TMA cannot copy the rows (127 x 4099 x 513: rows of 513 and 4099 floats, no
// multiple of 16 bytes): the producer warpgroup's threads copy 4 bytes at a time by cp.async,
// zero-filled past the edges, and arrive on the full barriers as their copies land; the warpgroup
// then splits A's strips as with TMA. No tensor map, the same sane resources; split into parts too.
TEST(CompileWgmma, Tf32x3ProductsFilledByCpAsyncCompileForSm90a) {
  const std::map<std::string, int64_t> odd{{"M", 127}, {"N", 4099}, {"K", 513}};
  auto recipe = [](const std::string& split, const std::string& block, const std::string& group, int64_t n,
                   const std::string& promote) {
    return split + "tile i,j " + block + std::string(split.empty() ? "" : "; map k_s grid.z") +
           "; map i_o grid.y; map j_o grid.x; map i block.x; map j block.y; regtile i,j " + group +
           "; strip k 32; stage A at k_o swizzle; stage B at k_o swizzle slabs 32; unroll k 32; map k_o async 4; "
           "wgmma j,i,k 64," +
           std::to_string(n) + ",8 producer tf32x3" + promote;
  };
  struct Case {
    std::map<std::string, int64_t> sizes;
    std::string recipe;
    int64_t n;
  };
  for (const Case& c :
       {Case{odd, recipe("", "64,64", "64,64", 64, " promote 2"), 64},
        Case{odd, recipe("", "64,128", "64,64", 64, " promote 1"), 64},
        Case{odd, recipe("", "128,64", "128,64", 128, " promote 2"), 128},
        Case{{{"M", 127}, {"N", 4099}, {"K", 1023}}, recipe("split k 2; ", "64,64", "64,64", 64, " promote 1"), 64}}) {
    SCOPED_TRACE(c.recipe);
    auto k = testing::emittedKernel("matmul.loop", c.sizes, c.recipe);
    ASSERT_TRUE(k);
    EXPECT_TRUE(k->tensorMaps.empty());
    CompileResult r = compiledForSm90(*k);
    ASSERT_TRUE(r.compiled) << r.errorLog;
    EXPECT_TRUE(r.ok) << r.reason;
    EXPECT_NE(r.ptx.find("wgmma.mma_async.sync.aligned.m64n" + std::to_string(c.n) + "k8.f32.tf32.tf32"),
              std::string::npos);
    for (const char* op :
         {"cp.async.ca.shared.global", "cp.async.mbarrier.arrive.noinc.shared::cta.b64", "cvt.rna.tf32.f32",
          "fence.proxy.async.shared::cta", "mbarrier.try_wait.parity.shared::cta.b64"})
      EXPECT_NE(r.ptx.find(op), std::string::npos) << op;
    EXPECT_EQ(r.ptx.find("cp.async.bulk.tensor"), std::string::npos);
    expectNoLocalMemory(r);
  }
}

// Every register-A candidate the grammar offers for tf32, and for float as tf32x3 (their pinned
// lists, at 4096^3, whose --tile 16,64 leaves the tensor cores tiles of 64): the grammar refuses
// the tiles whose registers would have ptxas serialize the wgmma, so none does.
TEST(CompileWgmma, EveryOfferedRegisterACandidateCompilesUnserialized) {
  for (const char* example : {"tf32gemm", "matmul"}) {
    SCOPED_TRACE(example);
    std::ifstream in(std::string(CUDABURG_EXAMPLES_DIR) + "/../tests/search/golden/" + example + ".recipes");
    ASSERT_TRUE(in);
    int compiled = 0;
    for (std::string line; std::getline(in, line);) {
      if (line.find("wgmma j,i,k") == std::string::npos) continue;
      SCOPED_TRACE(line);
      auto k = testing::emittedKernel(std::string(example) + ".loop", {{"M", 4096}, {"N", 4096}, {"K", 4096}}, line);
      ASSERT_TRUE(k);
      CompileResult r = compiledForSm90(*k);
      ASSERT_TRUE(r.compiled) << r.errorLog;
      expectNoLocalMemory(r);
      ++compiled;
    }
    EXPECT_GE(compiled, 4);
  }
}

TEST(CompileWgmma, RefusedForAnyOtherGpu) {
  auto k = testing::emittedKernel("hgemm.loop", {{"M", 256}, {"N", 256}, {"K", 256}},
                                  wgmmaRecipe("128,128", "64,128", 128, 4));
  ASSERT_TRUE(k);
  for (const char* arch : {"sm_80", "sm_89", "sm_100"}) {
    CompileOptions options;
    options.arch = arch;
    options.useCache = false;
    CompileResult r = compile(*k, options);
    EXPECT_FALSE(r.ok) << arch;
    EXPECT_FALSE(r.compiled) << arch;
    EXPECT_NE(r.reason.find("only an sm_90 GPU runs, not " + std::string(arch)), std::string::npos) << r.reason;
  }
}

}  // namespace
}  // namespace cudaburg
