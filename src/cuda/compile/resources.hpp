#pragma once
// What a compiled kernel uses of the GPU, as ptxas reports it, and the launch limits that refuse a
// variant before it runs.
#include <cstdint>
#include <string>

namespace cudaburg {

struct KernelResources {
  bool known = false;           // ptxas reported the kernel
  int registers = 0;            // per thread
  int64_t sharedBytes = 0;      // static shared memory per block
  int64_t stackFrameBytes = 0;  // local memory per thread
  int64_t spillStoreBytes = 0;
  int64_t spillLoadBytes = 0;
  int64_t constantBytes = 0;
  int barriers = 0;
  int64_t instructions = 0;  // SASS instructions of the kernel's code (the CUBIN's; 0: unknown)

  bool spills() const { return spillStoreBytes > 0 || spillLoadBytes > 0; }
};

// Reads ptxas's verbose report (`--ptxas-options=-v`, in NVRTC's program log) for one entry.
KernelResources parsePtxasReport(const std::string& log, const std::string& entry);

// What launchRefusal checks, from the compile target's limits (src/target).
struct LaunchLimits {
  int64_t registersPerBlock = 0;
  int64_t sharedBytesPerBlock = 0;
  int64_t threadsPerBlock = 0;

  static LaunchLimits forArchitecture(const std::string& arch);  // "sm_90", "sm_75", ...
};

// The reason a kernel cannot be launched (or may not be, having spilled when spills were not
// asked for); empty when it can.
std::string launchRefusal(const KernelResources& resources, int64_t threads, int64_t dynamicSharedBytes,
                          bool allowSpills, const LaunchLimits& limits);

}  // namespace cudaburg
