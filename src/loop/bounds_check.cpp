#include "src/loop/bounds_check.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>

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
        }
        // The index steps past its last value once; that step must not wrap either.
        if (hi > INT64_MAX - node->step) return overflow(node->loc, "the index '" + node->index + "' after its last step");
        if (hi < lower->lo) return;  // the loop never runs
        auto saved =
            ranges.find(node->index) != ranges.end() ? std::optional(ranges[node->index]) : std::nullopt;
        ranges[node->index] = {lower->lo, hi};
        walk(node->body(), ranges);
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
    if (!array || (array->zeroPadded && !write)) return;
    for (size_t d = 0; d < access.subscripts.size() && d < array->extents.size(); ++d) {
      std::optional<Range> range = rangeOf(access.subscripts[d], ranges);
      if (!range) {
        overflow(at, "subscript " + std::to_string(d + 1) + " of " + access.str() + " (" + access.subscripts[d].str() +
                         ")");
        continue;
      }
      Range r = *range;
      int64_t last = array->extents[d] - 1;
      if (r.lo >= 0 && r.hi <= last) continue;
      diags_.error(at, std::string(write ? "write to " : "read of ") + access.str() +
                           " leaves the array: subscript " + std::to_string(d + 1) + " (" +
                           access.subscripts[d].str() + ") ranges over " + std::to_string(r.lo) + ".." +
                           std::to_string(r.hi) + ", outside 0.." + std::to_string(last) +
                           (write ? "" : " (declare it 'padded' to read zeros there)"));
      ok_ = false;
    }
  }

  const Kernel& kernel_;
  common::Diagnostics& diags_;
  bool ok_ = true;
};

}  // namespace

bool checkSubscriptBounds(const Kernel& kernel, common::Diagnostics& diags) {
  BoundsChecker checker(kernel, diags);
  Ranges ranges;
  if (kernel.body) checker.walk(kernel.body, ranges);
  return checker.ok();
}

}  // namespace cudaburg
