#pragma once
// The values the search may choose from, as the command line gives them.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "src/cuda/run/precision.hpp"
#include "src/search/param_range.hpp"

namespace cudaburg {

struct SearchSpace {
  ParamRange tile{{32, 64, 128, 256}};  // block tile edge (--tile)
  ParamRange unroll{{1, 2, 4, 8, 16}};  // register tile edge of one thread (--unroll)
  ParamRange stage{{8, 16, 32}};        // reduction elements staged per step (--stage)
  ParamRange split{{2, 4, 8}};          // parts of a split reduction (--split)
  // Float products may run on tensor cores as three tf32 products (tf32x3) (--no-tf32x3: CUDA
  // cores only).
  bool tf32x3 = true;
  // Which library's error bounds every kernel's (--precision; precision.hpp).
  Precision precision = Precision::Strict;
};

// The block tile edges the tensor-core rules (mma, wgmma) take: 64, 128 and 256, those of them
// that `tile` (--tile) allows. Empty: those rules make no candidate.
inline std::vector<int64_t> tensorCoreTiles(const ParamRange& tile) {
  std::vector<int64_t> out;
  for (int64_t edge : {64, 128, 256})
    if (std::find(tile.values.begin(), tile.values.end(), edge) != tile.values.end()) out.push_back(edge);
  return out;
}

}  // namespace cudaburg
