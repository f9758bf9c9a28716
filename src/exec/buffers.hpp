#pragma once
// The arrays of a kernel held in memory: one value a element, stored as double, row-major.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "src/loop/loop_tree.hpp"

namespace cudaburg {

struct Buffers {
  std::map<std::string, std::vector<double>> data;  // parameter name -> elements
};

// Every parameter allocated and zero.
Buffers allocateBuffers(const Kernel& kernel);
// Every parameter filled with reproducible random values: floats in [-1, 1) (rounded to the
// element type, and for tf32 to TF32, so that a read yields the value as stored), ints in
// [-8, 8]. Outputs are filled too, so a kernel that fails to write an element is caught by a
// comparison.
Buffers fillRandom(const Kernel& kernel, uint64_t seed);

}  // namespace cudaburg
