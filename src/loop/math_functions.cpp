#include "src/loop/math_functions.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>

namespace cudaburg {

namespace {

const MathFunction kFunctions[] = {
    {"min", 2, "fminf", "fmin"},  {"max", 2, "fmaxf", "fmax"},     {"exp", 1, "expf", "exp"},
    {"log", 1, "logf", "log"},    {"tanh", 1, "tanhf", "tanh"},    {"erf", 1, "erff", "erf"},
    {"sqrt", 1, "sqrtf", "sqrt"}, {"rsqrt", 1, "rsqrtf", "rsqrt"}, {"abs", 1, "fabsf", "fabs"},
};

}  // namespace

const MathFunction* findMathFunction(std::string_view name) {
  auto it =
      std::find_if(std::begin(kFunctions), std::end(kFunctions), [&](const MathFunction& f) { return name == f.name; });
  return it == std::end(kFunctions) ? nullptr : &*it;
}

double applyMathFunction(const MathFunction& f, double x, double y) {
  std::string_view name = f.name;
  if (name == "min") return std::min(x, y);
  if (name == "max") return std::max(x, y);
  if (name == "exp") return std::exp(x);
  if (name == "log") return std::log(x);
  if (name == "tanh") return std::tanh(x);
  if (name == "erf") return std::erf(x);
  if (name == "sqrt") return std::sqrt(x);
  if (name == "rsqrt") return 1.0 / std::sqrt(x);
  return std::fabs(x);  // abs
}

std::string cudaFloatLiteral(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(static_cast<float>(v)));
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s + "f";
}

}  // namespace cudaburg
