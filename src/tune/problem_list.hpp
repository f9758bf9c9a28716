#pragma once
// A list of problems to tune, one a line: `[NAME:] FILE.loop [OPTIONS]`, where OPTIONS are the
// search's own (-D NAME=VALUE, --tile, --budget, ...). Blank lines and '#' comments are skipped;
// a FILE.loop that is not absolute is taken from the list's folder. Problems that repeat (the
// same file, sizes and options) are kept once.
#include <string>
#include <vector>

#include "common/diagnostics.hpp"
#include "common/source.hpp"

namespace cudaburg::tune {

// A word of a line and where it starts.
struct Word {
  std::string text;
  common::SourceLoc loc;
};

struct Problem {
  std::string name;       // given, or the file's stem and its sizes ("conv2d-N32-C64")
  common::SourceLoc loc;  // where its line starts
  std::string file;       // the .loop file, resolved against the list's folder
  std::vector<Word> options;
  std::string key;              // what makes two problems the same: the file, sorted sizes, options
  std::vector<size_t> repeats;  // the lines (1-based) of later copies, tuned with this one
};

// The problems of `list` in their order, the repeats folded into the first; errors (a quote left
// open, a line without a .loop file, a name given twice) go to `diagnostics` and leave that line out.
std::vector<Problem> parseProblemList(const common::SourceFile& list, common::Diagnostics& diagnostics);

// The -D definitions among a problem's options ("-D N=32" or "-DN=32"), in their order.
std::vector<std::string> sizeDefinitions(const std::vector<Word>& options);

}  // namespace cudaburg::tune
