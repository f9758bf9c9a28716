#pragma once
// The two loops strip-mining makes of one, shared by every transformation that strip-mines
// (tile, unroll, vectorize, registerTile, splitReduction).
#include <cstdint>
#include <string>

#include "src/loop/loop_tree.hpp"

namespace cudaburg {

// `for outerName = lower; outerName < upper...; outerName += factor*step` { body }, with the
// loop's kind and mapping.
NodePtr stripOuterLoop(const Node& loop, const std::string& outerName, int64_t factor, NodePtr body);
// `for index = outerName; index < min(outerName + factor*step, upper...); index += step` { body },
// with the loop's kind, the given mapping and the loops it collapses, if any. Upper bounds that the strip can never
// pass (the lower bound plus a multiple of the strip) are dropped.
NodePtr stripInnerLoop(const Node& loop, const std::string& outerName, int64_t factor, NodePtr body,
                       Mapping mapping = Mapping::None);

}  // namespace cudaburg
