#pragma once
// Checks a kernel against the mapped-tree model of loop_tree.hpp (the contract between the
// transformations, the CPU executor and the CUDA emitter).
#include <string>

#include "src/loop/loop_tree.hpp"

namespace cudaburg {

// Returns "" when the kernel keeps the model, else a sentence naming the first rule it breaks.
std::string checkMappedTree(const Kernel& kernel);

}  // namespace cudaburg
