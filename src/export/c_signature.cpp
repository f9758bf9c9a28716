#include "src/export/c_signature.hpp"

namespace cudaburg {

std::string elementTypeName(ScalarType t) {
  switch (t) {
    case ScalarType::Half:
      return "CUDABURG_HALF";
    case ScalarType::BFloat16:
      return "CUDABURG_BFLOAT16";
    default:
      return cudaTypeName(t);
  }
}

std::string arrayParameter(const Array& a) {
  return (a.input ? "const " : "") + elementTypeName(a.type) + "* " + a.name;
}

std::string functionParameters(const ExportedFunction& f) {
  std::string s;
  for (const Array& a : f.arrays) s += arrayParameter(a) + ", ";
  for (const std::string& n : f.sizeArgs) s += "int64_t " + n + ", ";
  return s + "cudaStream_t stream";
}

std::string arrayArguments(const ExportedFunction& f) {
  std::string s;
  for (const Array& a : f.arrays) s += (s.empty() ? "" : ", ") + a.name;
  return s;
}

std::string arrayShape(const Array& a) {
  std::string s = a.name;
  for (int64_t e : a.extents) s += "[" + std::to_string(e) + "]";
  return s;
}

}  // namespace cudaburg
