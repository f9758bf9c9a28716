#include "src/cuda/run/precision.hpp"

#include <algorithm>

namespace cudaburg {

namespace {
constexpr Precision kModes[] = {Precision::Strict, Precision::Tf32};
}

const char* precisionName(Precision p) {
  switch (p) {
    case Precision::Strict:
      return "strict";
    case Precision::Tf32:
      return "tf32";
  }
  return "strict";
}

std::optional<Precision> parsePrecision(const std::string& name) {
  for (Precision p : kModes)
    if (name == precisionName(p)) return p;
  return std::nullopt;
}

std::string precisionNames() {
  std::string names;
  for (Precision p : kModes) names += (names.empty() ? "" : ", ") + std::string(precisionName(p));
  return names;
}

double contractBound(double libraryError, ScalarType output) {
  return std::max(kLibraryErrorFactor * libraryError, kRoundoffFloor * unitRoundoff(output));
}

ScalarType libraryOperands(ScalarType operands, Precision mode) {
  return mode == Precision::Tf32 && operands == ScalarType::Float ? ScalarType::TF32 : operands;
}

}  // namespace cudaburg
