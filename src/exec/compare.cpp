#include "src/exec/compare.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "src/loop/scalar_types.hpp"
#include "src/loop/tree_walk.hpp"
#include "src/transform/loop_facts.hpp"

namespace cudaburg {

namespace {

std::string elementName(const Array& a, size_t flat) {
  std::vector<int64_t> idx(a.extents.size());
  for (size_t d = a.extents.size(); d-- > 0;) {
    idx[d] = static_cast<int64_t>(flat) % a.extents[d];
    flat /= static_cast<size_t>(a.extents[d]);
  }
  std::string s = a.name;
  for (int64_t i : idx) s += "[" + std::to_string(i) + "]";
  return s;
}

// The longest chain of nested reduce loops in `root`, as a product of trip counts: the longest
// over the leaves of the reduce loops around them.
double reductionLength(const Node& root) {
  double longest = 1;
  walkTree(root, [&](const Node& node, const std::vector<const Node*>& loops) {
    if (!node.kids.empty()) return Walk::Into;
    double length = 1;
    for (const Node* loop : loops) {
      auto trip = loop->loopKind == LoopKind::Reduce ? constantTripCount(*loop) : std::nullopt;
      length *= trip ? static_cast<double>(*trip) : 1.0;
    }
    longest = std::max(longest, length);
    return Walk::Into;
  });
  return longest;
}

}  // namespace

Comparison compare(const Kernel& kernel, const Buffers& expected, const Buffers& actual, double tolerance) {
  Comparison c;
  for (const auto& a : kernel.params) {
    if (a.input) continue;
    auto e = expected.data.find(a.name);
    auto g = actual.data.find(a.name);
    if (e == expected.data.end() || g == actual.data.end() || e->second.size() != g->second.size()) {
      c.ok = false;
      c.maxError = INFINITY;
      if (c.firstMismatch.empty()) c.firstMismatch = a.name + ": missing or of another size";
      continue;
    }
    for (size_t i = 0; i < e->second.size(); ++i) {
      double x = e->second[i], y = g->second[i];
      double err = std::isnan(x) || std::isnan(y) ? INFINITY : std::fabs(y - x) / std::max(std::fabs(x), 1.0);
      c.maxError = std::max(c.maxError, err);
      if (err > tolerance && c.ok) {
        c.ok = false;
        std::ostringstream out;
        out << elementName(a, i) << ": expected " << x << ", got " << y;
        c.firstMismatch = out.str();
      }
    }
  }
  return c;
}

double reductionTolerance(const Kernel& kernel) {
  double eps = 0;
  for (const auto& a : kernel.params) {
    if (a.input) continue;
    // A tf32 output stores a float: its statements compute and store in fp32.
    eps = std::max(eps, a.type == ScalarType::TF32 ? 0x1p-24 : unitRoundoff(a.type));
  }
  return 8 * eps * (kernel.body ? reductionLength(*kernel.body) : 1.0);
}

}  // namespace cudaburg
