#include "src/cuda/emit/emit_ranges.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "src/loop/checked_arith.hpp"

namespace cudaburg {

namespace {

// Sums and products of two 64-bit values fit in 128 bits; a result is known only when it fits
// back in 64 (what does not is unknown, never wrapped).
bool fits(__int128 v) { return v >= std::numeric_limits<int64_t>::min() && v <= std::numeric_limits<int64_t>::max(); }

int64_t clamp(__int128 v) {
  return static_cast<int64_t>(
      std::clamp<__int128>(v, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()));
}

__int128 magnitude(__int128 v) { return v < 0 ? -v : v; }

uint64_t gcd(uint64_t a, uint64_t b) {
  while (b != 0) a = std::exchange(b, a % b);
  return a;
}

}  // namespace

std::optional<std::pair<int64_t, int64_t>> IndexRanges::bounds(const Affine& a) const {
  __int128 lo = a.constant, hi = a.constant;
  for (const auto& [name, coef] : a.terms) {
    auto it = ranges_.find(name);
    if (it == ranges_.end()) return std::nullopt;
    __int128 x = __int128(coef) * it->second.min, y = __int128(coef) * it->second.max;
    lo += std::min(x, y);
    hi += std::max(x, y);
    if (!fits(lo) || !fits(hi)) return std::nullopt;
  }
  return std::make_pair(int64_t(lo), int64_t(hi));
}

std::optional<std::pair<int64_t, int64_t>> IndexRanges::boundsOfDifference(const Affine& a, const Affine& b) const {
  std::optional<Affine> difference = checkedSum(a, b, -1);
  if (!difference) return std::nullopt;
  return bounds(*difference);
}

int64_t IndexRanges::multipleOf(const Affine& a) const {
  uint64_t g = uint64_t(magnitude(a.constant));
  for (const auto& [name, coef] : a.terms) {
    auto it = ranges_.find(name);
    int64_t m = it == ranges_.end() ? 1 : it->second.multipleOf;
    // Past 64 bits, coef alone: it divides every multiple of coef * m as well.
    __int128 step = magnitude(__int128(coef) * m);
    g = gcd(g, uint64_t(step <= std::numeric_limits<uint64_t>::max() ? step : magnitude(coef)));
  }
  // 2^63 does not fit the answer; its divisor 2^62 is still true.
  return g > uint64_t(std::numeric_limits<int64_t>::max()) ? int64_t(1) << 62 : int64_t(g);
}

std::optional<int64_t> IndexRanges::maxTripCount(const Node& loop) const {
  std::optional<int64_t> best;
  for (const Affine& upper : loop.upper) {
    auto span = boundsOfDifference(upper, loop.lower);
    if (!span) continue;
    int64_t trips = span->second <= 0 ? 0 : (span->second - 1) / loop.step + 1;
    best = best ? std::min(*best, trips) : trips;
  }
  return best;
}

void IndexRanges::bindLoop(const Node& loop, IndexRange range) {
  bind(loop.index, range);
  bindDerived(loop.collapsed, range);
}

void IndexRanges::bindDerived(const std::vector<CollapsedLoop>& collapsed, IndexRange range) {
  for (size_t j = 0; j < collapsed.size(); ++j) {
    const CollapsedLoop& c = collapsed[j];
    // The outermost digit follows the collapsed index, past the end too; the others wrap.
    int64_t stride = digitStride(collapsed, j);
    int64_t first = j == 0 ? std::max<int64_t>(0, range.min) / stride : 0;
    int64_t last = j == 0 ? std::max<int64_t>(0, range.max) / stride : c.trips - 1;
    if (j > 0 && range.min >= 0 && range.max / stride == range.min / stride) {  // within one digit's run
      first = range.min / stride % c.trips;
      last = range.max / stride % c.trips;
      if (last < first) first = 0, last = c.trips - 1;
    }
    uint64_t multiple =
        gcd(uint64_t(magnitude(__int128(c.lower) + __int128(first) * c.step)), last > first ? uint64_t(c.step) : 0);
    bind(c.index, IndexRange{c.lower + first * c.step, c.lower + last * c.step, int64_t(multiple)});
  }
}

bool IndexRanges::provesLess(const Affine& value, const Affine& bound) const {
  auto span = boundsOfDifference(value, bound);
  return span && span->second < 0;
}

IndexRange IndexRanges::loopIndexRange(const Node& loop, int64_t trips) const {
  // Computed in 128 bits: the lower bound's largest value plus the steps may pass 64 bits
  // before the upper bound cuts it back. An unknown lower bound leaves the index unknown.
  auto low = bounds(loop.lower);
  __int128 min = low ? low->first : std::numeric_limits<int64_t>::min();
  __int128 max = low ? __int128(low->second) + __int128(std::max<int64_t>(0, trips - 1)) * loop.step
                     : std::numeric_limits<int64_t>::max();
  for (const Affine& upper : loop.upper)
    if (auto up = bounds(upper)) max = std::min(max, __int128(up->second) - 1);
  IndexRange r;
  r.multipleOf = int64_t(gcd(uint64_t(multipleOf(loop.lower)), trips > 1 ? uint64_t(loop.step) : 0));
  // Every value is a multiple of multipleOf: so are the tightest bounds.
  if (r.multipleOf > 1) {
    __int128 m = r.multipleOf;
    auto floorTo = [m](__int128 v) { return (v >= 0 ? v / m : -((-v + m - 1) / m)) * m; };
    max = floorTo(max);
    min = -floorTo(-min);
  }
  r.min = clamp(min);
  r.max = clamp(std::max(max, min));
  return r;
}

}  // namespace cudaburg
