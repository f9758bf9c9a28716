#pragma once
// What the emitter knows about the loop indices in scope at a point of a kernel: the range of
// values each one takes and a number all of its values are multiples of. With these it proves
// that a guard can be left out, that a trip count is a constant, or that a wide access is aligned.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "src/loop/loop_tree.hpp"

namespace cudaburg {

struct IndexRange {
  int64_t min = 0;
  int64_t max = 0;
  int64_t multipleOf = 1;  // every value is a multiple of it (0: the value is always 0)
};

class IndexRanges {
 public:
  void bind(const std::string& name, IndexRange range) { ranges_[name] = range; }
  // Binds a loop's index, and where the loop is collapsed, the indices derived from it (each over
  // its whole range).
  void bindLoop(const Node& loop, IndexRange range);
  // Binds the indices derived from a collapsed index whose values lie in `range`.
  void bindDerived(const std::vector<CollapsedLoop>& collapsed, IndexRange range);
  bool has(const std::string& name) const { return ranges_.count(name) != 0; }

  // The smallest and largest value of `a` over the bound indices; nothing when it uses an unbound one.
  std::optional<std::pair<int64_t, int64_t>> bounds(const Affine& a) const;
  // bounds(a - b), nothing when a coefficient of the difference does not fit in 64 bits either.
  std::optional<std::pair<int64_t, int64_t>> boundsOfDifference(const Affine& a, const Affine& b) const;
  // A number every value of `a` is a multiple of (0 when `a` is always 0).
  int64_t multipleOf(const Affine& a) const;

  // The largest trip count of a loop over the bound indices (at least 0); nothing when unknown.
  std::optional<int64_t> maxTripCount(const Node& loop) const;
  // True when `value < bound` holds for every value of the bound indices.
  bool provesLess(const Affine& value, const Affine& bound) const;
  // The range of a loop's index when its first index is `lower` and it runs `trips` times.
  IndexRange loopIndexRange(const Node& loop, int64_t trips) const;

 private:
  std::map<std::string, IndexRange> ranges_;
};

}  // namespace cudaburg
