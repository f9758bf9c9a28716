#include "src/cuda/worker/launch.hpp"

#include <fstream>
#include <iterator>

#include "src/cuda/worker/tensor_map_encode.hpp"

namespace cudaburg {

LoadedModule::LoadedModule(const std::string& cubinPath) {
  std::ifstream in(cubinPath, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read the kernel binary " + cubinPath);
  std::vector<char> image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  checkCuda(cuModuleLoadData(&module_, image.data()), "cuModuleLoadData");
}

LoadedModule::~LoadedModule() {
  if (module_) cuModuleUnload(module_);
}

CUfunction LoadedModule::function(const std::string& entry) const {
  CUfunction f = nullptr;
  checkCuda(cuModuleGetFunction(&f, module_, entry.c_str()), ("cuModuleGetFunction " + entry).c_str());
  return f;
}

LoadedKernel::LoadedKernel(const LaunchSpec& spec) : spec_(spec), module_(spec.cubinPath) {
  function_ = module_.function(spec.entry);
  if (spec.raiseSharedLimit) {
    checkCuda(
        cuFuncSetAttribute(function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(spec.dynamicSharedBytes)),
        "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
  }
}

void LoadedKernel::launch(CUstream stream, std::vector<DeviceBuffer>& arguments) const {
  std::vector<void*> slots;
  for (auto& buffer : arguments) slots.push_back(buffer.slot());
  maps_.resize(spec_.tensorMaps.size());
  mappedArrays_.resize(spec_.tensorMaps.size(), 0);
  for (size_t m = 0; m < spec_.tensorMaps.size(); ++m) {
    const TensorMapParam& map = spec_.tensorMaps[m];
    if (map.arrayParam >= arguments.size())
      throw std::runtime_error("tensor map " + map.name + " names parameter " + std::to_string(map.arrayParam) +
                               " of " + std::to_string(arguments.size()));
    CUdeviceptr array = arguments[map.arrayParam].ptr();
    if (mappedArrays_[m] != array) maps_[m] = encodeTensorMap(map, array), mappedArrays_[m] = array;
    slots.push_back(&maps_[m]);  // the map by value: cuLaunchKernel copies the 128 bytes
  }
  checkCuda(cuLaunchKernel(function_, spec_.grid[0], spec_.grid[1], spec_.grid[2], spec_.block[0], spec_.block[1],
                           spec_.block[2], unsigned(spec_.dynamicSharedBytes), stream, slots.data(), nullptr),
            "cuLaunchKernel");
}

}  // namespace cudaburg
