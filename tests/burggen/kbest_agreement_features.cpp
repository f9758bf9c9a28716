#include "tests/burggen/features_kbest_matcher.hpp"
#include "tests/burggen/kbest_agreement.hpp"

namespace {

void collect(featk::FeatKMatcher& m, TestNode* node, std::vector<std::int64_t>& out) {
  for (int nt = 1; nt <= featk::FeatKMatcher::kNonterminals; ++nt) out.push_back(m.cost(node, nt));
  for (TestNode* kid : node->kids) collect(m, kid, out);
}

}  // namespace

std::vector<std::int64_t> featuresKBestCosts(TestNode* root) {
  featk::FeatKMatcher m;
  m.label(root);
  std::vector<std::int64_t> out;
  collect(m, root, out);
  return out;
}

std::string featuresKBestReduce(TestNode* root) {
  featk::FeatKMatcher m;
  m.label(root);
  return m.reduce(root);
}
