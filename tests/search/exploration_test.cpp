// The grammar decides what is explored: matchers generated from specs/loops.burg and from copies
// with rules removed (and added back) or parameter domains changed offer different candidate
// kernels, with the same C++ search code. No GPU is needed: this looks at the k best covers the
// labeler keeps at the root.
#include <gtest/gtest.h>

#include "async_matcher.hpp"
#include "common/diagnostics.hpp"
#include "restaged_matcher.hpp"
#include "src/exec/buffers.hpp"
#include "src/exec/compare.hpp"
#include "src/exec/executor.hpp"
#include "src/loop/parser.hpp"
#include "src/search/loop_rules.hpp"
#include "src/search/loops_matcher.hpp"
#include "unpipelined_matcher.hpp"
#include "unstaged_matcher.hpp"
#include "untransposed_matcher.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

using namespace cudaburg;

namespace {

Kernel loadExample(const std::string& name, const std::map<std::string, int64_t>& sizes) {
  std::ifstream in(std::string(CUDABURG_EXAMPLES_DIR) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  common::SourceFile file(name, text.str());
  common::Diagnostics diags(file);
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

// A candidate kernel: a distinct recipe among the root's covers as `kernel`, with its cost.
struct Offered {
  Recipe recipe;
  CandidateShape shape;
  int64_t cost;
};

// Labels `kernel` with matcher M (nothing is measured: costs are the model's) and returns the
// distinct candidates of the root's covers, cheapest first.
template <class M>
std::vector<Offered> offered(const Kernel& kernel, const SearchSpace& space = smallSpace()) {
  LoopRules rules(kernel, space);
  M matcher(&rules);
  EXPECT_TRUE(matcher.label(kernel.body.get()));
  std::vector<Offered> out;
  std::set<std::string> seen;
  const Node* root = kernel.body.get();
  for (int rank = 0; rank < matcher.count(root, M::kernel_NT); ++rank) {
    const Fragment& f = matcher.value(root, M::kernel_NT, rank);
    Recipe r = f.recipe(kernel);
    if (seen.insert(printRecipeLine(r)).second) out.push_back({r, f.shape, matcher.cost(root, M::kernel_NT, rank)});
  }
  return out;
}

size_t countWith(const std::vector<Offered>& fs, StepKind kind) {
  size_t n = 0;
  for (const auto& f : fs) {
    for (const auto& s : f.recipe.steps)
      if (s.kind == kind) {
        ++n;
        break;
      }
  }
  return n;
}

size_t countTransposed(const std::vector<Offered>& fs) {
  size_t n = 0;
  for (const auto& f : fs) {
    for (const auto& s : f.recipe.steps)
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
    for (const auto& s : f.recipe.steps) staged |= s.kind == StepKind::Stage, split |= s.kind == StepKind::Split;
    direct += !staged && !split;
    splitStaged += staged && split;
  }
  EXPECT_GT(direct, 0u);
  EXPECT_GT(splitStaged, 0u);  // parts of a split reduction staged too
  for (size_t i = 1; i < fs.size(); ++i) EXPECT_LE(fs[i - 1].cost, fs[i].cost) << "ranked by the model";
  size_t interleaved = 0;  // B[k][j], read along the thread's columns, is also offered interleaved
  for (const auto& f : fs)
    for (const auto& s : f.recipe.steps)
      if (s.kind == StepKind::Stage && s.interleave) {
        ++interleaved;
        EXPECT_EQ(s.array, "B");
        EXPECT_EQ(s.interleave, f.shape.threadCols);
      }
  EXPECT_GT(interleaved, 0u);
  size_t spread = 0;  // register tiles of multiples of 4 are also offered spread in runs of 4
  for (const auto& f : fs)
    for (const auto& s : f.recipe.steps)
      if (s.kind == StepKind::RegisterTile && s.factors.size() == 3) {
        ++spread;
        EXPECT_EQ(s.factors[2], 4);
        EXPECT_TRUE(f.shape.spread);
        EXPECT_EQ(f.shape.threadRows % 4 + f.shape.threadCols % 4, 0);
      }
  EXPECT_GT(spread, 0u);
}

// The CUDA cores' staging rules (of `red`); tf32x3's tensor-core strips are a rule of their own
// (wgmmastrips), which these tests leave out of the space.
SearchSpace cudaCoresOnly() {
  SearchSpace s = smallSpace();
  s.tf32x3 = false;
  return s;
}

TEST(Exploration, RemovingTheStagedRulesRemovesStagedCandidates) {
  auto full = offered<generated::LoopsMatcher>(smallMatmul(), cudaCoresOnly());
  auto unstaged = offered<unstaged::LoopsMatcher>(smallMatmul(), cudaCoresOnly());
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
    for (const auto& s : f.recipe.steps)
      if (s.kind == StepKind::Stage && s.transposed) {
        EXPECT_EQ(s.array, "A") << printRecipeLine(f.recipe);
      }
  }
}

size_t countMapped(const std::vector<Offered>& fs, Mapping m) {
  size_t n = 0;
  for (const auto& f : fs)
    for (const auto& s : f.recipe.steps) n += s.kind == StepKind::Map && s.mapping == m;
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
  auto full = offered<generated::LoopsMatcher>(smallMatmul(), cudaCoresOnly());
  auto async = offered<async::LoopsMatcher>(smallMatmul(), cudaCoresOnly());
  EXPECT_EQ(countMapped(full, Mapping::AsyncPipelined), 0u);  // not in the grammar as shipped
  EXPECT_GT(countMapped(async, Mapping::AsyncPipelined), 0u);
  EXPECT_EQ(async.size(), full.size() + countMapped(async, Mapping::AsyncPipelined));
}

// Every candidate the grammar offers is a legal recipe that computes what the nest computes.
void expectCandidatesComputeTheNest(const Kernel& k, const std::vector<Offered>& fs) {
  Buffers input = fillRandom(k, 7);
  Buffers expected = input;
  execute(k, expected);
  size_t checked = 0;
  for (size_t i = 0; i < fs.size(); i += 3) {  // a third of them keeps the test quick
    TransformResult t = applyRecipe(k, fs[i].recipe);
    ASSERT_TRUE(t) << printRecipeLine(fs[i].recipe) << ": " << t.reason;
    Buffers actual = input;
    execute(*t.kernel, actual);
    Comparison c = compare(k, expected, actual, reductionTolerance(k));
    EXPECT_TRUE(c.ok) << printRecipeLine(fs[i].recipe) << ": " << c.firstMismatch;
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
  auto fs = offered<generated::LoopsMatcher>(k);
  ASSERT_FALSE(fs.empty());
  bool filtersAndPixels = false, asWritten = false;
  for (const auto& f : fs) {
    filtersAndPixels |= f.shape.serial > 1;  // the output rows, run in turn inside a filters x pixels tile
    asWritten |= f.recipe.steps.empty();
  }
  EXPECT_TRUE(filtersAndPixels) << "the filters x pixels tile is offered";
  EXPECT_TRUE(asWritten) << "the nest as written is offered";
  expectCandidatesComputeTheNest(k, fs);
}

// The other layouts and forms of convolution (channels last, dilated, depthwise, 1-D, grouped,
// 3-D), and the transposed products: whatever the grammar offers for them, implicit GEMMs with
// their batches of groups or channels included, computes what they compute.
// Float products on an sm_90 GPU are offered on tensor cores as three tf32 products (tf32x3):
// the register-A form, filled by TMA, every such candidate a legal recipe; --no-tf32x3 (the
// space's tf32x3 off) takes exactly those away. A batched product (3-D arrays, B transposed) gets
// none; rows that are no multiple of 16 bytes, which TMA cannot copy, are filled by the producer's
// cp.async instead, and only there. Under --precision strict
// every one promotes its partial sums into fp32 registers, at any K; under --precision tf32 the
// sums on the tensor cores alone are offered too.
TEST(Exploration, FloatProductsAreOfferedTf32x3WhereTheSpaceAllowsIt) {
  auto wgmmaStep = [](const Offered& f) -> const RecipeStep* {
    for (const RecipeStep& s : f.recipe.steps)
      if (s.kind == StepKind::Wgmma) return &s;
    return nullptr;
  };
  auto isTf32x3 = [&](const Offered& f) {
    const RecipeStep* s = wgmmaStep(f);
    return s && wgmmaOf(s->idiom) && wgmmaOf(s->idiom)->tf32x3;
  };
  auto promoted = [&](const Offered& f) {
    const RecipeStep* s = wgmmaStep(f);
    return s && wgmmaOf(s->idiom) && wgmmaOf(s->idiom)->promote > 0;
  };
  // --tile bounds the tensor cores' tiles too: with no edge of 64, 128 or 256, none is offered.
  auto narrow = offered<generated::LoopsMatcher>(smallMatmul());
  EXPECT_EQ(std::count_if(narrow.begin(), narrow.end(), isTf32x3), 0);
  SearchSpace space = smallSpace();
  space.tile = {{16, 32, 64}};
  SearchSpace coresOnly = space;
  coresOnly.tf32x3 = false;
  auto all = offered<generated::LoopsMatcher>(smallMatmul(), space);
  auto cores = offered<generated::LoopsMatcher>(smallMatmul(), coresOnly);
  size_t split = std::count_if(all.begin(), all.end(), isTf32x3);
  EXPECT_GT(split, 0u);
  EXPECT_EQ(std::count_if(cores.begin(), cores.end(), isTf32x3), 0);
  EXPECT_EQ(cores.size(), all.size() - split);
  for (const auto& f : all) {
    if (!isTf32x3(f)) continue;
    const WgmmaTile* tile = wgmmaOf(f.shape.idiom);
    EXPECT_TRUE(tile && tile->tf32x3 && tile->registerA);
    EXPECT_TRUE(promoted(f)) << printRecipeLine(f.recipe);
    EXPECT_NE(printRecipeLine(f.recipe).find("producer tma tf32x3 promote "), std::string::npos);
  }
  SearchSpace tf32 = space;
  tf32.precision = Precision::Tf32;
  auto loose = offered<generated::LoopsMatcher>(smallMatmul(), tf32);
  EXPECT_GT(std::count_if(loose.begin(), loose.end(), [&](const Offered& f) { return isTf32x3(f) && !promoted(f); }),
            0);
  auto byTma = [&](const Offered& f) { return wgmmaOf(wgmmaStep(f)->idiom)->producer == WgmmaProducer::Tma; };
  EXPECT_TRUE(std::all_of(all.begin(), all.end(), [&](const Offered& f) { return !isTf32x3(f) || byTma(f); }));
  auto batched = offered<generated::LoopsMatcher>(
      loadExample("matmul_bt.loop", {{"BATCH", 2}, {"M", 40}, {"N", 48}, {"K", 36}}), space);
  EXPECT_EQ(std::count_if(batched.begin(), batched.end(), isTf32x3), 0);
  auto unaligned =
      offered<generated::LoopsMatcher>(loadExample("matmul.loop", {{"M", 40}, {"N", 48}, {"K", 34}}), space);
  EXPECT_GT(std::count_if(unaligned.begin(), unaligned.end(), isTf32x3), 0);
  for (const auto& f : unaligned)
    if (isTf32x3(f)) {
      EXPECT_EQ(wgmmaOf(wgmmaStep(f)->idiom)->producer, WgmmaProducer::CpAsync) << printRecipeLine(f.recipe);
    }
  // Promoted, the error no longer grows with K: long reductions are offered too.
  auto longK =
      offered<generated::LoopsMatcher>(loadExample("matmul.loop", {{"M", 64}, {"N", 64}, {"K", 16384}}), space);
  EXPECT_GT(std::count_if(longK.begin(), longK.end(), isTf32x3), 0);
}

// Under --precision tf32, float operands take the rules for tf32 ones, one product each, as cuBLAS
// and cuDNN compute them in that mode: mma.sync (k 8), and wgmma with A from registers, where
// the threads round it; never wgmma with both operands read by descriptor, which it truncates.
// Each such candidate applies; under --precision strict none is offered. The same for an NHWC
// convolution's implicit GEMM: the filters' fragments from their gather into registers.
TEST(Exploration, FloatOperandsAreOfferedSingleTf32ProductsUnderThePrecisionTf32) {
  enum class Form { None, MmaSync, WgmmaRegisterA, WgmmaDescriptors };
  auto formOf = [](const Offered& f) {
    const WgmmaTile* tile = wgmmaOf(f.shape.idiom);  // the shape's says registerA, the step's does not
    for (const RecipeStep& s : f.recipe.steps) {
      const WgmmaTile* w = s.kind == StepKind::Wgmma ? wgmmaOf(s.idiom) : nullptr;
      const MmaTile* m = s.kind == StepKind::Mma ? std::get_if<MmaTile>(&s.idiom) : nullptr;
      if (m && m->k == 8) return Form::MmaSync;
      if (w && w->k == 8 && !w->tf32x3) return tile && tile->registerA ? Form::WgmmaRegisterA : Form::WgmmaDescriptors;
    }
    return Form::None;
  };
  auto count = [&](const std::vector<Offered>& fs, Form form) {
    return std::count_if(fs.begin(), fs.end(), [&](const Offered& f) { return formOf(f) == form; });
  };
  SearchSpace strict = smallSpace();
  strict.tile = {{16, 32, 64, 128}};
  SearchSpace tf32 = strict;
  tf32.precision = Precision::Tf32;
  for (const Kernel& k :
       {smallMatmul(), loadExample("conv2d_nhwc.loop", {{"N", 2}, {"C", 32}, {"H", 8}, {"W", 8}, {"K", 64}})}) {
    auto loose = offered<generated::LoopsMatcher>(k, tf32);
    auto exact = offered<generated::LoopsMatcher>(k, strict);
    EXPECT_GT(count(loose, Form::WgmmaRegisterA), 0) << k.name;
    EXPECT_GT(count(loose, Form::MmaSync), 0) << k.name;
    EXPECT_EQ(count(loose, Form::WgmmaDescriptors), 0) << k.name;
    EXPECT_EQ(count(exact, Form::WgmmaRegisterA) + count(exact, Form::MmaSync), 0) << k.name;
    for (const Offered& f : loose)
      if (formOf(f) != Form::None) {
        TransformResult r = applyRecipe(k, f.recipe);
        EXPECT_TRUE(r.ok()) << printRecipeLine(f.recipe) << ": " << r.reason;
      }
  }
}

// Split-K on wgmma: where a product's tiles make few blocks for the GPU (512^3: 16 of 128 x 128,
// 64 of 64 x 64, on 132 multiprocessors) or its reduction is long beside them (256 x 256 x 65536),
// tf32x3 tiles split into parts on grid.z are offered among the model's first dozen candidates,
// which the search measures; each is a legal recipe whose parts hold whole strips. Split smaller,
// they compute the nest. Where TMA cannot copy the rows (127 x 4099 x 513), tf32x3 tiles filled
// by cp.async are among the first dozen. An epilogue takes no part's sums: a layer with one is
// offered none.
TEST(Exploration, SplitTf32x3TilesAreOfferedWhereTheTilesAreFew) {
  auto splitTf32x3 = [](const Offered& f) {
    return (wgmmaOf(f.shape.idiom) && wgmmaOf(f.shape.idiom)->tf32x3) && f.shape.split > 1;
  };
  for (const auto& sizes : {std::map<std::string, int64_t>{{"M", 512}, {"N", 512}, {"K", 512}},
                            std::map<std::string, int64_t>{{"M", 256}, {"N", 256}, {"K", 65536}}}) {
    SCOPED_TRACE("K=" + std::to_string(sizes.at("K")));
    Kernel k = loadExample("matmul.loop", sizes);
    auto fs = offered<generated::LoopsMatcher>(k, SearchSpace{});
    ASSERT_GE(fs.size(), 12u);
    EXPECT_TRUE(std::any_of(fs.begin(), fs.begin() + 12, splitTf32x3));
    size_t applied = 0;
    for (const auto& f : fs) {
      if (!splitTf32x3(f) || applied == 8) continue;
      TransformResult t = applyRecipe(k, f.recipe);
      ASSERT_TRUE(t) << printRecipeLine(f.recipe) << ": " << t.reason;
      EXPECT_EQ(sizes.at("K") / f.shape.split % 32, 0) << printRecipeLine(f.recipe);
      ++applied;
    }
    EXPECT_EQ(applied, 8u);
  }
  SearchSpace space;
  space.tile = {{64, 128}};
  space.split = {{2, 4}};
  Kernel small = loadExample("matmul.loop", {{"M", 64}, {"N", 128}, {"K", 512}});
  auto fs = offered<generated::LoopsMatcher>(small, space);
  Buffers input = fillRandom(small, 3), expected = input;
  execute(small, expected);
  size_t computed = 0;
  for (const auto& f : fs) {
    if (!splitTf32x3(f) || computed == 4) continue;
    TransformResult t = applyRecipe(small, f.recipe);
    ASSERT_TRUE(t) << printRecipeLine(f.recipe) << ": " << t.reason;
    Buffers actual = input;
    execute(*t.kernel, actual);
    Comparison c = compare(small, expected, actual, reductionTolerance(small));
    EXPECT_TRUE(c.ok) << printRecipeLine(f.recipe) << ": " << c.firstMismatch;
    ++computed;
  }
  EXPECT_EQ(computed, 4u);
  // Rows TMA cannot copy (127 x 4099 x 513): tf32x3 filled by cp.async among the first dozen,
  // tiles of 64 rows among them.
  Kernel odd = loadExample("matmul.loop", {{"M", 127}, {"N", 4099}, {"K", 513}});
  auto oddFs = offered<generated::LoopsMatcher>(odd, SearchSpace{});
  ASSERT_GE(oddFs.size(), 12u);
  EXPECT_TRUE(std::any_of(oddFs.begin(), oddFs.begin() + 12, [](const Offered& f) {
    return (wgmmaOf(f.shape.idiom) && wgmmaOf(f.shape.idiom)->tf32x3) && f.shape.blockRows == 64;
  }));
  for (const auto& f : oddFs)
    if ((wgmmaOf(f.shape.idiom) && wgmmaOf(f.shape.idiom)->tf32x3))
      EXPECT_TRUE(applyRecipe(odd, f.recipe)) << printRecipeLine(f.recipe);
  auto relu = offered<generated::LoopsMatcher>(loadExample("linear_relu.loop", {{"M", 256}, {"N", 256}, {"K", 65536}}),
                                               SearchSpace{});
  EXPECT_TRUE(std::any_of(relu.begin(), relu.end(),
                          [](const Offered& f) { return (wgmmaOf(f.shape.idiom) && wgmmaOf(f.shape.idiom)->tf32x3); }));
  EXPECT_FALSE(std::any_of(relu.begin(), relu.end(), splitTf32x3));
}

TEST(Exploration, EveryOfferedCandidateOfTheOtherExamplesComputesTheNest) {
  const std::pair<const char*, std::map<std::string, int64_t>> examples[] = {
      {"conv2d_nhwc.loop", {{"N", 2}, {"C", 3}, {"H", 9}, {"W", 10}, {"K", 5}, {"ST", 2}}},
      {"conv2d_dilated.loop", {{"N", 2}, {"C", 3}, {"H", 9}, {"W", 10}, {"K", 5}}},
      {"conv2d_depthwise.loop", {{"N", 2}, {"C", 5}, {"H", 9}, {"W", 10}}},
      {"conv1d.loop", {{"N", 2}, {"C", 3}, {"L", 40}, {"K", 5}}},
      {"conv2d_grouped.loop", {{"N", 2}, {"G", 3}, {"CG", 2}, {"KG", 3}, {"H", 7}, {"W", 9}}},
      {"conv3d_ncdhw.loop", {{"N", 2}, {"C", 3}, {"D", 5}, {"H", 6}, {"W", 7}, {"K", 5}}},
      {"matmul_nt.loop", {{"M", 33}, {"N", 17}, {"K", 36}}},
      {"matmul_tn.loop", {{"M", 33}, {"N", 17}, {"K", 36}}},
  };
  for (const auto& [example, sizes] : examples) {
    SCOPED_TRACE(example);
    Kernel k = loadExample(example, sizes);
    auto fs = offered<generated::LoopsMatcher>(k);
    ASSERT_FALSE(fs.empty());
    // Every convolution among them has implicit GEMMs (collapsed loops) on offer.
    bool collapsed = std::any_of(fs.begin(), fs.end(), [](const Offered& f) {
      return std::any_of(f.recipe.steps.begin(), f.recipe.steps.end(),
                         [](const RecipeStep& s) { return s.kind == StepKind::Collapse; });
    });
    EXPECT_EQ(collapsed, std::string(example).rfind("conv", 0) == 0);
    expectCandidatesComputeTheNest(k, fs);
  }
}

bool hasStep(const Offered& f, StepKind kind) {
  return std::any_of(f.recipe.steps.begin(), f.recipe.steps.end(), [&](const RecipeStep& s) { return s.kind == kind; });
}

TEST(Exploration, ImplicitGemmsAreOfferedSplitWhereNoBatchTakesGridZ) {
  // conv2d: the gathered reduction (c*r*s = 7*9) split into 2 parts on grid.z, each gathered and
  // pipelined, computing the convolution.
  Kernel conv = loadExample("conv2d.loop", {{"N", 2}, {"C", 7}, {"H", 5}, {"W", 6}, {"K", 5}});
  std::vector<Offered> split;
  for (const Offered& f : offered<generated::LoopsMatcher>(conv))
    if (hasStep(f, StepKind::Collapse) && hasStep(f, StepKind::Split)) split.push_back(f);
  ASSERT_FALSE(split.empty());
  for (const Offered& f : split) {
    EXPECT_EQ(f.shape.split, 2);
    EXPECT_EQ(f.shape.reduction, 7 * 9 / 2);
    EXPECT_EQ(countMapped({f}, Mapping::GridZ), 1u) << printRecipeLine(f.recipe);
  }
  expectCandidatesComputeTheNest(conv, split);
  // A grouped convolution's groups and a depthwise one's channels take grid.z: their implicit
  // GEMMs (a batch of them) are not split.
  for (const auto& [example, sizes] : std::vector<std::pair<std::string, std::map<std::string, int64_t>>>{
           {"conv2d_grouped.loop", {{"N", 2}, {"G", 3}, {"CG", 4}, {"KG", 3}, {"H", 7}, {"W", 9}}},
           {"conv2d_depthwise.loop", {{"N", 2}, {"C", 5}, {"H", 9}, {"W", 10}, {"R", 5}, {"S", 5}}}}) {
    SCOPED_TRACE(example);
    auto batched = offered<generated::LoopsMatcher>(loadExample(example, sizes));
    EXPECT_TRUE(std::any_of(batched.begin(), batched.end(),
                            [](const Offered& f) { return hasStep(f, StepKind::Collapse) && f.shape.outer > 1; }));
    for (const Offered& f : batched)
      EXPECT_FALSE(hasStep(f, StepKind::Collapse) && hasStep(f, StepKind::Split)) << printRecipeLine(f.recipe);
  }
}

// Tables of offsets (stage ... table) for the inputs whose subscripts both the reduction and the
// pixels move and whose pixels lie closer than their taps (NCHW, NCDHW, 1-D); not for the
// filters, a 1x1 layer's input (no bounds to check), channels last or a stride of 2 (the taps lie
// closer: the copy runs along them, and a warp's lanes would look different entries up) or
// tensor cores; every one offered computes the nest.
TEST(Exploration, GathersThroughTablesAreOfferedWhereAWarpSharesAnEntry) {
  auto tabled = [](const Kernel& k) {
    std::vector<Offered> out;
    for (const Offered& f : offered<generated::LoopsMatcher>(k)) {
      bool any = false;
      for (const auto& s : f.recipe.steps) {
        if (s.kind != StepKind::Stage || !s.table) continue;
        EXPECT_EQ(s.array, "In") << printRecipeLine(f.recipe);
        EXPECT_TRUE(f.shape.tabled);
        EXPECT_FALSE(onTensorCores(f.shape));
        any = true;
      }
      if (any) out.push_back(f);
    }
    return out;
  };
  for (const auto& [example, sizes] : std::vector<std::pair<std::string, std::map<std::string, int64_t>>>{
           {"conv3d_ncdhw.loop", {{"N", 2}, {"C", 3}, {"D", 5}, {"H", 6}, {"W", 7}, {"K", 5}}},
           {"conv2d.loop", {{"N", 2}, {"C", 3}, {"H", 9}, {"W", 10}, {"K", 5}}},
           {"conv1d.loop", {{"N", 2}, {"C", 3}, {"L", 40}, {"K", 5}}}}) {
    SCOPED_TRACE(example);
    Kernel k = loadExample(example, sizes);
    std::vector<Offered> fs = tabled(k);
    ASSERT_FALSE(fs.empty());
    expectCandidatesComputeTheNest(k, fs);
  }
  for (const auto& [example, sizes] : std::vector<std::pair<std::string, std::map<std::string, int64_t>>>{
           {"conv2d.loop", {{"N", 2}, {"C", 3}, {"H", 9}, {"W", 10}, {"K", 5}, {"R", 1}, {"S", 1}, {"P", 0}}},
           {"conv2d.loop", {{"N", 2}, {"C", 3}, {"H", 9}, {"W", 10}, {"K", 5}, {"ST", 2}}},
           {"conv2d_nhwc.loop", {{"N", 2}, {"C", 3}, {"H", 9}, {"W", 10}, {"K", 5}}},
           {"conv2d_nhwc_half.loop", {{"N", 2}, {"C", 16}, {"H", 9}, {"W", 10}, {"K", 32}}}}) {
    SCOPED_TRACE(example);
    EXPECT_TRUE(tabled(loadExample(example, sizes)).empty());
  }
}

TEST(Exploration, ABatchedProductStagesBothOperandsTransposed) {
  // matmul_bt's A[b][i][k] and B[b][j][k] are both read along k: staged transposed, as NT's are.
  Kernel k = loadExample("matmul_bt.loop", {{"BATCH", 2}, {"M", 33}, {"N", 17}, {"K", 36}});
  std::vector<Offered> both;
  for (const Offered& f : offered<generated::LoopsMatcher>(k)) {
    std::set<std::string> transposed;
    for (const auto& s : f.recipe.steps)
      if (s.kind == StepKind::Stage && s.transposed) transposed.insert(s.array);
    if (transposed == std::set<std::string>{"A", "B"}) both.push_back(f);
  }
  ASSERT_FALSE(both.empty());
  expectCandidatesComputeTheNest(k, both);
}

TEST(Exploration, LargeGridsAreOfferedRasteredBlocks) {
  // 8192^2 outputs in tiles of 64 or 128: a wave of blocks row by row covers a few rows of tiles
  // and all 64 or 128 columns, rastered 8 rows and a few columns; 40 x 48 outputs: never.
  SearchSpace space = smallSpace();
  space.tile = {{64, 128}};
  space.unroll = {{8}};
  Kernel big = loadExample("matmul.loop", {{"M", 8192}, {"N", 8192}, {"K", 64}});
  auto fs = offered<generated::LoopsMatcher>(big, space);
  size_t rastered = 0;
  for (const Offered& f : fs) {
    if (!hasStep(f, StepKind::Raster)) continue;
    ++rastered;
    EXPECT_EQ(f.shape.rasterRows, 8);
  }
  EXPECT_GT(rastered, 0u);
  EXPECT_LT(rastered, fs.size());
  EXPECT_EQ(countWith(offered<generated::LoopsMatcher>(smallMatmul()), StepKind::Raster), 0u);
}

// A convolution of half operands is offered implicit GEMMs on tensor cores (both gathers stored
// transposed, padded for the mma step or swizzled for wgmma), the model's cheapest; they compute
// what the nest computes. Float operands are offered none.
TEST(Exploration, HalfConvolutionsAreOfferedTensorCoreImplicitGemmsFirst) {
  SearchSpace space;
  space.tile = {{32, 64}};
  space.unroll = {{2, 4}};
  space.stage = {{16}};
  space.split = {{2}};
  Kernel k = loadExample("conv2d_nhwc_half.loop", {{"N", 2}, {"C", 16}, {"H", 8}, {"W", 8}, {"K", 32}});
  auto fs = offered<generated::LoopsMatcher>(k, space);
  ASSERT_FALSE(fs.empty());
  std::vector<Offered> tensorCores;  // the implicit GEMMs among them
  for (const auto& f : fs) {
    bool collapsed = false, mma = false, transposed = true;
    for (const auto& s : f.recipe.steps) {
      collapsed |= s.kind == StepKind::Collapse;
      mma |= s.kind == StepKind::Mma || s.kind == StepKind::Wgmma;
      if (s.kind == StepKind::Stage) transposed = transposed && s.transposed && (s.padding == 8 || s.swizzled);
    }
    EXPECT_EQ(onTensorCores(f.shape), mma) << printRecipeLine(f.recipe);
    if (!collapsed || !mma) continue;
    tensorCores.push_back(f);
    EXPECT_TRUE(transposed) << printRecipeLine(f.recipe);
    EXPECT_EQ(f.shape.gatherWidth, 8) << printRecipeLine(f.recipe);  // 16 channels: 16-byte copies
  }
  ASSERT_FALSE(tensorCores.empty());
  EXPECT_EQ(printRecipeLine(fs.front().recipe), printRecipeLine(tensorCores.front().recipe));
  expectCandidatesComputeTheNest(k, tensorCores);
  Kernel single = loadExample("conv2d_nhwc.loop", {{"N", 2}, {"C", 16}, {"H", 8}, {"W", 8}, {"K", 32}});
  for (const auto& f : offered<generated::LoopsMatcher>(single, space)) EXPECT_FALSE(onTensorCores(f.shape));
}

TEST(Exploration, ConstraintsOfTheGrammarHold) {
  // Register tiles divide block tiles; a split's parts keep 16 iterations each; no candidate is
  // offered twice; each is within the device's limits (the model's feasibility).
  Kernel k = smallMatmul();
  auto fs = offered<generated::LoopsMatcher>(k);
  for (const auto& f : fs) {
    const CandidateShape& s = f.shape;
    if (s.threadRows > 1 || s.threadCols > 1) {
      EXPECT_EQ(s.blockRows % s.threadRows, 0);
      EXPECT_EQ(s.blockCols % s.threadCols, 0);
    }
    if (s.split > 1) {
      EXPECT_LE(s.split * 16, 36);
    }
    EXPECT_TRUE(estimate(s).infeasible.empty());
    EXPECT_LT(f.cost, LoopRules::kInfinity);
  }
}

TEST(Exploration, MeasuredTimesDecideTheCoverAndFailuresDoNotExist) {
  // The labeler's minimum, once kernels cost what was measured: a slow model favourite loses to
  // a fast outsider, and a kernel that failed is not chosen whatever its estimate.
  Kernel k = smallMatmul();
  auto fs = offered<generated::LoopsMatcher>(k);
  ASSERT_GE(fs.size(), 3u);
  LoopRules rules(k, smallSpace());
  generated::LoopsMatcher matcher(&rules);
  std::map<std::string, std::optional<double>> measured;
  measured[printRecipeLine(fs[0].recipe)] = std::nullopt;  // the model's best failed
  measured[printRecipeLine(fs[1].recipe)] = 2.0;
  measured[printRecipeLine(fs.back().recipe)] = 1.0;  // the model's worst ran fastest
  rules.setMeasured(measured);
  ASSERT_TRUE(matcher.label(k.body.get()));
  EXPECT_EQ(printRecipeLine(matcher.reduce(k.body.get()).recipe(k)), printRecipeLine(fs.back().recipe));
  const Node* root = k.body.get();
  EXPECT_EQ(matcher.cost(root, generated::LoopsMatcher::kernel_NT, 0), 1'000'000'000);  // 1 ms, in ps
  int kept = matcher.count(root, generated::LoopsMatcher::kernel_NT);
  EXPECT_GE(kept, 2);
  for (int rank = 0; rank < kept; ++rank) {  // the unmeasured and the failed do not exist
    int64_t c = matcher.cost(root, generated::LoopsMatcher::kernel_NT, rank);
    EXPECT_TRUE(c == 1'000'000'000 || c == 2'000'000'000) << c;
  }
}
