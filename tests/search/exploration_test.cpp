// The grammar decides what is explored: matchers generated from specs/loops.burg and from copies
// with the staged-reduction rules removed (and added back), or only the transposed staging
// removed, offer different candidates, with
// the same C++ search code. No GPU is needed: this looks at what labeling offers.
#include <gtest/gtest.h>

#include "burgspec/diagnostics.hpp"
#include "src/exec/buffers.hpp"
#include "src/exec/compare.hpp"
#include "src/exec/executor.hpp"
#include "src/loop/parser.hpp"
#include "src/search/loops_matcher.hpp"
#include "src/search/search_context.hpp"
#include "restaged_matcher.hpp"
#include "unstaged_matcher.hpp"
#include "async_matcher.hpp"
#include "unpipelined_matcher.hpp"
#include "untransposed_matcher.hpp"

#include <fstream>
#include <sstream>

using namespace cudaburg;

namespace {

Kernel loadExample(const std::string& name, const std::map<std::string, int64_t>& sizes) {
  std::ifstream in(std::string(CUDABURG_EXAMPLES_DIR) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  burgspec::SourceFile file(name, text.str());
  burgspec::Diagnostics diags(file);
  auto k = parseLoopFile(file, diags, sizes);
  EXPECT_TRUE(k) << diags.str();
  return *k;
}

SearchSpace smallSpace() {
  SearchSpace s;
  s.tile = {{16, 32}};
  s.unroll = {{1, 8}};  // 8: runs of columns long enough to interleave
  s.stage = {{4, 8}};
  s.split = {{2}};
  return s;
}

// Labels `kernel` with matcher M (nothing is measured: no evaluator) and returns the complete
// candidates offered at the root as `tiled`.
template <class M>
std::vector<Fragment> offered(const Kernel& kernel) {
  SearchContext context(kernel, smallSpace(), nullptr);
  M matcher(&context);
  EXPECT_FALSE(matcher.label(kernel.body.get()));  // no kernel rule applies without measurement
  return context.fragments(kernel.body.get(), "tiled");
}

size_t countWith(const std::vector<Fragment>& fs, StepKind kind) {
  size_t n = 0;
  for (const auto& f : fs) {
    Recipe r = f.recipe();
    for (const auto& s : r.steps)
      if (s.kind == kind) {
        ++n;
        break;
      }
  }
  return n;
}

size_t countTransposed(const std::vector<Fragment>& fs) {
  size_t n = 0;
  for (const auto& f : fs) {
    Recipe r = f.recipe();
    for (const auto& s : r.steps)
      if (s.kind == StepKind::Stage && s.transposed) {
        ++n;
        break;
      }
  }
  return n;
}

Kernel smallMatmul() { return loadExample("matmul.loop", {{"M", 40}, {"N", 48}, {"K", 36}}); }

}  // namespace

TEST(Exploration, FullGrammarOffersStagedSplitAndDirectCandidates) {
  auto fs = offered<generated::LoopsMatcher>(smallMatmul());
  // 2 block tiles x 2 x 2 register tiles ... per reduction choice: direct, staged x2, split x1.
  ASSERT_FALSE(fs.empty());
  EXPECT_GT(countWith(fs, StepKind::Stage), 0u);
  EXPECT_GT(countWith(fs, StepKind::Split), 0u);
  size_t direct = 0, splitStaged = 0;
  for (const auto& f : fs) {
    bool staged = false, split = false;
    for (const auto& s : f.recipe().steps) staged |= s.kind == StepKind::Stage, split |= s.kind == StepKind::Split;
    direct += !staged && !split;
    splitStaged += staged && split;
  }
  EXPECT_GT(direct, 0u);
  EXPECT_GT(splitStaged, 0u);  // parts of a split reduction staged too
  for (size_t i = 1; i < fs.size(); ++i) EXPECT_LE(fs[i - 1].model, fs[i].model) << "ranked by the model";
  size_t interleaved = 0;  // B[k][j], read along the thread's columns, is also offered interleaved
  for (const auto& f : fs)
    for (const auto& s : f.recipe().steps)
      if (s.kind == StepKind::Stage && s.interleave) {
        ++interleaved;
        EXPECT_EQ(s.array, "B");
        EXPECT_EQ(s.interleave, f.shape.threadCols);
      }
  EXPECT_GT(interleaved, 0u);
}

TEST(Exploration, RemovingTheStagedRulesRemovesStagedCandidates) {
  auto full = offered<generated::LoopsMatcher>(smallMatmul());
  auto unstaged = offered<unstaged::LoopsMatcher>(smallMatmul());
  EXPECT_EQ(countWith(unstaged, StepKind::Stage), 0u);
  EXPECT_EQ(unstaged.size(), full.size() - countWith(full, StepKind::Stage));
}

TEST(Exploration, AddingTheRuleBackAddsThem) {
  auto full = offered<generated::LoopsMatcher>(smallMatmul());
  auto restaged = offered<restaged::LoopsMatcher>(smallMatmul());
  EXPECT_EQ(countWith(restaged, StepKind::Stage), countWith(full, StepKind::Stage));
  EXPECT_EQ(countTransposed(restaged), countTransposed(full));
  EXPECT_EQ(restaged.size(), full.size());
}

TEST(Exploration, TheTransposedStagingRuleOffersTransposedCandidates) {
  auto full = offered<generated::LoopsMatcher>(smallMatmul());
  auto untransposed = offered<untransposed::LoopsMatcher>(smallMatmul());
  EXPECT_GT(countTransposed(full), 0u);  // matmul's A[i][k] is read along its rows
  EXPECT_EQ(countTransposed(untransposed), 0u);
  EXPECT_EQ(untransposed.size(), full.size() - countTransposed(full));
  for (const auto& f : full) {  // only A is transposed: B[k][j] is read along its columns
    Recipe r = f.recipe();
    for (const auto& s : r.steps)
      if (s.kind == StepKind::Stage && s.transposed) {
        EXPECT_EQ(s.array, "A") << printRecipeLine(r);
      }
  }
}

size_t countMapped(const std::vector<Fragment>& fs, Mapping m) {
  size_t n = 0;
  for (const auto& f : fs)
    for (const auto& s : f.recipe().steps) n += s.kind == StepKind::Map && s.mapping == m;
  return n;
}

TEST(Exploration, ThePipelinedStagingRulesOfferPipelinedCandidates) {
  auto full = offered<generated::LoopsMatcher>(smallMatmul());
  auto unpipelined = offered<unpipelined::LoopsMatcher>(smallMatmul());
  EXPECT_GT(countMapped(full, Mapping::Pipelined), 0u);
  EXPECT_EQ(countMapped(unpipelined, Mapping::Pipelined), 0u);
  EXPECT_EQ(unpipelined.size(), full.size() - countMapped(full, Mapping::Pipelined));
}

TEST(Exploration, AnAsyncStagingRuleAddsAsynchronouslyPipelinedCandidates) {
  auto full = offered<generated::LoopsMatcher>(smallMatmul());
  auto async = offered<async::LoopsMatcher>(smallMatmul());
  EXPECT_EQ(countMapped(full, Mapping::AsyncPipelined), 0u);  // not in the grammar as shipped
  EXPECT_GT(countMapped(async, Mapping::AsyncPipelined), 0u);
  EXPECT_EQ(async.size(), full.size() + countMapped(async, Mapping::AsyncPipelined));
}

// Every candidate the grammar offers is a legal recipe that computes what the nest computes.
void expectCandidatesComputeTheNest(const Kernel& k, const std::vector<Fragment>& fs) {
  Buffers input = fillRandom(k, 7);
  Buffers expected = input;
  execute(k, expected);
  size_t checked = 0;
  for (size_t i = 0; i < fs.size(); i += 3) {  // a third of them keeps the test quick
    TransformResult t = applyRecipe(k, fs[i].recipe());
    ASSERT_TRUE(t) << printRecipeLine(fs[i].recipe()) << ": " << t.reason;
    Buffers actual = input;
    execute(*t.kernel, actual);
    Comparison c = compare(k, expected, actual, reductionTolerance(k));
    EXPECT_TRUE(c.ok) << printRecipeLine(fs[i].recipe()) << ": " << c.firstMismatch;
    ++checked;
  }
  EXPECT_GT(checked, 5u);
}

TEST(Exploration, EveryOfferedMatmulCandidateComputesTheNest) {
  Kernel k = smallMatmul();
  expectCandidatesComputeTheNest(k, offered<generated::LoopsMatcher>(k));
}

TEST(Exploration, EveryOfferedConv2dCandidateComputesTheNest) {
  Kernel k = loadExample("conv2d.loop", {{"N", 2}, {"C", 3}, {"H", 9}, {"W", 10}, {"K", 5}});
  SearchContext context(k, smallSpace(), nullptr);
  generated::LoopsMatcher matcher(&context);
  matcher.label(k.body.get());
  auto fs = context.fragments(k.body.get(), "tiled");
  ASSERT_FALSE(fs.empty());
  bool filtersAndPixels = false;
  for (const auto& f : fs) filtersAndPixels |= f.cover.find("outerinner") != std::string::npos;
  EXPECT_TRUE(filtersAndPixels) << "the filters x pixels tile is offered";
  expectCandidatesComputeTheNest(k, fs);
}

TEST(Exploration, Conv2dTilesPixelsAndOffersTheNestAsWritten) {
  Kernel k = loadExample("conv2d.loop", {{"N", 2}, {"C", 3}, {"H", 9}, {"W", 10}, {"K", 4}});
  SearchContext context(k, smallSpace(), nullptr);
  generated::LoopsMatcher matcher(&context);
  matcher.label(k.body.get());
  EXPECT_FALSE(context.fragments(k.body->body().get(), "tiled").empty());
  EXPECT_FALSE(context.fragments(k.body.get(), "plain").empty());
}
