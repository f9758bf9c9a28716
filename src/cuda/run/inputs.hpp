#pragma once
// The data a kernel is verified on: fresh random inputs from a seed, outputs either poisoned with
// a NaN pattern (so that elements a kernel never writes are caught) or zeroed (outputs that the
// nest only accumulates into, and a split reduction's zeroFirst outputs), and the conversions
// between host values and the bytes of each scalar type.
#include <cstdint>
#include <string>
#include <vector>

#include "src/loop/loop_tree.hpp"

namespace cudaburg {

// The 32-bit fill of a poisoned array: a quiet NaN as a float, and (repeated) as a double.
constexpr uint32_t kPoison32 = 0x7FF8BAD0u;
// The 16-bit fill of a poisoned half or bfloat16 array: a quiet NaN in both formats.
constexpr uint16_t kPoison16 = 0x7FFFu;

// Workspace: a kernel's own memory beside the nest's arrays (CudaKernel::workspaces), zeroed once
// when allocated, which every launch leaves as it found it.
enum class ArrayInit { Random, Poison, Zero, Workspace };
const char* arrayInitName(ArrayInit init);  // "random", "poison", "zero", "workspace"
bool parseArrayInit(const std::string& name, ArrayInit& out);

// How each global array of `kernel` starts a verification run, in parameter order: inputs, and
// outputs the nest also reads (updated in place), get random data; outputs in zeroFirst, and
// outputs the nest only ever accumulates into, start at zero; every other output is poisoned.
std::vector<ArrayInit> arrayInits(const Kernel& kernel);

// `count` random values of `type` from `seed`: uniform in [-1, 1) rounded to the type (for tf32,
// to TF32: the values are exact in the math of every kernel and library that reads them; small
// integers in [-4, 4] for int). The same seed always gives the same values.
std::vector<double> randomValues(ScalarType type, size_t count, uint64_t seed);
// Element i of randomValues(type, n, seed) is drawn from splitmix64(randomBase(seed) + i).
uint64_t randomBase(uint64_t seed);

// Host values as the bytes of `type`, and back.
std::vector<uint8_t> encodeValues(const std::vector<double>& values, ScalarType type);
std::vector<double> decodeValues(const std::vector<uint8_t>& bytes, ScalarType type);

// IEEE half precision conversions (round to nearest even).
uint16_t floatToHalf(float value);
float halfToFloat(uint16_t bits);

}  // namespace cudaburg
