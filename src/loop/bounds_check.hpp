#pragma once
// Checks that every subscript of a kernel stays within its array for every iteration of the
// loops around it (reads of `padded` arrays may leave it: they read 0 there).
#include "common/diagnostics.hpp"
#include "src/loop/loop_tree.hpp"

namespace cudaburg {

// Reports each access that can leave its array as an error at its statement; true when none can.
// Index ranges are bounded loop by loop (outer indices at their extremes), which is exact for
// rectangular nests and safe for the others.
bool checkSubscriptBounds(const Kernel& kernel, common::Diagnostics& diags);

}  // namespace cudaburg
