#pragma once
// What every subcommand that reads a .loop file needs: `-D NAME=VALUE` sizes and a checked load.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/loop/loop_tree.hpp"

namespace cudaburg::cli {

// Parses "NAME=VALUE" definitions. On a malformed one, returns nothing and sets `error` to a
// sentence naming it.
std::optional<std::map<std::string, int64_t>> parseSizeDefinitions(const std::vector<std::string>& defs,
                                                                   std::string& error);

// Reads and checks a .loop file; prints its diagnostics (or why it cannot be read) to stderr.
std::optional<Kernel> loadLoopFile(const std::string& path, const std::map<std::string, int64_t>& sizes);

// For the commands that take the database's kernels of one nest (export, replay): "" where
// `kernel` is one nest, else the sentence refusing a body of nests in a row, which the search
// tunes as a kernel a nest (src/analysis/nest_sequence.hpp).
std::string oneNestRequired(const Kernel& kernel, const std::string& path, const std::string& command);

// Writes `text` to `path` whole or not at all (through a temporary file). False with `error` set
// when it cannot.
bool writeFileAtomically(const std::string& path, const std::string& text, std::string& error);

}  // namespace cudaburg::cli
