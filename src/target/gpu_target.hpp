#pragma once
// The GPU a kernel is built for: its compute capability and the limits and instruction sets that
// come with it, in one place for every layer that checks or estimates against them.
#include <cstdint>
#include <string>

namespace cudaburg {

// The most any GPU so far gives one block or one multiprocessor (sm_80 and later, shared memory
// opted into): what a tiling is checked against before the device is known. Whether a kernel fits
// the device it runs on is checked again when it is compiled (GpuTarget::forArchitecture).
inline constexpr int64_t kMaxSharedBytesPerBlock = 227 * 1024;
inline constexpr int64_t kMaxRegistersPerSm = 64 * 1024;
inline constexpr int64_t kMaxRegistersPerThread = 255;
inline constexpr int64_t kMaxThreadsPerBlock = 1024;
inline constexpr int64_t kMaxThreadsPerSm = 2048;

struct GpuTarget {
  std::string arch = "sm_90";  // what kernels are compiled for: "sm_90", "sm_90a", "sm_86", ...
  int sm = 90;                 // the compute capability as a number: 90 for sm_90 and sm_90a
  bool archSpecific = false;   // the "a" form: the architecture's own features, no other GPU's

  int64_t maxThreadsPerBlock = kMaxThreadsPerBlock;
  int64_t maxThreadsPerSm = kMaxThreadsPerSm;
  int64_t registersPerSm = kMaxRegistersPerSm;
  int64_t registersPerBlock = kMaxRegistersPerSm;
  int64_t maxRegistersPerThread = kMaxRegistersPerThread;
  int64_t sharedPerSm = 228 * 1024;
  int64_t sharedPerBlock = kMaxSharedBytesPerBlock;  // with the opt-in attribute
  int64_t maxBlocksPerSm = 32;

  // Warp-level tensor-core products (mma.sync) on half, bfloat16 and tf32: sm_80 and later.
  bool hasMmaSync() const { return sm >= 80; }
  // Hopper's warpgroup products (wgmma) and its Tensor Memory Accelerator. Candidates that use them
  // are built for an sm_90 target and compiled for sm_90a; a target already of the "a" form is
  // another family's kernels, so neither is offered there.
  bool hasWgmma() const { return sm == 90 && !archSpecific; }
  bool hasTma() const { return hasWgmma(); }

  // The target for "sm_XY", "sm_XYa" or "compute_XY"; anything else keeps Hopper's figures.
  static GpuTarget forArchitecture(const std::string& arch);
};

}  // namespace cudaburg
