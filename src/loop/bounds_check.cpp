#include "src/loop/bounds_check.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>

#include "src/loop/checked_arith.hpp"

namespace cudaburg {

namespace {

struct Range {
  int64_t lo = 0;
  int64_t hi = 0;
};
using Ranges = std::map<std::string, Range>;

// The values `a` takes over the ranges of its indices; nullopt when one of them, or a partial
// sum on the way, does not fit in 64 bits (the emitted code could not compute it).
std::optional<Range> rangeOf(const Affine& a, const Ranges& ranges) {
  __int128 lo = a.constant, hi = a.constant;
  auto fits = [](__int128 v) { return v >= INT64_MIN && v <= INT64_MAX; };
  for (const auto& [name, c] : a.terms) {
    auto it = ranges.find(name);
    Range v = it == ranges.end() ? Range{0, 0} : it->second;
    lo += c > 0 ? __int128(c) * v.lo : __int128(c) * v.hi;
    hi += c > 0 ? __int128(c) * v.hi : __int128(c) * v.lo;
    if (!fits(lo) || !fits(hi)) return std::nullopt;
  }
  return Range{int64_t(lo), int64_t(hi)};
}

class BoundsChecker {
 public:
  BoundsChecker(const Kernel& kernel, common::Diagnostics& diags) : kernel_(kernel), diags_(diags) {}

  void walk(const NodePtr& node, Ranges& ranges) {
    switch (node->kind) {
      case NodeKind::For: {
        std::optional<Range> lower = rangeOf(node->lower, ranges);
        if (!lower) return overflow(node->loc, "the lower bound of '" + node->index + "' (" + node->lower.str() + ")");
        int64_t hi = INT64_MAX;
        for (const Affine& u : node->upper) {
          std::optional<Range> upper = rangeOf(u, ranges);
          if (!upper || upper->hi == INT64_MIN)
            return overflow(node->loc, "the upper bound of '" + node->index + "' (" + u.str() + ")");
          hi = std::min(hi, upper->hi - 1);
          // Upper less lower bound: what a trip count is computed from.
          std::optional<Affine> span = checkedSum(u, node->lower, -1);
          if (!span || !rangeOf(*span, ranges))
            return overflow(node->loc, "the distance from the lower to the upper bound of '" + node->index + "' (" +
                                           u.str() + " - (" + node->lower.str() + "))");
        }
        // A loop that never runs still has its index in scope: it takes its lower bound's values
        // (as its header computes them), and its body is checked for overflow, not for bounds.
        bool runs = hi >= lower->lo;
        Range index = runs ? Range{lower->lo, hi} : *lower;
        // The index steps past its last value once; that step must not wrap either.
        if (index.hi > INT64_MAX - node->step)
          return overflow(node->loc, "the index '" + node->index + "' plus its step (" + std::to_string(index.hi) +
                                         " + " + std::to_string(node->step) + ")");
        auto saved = ranges.find(node->index) != ranges.end() ? std::optional(ranges[node->index]) : std::nullopt;
        ranges[node->index] = index;
        bool reached = reached_;
        reached_ = reached_ && runs;
        walk(node->body(), ranges);
        reached_ = reached;
        if (saved)
          ranges[node->index] = *saved;
        else
          ranges.erase(node->index);
        return;
      }
      case NodeKind::Assign:
        check(node->target, true, node->loc, ranges);
        checkExpr(*node->value, node->loc, ranges);
        return;
      default:
        for (const NodePtr& kid : node->kids) walk(kid, ranges);
        return;
    }
  }

  bool ok() const { return ok_; }

 private:
  void overflow(SourceLoc at, const std::string& what) {
    diags_.error(at, what + " overflows a 64-bit integer");
    ok_ = false;
  }

  void checkExpr(const Expr& e, SourceLoc at, const Ranges& ranges) {
    if (e.kind == Expr::Kind::Load) check(e.load, false, at, ranges);
    for (const ExprPtr& arg : e.args) checkExpr(*arg, at, ranges);
  }

  void check(const Access& access, bool write, SourceLoc at, const Ranges& ranges) {
    const Array* array = kernel_.findParam(access.array);
    if (!array) return;
    bool fits = true;
    for (size_t d = 0; d < access.subscripts.size() && d < array->extents.size(); ++d) {
      std::optional<Range> range = rangeOf(access.subscripts[d], ranges);
      if (!range) {
        overflow(
            at, "subscript " + std::to_string(d + 1) + " of " + access.str() + " (" + access.subscripts[d].str() + ")");
        fits = false;
        continue;
      }
      Range r = *range;
      int64_t last = array->extents[d] - 1;
      if (!reached_ || (array->zeroPadded && !write) || (r.lo >= 0 && r.hi <= last)) continue;
      diags_.error(at, std::string(write ? "write to " : "read of ") + access.str() + " leaves the array: subscript " +
                           std::to_string(d + 1) + " (" + access.subscripts[d].str() + ") ranges over " +
                           std::to_string(r.lo) + ".." + std::to_string(r.hi) + ", outside 0.." + std::to_string(last) +
                           (write ? "" : " (declare it 'padded' to read zeros there)"));
      ok_ = false;
    }
    if (fits && !offsetFits(access, *array, ranges))
      overflow(at, "the offset of " + access.str() + " from the start of '" + array->name +
                       "' (its subscripts times the array's strides)");
  }

  // The element's offset in the array, sum over d of subscript d times the elements of one
  // step in dimension d, as the emitted code computes it: coefficients and values must fit
  // (reads of padded arrays, and loops that never run, may reach far outside the array).
  static bool offsetFits(const Access& access, const Array& array, const Ranges& ranges) {
    std::optional<Affine> offset = Affine(0);
    std::optional<int64_t> stride = 1;
    for (size_t d = std::min(access.subscripts.size(), array.extents.size()); d-- > 0 && offset && stride;) {
      std::optional<Affine> scaled = checkedScale(access.subscripts[d], *stride);
      offset = scaled ? checkedSum(*offset, *scaled, 1) : std::nullopt;
      stride = checkedMul(*stride, array.extents[d]);
    }
    return offset && stride && rangeOf(*offset, ranges);
  }

  const Kernel& kernel_;
  common::Diagnostics& diags_;
  bool ok_ = true;
  bool reached_ = true;  // false inside a loop that never runs
};

}  // namespace

bool checkSubscriptBounds(const Kernel& kernel, common::Diagnostics& diags) {
  BoundsChecker checker(kernel, diags);
  Ranges ranges;
  if (kernel.body) checker.walk(kernel.body, ranges);
  return checker.ok();
}

}  // namespace cudaburg
