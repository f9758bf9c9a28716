#pragma once
// Outputs never replace inputs: the one check every file cudaburg writes goes through, so that
// `show X.loop --dot X.loop` (or -o naming the folder of a .loop called report.md) loses nothing.
#include <string>
#include <vector>

namespace cudaburg::cli {

// Why writing any of `outputs` would replace one of `inputs` (the same file, however its path is
// spelled or linked), as a sentence; "" when none would.
std::string outputReplacingInput(const std::vector<std::string>& outputs, const std::vector<std::string>& inputs);

// Why `dir` cannot be made a folder of outputs (a file stands where it, or a folder above it,
// would be), as a sentence; "" when it can. Asked before a search, whose results would be lost
// if the folder failed only once they were written.
std::string outputFolderProblem(const std::string& dir);

}  // namespace cudaburg::cli
