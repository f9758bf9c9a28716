#pragma once
// Facts about loops that transformations, the executor and the emitter share.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/loop/loop_tree.hpp"

namespace cudaburg {

// The largest trip count of a loop when one of its upper bounds lies a constant distance above
// its lower bound (`for i = i_o; i < min(i_o + 64, M)` has 64), or when all bounds are constant.
// The actual count may be smaller (the min() cuts the last strip). nullopt when unknown.
std::optional<int64_t> constantTripCount(const Node& loop);

// The span `(tripCount - 1) * step` of the index values of such a loop: the index lies in
// [lower, lower + span].
std::optional<int64_t> constantSpan(const Node& loop);

// "" when `loop` (below the nodes `above`, outermost first) can run `width` consecutive
// elements as one wide access, else why not: it is innermost with step 1, its bounds and every
// access's offset are multiples of `width`, and each access either ignores its index or uses it
// with coefficient 1 in the last subscript of an array whose last extent `width` divides.
std::string vectorProblem(const Kernel& kernel, const std::vector<NodePtr>& above, const Node& loop, int width);

}  // namespace cudaburg
