#pragma once
// One self-contained HTML page (inline SVG and a little JavaScript, nothing fetched) that steps
// through a labeling: the tree drawn, Next/Back and a slider through the bottom-up visits and
// matches, each node's table of nonterminals, costs and rules with the entry a step improved
// highlighted, then the reduction top down with the cover coloured, and the k best covers side
// by side. Opened with `?step=N` it shows step N; with `?walk` it clicks through every step and
// writes what each showed into the page (the tests read it).
#include <ostream>
#include <string>

#include "burggen/explain/labeling.hpp"

namespace burggen::explain {

// The largest tree a page draws.
constexpr int kMaxPageNodes = 500;

// The sentence that refuses a tree of `nodes` nodes, or "" when a page can draw it.
std::string pageSizeError(int nodes);

// Writes the page of `labeling`; false (with nothing written) when the tree is too large to draw.
bool writeLabelingPage(std::ostream& out, const Labeling& labeling);

}  // namespace burggen::explain
