// The model's description of a candidate against the kernel it becomes: for every example, a
// sample of the ranked candidates that covers each idiom the grammar offers it (the cheapest of
// each), applied, emitted and compiled with NVRTC for an sm_90 GPU (sm_90a where wgmma needs it;
// no GPU is used). The threads of a block and its shared bytes are the model's exactly: the
// shared bytes as the emitter lays the buffers out, which ptxas's count (static and dynamic)
// equals but for the last static buffer, which ptxas does not round up to 16 bytes. The register
// count is an estimate, held to a band of what ptxas gives (the table is printed).
//
// The band: the model counts a thread's tally (accumulators, a row and a column of operands,
// addresses, a pipelined stage's next strip), which ptxas exceeds where it hoists an unrolled
// strip's reads or keeps the copies' addresses of tf32's B (to about 1.6 times: 168 for a tally
// of 104) and undercuts where it reuses the addresses of a small direct tile (56 for 80) or holds
// less of a convolution window's next strip at once than the strip has for a thread (to half:
// correlate2d's 40 for 80, of which 32 the next strip).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "common/diagnostics.hpp"
#include "src/analysis/nest_sequence.hpp"
#include "src/cuda/compile/compiler.hpp"
#include "src/cuda/emit/emitter.hpp"
#include "src/idioms/epilogue/local_accumulator.hpp"
#include "src/loop/parser.hpp"
#include "src/search/loop_rules.hpp"
#include "src/search/loops_matcher.hpp"
#include "src/transform/recipe.hpp"

namespace cudaburg {
namespace {

// One sampled candidate: the model's view of it and the kernel it became.
struct Sample {
  std::string nest, idiom, recipe;
  Estimate model;
  CudaKernel kernel;
};

// What a candidate computes with, as finely as the model's threads, shared bytes and registers
// differ: the idiom and its variant, and how the reduction is staged and split. (Launch bounds,
// `resident`, change none of them but the registers ptxas may give: a class's cheapest candidate
// has them or not.)
std::string idiomClass(const CandidateShape& s) {
  std::string c;
  if (const WgmmaTile* w = wgmmaOf(s.idiom)) {
    const char* producers[] = {"", " producer copy", " producer tma"};
    c = std::string("wgmma") + (w->registerA ? " registerA" : "") + producers[static_cast<int>(w->producer)] +
        (w->tf32x3 ? " tf32x3" : "") + (w->promote ? " promote" : "");
  } else if (winogradOf(s.idiom)) {
    c = "winograd";
  } else {
    c = onTensorCores(s) ? "mma" : "simt";
    c += !s.staged ? " direct" : s.asyncCopies ? " async" : s.pipelined ? " double" : " single";
  }
  if (s.gatherOps > 0) c += s.tabled ? " tabled" : " gathered";
  if (s.split > 1) c += s.workspaceSplit ? " split workspace" : " split";
  if (s.prefetched) c += " prefetched";
  return c;
}

// Ranges that reach every idiom (the tensor cores' tiles of 64 and 128, strips that are whole k
// steps of mma.sync, a split) and keep labeling quick.
SearchSpace sampledSpace() {
  SearchSpace space;
  space.tile = {{64, 128}};
  space.unroll = {{4, 8}};
  space.stage = {{16, 32}};
  space.split = {{2}};
  return space;
}

// The cheapest candidate of each idiom class the grammar offers `nest` on an sm_90 GPU,
// applied and emitted.
std::vector<Sample> sampled(const Kernel& nest) {
  // As the search labels it: a sum kept in a local as the tile's own accumulator.
  const Kernel matched = withLocalAccumulators(nest);
  LoopRules rules(matched, sampledSpace());
  generated::LoopsMatcher matcher(&rules);
  const Node* root = matched.body.get();
  if (!matcher.label(root)) {
    std::fprintf(stderr, "%s: no cover\n", nest.name.c_str());
    return {};
  }
  std::map<std::string, bool> seen;
  std::vector<Sample> out;
  for (int rank = 0; rank < matcher.count(root, generated::LoopsMatcher::kernel_NT); ++rank) {
    Fragment f = matcher.value(root, generated::LoopsMatcher::kernel_NT, rank);
    std::string idiom = idiomClass(f.shape);
    if (seen[idiom]) continue;
    seen[idiom] = true;
    Recipe recipe = f.recipe(nest);
    Sample s{nest.name, idiom, printRecipeLine(recipe), estimate(f.shape, rules.gpu()), {}};
    TransformResult applied = applyRecipe(nest, recipe);
    EXPECT_TRUE(applied.ok()) << s.recipe << ": " << applied.reason;
    if (!applied.ok()) continue;
    EmitOptions emit;
    emit.recipe = printRecipe(recipe);
    EmitResult emitted = emitKernel(*applied.kernel, emit);
    EXPECT_TRUE(emitted.ok()) << s.recipe << ": " << emitted.reason;
    if (!emitted.ok()) continue;
    s.kernel = *emitted.kernel;
    out.push_back(std::move(s));
  }
  return out;
}

// Every example's nests (a body of several nests in a row: each), at its own sizes.
std::vector<Kernel> exampleNests() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(CUDABURG_EXAMPLES_DIR))
    if (entry.path().extension() == ".loop") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<Kernel> nests;
  for (const auto& path : files) {
    auto file = common::SourceFile::read(path.string());
    EXPECT_TRUE(file) << path;
    if (!file) continue;
    common::Diagnostics diags(*file);
    auto kernel = parseLoopFile(*file, diags, {});
    EXPECT_TRUE(kernel) << path << ": " << diags.str();
    if (!kernel) continue;
    std::string single;
    std::vector<Kernel> split = splitNests(*kernel, single);
    if (split.empty()) nests.push_back(std::move(*kernel));
    for (Kernel& k : split) nests.push_back(std::move(k));
  }
  return nests;
}

