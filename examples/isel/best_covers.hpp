#pragma once
// The cheapest covers of each statement, not only the best: what the k-best matcher generated
// from isel.burg (burggen --kbest) keeps, with the instructions each cover would select.
#include <string>
#include <vector>

#include "common/diagnostics.hpp"

namespace isel {

struct RankedCover {
  long cost;
  std::string cover;                      // the rules, one a line, indented by depth
  std::vector<std::string> instructions;  // what reducing this cover emits
  std::string dot;                        // the labeled tree with this cover highlighted (Graphviz)
};

struct StatementCovers {
  std::string text;
  std::vector<RankedCover> covers;  // cheapest first
};

// The largest `count` selectBestCovers takes: the K the matcher was generated with.
int maxBestCovers();

// Parses `file` and finds the `count` cheapest covers of each statement (fewer where fewer
// exist); false (with diagnostics) on bad input. Each cover's instructions follow the best
// covers of the statements before it, as in the program's listing.
// The covers side by side in one Graphviz graph, a cluster each ("cover 1, cost 4", ...).
std::string coversDot(const StatementCovers& covers);

bool selectBestCovers(const common::SourceFile& file, common::Diagnostics& diags, int count,
                      std::vector<StatementCovers>& out);

}  // namespace isel
