#include "src/loop/winograd.hpp"

#include <algorithm>
#include "src/target/gpu_target.hpp"

namespace cudaburg {

namespace {

// Interpolation points 0, 1, -1 (and infinity) for F(2,3); 0, 1, -1, 2, -2 (and infinity) for F(4,3).
WinogradMatrices f2() {
  WinogradMatrices w;
  w.m = 2, w.alpha = 4;
  w.bt = {1, 0, -1, 0, 0, 1, 1, 0, 0, -1, 1, 0, 0, 1, 0, -1};
  w.g = {1, 0, 0, 0.5, 0.5, 0.5, 0.5, -0.5, 0.5, 0, 0, 1};
  w.at = {1, 1, 1, 0, 0, 1, -1, -1};
  return w;
}

WinogradMatrices f4() {
  WinogradMatrices w;
  w.m = 4, w.alpha = 6;
  w.bt = {4, 0,  -5, 0, 1, 0, 0, -4, -4, 1,  1, 0, 0, 4, -4, -1, 1, 0,
          0, -2, -1, 2, 1, 0, 0, 2,  -1, -2, 1, 0, 0, 4, 0,  -5, 0, 1};
  w.g = {1.0 / 4,  0,        0,       -1.0 / 6, -1.0 / 6,  -1.0 / 6, -1.0 / 6, 1.0 / 6, -1.0 / 6,
         1.0 / 24, 1.0 / 12, 1.0 / 6, 1.0 / 24, -1.0 / 12, 1.0 / 6,  0,        0,       1};
  w.at = {1, 1, 1, 1, 1, 0, 0, 1, -1, 2, -2, 0, 0, 1, 1, 4, 4, 0, 0, 1, -1, 8, -8, 1};
  return w;
}

}  // namespace

const WinogradMatrices& winogradMatrices(int m) {
  static const WinogradMatrices two = f2(), four = f4();
  return m == 4 ? four : two;
}

std::string WinogradTiling::str() const {
  auto n = [](int64_t v) { return std::to_string(v); };
  return n(m) + " block " + n(tiles) + "," + n(filters) + "," + n(channels) + " thread " + n(threadTiles) + "," +
         n(threadFilters) + "," + n(points) + (prefetch ? " prefetch" : "");
}

int64_t WinogradTiling::registers() const {
  return points * threadTiles * threadFilters + threadTiles + threadFilters + alpha() * alpha() + 20 +
         (prefetch ? patchesPerThread() * alpha() * alpha() + filtersPerThread() * 9 : 0);
}

int64_t registerLimit(int64_t threads, int64_t blocks, int64_t registersPerSm) {
  int64_t warpsPerPartition = ((threads + 31) / 32 * blocks + 3) / 4;
  return std::min<int64_t>(kMaxRegistersPerThread, registersPerSm / 4 / (warpsPerPartition * 32) / 8 * 8);
}

int64_t blocksByRegisters(int64_t threads, int64_t registers, int64_t registersPerSm) {
  int64_t blocks = 0;
  while (blocks < kMaxThreadsPerSm / threads && registerLimit(threads, blocks + 1, registersPerSm) >= registers)
    ++blocks;
  return blocks;
}

std::string WinogradTiling::problem() const {
  if (m != 2 && m != 4)
    return "Winograd tiles are 2x2 or 4x4 outputs (F(2x2,3x3), F(4x4,3x3)), not " + std::to_string(m);
  if (threadTiles % 4 || threadFilters % 4 || threadTiles > 16 || threadFilters > 16)
    return "a thread's tiles and filters are 4, 8, 12 or 16 (read 4 at a time)";
  if (tiles % threadTiles || filters % threadFilters)
    return "the block's " + std::to_string(tiles) + " tiles and " + std::to_string(filters) +
           " filters are not whole register tiles of " + std::to_string(threadTiles) + " x " +
           std::to_string(threadFilters);
  if (points < 1 || alpha() * alpha() % points)
    return "a thread's " + std::to_string(points) + " points do not divide the " + std::to_string(alpha() * alpha()) +
           " transformed points";
  if (threads() > kMaxThreadsPerBlock || threads() < 32)
    return std::to_string(threads()) + " threads a block (32 to 1024)";
  if (2 * stripFloats() * 4 > kMaxSharedBytesPerBlock)
    return "two strips of transformed patches and filters need " + std::to_string(2 * stripFloats() * 4) +
           " bytes of shared memory, above 227 KB";
  return "";
}

}  // namespace cudaburg
