#pragma once
// What fusing a nest's epilogue into its tiles' write-back saved, as a sentence for the report.
#include <string>

#include "src/loop/loop_tree.hpp"

namespace cudaburg {

// "fusion: applied at the write-back, the epilogue (1 statement) leaves Y stored once, 1.00 MiB;
// unfused, ..., 3.00 MiB: 2.00 MiB (67%) of traffic saved", from the model's count of both
// (epilogueTraffic in cost_model.hpp); "" where the nest has no epilogue.
std::string fusionSavings(const Kernel& kernel);

}  // namespace cudaburg
