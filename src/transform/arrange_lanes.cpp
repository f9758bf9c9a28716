#include "src/transform/transforms.hpp"

namespace cudaburg {

namespace {

bool powerOfTwo(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

}  // namespace

TransformResult arrangeLanes(const Kernel& kernel, int64_t rows, int64_t cols) {
  if (!powerOfTwo(rows) || !powerOfTwo(cols) || rows > 32 || cols > 32 || rows * cols != 32)
    return TransformResult::refuse("a warp's 32 threads cannot be arranged as " + std::to_string(rows) + " rows by " +
                                   std::to_string(cols) + " columns (powers of two whose product is 32)");
  Kernel out = kernel;
  out.laneRows = rows;
  out.laneCols = cols;
  return TransformResult::success(std::move(out));
}

}  // namespace cudaburg
