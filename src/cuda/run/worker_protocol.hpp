#pragma once
// The messages between the runner and cudaburg-worker: one JSON object a line on the worker's
// standard input (requests) and standard output (replies). A request names its operation:
//   {"op":"hello"}                 -> {"ok":true,"device":"NVIDIA H100 ...","cc":"9.0","driver":"13.0"} or
//                                     {"ok":false,"reason":"no CUDA device: ..."}
//   {"op":"measure", ...}          -> MeasureReply: verify a variant, then time it
//   {"op":"reference_time", ...}   -> MeasureReply: time the reference library
//   {"op":"quit"}                  -> the worker exits
// Kernels come as CUBIN files named by path. Nothing here needs a GPU.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "src/analysis/reference_shape.hpp"
#include "src/cuda/emit/tensor_map.hpp"
#include "src/cuda/run/inputs.hpp"
#include "src/cuda/run/run_status.hpp"
#include "src/cuda/run/timing.hpp"

namespace cudaburg {

bool parseScalarType(const std::string& name, ScalarType& out);  // the names scalarTypeName gives

// A compiled kernel and how to launch it; its parameters are the request's arrays, in order,
// then a tensor map of each of tensorMaps, encoded for its array's buffer.
struct LaunchSpec {
  std::string cubinPath;
  std::string entry;
  std::array<unsigned, 3> grid{1, 1, 1};
  std::array<unsigned, 3> block{1, 1, 1};
  size_t dynamicSharedBytes = 0;
  bool raiseSharedLimit = false;  // set the kernel's maximum dynamic shared memory first
  std::vector<TensorMapParam> tensorMaps;
};

struct ArraySpec {
  std::string name;
  ScalarType type = ScalarType::Float;
  std::vector<int64_t> extents;
  ArrayInit init = ArrayInit::Poison;
  bool output = false;  // written by the kernel: compared with the reference afterwards

  int64_t elements() const;
  size_t bytes() const { return size_t(elements()) * scalarTypeBytes(type); }
};

struct ReferenceSpec {
  ReferencePlan::Kind kind = ReferencePlan::Kind::Exact;
  GemmShape gemm;
  ConvShape conv;
  // The FP64 nest compiled, with the same arrays in its types: the exact outputs every kernel
  // (and, for Conv, the library) is compared with. Gemm's come from cuBLAS DGEMM instead.
  LaunchSpec exact;
  std::vector<ScalarType> exactTypes;
};

struct MeasureRequest {
  LaunchSpec variant;
  std::vector<ArraySpec> arrays;
  ReferenceSpec reference;
  std::string checksCubin;  // the checking kernels (device_checks_source.hpp), compiled
  uint64_t seed = 1;
  double tolerance = 1e-4;  // the bound where no library measures its own error (Kind::Exact)
  // The variant transforms its operands (Winograd): a convolution's is held to cuDNN's Winograd
  // algorithms, where cuDNN has one for the shape (else to `tolerance`).
  bool winograd = false;
  bool verify = true;
  bool time = true;
  int warmupRuns = 3;
  RunCountPolicy runs;
};

// What the worker found: Ok, Wrong, Failed or NotMeasured (its name in JSON).
struct MeasureReply {
  RunStatus status = RunStatus::Failed;
  common::Reason reason;
  double error = -1;  // the relative error against the exact FP64 outputs; -1 when not verified
  double ms = -1;     // the median time; -1 when not timed
  int runs = 0;
  bool fatal = false;        // the worker's CUDA context is lost: it exits after this reply
  std::string algorithm;     // reference timings: the library's algorithm, when it chooses one
  double libraryError = -1;  // the library's own error on the same inputs; -1 when none was run
};

nlohmann::json toJson(const TensorMapParam& m);
nlohmann::json toJson(const LaunchSpec& s);
nlohmann::json toJson(const ArraySpec& s);
nlohmann::json toJson(const ReferenceSpec& s);
nlohmann::json toJson(const MeasureRequest& r);  // with "op":"measure"
nlohmann::json toJson(const MeasureReply& r);

// Readers throw nlohmann::json::exception or std::invalid_argument on malformed messages.
TensorMapParam tensorMapFromJson(const nlohmann::json& j);
LaunchSpec launchSpecFromJson(const nlohmann::json& j);
ArraySpec arraySpecFromJson(const nlohmann::json& j);
ReferenceSpec referenceSpecFromJson(const nlohmann::json& j);
MeasureRequest measureRequestFromJson(const nlohmann::json& j);
MeasureReply measureReplyFromJson(const nlohmann::json& j);

}  // namespace cudaburg
