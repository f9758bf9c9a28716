#pragma once
// Compares the results of two runs of a kernel.
#include <string>

#include "src/exec/buffers.hpp"
#include "src/loop/loop_tree.hpp"

namespace cudaburg {

struct Comparison {
  bool ok = true;
  double maxError = 0;        // the largest |actual - expected| / max(|expected|, 1)
  std::string firstMismatch;  // "C[3][17]: expected 1.25, got 1.5" (empty when ok)
};

// Compares the kernel's output parameters (those not declared const). `tolerance` bounds the
// error defined above; 0 asks for exact equality. NaN never matches.
Comparison compare(const Kernel& kernel, const Buffers& expected, const Buffers& actual, double tolerance);

// A tolerance for a kernel's float results: a few units of rounding per term of its longest
// reduction (the product of the trip counts of nested reduce loops); 0 when every output is int.
double reductionTolerance(const Kernel& kernel);

}  // namespace cudaburg
