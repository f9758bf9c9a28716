#pragma once
// The math functions of the .loop language, with C's meaning on floating-point values: their
// names, arities, exact values (for the CPU executor, computed in double and then rounded to the
// statement's type) and the CUDA functions that compute them in float and in double.
#include <string>
#include <string_view>

namespace cudaburg {

struct MathFunction {
  const char* name;        // as written in a .loop file: "exp"
  int arity;               // 1, or 2 for min and max
  const char* cudaFloat;   // "expf"
  const char* cudaDouble;  // "exp"
};

// The function named `name`, or null when there is none.
const MathFunction* findMathFunction(std::string_view name);

// A float constant as CUDA source: "0.5f", "2.0f", "0.0447149985f" (the value rounded to float,
// in 9 significant digits, which read back as that float).
std::string cudaFloatLiteral(double v);

// The function's value at x (and y, for min and max) in double precision.
double applyMathFunction(const MathFunction& f, double x, double y = 0);

}  // namespace cudaburg
