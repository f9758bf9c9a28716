#include "src/cuda/emit/emit_ranges.hpp"

#include <algorithm>
#include <numeric>

namespace cudaburg {

std::optional<std::pair<int64_t, int64_t>> IndexRanges::bounds(const Affine& a) const {
  int64_t lo = a.constant, hi = a.constant;
  for (const auto& [name, coef] : a.terms) {
    auto it = ranges_.find(name);
    if (it == ranges_.end()) return std::nullopt;
    int64_t x = coef * it->second.min, y = coef * it->second.max;
    lo += std::min(x, y);
    hi += std::max(x, y);
  }
  return std::make_pair(lo, hi);
}

int64_t IndexRanges::multipleOf(const Affine& a) const {
  int64_t g = a.constant < 0 ? -a.constant : a.constant;
  for (const auto& [name, coef] : a.terms) {
    auto it = ranges_.find(name);
    int64_t m = it == ranges_.end() ? 1 : it->second.multipleOf;
    g = std::gcd(g, coef * m);
  }
  return g;
}

std::optional<int64_t> IndexRanges::maxTripCount(const Node& loop) const {
  std::optional<int64_t> best;
  for (const Affine& upper : loop.upper) {
    auto span = bounds(upper - loop.lower);
    if (!span) continue;
    int64_t trips = std::max<int64_t>(0, (span->second + loop.step - 1) / loop.step);
    best = best ? std::min(*best, trips) : trips;
  }
  return best;
}

bool IndexRanges::provesLess(const Affine& value, const Affine& bound) const {
  auto span = bounds(value - bound);
  return span && span->second < 0;
}

IndexRange IndexRanges::loopIndexRange(const Node& loop, int64_t trips) const {
  IndexRange r;
  auto low = bounds(loop.lower);
  r.min = low ? low->first : 0;
  r.max = (low ? low->second : 0) + std::max<int64_t>(0, trips - 1) * loop.step;
  for (const Affine& upper : loop.upper)
    if (auto up = bounds(upper)) r.max = std::min(r.max, up->second - 1);
  r.multipleOf = std::gcd(multipleOf(loop.lower), trips > 1 ? loop.step : 0);
  // Every value is a multiple of multipleOf: so are the tightest bounds.
  if (r.multipleOf > 1) {
    int64_t m = r.multipleOf;
    auto floorTo = [m](int64_t v) { return (v >= 0 ? v / m : -((-v + m - 1) / m)) * m; };
    r.max = floorTo(r.max);
    r.min = -floorTo(-r.min);
  }
  r.max = std::max(r.max, r.min);
  return r;
}

}  // namespace cudaburg
