#pragma once
// The offset table of a gather (a Stage whose `tableDim` is set, made by `stage ... table`): the
// precomputed form of an implicit GEMM's im2col. A gather's source element is affine in the
// indices its dimensions derive, so its flat offset splits into a part of the tabled dimension
// (a convolution's c, r, s, derived from the collapsed reduction index q) and a part of the rest
// (the pixel's n, oh, ow and the loops outside: the item's row). Each table entry, one a value of
// q, holds the first part and the tap: which combination of values the subscripts that both parts
// move (oh + r - 1, ow + s - 1) take from q. A row computes its part once, and a mask of the taps
// whose elements lie inside the source. An element is then source[row + delta(q)] where the row's
// mask has the bit of tap(q), else zero: no division and no bounds arithmetic a strip.
//
// The CPU executor reads gathers through the table as the GPU does, so a table that broke an
// offset or a bound would show there.
#include <cstdint>
#include <string>
#include <vector>

#include "src/loop/loop_tree.hpp"

namespace cudaburg {

constexpr int64_t kMaxTableEntries = 8192;  // 32 KiB of constant memory a table, two in a kernel's 64
constexpr size_t kMaxTableTaps = 63;        // a row's mask is 64 bits, one of them never set

struct GatherTable {
  size_t dim = 0;                          // the gather dimension whose index values pick entries
  std::vector<int64_t> delta;              // per value 0..size-1: the table side's part of the flat offset
  std::vector<size_t> tap;                 // per value: its tap, or taps.size() (outside the source, whatever the row)
  std::vector<size_t> mixed;               // the source dimensions whose subscripts both sides move
  std::vector<size_t> rowOnly;             // those only the row moves (the entries check the rest)
  std::vector<std::vector<int64_t>> taps;  // per tap: the table side's part of each mixed subscript
  std::vector<Affine> rowSubscripts;       // per source dimension: the subscript less the table side's part
  Affine rowOffset;                        // the flat source offset less the table side's part
  std::vector<int64_t> extents;            // the source's

  int64_t size() const { return static_cast<int64_t>(delta.size()); }
  // The bits of a packed entry that hold its tap (the rest hold delta, shifted up past them).
  int tapBits() const;
  // Entry `value` as one 32-bit word: delta << tapBits() | tap.
  int32_t packed(int64_t value) const;
  // Whether a row's mask needs 64 bits (more than 31 taps).
  bool wideMask() const { return taps.size() >= 32; }
  // The mask of a row whose subscripts' row parts are `rowValues` (one a source dimension): bit t
  // set where the elements of tap t lie inside the source; 0 where the row itself lies outside.
  uint64_t rowMask(const std::vector<int64_t>& rowValues) const;
  // Whether a mask has the bit of entry `value`'s tap.
  bool inside(uint64_t mask, int64_t value) const { return (mask >> tap[static_cast<size_t>(value)]) & 1; }
};

// The table of `stage` (a gather reading `source`) along its dimension `dim`, or why there is
// none: the dimension is not a collapsed loop, the table would be too large for constant memory,
// the taps too many for a mask, or an offset too large for an entry.
std::string gatherTableOf(const Node& stage, const Array& source, size_t dim, GatherTable& out);

}  // namespace cudaburg
