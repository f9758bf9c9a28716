#pragma once
// Maximal munch, the greedy way to select instructions that BURG improves on: a hand-written
// selector for the same machine and the same instructions as isel.burg, for comparison.
#include "common/diagnostics.hpp"
#include "examples/isel/selector.hpp"

namespace isel {

// Parses `file` and selects instructions by maximal munch: top down from each root, every node
// is covered by the biggest instruction pattern that matches there (the one with the most
// operators), the kids that pattern leaves likewise; costs are never compared. Fills `out` as
// selectInstructions does, with each statement's cost and no cover or picture. False (with
// diagnostics) on bad input.
bool selectByMaximalMunch(const common::SourceFile& file, common::Diagnostics& diags, Selection& out);

}  // namespace isel
