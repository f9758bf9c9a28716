#pragma once
// Why no rule of specs/loops.burg tiles a nest, in a sentence that names the statement that
// prevents it (with its line) and says why: what the report gives where the search falls back to
// the nest as written.
#include <string>

#include "src/loop/loop_tree.hpp"

namespace cudaburg {

std::string whyNotTiled(const Kernel& kernel);

}  // namespace cudaburg
