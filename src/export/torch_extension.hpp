#pragma once
// torch/ (with --torch): a PyTorch extension registering each exported function as the operator
// cudaburg::<function> (its inputs as Tensors, its outputs allocated and returned), which checks
// the inputs' device, dtype, contiguity and shape, and a Python loader that builds the library
// with CMake and the operators with torch.utils.cpp_extension.
#include <string>

#include "src/export/export_plan.hpp"

namespace cudaburg {

std::string torchOperators(const ExportPlan& plan);  // torch/<library>_torch.cpp
std::string torchLoader(const ExportPlan& plan);     // torch/<library>.py

}  // namespace cudaburg
