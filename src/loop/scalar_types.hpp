#pragma once
// The element types of the .loop language and how their values are stored and computed with:
//
//   type      storage              arithmetic            a value as stored
//   float     IEEE binary32        fp32                  rounded to float
//   double    IEEE binary64        fp64                  as it is
//   half      IEEE binary16        fp32 (converted)      rounded to half (11 significant bits)
//   bfloat16  bfloat16             fp32 (converted)      rounded to bfloat16 (8 significant bits)
//   tf32      IEEE binary32        fp32, each read       rounded to float; a read yields the value
//             (a float array)      rounded to TF32       rounded to TF32 (11 significant bits)
//   int       32-bit integer       exact                 truncated
//
// Rounding is to nearest, ties to even, with IEEE subnormals and overflow to infinity, except
// TF32, which rounds ties away from zero as cvt.rna.tf32.f32 (the instruction CUDA code uses)
// does. Statements that assign to an array of a reduced type (half, bfloat16, tf32) compute in
// fp32: the type of the math of tensor cores with fp32 accumulation (mma.sync ... .f32).
#include "src/loop/loop_tree.hpp"

namespace cudaburg {

// float, double, half, bfloat16, tf32 (not int).
bool isFloatingType(ScalarType t);
// half, bfloat16 and tf32: the tensor-core input types, whose arithmetic is fp32.
bool isReducedPrecision(ScalarType t);
// The type statements into an array of type `t` compute in: float for the reduced types.
ScalarType arithmeticType(ScalarType t);
// The unit roundoff of a value stored as `t` (2^-24 for float, 2^-11 for half, 2^-8 for
// bfloat16, 2^-11 for tf32 reads; 0 for int).
double unitRoundoff(ScalarType t);

// `v` as an array of type `t` stores it (the table above; tf32 stores a float).
double storedValue(ScalarType t, double v);
// `v` as a read of an array of type `t` yields it: the stored value, rounded to TF32 for tf32.
double readValue(ScalarType t, double v);

double roundToHalf(double v);
double roundToBfloat16(double v);
double roundToTf32(double v);  // ties away from zero (cvt.rna)

// bfloat16 bit patterns (round to nearest even), as the GPU stores them.
uint16_t floatToBfloat16(float value);
float bfloat16ToFloat(uint16_t bits);

}  // namespace cudaburg
