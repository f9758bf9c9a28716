#include "src/loop/checked_arith.hpp"

#include <limits>

namespace cudaburg {

std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<int64_t> checkedSub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<int64_t> checkedDiv(int64_t a, int64_t b) {
  if (b == 0 || (a == std::numeric_limits<int64_t>::min() && b == -1)) return std::nullopt;
  return a / b;
}

std::optional<int64_t> checkedRem(int64_t a, int64_t b) {
  if (b == 0) return std::nullopt;
  if (b == -1) return 0;  // INT64_MIN % -1 traps on x86, though the answer is 0
  return a % b;
}

std::optional<Affine> checkedSum(const Affine& a, const Affine& b, int sign) {
  std::optional<Affine> scaled = checkedScale(b, sign);
  if (!scaled) return std::nullopt;
  Affine r = a;
  auto c = checkedAdd(r.constant, scaled->constant);
  if (!c) return std::nullopt;
  r.constant = *c;
  for (const auto& [name, coef] : scaled->terms) {
    auto v = checkedAdd(r.coef(name), coef);
    if (!v) return std::nullopt;
    if (*v == 0)
      r.terms.erase(name);
    else
      r.terms[name] = *v;
  }
  return r;
}

std::optional<Affine> checkedScale(const Affine& a, int64_t k) {
  if (k == 0) return Affine(0);
  Affine r;
  auto c = checkedMul(a.constant, k);
  if (!c) return std::nullopt;
  r.constant = *c;
  for (const auto& [name, coef] : a.terms) {
    auto v = checkedMul(coef, k);
    if (!v) return std::nullopt;
    r.terms[name] = *v;
  }
  return r;
}

}  // namespace cudaburg
