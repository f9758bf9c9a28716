#pragma once
// The CUDA cores' tile, the default idiom: each iteration of the block loops is a thread. No
// recipe step makes it; the others replace it.
#include "src/idioms/idiom_unit.hpp"

namespace cudaburg {

class SimtIdiom : public IdiomUnit {
 public:
  const char* name() const override { return "simt"; }
  const char* keyword() const override { return ""; }
  const char* usage() const override { return ""; }
  bool holds(const TileIdiom& t) const override { return std::holds_alternative<SimtTile>(t); }
  bool parse(StepReader& in, std::vector<std::string>& loops, TileIdiom& out) const override;
  std::string print(const std::vector<std::string>& loops, const TileIdiom& t) const override;
  TransformResult apply(const Kernel& kernel, const std::vector<std::string>& loops, const TileIdiom& t) const override;
  std::vector<int64_t> decisions(const TileIdiom& t) const override;
};

}  // namespace cudaburg
