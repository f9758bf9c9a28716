#include "src/transform/transforms.hpp"

namespace cudaburg {

TransformResult rasterBlocks(const Kernel& kernel, int64_t rows) {
  if (rows < 2 || rows > kMaxRasterRows)
    return TransformResult::refuse("blocks are launched in groups of 2 to " + std::to_string(kMaxRasterRows) +
                                   " rows of the grid, not " + std::to_string(rows));
  Kernel out = kernel;
  out.rasterRows = rows;
  return TransformResult::success(std::move(out));
}

}  // namespace cudaburg
