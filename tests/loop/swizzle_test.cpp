// The swizzled layout of shared buffers: a permutation of each row's 16-byte chunks that spreads
// the accesses of tensor-core kernels over the 32 banks.
#include <gtest/gtest.h>

#include <set>

#include "src/loop/swizzle.hpp"

namespace cudaburg {
namespace {

// The 16-byte column of the 128 bytes the banks serve at once where chunk `chunk` of row `row`
// lies, rows of `chunks` chunks stored one after another.
int64_t bankColumn(const Swizzle& s, int64_t row, int64_t chunk) {
  return (row * s.chunks + s.chunkAt(row, chunk)) % 8;
}

TEST(Swizzle, PermutesTheChunksOfEveryRow) {
  for (int64_t chunks : {2, 4, 8, 16, 32}) {
    Swizzle s;
    ASSERT_EQ(swizzleFor(chunks * 16, s), "");
    for (int64_t row = 0; row < 64; ++row) {
      std::set<int64_t> places;
      for (int64_t c = 0; c < chunks; ++c) {
        int64_t at = s.chunkAt(row, c);
        EXPECT_GE(at, 0);
        EXPECT_LT(at, chunks);
        places.insert(at);
      }
      EXPECT_EQ(static_cast<int64_t>(places.size()), chunks) << chunks << " chunks, row " << row;
    }
  }
}

TEST(Swizzle, EightRowsAtOneChunkMeetNoBankConflict) {
  // What ldmatrix reads at once (8 rows of 16 bytes, one chunk each, from a row a multiple of 8),
  // and what a warp's reads down a column of chunks touch.
  for (int64_t chunks : {2, 4, 8, 16}) {
    Swizzle s;
    ASSERT_EQ(swizzleFor(chunks * 16, s), "");
    for (int64_t first = 0; first < 64; first += 8)
      for (int64_t c = 0; c < chunks; ++c) {
        std::set<int64_t> columns;
        for (int64_t r = first; r < first + 8; ++r) columns.insert(bankColumn(s, r, c));
        EXPECT_EQ(columns.size(), 8u) << chunks << " chunks, rows " << first << "+, chunk " << c;
      }
  }
}

TEST(Swizzle, EightConsecutiveChunksMeetNoBankConflict) {
  // What 8 threads' 16-byte copies write at once: consecutive chunks of the buffer, row after row.
  for (int64_t chunks : {2, 4, 8, 16}) {
    Swizzle s;
    ASSERT_EQ(swizzleFor(chunks * 16, s), "");
    for (int64_t start = 0; start < 16 * chunks; start += 8) {
      std::set<int64_t> columns;
      for (int64_t n = start; n < start + 8; ++n) columns.insert(bankColumn(s, n / chunks, n % chunks));
      EXPECT_EQ(columns.size(), 8u) << chunks << " chunks, from chunk " << start;
    }
  }
}

TEST(Swizzle, TheMaskReadsARowsLowThreeBitsOnly) {
  for (int64_t chunks : {2, 4, 8, 16}) {
    Swizzle s;
    ASSERT_EQ(swizzleFor(chunks * 16, s), "");
    for (int64_t row = 0; row < 64; ++row) EXPECT_EQ(s.mask(row), s.mask(row % 8)) << chunks << " chunks, row " << row;
  }
}

TEST(Swizzle, RowsOfNoPowerOfTwoOfChunksHaveNone) {
  Swizzle s;
  EXPECT_NE(swizzleFor(16, s).find("at least 2"), std::string::npos);
  EXPECT_NE(swizzleFor(48, s).find("not a power of two"), std::string::npos);
  EXPECT_NE(swizzleFor(40, s).find("no whole 16-byte chunks"), std::string::npos);
}

}  // namespace
}  // namespace cudaburg
