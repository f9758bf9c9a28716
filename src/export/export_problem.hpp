#pragma once
// What `cudaburg export` is asked for: problems, each a .loop file with its `-D NAME=VALUE` sizes,
// from the command line (FILE.loop -D ..., or --problem "FILE.loop -D ...") or a list file.
#include <optional>
#include <string>
#include <vector>

namespace cudaburg {

struct ExportProblem {
  std::string file;                  // the .loop file
  std::vector<std::string> defines;  // "NAME=VALUE", as -D takes them
};

// Parses "FILE.loop -D M=2048 -D N=2048" (or -DM=2048); nullopt and a sentence in `error` otherwise.
std::optional<ExportProblem> parseProblem(const std::string& text, std::string& error);

// A list file: one problem a line as --problem takes it; blank lines and `#` comments are skipped.
std::optional<std::vector<ExportProblem>> readProblemList(const std::string& path, std::string& error);

// The problem as its search command takes it: "FILE.loop -D M=2048 -D N=2048".
std::string problemText(const ExportProblem& p);

}  // namespace cudaburg
