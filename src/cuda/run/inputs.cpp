#include "src/cuda/run/inputs.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include "src/loop/scalar_types.hpp"
#include "src/loop/tree_walk.hpp"

namespace cudaburg {
namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

void collectLoads(const Expr& e, std::set<std::string>& loaded) {
  if (e.kind == Expr::Kind::Load) loaded.insert(e.load.array);
  for (const auto& arg : e.args) collectLoads(*arg, loaded);
}

struct ArrayUses {
  std::set<std::string> assigned, accumulated, loaded;
};

void collectUses(const Node& root, ArrayUses& uses) {
  forEachNode(root, [&](const Node& node) {
    if (node.kind != NodeKind::Assign) return;
    (node.accumulate ? uses.accumulated : uses.assigned).insert(node.target.array);
    collectLoads(*node.value, uses.loaded);
  });
}

}  // namespace

const char* arrayInitName(ArrayInit init) {
  switch (init) {
    case ArrayInit::Random:
      return "random";
    case ArrayInit::Poison:
      return "poison";
    case ArrayInit::Zero:
      return "zero";
    case ArrayInit::Workspace:
      return "workspace";
  }
  return "poison";
}

bool parseArrayInit(const std::string& name, ArrayInit& out) {
  for (ArrayInit init : {ArrayInit::Random, ArrayInit::Poison, ArrayInit::Zero, ArrayInit::Workspace}) {
    if (name == arrayInitName(init)) {
      out = init;
      return true;
    }
  }
  return false;
}

std::vector<ArrayInit> arrayInits(const Kernel& kernel) {
  ArrayUses uses;
  if (kernel.body) collectUses(*kernel.body, uses);
  std::vector<ArrayInit> inits;
  for (const auto& a : kernel.params) {
    bool zeroFirst = std::count(kernel.zeroFirst.begin(), kernel.zeroFirst.end(), a.name) > 0;
    bool onlyAccumulated = uses.accumulated.count(a.name) && !uses.assigned.count(a.name);
    if (zeroFirst)
      inits.push_back(ArrayInit::Zero);
    else if (a.input || uses.loaded.count(a.name))
      inits.push_back(ArrayInit::Random);
    else if (onlyAccumulated)
      inits.push_back(ArrayInit::Zero);
    else
      inits.push_back(ArrayInit::Poison);
  }
  return inits;
}

uint64_t randomBase(uint64_t seed) { return splitmix64(seed); }

std::vector<double> randomValues(ScalarType type, size_t count, uint64_t seed) {
  std::vector<double> values(count);
  uint64_t base = randomBase(seed);
  for (size_t i = 0; i < count; ++i) {
    uint64_t bits = splitmix64(base + i);
    double unit = double(bits >> 11) * 0x1.0p-53;  // [0, 1)
    switch (type) {
      case ScalarType::Float:
        values[i] = float(2 * unit - 1);
        break;
      case ScalarType::Double:
        values[i] = 2 * unit - 1;
        break;
      case ScalarType::Half:
        values[i] = halfToFloat(floatToHalf(float(2 * unit - 1)));
        break;
      case ScalarType::BFloat16:
        values[i] = bfloat16ToFloat(floatToBfloat16(float(2 * unit - 1)));
        break;
      case ScalarType::TF32:
        values[i] = roundToTf32(float(2 * unit - 1));
        break;
      case ScalarType::Int:
        values[i] = double(int64_t(bits % 9) - 4);
        break;
    }
  }
  return values;
}

std::vector<uint8_t> encodeValues(const std::vector<double>& values, ScalarType type) {
  std::vector<uint8_t> bytes(values.size() * scalarTypeBytes(type));
  for (size_t i = 0; i < values.size(); ++i) {
    uint8_t* at = bytes.data() + i * scalarTypeBytes(type);
    switch (type) {
      case ScalarType::Float:
      case ScalarType::TF32: {
        float v = float(values[i]);
        std::memcpy(at, &v, 4);
        break;
      }
      case ScalarType::Double:
        std::memcpy(at, &values[i], 8);
        break;
      case ScalarType::Half: {
        uint16_t v = floatToHalf(float(values[i]));
        std::memcpy(at, &v, 2);
        break;
      }
      case ScalarType::BFloat16: {
        uint16_t v = floatToBfloat16(float(values[i]));
        std::memcpy(at, &v, 2);
        break;
      }
      case ScalarType::Int: {
        int32_t v = int32_t(values[i]);
        std::memcpy(at, &v, 4);
        break;
      }
    }
  }
  return bytes;
}

std::vector<double> decodeValues(const std::vector<uint8_t>& bytes, ScalarType type) {
  size_t width = scalarTypeBytes(type);
  std::vector<double> values(bytes.size() / width);
  for (size_t i = 0; i < values.size(); ++i) {
    const uint8_t* at = bytes.data() + i * width;
    switch (type) {
      case ScalarType::Float:
      case ScalarType::TF32: {
        float v;
        std::memcpy(&v, at, 4);
        values[i] = v;
        break;
      }
      case ScalarType::Double:
        std::memcpy(&values[i], at, 8);
        break;
      case ScalarType::Half: {
        uint16_t v;
        std::memcpy(&v, at, 2);
        values[i] = halfToFloat(v);
        break;
      }
      case ScalarType::BFloat16: {
        uint16_t v;
        std::memcpy(&v, at, 2);
        values[i] = bfloat16ToFloat(v);
        break;
      }
      case ScalarType::Int: {
        int32_t v;
        std::memcpy(&v, at, 4);
        values[i] = v;
        break;
      }
    }
  }
  return values;
}

uint16_t floatToHalf(float value) {
  uint32_t f;
  std::memcpy(&f, &value, 4);
  uint16_t sign = uint16_t((f >> 16) & 0x8000u);
  uint32_t exponent = (f >> 23) & 0xFFu;
  uint32_t mantissa = f & 0x7FFFFFu;
  if (exponent == 0xFF) return uint16_t(sign | 0x7C00u | (mantissa ? 0x200u : 0));  // inf, NaN
  int e = int(exponent) - 127 + 15;
  if (e >= 0x1F) return uint16_t(sign | 0x7C00u);  // overflow to infinity
  if (e <= 0) {                                    // subnormal half, or zero
    if (e < -10) return sign;
    mantissa |= 0x800000u;
    int shift = 14 - e;
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1))) ++half;
    return uint16_t(sign | half);
  }
  uint32_t half = (uint32_t(e) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1))) ++half;  // may carry into the exponent
  return uint16_t(sign | half);
}

float halfToFloat(uint16_t bits) {
  float sign = (bits & 0x8000u) ? -1.0f : 1.0f;
  int exponent = (bits >> 10) & 0x1F;
  int mantissa = bits & 0x3FF;
  if (exponent == 0x1F) return mantissa ? std::nanf("") : sign * INFINITY;
  if (exponent == 0) return sign * std::ldexp(float(mantissa), -24);
  return sign * std::ldexp(float(mantissa | 0x400), exponent - 25);
}

}  // namespace cudaburg
