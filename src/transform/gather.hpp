#pragma once
// What the stage transformation reads off the loads it stages: the box of a subscript over the
// loops inside the stage point, and, where the loads use indices derived from a collapsed loop
// inside it, the gather that copies them (see Stage in loop_tree.hpp).
#include <string>
#include <vector>

#include "src/loop/loop_tree.hpp"

namespace cudaburg {

// The range of one subscript over the loops between the stage point and a load: a part that
// the loops outside fix (`base`), plus offsets in [lo, hi].
struct SubscriptRange {
  Affine base;
  int64_t lo = 0, hi = 0;
};

// Replaces each inner loop's index, innermost first, by its lower bound plus an offset in
// [0, span], collecting the offsets' extremes; why not, where a loop has no constant trip count
// or the subscript uses an index derived from a collapsed loop among them.
std::string rangeOf(const Affine& subscript, const std::vector<const Node*>& innerLoops, SubscriptRange& out);

// Whether some load of `array` below `core` uses an index derived from a collapsed loop inside.
bool readsThroughCollapsedLoops(const NodePtr& core, const std::string& array);

// The gather of `array`'s loads below `core`: one dimension a loop inside whose index (or an index
// it derives) the subscripts use, outermost first, each over the range its index takes.
struct Gather {
  std::vector<GatherDim> dims;
  std::vector<Affine> origin;  // per dimension, over the loops outside
  std::vector<int64_t> extents;
  std::vector<Affine> subscripts;  // the load's
};
// "" and the gather, or why there is none (the loads differ, a range is not constant).
std::string gatherOf(const NodePtr& core, const std::string& array, Gather& out);

}  // namespace cudaburg
