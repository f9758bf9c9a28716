#include "src/transform/transforms.hpp"

namespace cudaburg {

TransformResult rasterBlocks(const Kernel& kernel, int64_t rows) {
  if (rows < 2) return TransformResult::refuse("blocks are rastered 2 or more rows at a time, not " + std::to_string(rows));
  if (rows > 65535) return TransformResult::refuse("a raster of " + std::to_string(rows) + " rows is taller than grid.y may be");
  Kernel out = kernel;
  out.rasterRows = rows;
  return TransformResult::success(std::move(out));
}

}  // namespace cudaburg
