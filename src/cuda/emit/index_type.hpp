#pragma once
// The C++ type of loop indices and thread coordinates in an emitted kernel: `int` where the
// loop tree's bounds prove that every index, subscript and flat array offset (and every partial
// sum on the way to one) fits in 32 bits with room to spare; `long long` otherwise.
#include "src/loop/loop_tree.hpp"

namespace cudaburg {

// "int" or "long long".
const char* indexTypeFor(const Kernel& kernel);

}  // namespace cudaburg
