#pragma once
// Verification: a kernel's output against the reference's, by the relative error
// ||out - ref|| / ||ref|| (2-norms), with a bound that grows with the reduction length the way
// rounding error does. A non-finite element never passes.
#include <cstdint>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "src/loop/loop_tree.hpp"

namespace cudaburg {

// The largest relative error a correct kernel of `type` (outputs and operands) may show when each
// output element sums `reductionLength` terms (fp32: between 1e-6 and 1e-4).
double verificationTolerance(ScalarType type, int64_t reductionLength);
// The same for outputs of type `output` computed from operands of type `operands` (the table of
// docs/loop-language.md): n terms of half, bfloat16 or tf32 operands accumulated in fp32 may be
// off by (32 sqrt(n) + n / 4) units of fp32 (between 1e-6 and 2e-3); half outputs by 32 sqrt(n)
// units of half (1e-3 to 5e-2), bfloat16 outputs by 32 sqrt(n) of bfloat16 (8e-3 to 0.25).
double verificationTolerance(ScalarType output, ScalarType operands, int64_t reductionLength);
// The tolerance of a kernel whose parameters have the types `types` (in parameter order; the
// declared types where it is short): the least precise output against the least precise input.
double kernelTolerance(const Kernel& kernel, const std::vector<ScalarType>& types, int64_t reductionLength);

struct Comparison {
  bool passed = false;
  double relativeError = 0;   // ||out - ref|| / ||ref|| (the absolute error when ref is all zero)
  size_t nonFinite = 0;       // elements of `out` that are NaN or infinite (unwritten when poisoned)
  size_t firstNonFinite = 0;  // the first of them
  size_t worstIndex = 0;      // the element with the largest difference
  common::Reason reason;      // why it failed; empty when it passed
};

// What a comparison gathers over the elements, on the host or on the GPU a block at a time.
// Pairs whose reference is not finite count apart; so do pairs whose output is not finite.
struct ComparisonSums {
  double diffNorm = 0, refNorm = 0;  // squared 2-norms of out - ref and of ref
  double worst = -1;                 // the largest |out - ref|, first at worstIndex
  size_t worstIndex = 0;
  size_t nonFinite = 0, firstNonFinite = 0, refNonFinite = 0;

  void add(size_t index, double out, double ref);
  // Folds in the sums of other elements; of equal differences the lower index stays the worst.
  void merge(const ComparisonSums& other);
};

// The verdict on the sums of one output array; `worstOut` and `worstRef` are the values at
// sums.worstIndex, and `extents` only serve to name elements in the reason ("C[3][17]").
Comparison judge(const std::string& name, const std::vector<int64_t>& extents, size_t elements,
                 const ComparisonSums& sums, double worstOut, double worstRef, double tolerance);

// Compares one output array held on the host.
Comparison compareArrays(const std::string& name, const std::vector<int64_t>& extents, const std::vector<double>& out,
                         const std::vector<double>& ref, double tolerance);

// "C[3][17]": the element of a row-major array with these extents at a flat index.
std::string elementName(const std::string& name, const std::vector<int64_t>& extents, size_t flat);

}  // namespace cudaburg
