#include "src/cuda/run/reference_check.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>

#include "src/loop/scalar_types.hpp"

namespace cudaburg {

double verificationTolerance(ScalarType type, int64_t reductionLength) {
  return verificationTolerance(type, type, reductionLength);
}

double verificationTolerance(ScalarType output, ScalarType operands, int64_t reductionLength) {
  // Summation error grows like sqrt(n) units of roundoff for random data; 32 units is the margin.
  double n = double(std::max<int64_t>(reductionLength, 1));
  double growth = 32 * std::sqrt(n);
  switch (output) {
    case ScalarType::Int:
      return 0;
    case ScalarType::Double:
      return std::clamp(growth * 0x1.0p-53, 1e-14, 1e-12);
    case ScalarType::Half:
      return std::clamp(growth * 0x1.0p-11, 1e-3, 5e-2);
    case ScalarType::BFloat16:
      return std::clamp(growth * 0x1.0p-8, 8e-3, 0.25);
    case ScalarType::Float:
    case ScalarType::TF32:
      if (isReducedPrecision(operands))
        // Products of half, bfloat16 and TF32 values are exact in fp32; tensor cores add them
        // to the accumulator truncating the aligned significands, an error of up to about a unit
        // of fp32 a step of 8 or more products, and one that does not cancel: n / 8 units.
        return std::clamp((growth + n / 4) * 0x1.0p-24, 1e-6, 2e-3);
      return std::clamp(growth * 0x1.0p-24, 1e-6, 1e-4);
  }
  return 1e-4;
}

namespace {

// The least precise of `a` and `b` (by unit roundoff; int counts as the least).
ScalarType lessPrecise(ScalarType a, ScalarType b) {
  if (a == ScalarType::Int || b == ScalarType::Int) return a == ScalarType::Int ? b : a;
  return unitRoundoff(b) > unitRoundoff(a) || (unitRoundoff(b) == unitRoundoff(a) && isReducedPrecision(b)) ? b : a;
}

}  // namespace

double kernelTolerance(const Kernel& kernel, const std::vector<ScalarType>& types, int64_t reductionLength) {
  std::optional<ScalarType> output, operands;
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    ScalarType t = i < types.size() ? types[i] : kernel.params[i].type;
    std::optional<ScalarType>& slot = kernel.params[i].input ? operands : output;
    if (t != ScalarType::Int || !slot) slot = slot ? lessPrecise(*slot, t) : t;
  }
  if (!output) return 0;
  return verificationTolerance(*output, operands.value_or(*output), reductionLength);
}

std::string elementName(const std::string& name, const std::vector<int64_t>& extents, size_t flat) {
  std::vector<int64_t> index(extents.size());
  for (size_t d = extents.size(); d-- > 0;) {
    int64_t e = std::max<int64_t>(extents[d], 1);
    index[d] = int64_t(flat) % e;
    flat /= size_t(e);
  }
  std::string s = name;
  for (int64_t i : index) s += "[" + std::to_string(i) + "]";
  return s;
}

void ComparisonSums::add(size_t index, double out, double ref) {
  if (!std::isfinite(ref)) {
    ++refNonFinite;
    return;
  }
  if (!std::isfinite(out)) {
    if (nonFinite++ == 0) firstNonFinite = index;
    return;
  }
  double d = out - ref;
  diffNorm += d * d;
  refNorm += ref * ref;
  if (std::abs(d) > worst) worst = std::abs(d), worstIndex = index;
}

void ComparisonSums::merge(const ComparisonSums& other) {
  diffNorm += other.diffNorm;
  refNorm += other.refNorm;
  if (other.worst > worst || (other.worst == worst && other.worstIndex < worstIndex))
    worst = other.worst, worstIndex = other.worstIndex;
  if (other.nonFinite > 0 && (nonFinite == 0 || other.firstNonFinite < firstNonFinite))
    firstNonFinite = other.firstNonFinite;
  nonFinite += other.nonFinite;
  refNonFinite += other.refNonFinite;
}

Comparison judge(const std::string& name, const std::vector<int64_t>& extents, size_t elements,
                 const ComparisonSums& sums, double worstOut, double worstRef, double tolerance) {
  Comparison c;
  c.nonFinite = sums.nonFinite;
  c.firstNonFinite = sums.firstNonFinite;
  c.worstIndex = sums.worstIndex;
  c.relativeError = sums.refNorm > 0 ? std::sqrt(sums.diffNorm / sums.refNorm) : std::sqrt(sums.diffNorm);
  std::ostringstream why;
  if (sums.refNonFinite > 0) {
    why << name << ": the reference has " << sums.refNonFinite << " non-finite elements";
  } else if (c.nonFinite > 0) {
    c.relativeError = INFINITY;
    why << name << ": " << c.nonFinite << " of " << elements << " elements are NaN or infinite (unwritten?), first "
        << elementName(name, extents, c.firstNonFinite);
  } else if (!(c.relativeError <= tolerance)) {
    why.precision(3);
    why << name << ": relative error " << c.relativeError << " exceeds the bound " << tolerance << "; worst at "
        << elementName(name, extents, c.worstIndex) << " = " << worstOut << ", expected " << worstRef;
  } else {
    c.passed = true;
  }
  c.reason = why.str();
  return c;
}

Comparison compareArrays(const std::string& name, const std::vector<int64_t>& extents, const std::vector<double>& out,
                         const std::vector<double>& ref, double tolerance) {
  if (out.size() != ref.size()) {
    Comparison c;
    c.reason = name + ": " + std::to_string(out.size()) + " elements against " + std::to_string(ref.size()) +
               " in the reference";
    return c;
  }
  ComparisonSums sums;
  for (size_t i = 0; i < out.size(); ++i) sums.add(i, out[i], ref[i]);
  bool any = sums.worst >= 0;
  return judge(name, extents, out.size(), sums, any ? out[sums.worstIndex] : 0, any ? ref[sums.worstIndex] : 0,
               tolerance);
}

}  // namespace cudaburg
