#pragma once
// The runner: verifies and times compiled kernels on the GPU for the search. Kernels run in a
// worker process (cudaburg-worker) so that a fault or a hang in one variant marks that variant
// failed and a fresh worker takes over; the caller never crashes. Without a GPU every call
// returns "not measured" with the reason, never a number.
//
// Verification: fresh random inputs (a new seed each call), poisoned outputs, and the relative
// error ||out - ref|| / ||ref|| against the exact FP64 outputs (cuBLAS DGEMM for matrix products,
// the nest compiled in FP64 otherwise), held to the precision contract (precision.hpp): at most
// twice the error of cuBLAS (matrix products) or cuDNN (convolutions) on the same inputs, or the
// bound of reference_check.hpp where no library computes the nest. Inputs are made and outputs
// compared on the GPU (device_checks_source.hpp), so that no array crosses to the host. Timing:
// CUDA events, the median of repeated runs, each after an L2 flush.
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "src/analysis/reference_shape.hpp"
#include "src/cuda/emit/emitter.hpp"
#include "src/cuda/run/precision.hpp"
#include "src/cuda/run/run_status.hpp"
#include "src/cuda/run/timing.hpp"
#include "src/loop/loop_tree.hpp"

namespace cudaburg {

struct CompileResult;
struct MeasureReply;
class WorkerProcess;

struct MeasureOptions {
  bool verify = true;
  bool time = true;
  uint64_t seed = 0;                        // 0: a fresh seed each call
  double tolerance = 0;                     // 0: the contract (precision.hpp), else this bound against the FP64 nest
  Precision precision = Precision::Strict;  // which library call's error bounds the kernel's
  int warmupRuns = 3;
  RunCountPolicy runs;                        // at least 20 runs and 100 ms of kernel time, at most 1000 and 2 s
  std::chrono::milliseconds deadline{30000};  // for one variant; then the worker is killed
};

struct RunResult {
  RunStatus status = RunStatus::NotMeasured;
  common::Reason reason;     // why it is not ok (empty when ok)
  std::string reference;     // what it was checked against: "cuBLAS SGEMM 512x512x512"
  double error = -1;         // relative error against the exact FP64 outputs; -1 when not verified
  double libraryError = -1;  // the library's own on the same inputs; -1 when no library was run
  double ms = -1;            // median time; -1 when not timed
  double tflops = -1;
  double gbps = -1;
  int runs = 0;

  bool ok() const { return status == RunStatus::Ok; }
  bool timed() const { return ok() && ms >= 0; }
};

struct ReferenceTiming {
  RunStatus status = RunStatus::NotMeasured;
  std::string library;  // "cuBLAS SGEMM", "cuDNN convolution"
  common::Reason reason;
  double ms = -1;
  double tflops = -1;
  double gbps = -1;

  bool ok() const { return status == RunStatus::Ok; }
};

struct RunnerOptions {
  // The worker program; empty: $CUDABURG_WORKER, else cudaburg-worker beside the running program,
  // else the one this build made.
  std::string workerPath;
  std::chrono::milliseconds startDeadline{60000};  // for a new worker to open the GPU
};

// One thread at a time: the runner drives one worker, one request after the other.
class Runner {
 public:
  explicit Runner(RunnerOptions options = {});
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  // Whether kernels can be run here (starts the worker once to find out).
  bool available();
  // The GPU ("NVIDIA H100 80GB HBM3 (sm_90)"), or why there is none ("no CUDA device: ...").
  std::string device();
  // The GPU's architecture ("sm_90"), to compile for; empty without a GPU.
  std::string arch();
  // The CUDA version the driver supports ("13.0"); empty without a GPU.
  std::string driver();

  // Verifies, then times, one variant of `kernel` (the untransformed nest, which defines the
  // reference and the work done); `variant` is the emitted kernel and `binary` its compilation.
  RunResult measure(const Kernel& kernel, const CudaKernel& variant, const CompileResult& binary,
                    const MeasureOptions& options = {});
  // The same with the CUBIN image given as bytes.
  RunResult measureCubin(const Kernel& kernel, const CudaKernel& variant, const std::string& cubin,
                         const MeasureOptions& options = {});
  // Times the library that the nest's reference is (cuBLAS, cuDNN; in options.precision's math),
  // for the ratio in reports.
  ReferenceTiming reference(const Kernel& kernel, const MeasureOptions& options = {});

  // Which library's error bounds `kernel`'s variants (computed in its declared types) on this
  // runner under `precision`.
  ReferencePlan referencePlan(const Kernel& kernel, Precision precision = Precision::Strict);

 private:
  struct CompiledReference;
  bool ensureWorker();
  // The FP64 reference of `kernel`, emitted and compiled once (or why it could not be).
  const CompiledReference& exactReference(const Kernel& kernel);
  // The kernels that make inputs and compare outputs on the GPU, compiled once.
  const CompiledReference& checkingKernels();
  // Compiles slot.kernel for this runner's GPU into slot.cubin, or says in slot.error why not.
  void compileInto(CompiledReference& slot, const std::string& what);
  // Sends one request to the worker and reads its reply. When none comes (a hang, a crash, a
  // malformed line) the reply says why, with status "timeout" or "failed"; a worker that is lost
  // or whose context is gone is stopped so that the next request starts a fresh one.
  MeasureReply ask(const std::string& request, std::chrono::milliseconds deadline);

  RunnerOptions options_;
  std::unique_ptr<WorkerProcess> worker_;
  bool probed_ = false;
  bool available_ = false;
  bool convLibrary_ = false;
  std::string device_;  // or the reason there is none
  std::string arch_;    // "sm_90": what references are compiled for
  std::string driver_;
  std::map<std::string, std::unique_ptr<CompiledReference>> references_;  // by the reference's source
  std::unique_ptr<CompiledReference> checks_;
};

// The file a CUBIN image is written to for the worker; removed with the object.
class TemporaryFile {
 public:
  TemporaryFile(const std::string& contents, const std::string& suffix);
  ~TemporaryFile();
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  const std::string& path() const { return path_; }  // empty when it could not be written

 private:
  std::string path_;
};

}  // namespace cudaburg
