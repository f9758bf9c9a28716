#include "src/loop/bounds_check.hpp"

#include <algorithm>
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

Range rangeOf(const Affine& a, const Ranges& ranges) {
  Range r{a.constant, a.constant};
  for (const auto& [name, c] : a.terms) {
    auto it = ranges.find(name);
    Range v = it == ranges.end() ? Range{0, 0} : it->second;
    r.lo += c > 0 ? c * v.lo : c * v.hi;
    r.hi += c > 0 ? c * v.hi : c * v.lo;
  }
  return r;
}

class BoundsChecker {
 public:
  BoundsChecker(const Kernel& kernel, burgspec::Diagnostics& diags) : kernel_(kernel), diags_(diags) {}

  void walk(const NodePtr& node, Ranges& ranges) {
    switch (node->kind) {
      case NodeKind::For: {
        Range lower = rangeOf(node->lower, ranges);
        int64_t hi = INT64_MAX;
        for (const Affine& u : node->upper) hi = std::min(hi, rangeOf(u, ranges).hi - 1);
        if (hi < lower.lo) return;  // the loop never runs
        auto saved =
            ranges.find(node->index) != ranges.end() ? std::optional(ranges[node->index]) : std::nullopt;
        ranges[node->index] = {lower.lo, hi};
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
  void checkExpr(const Expr& e, SourceLoc at, const Ranges& ranges) {
    if (e.kind == Expr::Kind::Load) check(e.load, false, at, ranges);
    for (const ExprPtr& arg : e.args) checkExpr(*arg, at, ranges);
  }

  void check(const Access& access, bool write, SourceLoc at, const Ranges& ranges) {
    const Array* array = kernel_.findParam(access.array);
    if (!array || (array->zeroPadded && !write)) return;
    for (size_t d = 0; d < access.subscripts.size() && d < array->extents.size(); ++d) {
      Range r = rangeOf(access.subscripts[d], ranges);
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
  burgspec::Diagnostics& diags_;
  bool ok_ = true;
};

}  // namespace

bool checkSubscriptBounds(const Kernel& kernel, burgspec::Diagnostics& diags) {
  BoundsChecker checker(kernel, diags);
  Ranges ranges;
  if (kernel.body) checker.walk(kernel.body, ranges);
  return checker.ok();
}

}  // namespace cudaburg
