#pragma once
// The .loop language: reads a file into a Kernel (docs/loop-language.md describes the language).
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "common/diagnostics.hpp"
#include "common/source.hpp"
#include "src/loop/loop_tree.hpp"

namespace cudaburg {

// Parses one kernel, folds its sizes to constants and checks it: names, ranks, writes to const
// arrays, subscripts within the arrays, and the parallel/reduce marks against its dependences.
// `overrides` replace the value of the sizes they name (as `-D NAME=VALUE` does); sizes declared
// later are computed from the overridden value. Reports every problem it finds to `diags` and
// returns nothing when there was an error.
std::optional<Kernel> parseLoopFile(const common::SourceFile& file, common::Diagnostics& diags,
                                    const std::map<std::string, int64_t>& overrides = {});

}  // namespace cudaburg
