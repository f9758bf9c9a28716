// Labeling throughput: the matcher burggen generates from label.burg against the same grammar's
// labeler written by hand in iburg's style, on random trees of several sizes.
#include <benchmark/benchmark.h>

#include <utility>
#include <vector>

#include "bench/label/handwritten_matcher.hpp"
#include "bench/label/label_matcher.hpp"

namespace {

using bench::HandwrittenMatcher;
using bench::LabelMatcher;

// The chosen rule and its cost for every node and nonterminal, in preorder. Both labelers keep
// their state in the same slot of the node, so one's labels are read before the other runs.
template <class Matcher>
void collect(bench::Node* n, const Matcher& m, const int (&nonterminals)[6], std::vector<std::pair<int, long>>& out) {
  for (int nt : nonterminals) out.emplace_back(m.rule(n, nt), m.rule(n, nt) ? static_cast<long>(m.cost(n, nt)) : -1);
  for (int i = 0; i < LabelMatcher::arity(n->op); ++i) collect(n->kids[i], m, nonterminals, out);
}

// The generated labeler, seen through the names the hand-written one uses.
struct GeneratedView {
  const LabelMatcher& m;
  int rule(bench::Node* n, int nt) const { return m.ruleNumber(n, nt); }
  LabelMatcher::Cost cost(bench::Node* n, int nt) const { return m.cost(n, nt); }
};

// The two labelers must agree, rule for rule, before their speeds mean anything.
bool agree(bench::Node* root) {
  static const int kGenerated[6] = {LabelMatcher::stmt_NT, LabelMatcher::reg_NT, LabelMatcher::addr_NT,
                                    LabelMatcher::imm_NT,  LabelMatcher::rc_NT,  LabelMatcher::mem_NT};
  static const int kHandwritten[6] = {HandwrittenMatcher::stmt_NT, HandwrittenMatcher::reg_NT,
                                      HandwrittenMatcher::addr_NT, HandwrittenMatcher::imm_NT,
                                      HandwrittenMatcher::rc_NT,   HandwrittenMatcher::mem_NT};
  std::vector<std::pair<int, long>> generated, handwritten;
  LabelMatcher g;
  g.label(root);
  collect(root, GeneratedView{g}, kGenerated, generated);
  HandwrittenMatcher h;
  h.label(root);
  collect(root, h, kHandwritten, handwritten);
  return generated == handwritten;
}

void BM_GeneratedLabeler(benchmark::State& state) {
  bench::RandomTree tree(static_cast<int>(state.range(0)), 1);
  if (!agree(tree.root())) {
    state.SkipWithError("the generated and the hand-written labelers disagree");
    return;
  }
  LabelMatcher matcher;
  for (auto _ : state) benchmark::DoNotOptimize(matcher.label(tree.root()));
  state.SetItemsProcessed(state.iterations() * tree.size());
}

void BM_HandwrittenLabeler(benchmark::State& state) {
  bench::RandomTree tree(static_cast<int>(state.range(0)), 1);
  HandwrittenMatcher matcher;
  for (auto _ : state) benchmark::DoNotOptimize(matcher.label(tree.root()));
  state.SetItemsProcessed(state.iterations() * tree.size());
}

BENCHMARK(BM_GeneratedLabeler)->Arg(1 << 10)->Arg(1 << 16)->Arg(1 << 20);
BENCHMARK(BM_HandwrittenLabeler)->Arg(1 << 10)->Arg(1 << 16)->Arg(1 << 20);

}  // namespace

BENCHMARK_MAIN();
