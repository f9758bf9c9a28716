#pragma once
// The rates of the GPU the cost model estimates for (an H100/H200 by default), beside the target's
// limits and capabilities.
#include "src/target/gpu_target.hpp"

namespace cudaburg {

struct GpuModel {
  int multiprocessors = 132;
  double fp32Tflops = 60.0;  // sustained FFMA rate
  double mmaTflops = 600.0;  // sustained mma.sync rate, half and bfloat16 (tf32: half of it)
  // Sustained wgmma rate, half and bfloat16 (tf32: half of it): an H100 SXM's dense peak is 989,
  // which mma.sync's issue rate, about half of wgmma's, keeps it well below.
  double wgmmaTflops = 900.0;
  double sharedGBps = 29000.0;  // shared-memory reads: 128 bytes a clock on each multiprocessor
  double memoryGBps = 3300.0;   // device memory
  double l2GBps = 9000.0;       // what direct (unstaged) operand reads are served at, mostly
  double launchMicroseconds = 3.0;
  GpuTarget target;  // what candidates are compiled for, and its limits
};

}  // namespace cudaburg
