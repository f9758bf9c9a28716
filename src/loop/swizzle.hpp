#pragma once
// The swizzled layout of a shared buffer (Array::swizzled): each row is cut into 16-byte chunks,
// and chunk c of row r is stored at chunk c ^ mask(r) of the same row, where mask(r) depends only
// on r mod 8. Within every aligned run of 8 rows, the rows' chunks at one logical place then fall
// in 8 different 16-byte columns of the 128 bytes that the 32 banks serve at once: an ldmatrix
// (8 rows, one chunk each), a 16-byte copy of consecutive chunks, or a warp's reads down a column
// meet no bank conflict, and no padding is spent on it.
#include <cstdint>
#include <string>

namespace cudaburg {

struct Swizzle {
  int64_t chunks = 0;    // 16-byte chunks a row: a power of two, at least 2
  int shift = 0;         // log2 of the rows a 128-byte line holds (0 for rows of 128 bytes or more)
  int64_t maskBits = 0;  // chunks - 1, at most 7

  int64_t mask(int64_t row) const { return (row >> shift) & maskBits; }
  // Where chunk `chunk` of row `row` is stored (a permutation of each row's chunks).
  int64_t chunkAt(int64_t row, int64_t chunk) const { return chunk ^ mask(row); }
};

// The swizzle of rows of `rowBytes` bytes, or why there is none: the rows must hold a power of
// two of 16-byte chunks, at least two.
inline std::string swizzleFor(int64_t rowBytes, Swizzle& out) {
  if (rowBytes % 16 != 0) return "its rows of " + std::to_string(rowBytes) + " bytes are no whole 16-byte chunks";
  int64_t chunks = rowBytes / 16;
  if (chunks < 2 || (chunks & (chunks - 1)) != 0)
    return "its rows hold " + std::to_string(chunks) + " chunks of 16 bytes, not a power of two of at least 2";
  out.chunks = chunks;
  out.maskBits = chunks >= 8 ? 7 : chunks - 1;
  out.shift = 0;
  for (int64_t rowsALine = chunks >= 8 ? 1 : 8 / chunks; rowsALine > 1; rowsALine /= 2) ++out.shift;
  return "";
}

}  // namespace cudaburg
