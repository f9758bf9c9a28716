#pragma once
// Winograd's minimal filtering F(m x m, 3 x 3) for 2-D convolutions with 3 x 3 taps and stride 1.
// An m x m tile of outputs of one filter is
//   Y = A^T [ sum over c of (G g_c G^T) (.) (B^T d_c B) ] A
// where d_c is the alpha x alpha patch of input channel c under the tile (alpha = m + 2), g_c the
// filter's 3 x 3 taps for that channel and (.) the elementwise product: per transformed point xi
// (alpha^2 of them) a product of the tiles' transformed patches by the filters' transformed taps
// over the channels, a batch of alpha^2 GEMMs. F(2x2,3x3) multiplies 16 times where the direct
// convolution multiplies 36 (2.25x fewer), F(4x4,3x3) 36 times for 144 (4x fewer); the transforms
// cost additions, and rounding: the larger the tile, the larger its transforms' constants and the
// more digits fp32 loses (docs/search.md gives the errors measured).
#include <cstdint>
#include <string>
#include <vector>
#include "src/target/gpu_target.hpp"

namespace cudaburg {

// The transforms of F(m x m, 3 x 3), row major: B^T alpha x alpha, G alpha x 3, A^T m x alpha.
struct WinogradMatrices {
  int m = 0, alpha = 0;
  std::vector<double> bt, g, at;
};
// m is 2 or 4.
const WinogradMatrices& winogradMatrices(int m);

// How a kernel computes a convolution with Winograd (Kernel::winograd, set by the winograd step):
// a block takes `tiles` output tiles (m x m pixels each, over the images' tiles in order) by
// `filters` output channels and runs over the input channels a strip of `channels` at a time;
// each strip's patches and filters are transformed into shared memory, and each thread
// accumulates a `threadTiles` x `threadFilters` register tile of the GEMMs of `points` of the
// alpha^2 transformed points. The next strip is transformed into a second buffer before the GEMMs
// of this one, or (`prefetch`) read into registers before them and transformed after them, its
// reads then in flight during the GEMMs at the cost of the registers holding them. After the last
// strip the accumulators go through shared memory and each thread transforms whole alpha x alpha
// sets back into m x m outputs.
struct WinogradTiling {
  int64_t m = 2;
  int64_t tiles = 32, filters = 32, channels = 8;
  int64_t threadTiles = 8, threadFilters = 8, points = 1;
  bool prefetch = false;

  int64_t alpha() const { return m + 2; }
  int64_t threads() const { return (alpha() * alpha() / points) * (tiles / threadTiles) * (filters / threadFilters); }
  // The patches and the filters of a strip each thread reads.
  int64_t patchesPerThread() const { return (tiles * channels + threads() - 1) / threads(); }
  int64_t filtersPerThread() const { return (filters * channels + threads() - 1) / threads(); }
  // Registers a thread needs without spilling: its accumulators, a row of operands of each GEMM,
  // a patch's alpha^2 values as they are transformed, indices, and the next strip's values where
  // they are prefetched (fitted to what ptxas allocates for sm_90).
  int64_t registers() const;
  // Floats of shared memory for one strip's transformed patches and filters (their rows padded
  // by 4 floats against bank conflicts).
  int64_t stripFloats() const { return alpha() * alpha() * channels * (tiles + 4 + filters + 4); }
  // The parameters as the recipe step writes them: "4 block 32,32,8 thread 8,8,1 [prefetch]".
  std::string str() const;
  // Why these parameters make no kernel ("" when they do): m 2 or 4, the register tile dividing
  // the block tile, the points dividing alpha^2, at most 1024 threads, whole float4 reads.
  std::string problem() const;
  // The relative error (2-norm) a correct fp32 kernel may show against the exact convolution:
  // 1e-4 for F(2x2,3x3) (the direct nest's bound at long reductions), 5e-4 for F(4x4,3x3), about
  // a hundred times what tests/transform/winograd_test.cpp measures at 64 and 256 channels.
  double errorBound() const { return m == 4 ? 5e-4 : 1e-4; }
  friend bool operator==(const WinogradTiling& a, const WinogradTiling& b) {
    return a.m == b.m && a.tiles == b.tiles && a.filters == b.filters && a.channels == b.channels &&
           a.threadTiles == b.threadTiles && a.threadFilters == b.threadFilters && a.points == b.points &&
           a.prefetch == b.prefetch;
  }
};

// The registers a thread may have where `blocks` blocks of `threads` share a multiprocessor of
// `registersPerSm`: its four partitions each hold a quarter of the warps (rounded up), allocated
// 8 registers at a time, at most 255.
int64_t registerLimit(int64_t threads, int64_t blocks, int64_t registersPerSm = kMaxRegistersPerSm);
// How many blocks of `threads` threads that need `registers` each a multiprocessor holds by its
// registers and its 2048 threads (0: not one).
int64_t blocksByRegisters(int64_t threads, int64_t registers, int64_t registersPerSm = kMaxRegistersPerSm);

}  // namespace cudaburg
