#include "src/target/gpu_target.hpp"

#include <regex>

namespace cudaburg {

GpuTarget GpuTarget::forArchitecture(const std::string& arch) {
  GpuTarget t;
  t.arch = arch;
  static const std::regex number(R"((?:sm|compute)_(\d+)(a?))");
  std::smatch m;
  if (!std::regex_search(arch, m, number)) {
    t.sm = 0;
    return t;
  }
  t.sm = std::stoi(m[1]);
  t.archSpecific = m[2].length() > 0;
  // The largest shared memory a block may opt into, per compute capability.
  int sm = t.sm;
  if (sm == 80 || sm == 87)
    t.sharedPerBlock = 163 * 1024;
  else if (sm == 86 || sm == 89 || sm >= 120)
    t.sharedPerBlock = 99 * 1024;
  else if (sm == 75)
    t.sharedPerBlock = 64 * 1024;
  else if (sm == 70 || sm == 72)
    t.sharedPerBlock = 96 * 1024;
  else if (sm != 0 && sm < 70)
    t.sharedPerBlock = 48 * 1024;
  // From sm_80 on, the runtime keeps 1 KB of a multiprocessor's shared memory for itself.
  t.sharedPerSm = sm >= 80 ? t.sharedPerBlock + 1024 : t.sharedPerBlock;
  return t;
}

}  // namespace cudaburg
