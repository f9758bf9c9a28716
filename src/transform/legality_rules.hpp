#pragma once
// The dependence questions the transformations ask, in one place.
#include <string>

#include "src/loop/loop_tree.hpp"

namespace cudaburg {

// "" when the adjacent loops `outer` (whose whole body is `inner`) may be swapped, else why not.
std::string interchangeProblem(const Kernel& kernel, const Node& outer, const Node& inner);
// "" when the loops of a perfect nest may be reordered among themselves, else why not.
std::string permutationProblem(const Kernel& kernel, const std::vector<const Node*>& band);
// "" when a loop may be distributed over the statements of its body, else why not.
std::string distributionProblem(const Kernel& kernel, const Node& loop);

}  // namespace cudaburg
