#pragma once
// How a stage's buffer lies in shared memory, as the emitter declares it and the search's model
// counts its bytes: the box as stored (its last two extents swapped where stored transposed), each
// row (the last extent) followed by the elements its padding leaves unused.
#include <cstdint>
#include <vector>

namespace cudaburg {

// The elements left unused after each row of a stage's buffer: `padding` (Array::padding) where
// given, else 16 bytes for a buffer stored transposed (a permuted layout) and not swizzled: its
// stage stores down columns, which the padding spreads over the banks, and rows stay aligned for
// wide reads.
inline int64_t stageRowPadding(int64_t padding, bool transposed, bool swizzled, int elementBytes) {
  if (padding > 0) return padding;
  return transposed && !swizzled ? 16 / elementBytes : 0;
}

// The rows of a box stored as `extents`: every element but those of the last extent's.
inline int64_t storedRows(const std::vector<int64_t>& extents) {
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < extents.size(); ++d) rows *= extents[d];
  return rows;
}

// The bytes a shared buffer takes: `bytes` rounded up to 16, where the next buffer starts.
inline int64_t sharedBufferBytes(int64_t bytes) { return (bytes + 15) / 16 * 16; }

}  // namespace cudaburg
