#pragma once
// Winograd's F(m x m, 3 x 3) over a whole 2-D convolution (the recipe's `winograd` step).
#include "src/idioms/idiom_unit.hpp"

namespace cudaburg {

class WinogradIdiom : public IdiomUnit {
 public:
  const char* name() const override { return "winograd"; }
  const char* keyword() const override { return "winograd"; }
  const char* usage() const override;
  bool holds(const TileIdiom& t) const override { return std::holds_alternative<WinogradTile>(t); }
  bool parse(StepReader& in, std::vector<std::string>& loops, TileIdiom& out) const override;
  std::string print(const std::vector<std::string>& loops, const TileIdiom& t) const override;
  TransformResult apply(const Kernel& kernel, const std::vector<std::string>& loops, const TileIdiom& t) const override;
  std::vector<int64_t> decisions(const TileIdiom& t) const override;
  std::optional<Estimate> estimate(const CandidateShape& shape, const GpuModel& gpu) const override;
};

}  // namespace cudaburg
