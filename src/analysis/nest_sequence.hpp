#pragma once
// A kernel whose body is several parallel nests in a row (a producer, then its consumer) as one
// kernel a nest: each reads what the nests before it wrote, so launching them in order computes
// what the body does. Each is then searched on its own, as any one-nest kernel is.
#include <string>
#include <vector>

#include "src/loop/loop_tree.hpp"

namespace cudaburg {

// The nests of `kernel` as kernels named `<name>_nest<i>` (from 1), each taking the arrays its
// nest reads or writes, in the kernel's parameter order: those it only reads are its inputs
// (`const`), even where an earlier nest writes them. Empty, with `why` set, when the body is a
// single nest or holds a top-level statement that is not a parallel nest ("the statement of the
// kernel's body at line 5 is not a parallel nest").
std::vector<Kernel> splitNests(const Kernel& kernel, std::string& why);

}  // namespace cudaburg
