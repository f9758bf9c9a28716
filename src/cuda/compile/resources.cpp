#include "src/cuda/compile/resources.hpp"

#include <regex>

#include "src/target/gpu_target.hpp"

namespace cudaburg {

KernelResources parsePtxasReport(const std::string& log, const std::string& entry) {
  KernelResources r;
  // The report of one entry runs from its "Compiling entry function" line to the next one.
  static const std::regex start(R"(Compiling entry function '([^']+)')");
  size_t begin = std::string::npos, end = log.size();
  for (auto it = std::sregex_iterator(log.begin(), log.end(), start); it != std::sregex_iterator(); ++it) {
    size_t at = static_cast<size_t>(it->position());
    if (begin != std::string::npos) {
      end = at;
      break;
    }
    if (entry.empty() || (*it)[1] == entry) begin = at;
  }
  if (begin == std::string::npos) return r;
  std::string section = log.substr(begin, end - begin);
  static const std::regex item(
      R"((?:Used (\d+) registers)|(?:used (\d+) barriers)|(?:(\d+) bytes (stack frame|spill stores|spill loads|smem|lmem|cmem\[\d+\])))");
  for (auto it = std::sregex_iterator(section.begin(), section.end(), item); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    if (m[1].matched) {
      r.registers = std::stoi(m[1]);
      r.known = true;
    } else if (m[2].matched) {
      r.barriers = std::stoi(m[2]);
    } else {
      int64_t n = std::stoll(m[3]);
      std::string what = m[4];
      if (what == "stack frame")
        r.stackFrameBytes = n;
      else if (what == "spill stores")
        r.spillStoreBytes = n;
      else if (what == "spill loads")
        r.spillLoadBytes = n;
      else if (what == "smem")
        r.sharedBytes = n;
      else if (what == "lmem")
        r.stackFrameBytes = std::max(r.stackFrameBytes, n);
      else
        r.constantBytes += n;
    }
  }
  return r;
}

LaunchLimits LaunchLimits::forArchitecture(const std::string& arch) {
  GpuTarget target = GpuTarget::forArchitecture(arch);
  return {target.registersPerBlock, target.sharedPerBlock, target.maxThreadsPerBlock};
}

std::string launchRefusal(const KernelResources& resources, int64_t threads, int64_t dynamicSharedBytes,
                          bool allowSpills, const LaunchLimits& limits) {
  if (threads > limits.threadsPerBlock)
    return std::to_string(threads) + " threads a block (at most " + std::to_string(limits.threadsPerBlock) + ")";
  int64_t registers = int64_t{resources.registers} * threads;
  if (registers > limits.registersPerBlock)
    return std::to_string(resources.registers) + " registers x " + std::to_string(threads) +
           " threads = " + std::to_string(registers) + " registers a block (at most " +
           std::to_string(limits.registersPerBlock) + ")";
  int64_t shared = resources.sharedBytes + dynamicSharedBytes;
  if (shared > limits.sharedBytesPerBlock)
    return std::to_string(shared) + " bytes of shared memory a block (at most " +
           std::to_string(limits.sharedBytesPerBlock) + ")";
  if (resources.spills() && !allowSpills)
    return "it spills registers (" + std::to_string(resources.spillStoreBytes) + " bytes stored, " +
           std::to_string(resources.spillLoadBytes) + " bytes loaded) and spills were not asked for";
  return "";
}

}  // namespace cudaburg
