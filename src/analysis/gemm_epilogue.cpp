#include "src/analysis/gemm_epilogue.hpp"

namespace cudaburg {

GemmEpilogue chooseGemmEpilogue(const GemmShape& shape) {
  const EpilogueShape& e = shape.epilogue;
  if (e.empty()) return GemmEpilogue::None;
  // cuBLASLt writes D in float, or in the 16-bit type of its operands from an fp32 sum.
  bool sixteen = e.outputType == shape.operands &&
                 (e.outputType == ScalarType::Half || e.outputType == ScalarType::BFloat16) &&
                 e.accumulator == ScalarType::Float;
  bool fusable = e.scale.empty() && e.shortcut.empty() && (e.outputType == ScalarType::Float || sixteen) &&
                 (e.shift.empty() || shape.epilogueAlongColumns);
  if (!fusable) return GemmEpilogue::ElementWise;
  bool bias = !e.shift.empty();
  switch (e.activation) {
    case EpilogueShape::Activation::None:
      return bias ? GemmEpilogue::Bias : GemmEpilogue::None;
    case EpilogueShape::Activation::Relu:
      return bias ? GemmEpilogue::ReluBias : GemmEpilogue::Relu;
    case EpilogueShape::Activation::GeluTanh:
      return bias ? GemmEpilogue::GeluBias : GemmEpilogue::Gelu;
    case EpilogueShape::Activation::GeluErf:
      return GemmEpilogue::ElementWise;
  }
  return GemmEpilogue::ElementWise;
}

const char* gemmEpilogueName(GemmEpilogue e) {
  switch (e) {
    case GemmEpilogue::None:
      return "";
    case GemmEpilogue::Bias:
      return "BIAS";
    case GemmEpilogue::Relu:
      return "RELU";
    case GemmEpilogue::ReluBias:
      return "RELU_BIAS";
    case GemmEpilogue::Gelu:
      return "GELU";
    case GemmEpilogue::GeluBias:
      return "GELU_BIAS";
    case GemmEpilogue::ElementWise:
      return "element-wise";
  }
  return "";
}

}  // namespace cudaburg
