#include "src/cuda/worker/device_checks.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "src/cuda/run/device_checks_source.hpp"
#include "src/cuda/run/inputs.hpp"

namespace cudaburg {
namespace {

unsigned blocksFor(size_t count, unsigned most) {
  size_t blocks = (count + kCheckThreads - 1) / kCheckThreads;
  return unsigned(std::clamp<size_t>(blocks, 1, most));
}

// One element of a device array of `type`, read back as a double.
double elementAt(CUdeviceptr data, ScalarType type, size_t index) {
  std::vector<uint8_t> bytes(size_t(scalarTypeBytes(type)));
  checkCuda(cuMemcpyDtoH(bytes.data(), data + index * bytes.size(), bytes.size()), "cuMemcpyDtoH");
  return decodeValues(bytes, type).front();
}

}  // namespace

DeviceChecks::DeviceChecks(const std::string& cubinPath)
    : path_(cubinPath),
      module_(cubinPath),
      fill_(module_.function(kFillEntry)),
      compare_(module_.function(kCompareEntry)),
      epilogue_(module_.function(kEpilogueEntry)) {}

void DeviceChecks::epilogue(CUstream stream, const EpiloguePass& p) const {
  CUdeviceptr product = p.product, out = p.out, scale = p.scale, shift = p.shift, shortcut = p.shortcut;
  int productType = int(p.productType), outType = int(p.outType), scaleType = int(p.scaleType),
      shiftType = int(p.shiftType), shortcutType = int(p.shortcutType), activation = int(p.activation);
  unsigned long long channelStride = p.channelStride, channels = p.channels, n = p.count;
  void* args[] = {&product,   &productType, &out,          &outType,       &scale,    &scaleType,  &shift,
                  &shiftType, &shortcut,    &shortcutType, &channelStride, &channels, &activation, &n};
  checkCuda(cuLaunchKernel(epilogue_, blocksFor(p.count, 65535), 1, 1, kCheckThreads, 1, 1, 0, stream, args, nullptr),
            "cuLaunchKernel (the epilogue pass)");
}

void DeviceChecks::fill(CUstream stream, CUdeviceptr data, ScalarType storage, ScalarType value, size_t count,
                        uint64_t seed) const {
  int storageCode = int(storage), valueCode = int(value);
  unsigned long long n = count, base = randomBase(seed);
  void* args[] = {&data, &storageCode, &valueCode, &n, &base};
  checkCuda(cuLaunchKernel(fill_, blocksFor(count, 65535), 1, 1, kCheckThreads, 1, 1, 0, stream, args, nullptr),
            "cuLaunchKernel (filling the inputs)");
}

DeviceChecks::Result DeviceChecks::compare(CUstream stream, CUdeviceptr out, ScalarType outType, CUdeviceptr ref,
                                           ScalarType refType, size_t count) const {
  unsigned blocks = blocksFor(count, kCompareBlocks);
  DeviceBuffer partials(blocks * sizeof(ComparisonPartial));
  int outCode = int(outType), refCode = int(refType);
  unsigned long long n = count;
  CUdeviceptr partialsPtr = partials.ptr();
  void* args[] = {&out, &outCode, &ref, &refCode, &n, &partialsPtr};
  checkCuda(cuLaunchKernel(compare_, blocks, 1, 1, kCheckThreads, 1, 1, 0, stream, args, nullptr),
            "cuLaunchKernel (comparing)");
  std::vector<ComparisonPartial> host(blocks);
  checkCuda(cuStreamSynchronize(stream), "comparing");
  checkCuda(cuMemcpyDtoH(host.data(), partials.ptr(), partials.bytes()), "cuMemcpyDtoH");
  Result result;
  for (const ComparisonPartial& p : host) {
    ComparisonSums s;
    s.diffNorm = p.diffNorm;
    s.refNorm = p.refNorm;
    s.worst = p.worst;
    s.worstIndex = size_t(p.worstIndex);
    s.nonFinite = size_t(p.nonFinite);
    s.firstNonFinite = size_t(p.firstNonFinite);
    s.refNonFinite = size_t(p.refNonFinite);
    result.sums.merge(s);
  }
  if (result.sums.worst >= 0) {
    result.worstOut = elementAt(out, outType, result.sums.worstIndex);
    result.worstRef = elementAt(ref, refType, result.sums.worstIndex);
  }
  return result;
}

}  // namespace cudaburg
