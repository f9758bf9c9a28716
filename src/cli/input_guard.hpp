#pragma once
// Outputs never replace inputs: the one check every file cudaburg writes goes through, so that
// `show X.loop --dot X.loop` (or -o naming the folder of a .loop called report.md) loses nothing.
#include <string>
#include <vector>

namespace cudaburg::cli {

// Why writing any of `outputs` would replace one of `inputs` (the same file, however its path is
// spelled or linked), as a sentence; "" when none would.
std::string outputReplacingInput(const std::vector<std::string>& outputs, const std::vector<std::string>& inputs);

}  // namespace cudaburg::cli
