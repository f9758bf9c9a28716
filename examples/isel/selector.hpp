#pragma once
// Instruction selection for a whole program of the tiny language, with the explanations the
// generated matcher gives: each statement's cover and a picture of its labeled tree.
#include <ostream>
#include <string>
#include <vector>

#include "common/diagnostics.hpp"

namespace isel {

struct SelectedStatement {
  std::string text;   // the statement as written
  std::string cover;  // the rules chosen, one a line
  std::string dot;    // the labeled tree in Graphviz's DOT language
  long cost;          // the cover's cost (instructions, a multiply counting 3)
};

struct Selection {
  std::vector<SelectedStatement> statements;
  std::vector<std::string> listing;  // instructions, each statement's preceded by a comment
};

// Parses `file` and selects instructions for it; false (with diagnostics) on bad input. With
// `trace`, the matcher writes every match it finds while labeling there.
bool selectInstructions(const common::SourceFile& file, common::Diagnostics& diags, Selection& out,
                        std::ostream* trace = nullptr);

}  // namespace isel
