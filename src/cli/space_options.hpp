#pragma once
// The options that say which candidates a search considers, shared by the search and `replay`:
// the parameter ranges of the grammar's rules, the sizes, and the strategy.
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "src/search/search_space.hpp"
#include "src/search/strategy.hpp"

namespace cudaburg::cli {

struct SpaceFlags {
  std::string tile = "32..256", unroll = "1..16", stage = "8..32", split = "2..8";
  std::vector<std::string> defines;
  std::string strategy = "adaptive";
  bool noTf32x3 = false;
  std::string precision = "strict";
};

void addSpaceOptions(CLI::App& app, SpaceFlags& flags);
// The ranges parsed into `space`; false with a sentence in `error` on a mistake.
bool parseSpace(const SpaceFlags& flags, SearchSpace& space, std::string& error);

}  // namespace cudaburg::cli
