#pragma once
// Hopper's warpgroup MMA: each iteration of the block loops is a warpgroup of 4 warps whose
// accumulation tiles of 64 x N x k are each one wgmma.mma_async (the recipe's `wgmma` step).
#include "src/idioms/idiom_unit.hpp"

namespace cudaburg {

class WgmmaIdiom : public IdiomUnit {
 public:
  const char* name() const override { return "wgmma"; }
  const char* keyword() const override { return "wgmma"; }
  const char* usage() const override;
  bool holds(const TileIdiom& t) const override { return std::holds_alternative<WgmmaTile>(t); }
  bool parse(StepReader& in, std::vector<std::string>& loops, TileIdiom& out) const override;
  std::string print(const std::vector<std::string>& loops, const TileIdiom& t) const override;
  TransformResult apply(const Kernel& kernel, const std::vector<std::string>& loops, const TileIdiom& t) const override;
  std::vector<int64_t> decisions(const TileIdiom& t) const override;
};

}  // namespace cudaburg
