#pragma once
// One search over a loop nest, driven by a matcher burggen generated from a grammar of loop-tree
// idioms (specs/loops.burg): label the tree (the rules' costs offer, rank and measure
// candidates), then reduce it from the start nonterminal to the winning recipe.
#include <chrono>
#include <optional>
#include <sstream>
#include <string>

#include "src/search/evaluator.hpp"
#include "src/search/search_context.hpp"

namespace cudaburg {

struct SearchResult {
  SearchOutcome outcome;
  std::optional<Recipe> best;  // nullopt when no kernel rule applied (nothing verified)
  std::string cover;           // the chosen cover, one rule a line
  std::string labeledDot;      // the labeled tree in Graphviz DOT
  std::string why;             // when there is no best: why
};

template <class Matcher>
SearchResult searchWith(const Kernel& kernel, const SearchSpace& space, Evaluator& evaluator) {
  auto started = std::chrono::steady_clock::now();
  SearchContext context(kernel, space, &evaluator);
  Matcher matcher(&context);
  SearchResult result;
  const Node* root = kernel.body.get();
  bool derived = matcher.label(root);
  std::ostringstream dot;
  matcher.printDot(dot, root);
  result.labeledDot = dot.str();
  if (derived) {
    result.cover = matcher.cover(root);
    result.best = matcher.reduce(root);
  } else {
    result.why = evaluator.outcome().variants.empty()
                     ? "no rule of the grammar covers this loop nest"
                     : "no variant compiled and verified";
  }
  result.outcome = evaluator.outcome();
  result.outcome.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace cudaburg
