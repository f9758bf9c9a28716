#include "src/loop/scalar_types.hpp"

#include <cfloat>
#include <cmath>
#include <cstring>

namespace cudaburg {

namespace {

// `v` rounded to a binary format of `bits` significant bits whose least normal exponent is
// `minExponent` (subnormals below it) and whose largest finite value is `largest`.
double roundToFormat(double v, int bits, int minExponent, double largest, bool tiesAway) {
  if (!std::isfinite(v) || v == 0) return v;
  int e = 0;
  std::frexp(v, &e);  // |v| = m * 2^e, m in [0.5, 1)
  int exponent = std::max(e - 1, minExponent);
  double quantum = std::ldexp(1.0, exponent - (bits - 1));
  double q = v / quantum;  // exact: a power of two
  double r = tiesAway ? std::round(q) : std::nearbyint(q);
  double out = r * quantum;
  if (std::fabs(out) > largest) return std::copysign(INFINITY, v);
  return out == 0 ? std::copysign(0.0, v) : out;
}

}  // namespace

bool isFloatingType(ScalarType t) { return t != ScalarType::Int; }

bool isReducedPrecision(ScalarType t) {
  return t == ScalarType::Half || t == ScalarType::BFloat16 || t == ScalarType::TF32;
}

ScalarType arithmeticType(ScalarType t) { return isReducedPrecision(t) ? ScalarType::Float : t; }

double unitRoundoff(ScalarType t) {
  switch (t) {
    case ScalarType::Float:
      return 0x1p-24;
    case ScalarType::Double:
      return 0x1p-53;
    case ScalarType::Half:
      return 0x1p-11;
    case ScalarType::BFloat16:
      return 0x1p-8;
    case ScalarType::TF32:
      return 0x1p-11;
    case ScalarType::Int:
      return 0;
  }
  return 0x1p-24;
}

double roundToHalf(double v) { return roundToFormat(v, 11, -14, 65504.0, false); }

double roundToBfloat16(double v) {
  return roundToFormat(v, 8, -126, std::ldexp(255.0, 120), false);  // (2 - 2^-7) * 2^127
}

double roundToTf32(double v) {
  return roundToFormat(v, 11, -126, std::ldexp(2047.0, 117), true);  // (2 - 2^-10) * 2^127
}

double storedValue(ScalarType t, double v) {
  switch (t) {
    case ScalarType::Float:
    case ScalarType::TF32:
      return static_cast<double>(static_cast<float>(v));
    case ScalarType::Double:
      return v;
    case ScalarType::Half:
      return roundToHalf(static_cast<float>(v));
    case ScalarType::BFloat16:
      return roundToBfloat16(static_cast<float>(v));
    case ScalarType::Int:
      return std::trunc(v);
  }
  return v;
}

double readValue(ScalarType t, double v) { return t == ScalarType::TF32 ? roundToTf32(v) : v; }

uint16_t floatToBfloat16(float value) {
  if (std::isnan(value)) return 0x7FC0;
  float rounded = static_cast<float>(roundToBfloat16(value));
  uint32_t bits;
  std::memcpy(&bits, &rounded, 4);
  return static_cast<uint16_t>(bits >> 16);
}

float bfloat16ToFloat(uint16_t bits) {
  uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &wide, 4);
  return f;
}

}  // namespace cudaburg
