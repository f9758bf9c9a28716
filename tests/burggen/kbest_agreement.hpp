#pragma once
// The labels of whole trees, from the k-best matchers generated with K 1 from features.burg and
// sample.burg, each in its own file (the grammars' prologues cannot share one): for every node,
// preorder, and every nonterminal, the cost of its best derivation (the matchers' INF when none).
#include <cstdint>
#include <string>
#include <vector>

#include "tests/burggen/test_tree.hpp"

struct tree;

std::vector<std::int64_t> featuresKBestCosts(TestNode* root);
// And the reduction of the root from the start nonterminal.
std::string featuresKBestReduce(TestNode* root);
std::vector<std::int64_t> sampleKBestCosts(tree* root);
