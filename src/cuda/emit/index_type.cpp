#include "src/cuda/emit/index_type.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>

namespace cudaburg {

namespace {

// Four times below INT32_MAX: a block loop's threads and a loop's last increment may step an
// index somewhat past its bound, and 32-bit arithmetic must still hold it.
constexpr __int128 kNarrowLimit = INT32_MAX / 4;

using Magnitudes = std::map<std::string, __int128>;  // the largest |value| of each index in scope

// A bound on |partial sum| of `a` over its indices, whatever order the terms are added in.
__int128 magnitude(const Affine& a, const Magnitudes& indices) {
  __int128 m = a.constant < 0 ? -__int128(a.constant) : __int128(a.constant);
  for (const auto& [name, coef] : a.terms) {
    auto it = indices.find(name);
    __int128 v = it == indices.end() ? 0 : it->second;
    m += (coef < 0 ? -__int128(coef) : __int128(coef)) * v;
    if (m > INT64_MAX) return INT64_MAX;  // far past the limit already; stay clear of __int128 overflow
  }
  return m;
}

class Prover {
 public:
  explicit Prover(const Kernel& kernel) {
    for (const Array& a : kernel.params) arrays_[a.name] = &a;
  }

  bool narrow() const { return narrow_; }

  void walk(const Node& node, Magnitudes& indices) {
    if (!narrow_) return;
    switch (node.kind) {
      case NodeKind::For: {
        // Inside the loop the index lies between the lower bound and an upper bound less one;
        // the loop's own counter also takes one step past its last value.
        __int128 m = magnitude(node.lower, indices), bound = 0;
        for (const Affine& u : node.upper) {
          bound = std::max(bound, magnitude(u, indices));
          m = std::max(m, magnitude(u - Affine(1), indices));
        }
        check(std::max(m, bound) + (node.step < 0 ? -__int128(node.step) : __int128(node.step)));
        __int128 saved = indices.find(node.index) == indices.end() ? -1 : indices[node.index];
        indices[node.index] = m;
        for (const NodePtr& kid : node.kids) walk(*kid, indices);
        if (saved < 0)
          indices.erase(node.index);
        else
          indices[node.index] = saved;
        return;
      }
      case NodeKind::Assign:
        access(node.target, indices);
        expr(*node.value, indices);
        return;
      case NodeKind::Alloc:
        arrays_[node.buffer.name] = &node.buffer;
        break;
      case NodeKind::Stage:
        for (const Affine& o : node.origin) check(magnitude(o, indices));
        break;
      default:
        break;
    }
    for (const NodePtr& kid : node.kids) walk(*kid, indices);
  }

 private:
  void check(__int128 m) {
    if (m > kNarrowLimit) narrow_ = false;
  }

  void expr(const Expr& e, const Magnitudes& indices) {
    if (e.kind == Expr::Kind::Load) access(e.load, indices);
    if (e.kind == Expr::Kind::Index) check(magnitude(e.index, indices));
    for (const ExprPtr& arg : e.args) expr(*arg, indices);
  }

  // Each subscript, and the flat offset the emitter computes from them (strides of the extents).
  void access(const Access& a, const Magnitudes& indices) {
    auto it = arrays_.find(a.array);
    __int128 offset = 0, stride = 1;
    for (size_t d = a.subscripts.size(); d-- > 0;) {
      __int128 m = magnitude(a.subscripts[d], indices);
      check(m);
      offset += m * stride;
      if (it != arrays_.end() && d < it->second->extents.size()) stride *= it->second->extents[d];
      if (offset > INT64_MAX || stride > INT64_MAX) {
        narrow_ = false;
        return;
      }
    }
    check(offset);
    if (it != arrays_.end()) check(it->second->elements());
  }

  std::map<std::string, const Array*> arrays_;
  bool narrow_ = true;
};

}  // namespace

const char* indexTypeFor(const Kernel& kernel) {
  Prover prover(kernel);
  Magnitudes indices;
  if (kernel.body) prover.walk(*kernel.body, indices);
  return prover.narrow() ? "int" : "long long";
}

}  // namespace cudaburg
