#pragma once
// What a BackToBackTile makes of a pair (back_to_back_pair.hpp): a block's threads, the hidden
// columns each thread computes, the shared memory a block takes, and the sentence saying why a
// tile does not fit the pair. The transformation, the emitter, the CPU executor and the model
// all read these.
#include <cstdint>
#include <string>

#include "src/idioms/back_to_back/back_to_back_pair.hpp"
#include "src/idioms/tile_idiom.hpp"

namespace cudaburg {

// The most hidden sums a thread holds (threadRows x hiddenCols): past it, registers spill.
constexpr int64_t kMaxBackToBackSums = 128;

struct BackToBackTiling {
  BackToBackTile tile;
  int64_t hidden = 0;  // the pair's hidden width F

  // The block's threads as threadRowGroups() rows by threadColGroups() columns.
  int64_t threadRowGroups() const { return tile.rows / tile.threadRows; }
  int64_t threadColGroups() const { return tile.cols / tile.threadCols; }
  int64_t threads() const { return threadRowGroups() * threadColGroups(); }
  // The hidden columns a thread computes in the first product (every threadColGroups()-th).
  int64_t hiddenCols() const { return hidden / threadColGroups(); }
  // Shared memory, in floats: the block's rows of H (each padded by one against bank conflicts),
  // a strip of X stored transposed (padded likewise), and a strip of W1 or W2.
  int64_t hiddenStride() const { return hidden + 1; }
  int64_t xStride() const { return tile.rows + 1; }
  int64_t hiddenFloats() const { return tile.rows * hiddenStride(); }
  int64_t xFloats() const { return tile.depth * xStride(); }
  int64_t weightFloats() const { return tile.depth * (hidden > tile.cols ? hidden : tile.cols); }
  int64_t sharedBytes() const { return 4 * (hiddenFloats() + xFloats() + weightFloats()); }

  // About the registers a thread needs: the larger of the two products' sums with the float4s of
  // the next strips in flight beside them, a row of operands, and addresses.
  int64_t registers() const;

  // Why the tile does not fit `pair` ("" when it does).
  std::string problem(const BackToBackPair& pair) const;
};

}  // namespace cudaburg
