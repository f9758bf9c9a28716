#include "src/cuda/worker/worker_session.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "src/cuda/run/precision.hpp"
#include "src/cuda/run/reference_check.hpp"
#include "src/cuda/worker/device.hpp"
#include "src/cuda/worker/device_checks.hpp"
#include "src/cuda/worker/launch.hpp"
#include "src/cuda/worker/library_reference.hpp"
#include "src/cuda/worker/reference_library.hpp"
#include "src/cuda/worker/timing_events.hpp"

namespace cudaburg {
namespace {

// The arrays of one run on the device, with the host copies of the random inputs.
struct DeviceArrays {
  std::vector<ArraySpec> specs;
  std::vector<DeviceBuffer> buffers;

  size_t find(const std::string& name) const { return ReferenceArrays{specs, buffers}.find(name); }
};

DeviceArrays allocate(const std::vector<ArraySpec>& specs) {
  DeviceArrays arrays;
  arrays.specs = specs;
  for (const auto& s : specs) arrays.buffers.emplace_back(s.bytes());
  return arrays;
}

// Fresh random inputs for seed `seed`, written on the device: array i gets the values of its
// declared type (`values[i]`) stored in its own (the FP64 reference reads them as doubles).
void fillInputs(CUstream stream, const DeviceChecks& checks, DeviceArrays& arrays, const std::vector<ArraySpec>& values,
                uint64_t seed) {
  for (size_t i = 0; i < arrays.specs.size(); ++i)
    if (arrays.specs[i].init == ArrayInit::Random)
      checks.fill(stream, arrays.buffers[i].ptr(), arrays.specs[i].type, values[i].type,
                  size_t(arrays.specs[i].elements()), seed * 1000003 + i);
}

// Poisons or zeroes the outputs (`zeroOnly`: just the ones that must start at zero).
void initOutputs(CUstream stream, DeviceArrays& arrays, bool zeroOnly) {
  for (size_t i = 0; i < arrays.specs.size(); ++i) {
    const ArraySpec& s = arrays.specs[i];
    CUdeviceptr p = arrays.buffers[i].ptr();
    if (s.init == ArrayInit::Zero) {
      checkCuda(cuMemsetD8Async(p, 0, s.bytes(), stream), "cuMemsetD8Async");
    } else if (s.init == ArrayInit::Poison && !zeroOnly) {
      if (scalarTypeBytes(s.type) == 2)
        checkCuda(cuMemsetD16Async(p, kPoison16, s.bytes() / 2, stream), "cuMemsetD16");
      else
        checkCuda(cuMemsetD32Async(p, kPoison32, s.bytes() / 4, stream), "cuMemsetD32");
    }
  }
}

// Zeroes the workspaces, once, when they are allocated: every launch leaves them so. Says whether
// there are any.
bool zeroWorkspaces(CUstream stream, DeviceArrays& arrays) {
  bool any = false;
  for (size_t i = 0; i < arrays.specs.size(); ++i)
    if (arrays.specs[i].init == ArrayInit::Workspace) {
      checkCuda(cuMemsetD8Async(arrays.buffers[i].ptr(), 0, arrays.specs[i].bytes(), stream), "cuMemsetD8Async");
      any = true;
    }
  return any;
}

// Device memory for the elements of `a` held as `type` (a library's output in its own type).
DeviceBuffer bufferOf(const ArraySpec& a, ScalarType type) {
  return DeviceBuffer(size_t(a.elements()) * scalarTypeBytes(type));
}

void synchronize(CUstream stream, const char* what) { checkCuda(cuStreamSynchronize(stream), what); }

MeasureReply failed(const std::string& reason, bool fatal = false) {
  MeasureReply r;
  r.status = RunStatus::Failed;
  r.reason = reason;
  r.fatal = fatal;
  return r;
}

}  // namespace

WorkerSession::WorkerSession() {
  try {
    device_ = std::make_unique<DeviceContext>();
    flusher_ = std::make_unique<L2Flusher>(device_->info());
    libraries_ = std::make_unique<ReferenceLibraries>(*flusher_);
  } catch (const std::exception& e) {
    // "no CUDA device" as it stands; any other failure to open the GPU, with its reason.
    std::string what = e.what();
    unavailable_ = what.rfind("no CUDA device", 0) == 0 ? what : "no usable CUDA device (" + what + ")";
    libraries_.reset();
    flusher_.reset();
    device_.reset();
  }
}

WorkerSession::~WorkerSession() = default;

nlohmann::json WorkerSession::hello() const {
  if (!device_) return {{"ok", false}, {"reason", unavailable_}};
  const DeviceInfo& d = device_->info();
  return {{"ok", true},
          {"device", d.describe()},
          {"name", d.name},
          {"cc", std::to_string(d.major) + "." + std::to_string(d.minor)},
          {"multiprocessors", d.multiprocessors},
          {"l2_bytes", d.l2Bytes},
          {"driver", d.driver},
          {"conv_library", ReferenceLibraries::hasConv()}};
}

MeasureReply WorkerSession::notMeasured() const {
  MeasureReply r;
  r.status = RunStatus::NotMeasured;
  r.reason = unavailable_;
  return r;
}

const DeviceChecks& WorkerSession::checksFrom(const std::string& cubinPath) {
  if (cubinPath.empty()) throw std::runtime_error("the request names no checking kernels");
  if (!checks_ || checks_->path() != cubinPath) {
    checks_.reset();
    checks_ = std::make_unique<DeviceChecks>(cubinPath);
  }
  return *checks_;
}

MeasureReply WorkerSession::measure(const MeasureRequest& request) {
  if (!device_) return notMeasured();
  CUstream stream = device_->stream();
  MeasureReply reply;
  std::string stage = "preparing the arrays";
  try {
    DeviceArrays arrays = allocate(request.arrays);
    bool workspace = zeroWorkspaces(stream, arrays);
    const DeviceChecks& checks = checksFrom(request.checksCubin);
    fillInputs(stream, checks, arrays, request.arrays, request.seed);
    stage = "loading the kernel";
    LoadedKernel variant(request.variant);

    if (request.verify) {
      stage = "running the kernel";
      initOutputs(stream, arrays, false);
      variant.launch(stream, arrays.buffers);
      if (workspace) {  // a launch must leave its workspace as it found it: the next one's results are checked
        initOutputs(stream, arrays, false);
        variant.launch(stream, arrays.buffers);
      }
      synchronize(stream, "running the kernel");

      stage = "computing the exact outputs";
      // The FP64 outputs every float kernel is held to, on the same inputs held as doubles: cuBLAS
      // DGEMM for a matrix product, else the nest itself compiled in FP64.
      const ReferenceSpec& ref = request.reference;
      std::vector<ArraySpec> exactSpecs = request.arrays;
      // A product with an epilogue comes with its FP64 nest: DGEMM computes the product alone.
      bool byDgemm = ref.kind == ReferencePlan::Kind::Gemm && ref.exact.entry.empty();
      if (byDgemm) {
        for (ArraySpec& a : exactSpecs)
          if (a.type != ScalarType::Int) a.type = ScalarType::Double;
      } else {
        // The nest's arrays come first; a variant's workspaces after them keep their type.
        if (ref.exactTypes.empty() || ref.exactTypes.size() > request.arrays.size())
          throw std::runtime_error("the reference kernel's arrays differ from the variant's");
        for (size_t i = 0; i < ref.exactTypes.size(); ++i) exactSpecs[i].type = ref.exactTypes[i];
      }
      DeviceArrays exact = allocate(exactSpecs);
      fillInputs(stream, checks, exact, request.arrays, request.seed);
      initOutputs(stream, exact, false);
      if (byDgemm) {
        libraries_->gemmDouble(stream, ref.gemm, exact.buffers[exact.find(ref.gemm.a)].ptr(),
                               exact.buffers[exact.find(ref.gemm.b)].ptr(),
                               exact.buffers[exact.find(ref.gemm.c)].ptr());
      } else {
        LoadedKernel nest(ref.exact);
        nest.launch(stream, exact.buffers);
      }
      synchronize(stream, "computing the exact outputs");

      // One output against its exact values.
      auto compare = [&](size_t index, CUdeviceptr values, ScalarType type, double bound) {
        const ArraySpec& s = exactSpecs[index];
        DeviceChecks::Result r =
            checks.compare(stream, values, type, exact.buffers[index].ptr(), s.type, size_t(s.elements()));
        return judge(s.name, s.extents, size_t(s.elements()), r.sums, r.worstOut, r.worstRef, bound);
      };

      // The library's own error on the same inputs sets the bound (precision.hpp); a Winograd
      // kernel's, cuDNN's Winograd algorithms' where it has one for the shape, else its own bound.
      double bound = request.tolerance;
      if (ref.kind == ReferencePlan::Kind::Gemm || ref.kind == ReferencePlan::Kind::Conv) {
        stage = "running the reference library";
        ReferenceArrays onDevice{arrays.specs, arrays.buffers};
        size_t out = arrays.find(referenceOutput(ref));
        // cuDNN writes a convolution of 16-bit operands in their type: its error counts that rounding.
        ScalarType written = referenceOutputType(ref, onDevice);
        DeviceBuffer libraryResult = bufferOf(arrays.specs[out], written);
        DeviceBuffer scratch;
        bool ran = true;
        try {
          runLibraryReference(*libraries_, checks, stream, ref, onDevice, libraryResult.ptr(), scratch,
                              request.winograd);
        } catch (const CudaError&) {
          throw;
        } catch (const std::runtime_error&) {
          if (!request.winograd || ref.kind != ReferencePlan::Kind::Conv) throw;
          ran = false;  // cuDNN has no Winograd algorithm for this shape
        }
        synchronize(stream, "running the reference library");
        if (ran) {
          Comparison library = compare(out, libraryResult.ptr(), written, INFINITY);
          if (!std::isfinite(library.relativeError))
            throw std::runtime_error("the reference library's output is not finite: " + library.reason);
          reply.libraryError = library.relativeError;
          bound = contractBound(library.relativeError, arrays.specs[out].type);
        }
      }

      stage = "comparing";
      reply.error = 0;
      for (size_t i = 0; i < arrays.specs.size(); ++i) {
        const ArraySpec& s = arrays.specs[i];
        if (!s.output || s.init == ArrayInit::Workspace) continue;
        Comparison c = compare(i, arrays.buffers[i].ptr(), s.type, bound);
        reply.error = std::max(reply.error, c.relativeError);
        if (!c.passed) {
          reply.status = RunStatus::Wrong;
          reply.reason = c.reason;
          return reply;
        }
      }
    }

    if (request.time) {
      stage = "timing the kernel";
      auto run = [&] {
        initOutputs(stream, arrays, true);
        variant.launch(stream, arrays.buffers);
      };
      TimedRuns timed = timeRuns(stream, run, request.warmupRuns, request.runs, *flusher_);
      reply.ms = timed.medianMs;
      reply.runs = timed.runs;
    }
    reply.status = RunStatus::Ok;
    return reply;
  } catch (const CudaError& e) {
    return failed(stage + ": " + e.what(), e.sticky());
  } catch (const std::exception& e) {
    return failed(stage + ": " + e.what());
  }
}

MeasureReply WorkerSession::timeReference(const MeasureRequest& request) {
  if (!device_) return notMeasured();
  CUstream stream = device_->stream();
  const ReferenceSpec& ref = request.reference;
  try {
    if (ref.kind == ReferencePlan::Kind::Exact) return failed("no reference library for this loop nest");
    DeviceArrays arrays = allocate(request.arrays);
    const DeviceChecks& checks = checksFrom(request.checksCubin);
    fillInputs(stream, checks, arrays, request.arrays, request.seed);
    std::string algorithm;
    ReferenceArrays onDevice{arrays.specs, arrays.buffers};
    size_t outIndex = arrays.find(referenceOutput(ref));
    CUdeviceptr out = arrays.buffers[outIndex].ptr();
    DeviceBuffer narrowOutput;  // a convolution's output in its 16-bit operands' type
    ScalarType written = referenceOutputType(ref, onDevice);
    if (written != arrays.specs[outIndex].type) {
      narrowOutput = bufferOf(arrays.specs[outIndex], written);
      out = narrowOutput.ptr();
    }
    DeviceBuffer scratch;  // the product before an element-wise epilogue, when its type differs
    // The library call and its epilogue pass, timed together.
    auto run = [&] { algorithm = runLibraryReference(*libraries_, checks, stream, ref, onDevice, out, scratch); };
    // Once before timing: the library plans its algorithm (cuBLASLt's and cuDNN's candidates are
    // timed) on the first call.
    run();
    synchronize(stream, "running the reference library");
    TimedRuns timed = timeRuns(stream, run, request.warmupRuns, request.runs, *flusher_);
    MeasureReply reply;
    reply.status = RunStatus::Ok;
    reply.ms = timed.medianMs;
    reply.runs = timed.runs;
    reply.algorithm = algorithm;
    return reply;
  } catch (const CudaError& e) {
    return failed(std::string("timing the reference library: ") + e.what(), e.sticky());
  } catch (const std::exception& e) {
    return failed(std::string("timing the reference library: ") + e.what());
  }
}

}  // namespace cudaburg
