#pragma once
// What a tile computes with: one typed value that a kernel, the model's candidate and a recipe
// step carry alike. Each kind has its folder under src/idioms/ with the unit that parses, prints,
// applies, estimates and explores it (idiom_unit.hpp).
#include <cstdint>
#include <string>
#include <variant>

#include "src/loop/winograd.hpp"

namespace cudaburg {

// The groups of wgmma left in flight across iterations unless a recipe says otherwise, and the
// most strips of partial sums promoted at once.
constexpr int kWgmmaPending = 1;
constexpr int kMaxWgmmaPromote = 16;

// The CUDA cores: each iteration of the block loops is a thread (the default).
struct SimtTile {
  friend bool operator==(const SimtTile&, const SimtTile&) = default;
};

// mma.sync: each iteration of the block loops is a warp, its tiles of m x n x k one instruction
// (rule 7 of src/loop/loop_tree.hpp). `prefetch`: the next k step's fragments read one ahead.
struct MmaTile {
  int64_t m = 16, n = 8, k = 16;
  bool prefetch = false;
  friend bool operator==(const MmaTile&, const MmaTile&) = default;
};

// Who fills the stages around wgmma: the warpgroups that multiply, a producer warpgroup by
// cp.async, or one thread of it by the Tensor Memory Accelerator.
enum class WgmmaProducer { None, CpAsync, Tma };
// The same as the grammar's parameter numbers them (specs/loops.burg).
constexpr int64_t kWgmmaNoProducer = 0, kWgmmaCpAsyncProducer = 1, kWgmmaTmaProducer = 2;
inline WgmmaProducer wgmmaProducer(int64_t number) { return static_cast<WgmmaProducer>(number); }

constexpr int64_t kWarpGroupThreads = 128;

// wgmma: each iteration of the block loops is a warpgroup of 4 warps, its accumulation tiles of
// m x n x k one wgmma.mma_async (rule 7 of src/loop/loop_tree.hpp).
struct WgmmaTile {
  int64_t m = 64, n = 0, k = 16;
  int pending = kWgmmaPending;  // groups left in flight across iterations (0 or 1)
  WgmmaProducer producer = WgmmaProducer::None;
  // Float operands as three tf32 products each (with registerA), and the strips the tensor cores
  // sum before fp32 registers do (0: the tensor cores sum them all).
  bool tf32x3 = false;
  int promote = 0;
  // What applying the step decides (not written in a recipe): M along the register tile's
  // columns with A from registers, and with tf32x3 the stage whose copies hold the low parts too.
  bool registerA = false;
  std::string splitBuffer;
  friend bool operator==(const WgmmaTile&, const WgmmaTile&) = default;
};

// Winograd's F(m x m, 3 x 3): the whole nest, a 2-D convolution, computed by its transforms.
struct WinogradTile {
  WinogradTiling tiling;
  friend bool operator==(const WinogradTile& a, const WinogradTile& b) { return a.tiling.str() == b.tiling.str(); }
};

// Two products back to back (H = e1(X W1), then Y = e2(H W2)), a kernel of two nests computed as
// one: a block takes `rows` rows of X, H and Y; it computes their rows of H (the whole hidden
// width) into registers, each thread `threadRows` rows, and keeps them in shared memory, then
// runs over Y's columns `cols` at a time, each thread a threadRows x threadCols tile, reading H
// from shared memory. Both reductions are staged a strip of `depth` at a time.
struct BackToBackTile {
  int64_t rows = 32, cols = 128;
  int64_t threadRows = 4, threadCols = 4;
  int64_t depth = 16;
  friend bool operator==(const BackToBackTile&, const BackToBackTile&) = default;
};

// What a producer warpgroup adds to a block: its threads, and its barriers in shared memory (a
// full and an empty one for each of `buffers`, and with tf32x3 one more for the low parts; with
// `tileGroups` ping-pong groups of the warpgroups that multiply, one a group that orders their turns).
inline int64_t producerThreads(const WgmmaTile& t) { return t.producer == WgmmaProducer::None ? 0 : kWarpGroupThreads; }
inline int64_t producerBarrierBytes(const WgmmaTile& t, int64_t buffers, int64_t tileGroups = 1) {
  if (t.producer == WgmmaProducer::None) return 0;
  return (t.tf32x3 ? 3 : 2) * 8 * buffers + (tileGroups > 1 ? 8 * tileGroups : 0);
}

// What the write-back through shared memory adds to a block of wgmma tiles (emit_mma.cpp's
// emitRowRuns): 16 rows of 128 bytes for each warp that multiplies, its own, where the
// accumulators lie along the output's rows (not with A from registers, which holds C transposed).
inline int64_t rowSliceBytes(const WgmmaTile& t, int64_t consumerThreads) {
  return t.registerA ? 0 : consumerThreads / 32 * 16 * 128;
}

using TileIdiom = std::variant<SimtTile, MmaTile, WgmmaTile, WinogradTile, BackToBackTile>;

// Each iteration of the block loops is a warp or a warpgroup (rule 7 of loop_tree.hpp).
inline bool onTensorCores(const TileIdiom& t) {
  return std::holds_alternative<MmaTile>(t) || std::holds_alternative<WgmmaTile>(t);
}
inline const WgmmaTile* wgmmaOf(const TileIdiom& t) { return std::get_if<WgmmaTile>(&t); }
inline const WinogradTile* winogradOf(const TileIdiom& t) { return std::get_if<WinogradTile>(&t); }
inline const BackToBackTile* backToBackOf(const TileIdiom& t) { return std::get_if<BackToBackTile>(&t); }

}  // namespace cudaburg
