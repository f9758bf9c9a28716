#pragma once
// The CUDA emitter: a mapped Kernel (see the model at the top of src/loop/loop_tree.hpp) becomes
// one readable CUDA C++ kernel specialised to its exact sizes, with its launch configuration.
// A kernel without any grid or block mapping gets the naive mapping: one thread per iteration of
// its outermost parallel loops (up to three), in 1-D, 2-D or 3-D blocks.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "src/cuda/emit/tensor_map.hpp"
#include "src/loop/loop_tree.hpp"

namespace cudaburg {

// Device memory a kernel takes after its arrays that is no array of the nest (a split
// reduction's workspace, Kernel::workspaceSplit): allocated zeroed, once, and left by every launch
// as the launch found it, so that the next one needs no zeroing either.
struct KernelWorkspace {
  std::string name;
  ScalarType type = ScalarType::Float;
  int64_t elements = 0;
};

struct CudaKernel {
  std::string source;  // the whole translation unit
  std::string entry;   // the extern "C" __global__ function to launch
  std::array<unsigned, 3> grid{1, 1, 1};
  std::array<unsigned, 3> block{1, 1, 1};
  // Shared memory a block uses in all (static and dynamic). When `dynamicSharedBytes` is not 0
  // the launch passes it as the dynamic size; above 48 KB the runner must first raise
  // cudaFuncAttributeMaxDynamicSharedMemorySize to it (`needsSharedMemoryAttribute`).
  size_t sharedBytes = 0;
  size_t dynamicSharedBytes = 0;
  bool needsSharedMemoryAttribute = false;
  std::string recipe;                          // the recipe it was made by (may be empty)
  std::vector<std::string> params;             // parameter names, in order: the kernel's global arrays
  std::vector<std::string> zeroFirst;          // outputs the runner sets to zero before the launch
  std::vector<KernelWorkspace> workspaces;     // its parameters after `params`, in order
  ScalarType elementType = ScalarType::Float;  // the type its floating-point arrays have here
  std::vector<ScalarType> paramTypes;          // the type each parameter has here, in order
  // The tensor maps it takes after its arrays (`const __grid_constant__ tensor_map <array>_map`),
  // in order: the launch encodes each for its array's address and passes it by value.
  std::vector<TensorMapParam> tensorMaps;
  // The least relative error verification allows it (0: the nest's rounding bound alone): a
  // Winograd kernel's transforms lose digits (WinogradTiling::errorBound).
  double minTolerance = 0;
  // The one architecture the kernel runs on where it uses that architecture's own features
  // ("sm_90a": wgmma), compiled for it; empty where any of the compile target's family does.
  std::string requiredArch;
  // The recipe asked ptxas to keep several blocks on a multiprocessor (`resident N`), holding each
  // thread to fewer registers: a few spills are then its choice, for the GPU to judge.
  bool limitsRegisters = false;

  unsigned threads() const { return block[0] * block[1] * block[2]; }
  unsigned long long blocks() const { return 1ull * grid[0] * grid[1] * grid[2]; }
};

struct EmitOptions {
  std::string recipe;  // printed at the top of the kernel
  std::string entry;   // the function's name; the kernel's name when empty
  // Every float and half array (parameters and buffers) gets this type instead.
  std::optional<ScalarType> elementType;
};

// A kernel, or the reason the tree cannot be emitted (it breaks the mapped-tree model).
struct EmitResult {
  std::optional<CudaKernel> kernel;
  common::Reason reason;
  bool ok() const { return kernel.has_value(); }
};

// A kernel the winograd step made is written as one fused Winograd kernel (emit_winograd.cpp), one
// the b2b step made as one kernel of two products (emit_back_to_back.cpp).
EmitResult emitKernel(const Kernel& kernel, const EmitOptions& options = {});

// The kernel with every floating-point array in double precision, named "<name>_reference":
// given the untransformed kernel, an exact FP64 reference of the loop nest (of two products back
// to back, the pair a thread a row: backToBackRowNest).
EmitResult emitReference(const Kernel& kernel);

}  // namespace cudaburg
