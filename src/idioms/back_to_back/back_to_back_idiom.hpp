#pragma once
// Two products back to back in one kernel, the hidden rows kept on chip (the recipe's `b2b`
// step): back_to_back_pair.hpp says which bodies it takes, back_to_back_tiling.hpp what a tile
// makes of them.
#include "src/idioms/idiom_unit.hpp"

namespace cudaburg {

class BackToBackIdiom : public IdiomUnit {
 public:
  const char* name() const override { return "b2b"; }
  const char* keyword() const override { return "b2b"; }
  const char* usage() const override;
  bool holds(const TileIdiom& t) const override { return std::holds_alternative<BackToBackTile>(t); }
  bool parse(StepReader& in, std::vector<std::string>& loops, TileIdiom& out) const override;
  std::string print(const std::vector<std::string>& loops, const TileIdiom& t) const override;
  TransformResult apply(const Kernel& kernel, const std::vector<std::string>& loops, const TileIdiom& t) const override;
  std::vector<int64_t> decisions(const TileIdiom& t) const override;
  std::optional<Estimate> estimate(const CandidateShape& shape, const GpuModel& gpu) const override;
};

}  // namespace cudaburg
