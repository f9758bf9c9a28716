#pragma once
// Compiles emitted kernels with NVRTC, in process and without a GPU: a CUBIN for the target
// architecture (no driver JIT at load time), the PTX when asked, and ptxas's report of the
// resources each kernel uses. A kernel over a launch limit is refused here, before it runs.
// Results are kept in a disk cache; many kernels compile at once on a thread pool.
#include <future>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "src/cuda/compile/cache.hpp"
#include "src/cuda/compile/resources.hpp"
#include "src/cuda/compile/thread_pool.hpp"
#include "src/cuda/emit/emitter.hpp"

namespace cudaburg {

struct CompileOptions {
  std::string arch = "sm_90";  // the GPU's architecture, "sm_XY"
  bool keepPtx = false;        // also produce the PTX (one more NVRTC run)
  bool lineInfo = true;
  bool allowSpills = false;  // set when the recipe asks for a register limit that makes it spill
  int maxRegisters = 0;      // --maxrregcount when above 0
  std::vector<std::string> extraOptions;
  bool useCache = true;
  std::string cacheDir = CompileCache::defaultDirectory();
};

struct CompileResult {
  bool ok = false;        // compiled and within the launch limits: ready to run
  bool compiled = false;  // NVRTC succeeded (it may still be refused)
  std::string errorLog;   // NVRTC's log when compilation failed
  std::string log;        // the whole program log (ptxas's report included)
  std::vector<char> cubin;
  std::string ptx;
  KernelResources resources;
  common::Reason reason;  // why it may not run: the first compile error, or the launch limit it breaks
  bool fromCache = false;
};

// "13.0": NVRTC's version, part of every cache key.
std::string nvrtcVersionString();

// Why NVRTC cannot build for `arch` ("sm_NN" or "sm_NNa"): "NVRTC 13.0 builds for sm_75, sm_80,
// ..., not sm_60"; "" when it can.
std::string whyNvrtcCannotBuild(const std::string& arch);

// The NVRTC options a compilation for `options` uses (the target given as --gpu-architecture).
std::vector<std::string> nvrtcOptions(const CompileOptions& options, const std::string& target);

CompileResult compile(const CudaKernel& kernel, const CompileOptions& options);

// Whether a cubin built for `arch` ("sm_NN" or "sm_NNa") runs on a GPU of `device` ("sm_NN"): of
// the same major version and no newer minor; an architecture-specific one only on that very GPU.
bool binaryRunsOn(const std::string& arch, const std::string& device);

// Compiles on `pool`; the kernel and the options are copied, so the caller need not keep them.
std::future<CompileResult> compileAsync(ThreadPool& pool, CudaKernel kernel, CompileOptions options);

// Compiles every kernel on `pool` (a pool of one thread per hardware thread when null); the
// results are in the order of `kernels`.
std::vector<CompileResult> compileAll(const std::vector<CudaKernel>& kernels, const CompileOptions& options,
                                      ThreadPool* pool = nullptr);

}  // namespace cudaburg