// ptxas's registers against the model's estimate: the band (see the top).
constexpr double kFewestRegisters = 0.5, kMostRegisters = 1.7;

TEST(ModelCheck, ThreadsSharedBytesAndRegistersAreTheEmittedKernels) {
  std::vector<Sample> samples;
  std::map<std::string, int> idioms;
  for (const Kernel& nest : exampleNests()) {
    auto start = std::chrono::steady_clock::now();
    std::vector<Sample> some = sampled(nest);
    std::fprintf(stderr, "%s: %zu samples, %.1f s\n", nest.name.c_str(), some.size(),
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    for (Sample& s : some) {
      ++idioms[s.idiom];
      samples.push_back(std::move(s));
    }
  }
  std::vector<CudaKernel> kernels;
  for (const Sample& s : samples) kernels.push_back(s.kernel);
  CompileOptions options;
  options.arch = "sm_90";
  options.useCache = false;
  std::vector<CompileResult> compiled = compileAll(kernels, options);

  std::printf("%-28s %-40s %7s %7s %9s %9s %9s %5s %5s\n", "nest", "idiom", "threads", "model", "ptxas", "laid out",
              "model", "regs", "model");
  for (size_t i = 0; i < samples.size(); ++i) {
    const Sample& s = samples[i];
    const CompileResult& r = compiled[i];
    SCOPED_TRACE(s.nest + " under " + s.recipe);
    EXPECT_TRUE(r.compiled) << r.errorLog;
    EXPECT_TRUE(r.resources.known) << r.log;
    int64_t shared = r.resources.sharedBytes + static_cast<int64_t>(s.kernel.dynamicSharedBytes);
    int64_t laidOut = static_cast<int64_t>(s.kernel.sharedBytes);
    std::printf("%-28s %-40s %7u %7d %9lld %9lld %9lld %5d %5d\n", s.nest.c_str(), s.idiom.c_str(), s.kernel.threads(),
                s.model.threads, static_cast<long long>(shared), static_cast<long long>(laidOut),
                static_cast<long long>(s.model.sharedBytes), r.resources.registers, s.model.registers);
    EXPECT_EQ(static_cast<int64_t>(s.kernel.threads()), s.model.threads);
    EXPECT_EQ(laidOut, s.model.sharedBytes);
    // ptxas packs static buffers (see the top).
    EXPECT_LE(shared, laidOut);
    EXPECT_GT(shared + 16, laidOut);
    EXPECT_GE(r.resources.registers, kFewestRegisters * s.model.registers);
    EXPECT_LE(r.resources.registers, kMostRegisters * s.model.registers);
  }
  std::printf("%zu candidates of %zu idiom classes\n", samples.size(), idioms.size());
}

}  // namespace
}  // namespace cudaburg
