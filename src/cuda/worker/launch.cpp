#include "src/cuda/worker/launch.hpp"

#include <fstream>
#include <iterator>

namespace cudaburg {

LoadedKernel::LoadedKernel(const LaunchSpec& spec) : spec_(spec) {
  std::ifstream in(spec.cubinPath, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read the kernel binary " + spec.cubinPath);
  std::vector<char> image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  checkCuda(cuModuleLoadData(&module_, image.data()), "cuModuleLoadData");
  checkCuda(cuModuleGetFunction(&function_, module_, spec.entry.c_str()), ("cuModuleGetFunction " + spec.entry).c_str());
  if (spec.raiseSharedLimit) {
    checkCuda(cuFuncSetAttribute(function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                 int(spec.dynamicSharedBytes)),
              "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
  }
}

LoadedKernel::~LoadedKernel() {
  if (module_) cuModuleUnload(module_);
}

void LoadedKernel::launch(CUstream stream, std::vector<DeviceBuffer>& arguments) const {
  std::vector<void*> slots;
  for (auto& buffer : arguments) slots.push_back(buffer.slot());
  checkCuda(cuLaunchKernel(function_, spec_.grid[0], spec_.grid[1], spec_.grid[2], spec_.block[0], spec_.block[1],
                           spec_.block[2], unsigned(spec_.dynamicSharedBytes), stream, slots.data(), nullptr),
            "cuLaunchKernel");
}

}  // namespace cudaburg
