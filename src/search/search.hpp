#pragma once
// One search over a loop nest, driven by a matcher burggen generated (with --kbest) from a
// grammar of loop-tree idioms (specs/loops.burg):
//   1. label the tree: the rules build every candidate and the model prices them; the root's
//      k best covers as `kernel` are the candidate kernels, cheapest estimate first;
//   2. a strategy asks for candidates to measure and is told their times (src/search/strategy.hpp);
//   3. the measured times re-enter the labeler (a kernel costs its measured time, or INF), the tree
//      is labeled again, and its cheapest cover is the answer: what the report shows is the cover
//      the labeler chose.
// A time budget covers all three: measuring stops early enough for the final labeling, which
// takes about as long as the first.
#include <chrono>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "src/idioms/epilogue/local_accumulator.hpp"
#include "src/idioms/write_back.hpp"
#include "src/search/evaluator.hpp"
#include "src/search/loop_rules.hpp"
#include "src/search/strategy.hpp"
#include "src/search/untiled_reason.hpp"

namespace cudaburg {

struct SearchResult {
  SearchOutcome outcome;
  std::optional<Recipe> best;  // nullopt when no kernel was verified (or, without a GPU, compiled)
  std::string cover;           // the winning cover, a rule (with its parameters) a line
  std::string labeledDot;      // the labeled tree in Graphviz DOT
  common::Reason reason;       // when there is no best: why
};

// A candidate kernel: one of the root's covers as `kernel`.
struct KernelCover {
  Fragment fragment;
  std::string cover;  // the matcher's cover text
  double modelMs = 0;
};

// Steps 2 and the bookkeeping around them, outside the matcher: measures what `strategy` asks for
// among `covers` (duplicates of one recipe measured once) and returns what the labeler is told:
// recipe line -> measured ms, or nullopt for a failure. Without a GPU, a compiled candidate costs
// its model estimate and a refused one fails. Fills the outcome's model figures.
std::map<std::string, std::optional<double>> measureCovers(const LoopRules& rules,
                                                           const std::vector<KernelCover>& covers, Evaluator& evaluator,
                                                           Strategy& strategy);

// `whenMeasured` runs once measuring has ended, before the final labeling: work for the GPU that
// may go on beside it (the reference library's timing).
template <class Matcher>
SearchResult searchWith(const Kernel& kernel, const SearchSpace& space, Evaluator& evaluator, Strategy& strategy,
                        const std::function<void()>& whenMeasured = {},
                        CalibratedModel model = CalibratedModel::prior()) {
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
  auto started = Clock::now();
  GpuModel gpu;
  gpu.target = GpuTarget::forArchitecture(evaluator.arch());
  // The grammar labels a sum kept in a local as the tile's own accumulator; the recipes apply to
  // the kernel as written (src/idioms/epilogue/local_accumulator.hpp).
  const Kernel matched = withLocalAccumulators(kernel);
  LoopRules rules(matched, space, gpu, std::move(model));
  Matcher matcher(&rules);
  const Node* root = matched.body.get();
  SearchResult result;
  SearchPhases phases;
  if (matcher.label(root)) {
    auto labeled = Clock::now();
    // What follows measuring: the final labeling (a little longer than the first, as each kernel
    // is looked up among the measured ones), then the winner timed again and the outputs written.
    evaluator.reserve((labeled - started) * 3 / 2 + std::chrono::seconds(1));
    std::vector<KernelCover> covers;
    int count = matcher.count(root, Matcher::kernel_NT);
    for (int rank = 0; rank < count; ++rank)
      covers.push_back({matcher.value(root, Matcher::kernel_NT, rank), matcher.coverText(root, rank),
                        matcher.cost(root, Matcher::kernel_NT, rank) / 1e9});
    rules.setMeasured(measureCovers(rules, covers, evaluator, strategy));
    auto measured = Clock::now();
    if (whenMeasured) whenMeasured();
    bool chosen = matcher.label(root);
    phases = {seconds(labeled - started), seconds(measured - labeled), seconds(Clock::now() - measured)};
    if (chosen) {
      result.best = matcher.reduce(root).recipe(kernel);
      result.cover = matcher.coverText(root, 0);
      if (std::string saved = fusionSavings(matched); !saved.empty()) evaluator.outcome().notes.push_back(saved);
    } else {
      result.reason = "no candidate compiled and verified";
    }
  } else {
    // No rule covers the nest: the nest as written (the emitter's naive mapping) is still a
    // kernel, compiled, verified and timed as the fallback, and the report says what stood in the
    // way of tiling it.
    evaluator.outcome().notTiledReason = whyNotTiled(kernel);
    evaluator.outcome().candidates = 1;
    evaluator.evaluate({Candidate{Recipe{}, "kernel <- the nest as written (no rule covers it)", 0}});
    const VariantResult& v = evaluator.outcome().variants.back();
    bool usable = v.measured ? v.result.status == RunStatus::Ok : v.result.status != RunStatus::Refused;
    if (usable) {
      result.best = Recipe{};
      result.cover = v.cover;
    } else {
      result.reason = "no rule of the grammar covers this loop nest (" + evaluator.outcome().notTiledReason +
                      "), and the nest as written failed: " + v.result.reason;
    }
  }
  std::ostringstream dot;
  matcher.printDot(dot, root);
  result.labeledDot = dot.str();
  result.outcome = evaluator.outcome();
  result.outcome.phases = phases;
  result.outcome.wallSeconds = seconds(Clock::now() - started);
  return result;
}

}  // namespace cudaburg
