#pragma once
// mma.sync's tile, a warp's: each iteration of the block loops is a warp of 32 threads whose
// tiles of 16 x 8 x k are each one mma.sync (the recipe's `mma` step).
#include "src/idioms/idiom_unit.hpp"

namespace cudaburg {

class MmaIdiom : public IdiomUnit {
 public:
  const char* name() const override { return "mma"; }
  const char* keyword() const override { return "mma"; }
  const char* usage() const override;
  bool holds(const TileIdiom& t) const override { return std::holds_alternative<MmaTile>(t); }
  bool parse(StepReader& in, std::vector<std::string>& loops, TileIdiom& out) const override;
  std::string print(const std::vector<std::string>& loops, const TileIdiom& t) const override;
  TransformResult apply(const Kernel& kernel, const std::vector<std::string>& loops, const TileIdiom& t) const override;
  std::vector<int64_t> decisions(const TileIdiom& t) const override;
};

}  // namespace cudaburg
