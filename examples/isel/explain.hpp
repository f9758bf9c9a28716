#pragma once
// The labeling of a program's last statement as a page draws it (burggen/explain): every match
// the matcher tried, its cover, or with `bestCovers` above 1 that many cheapest covers.
#include <string>

#include "burggen/explain/labeling.hpp"
#include "common/diagnostics.hpp"

namespace isel {

// False on bad input (with diagnostics), or with `error` set when the tree is too large to draw.
bool explainLastStatement(const common::SourceFile& file, common::Diagnostics& diags, int bestCovers,
                          burggen::explain::Labeling& out, std::string& error);

}  // namespace isel
