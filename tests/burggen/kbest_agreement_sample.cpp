#include "tests/burggen/kbest_agreement.hpp"
#include "tests/burggen/sample_kbest_matcher.hpp"

namespace {

void collect(samplek::SampleKMatcher& m, tree* node, std::vector<std::int64_t>& out) {
  for (int nt = 1; nt <= samplek::SampleKMatcher::kNonterminals; ++nt) out.push_back(m.cost(node, nt));
  for (int i = 0; i < samplek::SampleKMatcher::arity(node->op); ++i) collect(m, node->kids[i], out);
}

}  // namespace

std::vector<std::int64_t> sampleKBestCosts(tree* root) {
  samplek::SampleKMatcher m;
  m.label(root);
  std::vector<std::int64_t> out;
  collect(m, root, out);
  return out;
}
