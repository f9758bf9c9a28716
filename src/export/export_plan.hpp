#pragma once
// What an export writes, decided before anything is written: one function per kernel name, each
// with the tuned kernels of its problems (one a size set), and the library they make.
//
// A function of one size set takes the nest's arrays and a stream. A function of several takes,
// after the arrays, the sizes the problems named with -D (in the order the .loop declares them,
// as int64_t), and launches the kernel tuned for those values; other values are refused.
#include <optional>
#include <string>
#include <vector>

#include "src/export/tuned_kernel.hpp"

namespace cudaburg {

struct ExportedFunction {
  std::string name;                   // the kernel's name: the C function's
  std::vector<Array> arrays;          // its arguments, in the .loop's order
  std::vector<std::string> sizeArgs;  // the sizes it takes (empty: one size set)
  std::vector<TunedKernel> kernels;   // one a size set, in the order given
  std::string loopFile;
};

struct ExportPlan {
  std::string library;  // the CMake package and static library
  std::vector<ExportedFunction> functions;
  std::string arch;          // what every kernel is compiled for: "sm_90" or "sm_90a"
  int major = 0, minor = 0;  // the compute capability every launch checks for
  bool usesTensorMaps = false;
};

// Groups the tuned kernels into functions (by kernel name: equal names need the same .loop file
// and different sizes), names each kernel's entry point and rebuilds it. `library` empty: the one
// function's name, or "cudaburg_kernels". Nullopt with a sentence in `error` otherwise.
std::optional<ExportPlan> planExport(std::vector<TunedKernel> kernels, const std::string& library, std::string& error);

// A size's value in a kernel (0 where it has none).
int64_t sizeValue(const Kernel& k, const std::string& name);

// "M=2048,N=2048,K=2048" of the sizes a function takes, or all of them when it takes none.
std::string sizeSetText(const ExportedFunction& f, const TunedKernel& k);

}  // namespace cudaburg
