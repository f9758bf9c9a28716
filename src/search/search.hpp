#pragma once
// One search over a loop nest, driven by a matcher burggen generated (with --kbest) from a
// grammar of loop-tree idioms (specs/loops.burg):
//   1. label the tree: the rules build every candidate and the model prices them; the root's
//      k best covers as `kernel` are the candidate kernels, cheapest estimate first;
//   2. a strategy asks for candidates to measure and is told their times (src/search/strategy.hpp);
//   3. the measured times re-enter the labeler (a kernel costs its measured time, or INF), the tree
//      is labeled again, and its cheapest cover is the answer: what the report shows is the cover
//      the labeler chose.
#include <chrono>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "src/search/evaluator.hpp"
#include "src/search/loop_rules.hpp"
#include "src/search/strategy.hpp"

namespace cudaburg {

struct SearchResult {
  SearchOutcome outcome;
  std::optional<Recipe> best;  // nullopt when no kernel was verified (or, without a GPU, compiled)
  std::string cover;           // the winning cover, a rule (with its parameters) a line
  std::string labeledDot;      // the labeled tree in Graphviz DOT
  std::string why;             // when there is no best: why
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
std::map<std::string, std::optional<double>> measureCovers(const LoopRules& rules, const std::vector<KernelCover>& covers,
                                                           Evaluator& evaluator, Strategy& strategy);

template <class Matcher>
SearchResult searchWith(const Kernel& kernel, const SearchSpace& space, Evaluator& evaluator, Strategy& strategy,
                        CalibratedModel model = CalibratedModel::prior()) {
  auto started = std::chrono::steady_clock::now();
  GpuModel gpu;
  gpu.arch = evaluator.arch();
  LoopRules rules(kernel, space, gpu, std::move(model));
  Matcher matcher(&rules);
  SearchResult result;
  const Node* root = kernel.body.get();
  if (matcher.label(root)) {
    std::vector<KernelCover> covers;
    int count = matcher.count(root, Matcher::kernel_NT);
    for (int rank = 0; rank < count; ++rank)
      covers.push_back({matcher.value(root, Matcher::kernel_NT, rank), matcher.coverText(root, rank),
                        matcher.cost(root, Matcher::kernel_NT, rank) / 1e9});
    rules.setMeasured(measureCovers(rules, covers, evaluator, strategy));
    if (matcher.label(root)) {
      result.best = matcher.reduce(root).recipe(kernel);
      result.cover = matcher.coverText(root, 0);
    } else {
      result.why = "no candidate compiled and verified";
    }
  } else {
    result.why = "no rule of the grammar covers this loop nest";
  }
  std::ostringstream dot;
  matcher.printDot(dot, root);
  result.labeledDot = dot.str();
  result.outcome = evaluator.outcome();
  result.outcome.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace cudaburg
