#include "src/transform/loop_facts.hpp"

#include <algorithm>

namespace cudaburg {

std::optional<int64_t> constantTripCount(const Node& loop) {
  if (loop.kind != NodeKind::For) return std::nullopt;
  std::optional<int64_t> best;
  for (const auto& u : loop.upper) {
    Affine distance = u - loop.lower;
    if (!distance.isConstant()) continue;
    int64_t trips = std::max<int64_t>(0, (distance.constant + loop.step - 1) / loop.step);
    best = best ? std::min(*best, trips) : trips;
  }
  return best;
}

std::optional<int64_t> constantSpan(const Node& loop) {
  auto trips = constantTripCount(loop);
  if (!trips) return std::nullopt;
  return std::max<int64_t>(0, *trips - 1) * loop.step;
}

}  // namespace cudaburg
