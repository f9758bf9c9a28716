#pragma once
// 64-bit arithmetic that says when it overflows instead of wrapping (or trapping, as
// INT64_MIN / -1 does): sizes, bounds and subscripts of a .loop file are computed with it.
#include <cstdint>
#include <optional>

#include "src/loop/loop_tree.hpp"

namespace cudaburg {

std::optional<int64_t> checkedAdd(int64_t a, int64_t b);
std::optional<int64_t> checkedSub(int64_t a, int64_t b);
std::optional<int64_t> checkedMul(int64_t a, int64_t b);
// Truncating division and remainder as in C; nullopt for a zero divisor and for INT64_MIN / -1.
std::optional<int64_t> checkedDiv(int64_t a, int64_t b);
std::optional<int64_t> checkedRem(int64_t a, int64_t b);

// a + sign * b and a * k over every coefficient and the constant.
std::optional<Affine> checkedSum(const Affine& a, const Affine& b, int sign);
std::optional<Affine> checkedScale(const Affine& a, int64_t k);

}  // namespace cudaburg
