#include "src/transform/transforms.hpp"

namespace cudaburg {

TransformResult arrangeLanes(const Kernel& kernel, int64_t rows, int64_t cols) {
  if (std::string why = warpLanesProblem(rows, cols); !why.empty()) return TransformResult::refuse(why);
  Kernel out = kernel;
  out.laneRows = rows;
  out.laneCols = cols;
  return TransformResult::success(std::move(out));
}

}  // namespace cudaburg
