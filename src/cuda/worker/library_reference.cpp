#include "src/cuda/worker/library_reference.hpp"

#include <stdexcept>

#include "src/analysis/gemm_epilogue.hpp"

namespace cudaburg {
namespace {

// Where the library's product goes before the pass: the output itself when it has the product's
// type (the pass then works in place), else `scratch`.
CUdeviceptr productBuffer(CUdeviceptr output, ScalarType outputType, ScalarType productType, size_t count,
                          DeviceBuffer& scratch) {
  if (productType == outputType) return output;
  size_t bytes = count * scalarTypeBytes(productType);
  if (scratch.bytes() < bytes) scratch = DeviceBuffer(bytes);
  return scratch.ptr();
}

// The pass of `epilogue` over `count` elements of `product` into `output`.
DeviceChecks::EpiloguePass epiloguePass(const EpilogueShape& epilogue, const ReferenceArrays& arrays,
                                        CUdeviceptr product, ScalarType productType, CUdeviceptr output,
                                        ScalarType outputType, size_t count) {
  DeviceChecks::EpiloguePass p;
  p.product = product, p.productType = productType;
  p.out = output, p.outType = outputType;
  auto bind = [&](const std::string& name, CUdeviceptr& at, ScalarType& type) {
    if (name.empty()) return;
    size_t i = arrays.find(name);
    at = arrays.buffers[i].ptr();
    type = arrays.specs[i].type;
  };
  bind(epilogue.scale, p.scale, p.scaleType);
  bind(epilogue.shift, p.shift, p.shiftType);
  bind(epilogue.shortcut, p.shortcut, p.shortcutType);
  p.activation = epilogue.activation;
  p.count = count;
  return p;
}

}  // namespace

size_t ReferenceArrays::find(const std::string& name) const {
  for (size_t i = 0; i < specs.size(); ++i)
    if (specs[i].name == name) return i;
  throw std::runtime_error("the request has no array " + name);
}

const std::string& referenceOutput(const ReferenceSpec& ref) {
  return ref.kind == ReferencePlan::Kind::Gemm ? ref.gemm.c : ref.conv.output;
}

ScalarType referenceOutputType(const ReferenceSpec& ref, const ReferenceArrays& arrays) {
  ScalarType declared = arrays.specs[arrays.find(referenceOutput(ref))].type;
  if (ref.kind == ReferencePlan::Kind::Conv && ref.conv.epilogue.empty()) return ref.conv.libraryOutput();
  return declared;
}

std::string runLibraryReference(ReferenceLibraries& libraries, const DeviceChecks& checks, CUstream stream,
                                const ReferenceSpec& ref, const ReferenceArrays& arrays, CUdeviceptr output,
                                DeviceBuffer& scratch, bool winograd) {
  ScalarType outputType = referenceOutputType(ref, arrays);
  size_t count = size_t(arrays.specs[arrays.find(referenceOutput(ref))].elements());
  if (ref.kind == ReferencePlan::Kind::Gemm) {
    const GemmShape& g = ref.gemm;
    CUdeviceptr a = arrays.ptr(g.a), b = arrays.ptr(g.b);
    if (chooseGemmEpilogue(g) != GemmEpilogue::ElementWise) {
      if (g.epilogue.shift.empty()) return libraries.gemm(stream, g, a, b, output);
      size_t bias = arrays.find(g.epilogue.shift);
      return libraries.gemm(stream, g, a, b, output, arrays.buffers[bias].ptr(), arrays.specs[bias].type);
    }
    GemmShape plain = g;
    plain.epilogue = EpilogueShape{};
    CUdeviceptr product = productBuffer(output, outputType, ScalarType::Float, count, scratch);
    std::string algorithm = libraries.gemm(stream, plain, a, b, product);
    DeviceChecks::EpiloguePass pass =
        epiloguePass(g.epilogue, arrays, product, ScalarType::Float, output, outputType, count);
    // A scale and shift per row of C[M][N] (or per column): rows are N elements apart.
    pass.channelStride = g.epilogueAlongColumns ? 1 : size_t(g.n);
    pass.channels = size_t(g.epilogueAlongColumns ? g.n : g.m);
    checks.epilogue(stream, pass);
    return algorithm;
  }
  if (ref.kind != ReferencePlan::Kind::Conv) throw std::runtime_error("no reference library for this loop nest");
  const ConvShape& s = ref.conv;
  CUdeviceptr in = arrays.ptr(s.input), weight = arrays.ptr(s.weight);
  if (s.epilogue.empty()) return libraries.conv(stream, s, in, weight, output, winograd);
  CUdeviceptr product = productBuffer(output, outputType, s.libraryOutput(), count, scratch);
  std::string algorithm = libraries.conv(stream, s, in, weight, product, winograd);
  DeviceChecks::EpiloguePass pass =
      epiloguePass(s.epilogue, arrays, product, s.libraryOutput(), output, outputType, count);
  // The output channel: the last dimension channels last, else the one before the spatial ones.
  size_t spatial = 1;
  for (int64_t e : s.out) spatial *= size_t(e);
  pass.channelStride = s.layout == ConvShape::Layout::ChannelsLast ? 1 : spatial;
  pass.channels = size_t(s.k);
  checks.epilogue(stream, pass);
  return algorithm;
}

}  // namespace cudaburg
