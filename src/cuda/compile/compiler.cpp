#include "src/cuda/compile/compiler.hpp"

#include <nvrtc.h>

#include <algorithm>
#include <cstdlib>
#include <future>
#include <memory>
#include <mutex>
#include <sstream>

#include "src/cuda/compile/cubin_text.hpp"

namespace cudaburg {
namespace {

struct NvrtcOutput {
  bool ok = false;
  std::string log;
  std::vector<char> cubin;
  std::string ptx;
};

// One NVRTC compilation of `source` for `target` ("sm_90" gives a CUBIN, "compute_90" PTX).
// NVRTC (12.9 on) keeps compiled programs in the driver's compute cache under the home folder,
// and a program it finds there comes back without ptxas's report of its resources, which every
// compilation here must have; the compile cache (compile_cache.hpp) keeps that report instead.
// So NVRTC's own cache is off, before the first compilation of the process.
void disableNvrtcCache() {
  static std::once_flag once;
  std::call_once(once, [] { setenv("CUDA_CACHE_DISABLE", "1", 1); });
}

NvrtcOutput runNvrtc(const std::string& source, const std::string& name, const CompileOptions& options,
                     const std::string& target) {
  disableNvrtcCache();
  NvrtcOutput out;
  nvrtcProgram program = nullptr;
  if (nvrtcCreateProgram(&program, source.c_str(), name.c_str(), 0, nullptr, nullptr) != NVRTC_SUCCESS) {
    out.log = "NVRTC could not create a program";
    return out;
  }
  std::unique_ptr<nvrtcProgram, void (*)(nvrtcProgram*)> guard(&program,
                                                               [](nvrtcProgram* p) { nvrtcDestroyProgram(p); });
  std::vector<std::string> opts = nvrtcOptions(options, target);
  std::vector<const char*> argv;
  for (const auto& o : opts) argv.push_back(o.c_str());
  nvrtcResult compiled = nvrtcCompileProgram(program, static_cast<int>(argv.size()), argv.data());
  size_t logSize = 0;
  if (nvrtcGetProgramLogSize(program, &logSize) == NVRTC_SUCCESS && logSize > 1) {
    out.log.resize(logSize);
    nvrtcGetProgramLog(program, out.log.data());
    out.log.resize(logSize - 1);
  }
  if (compiled != NVRTC_SUCCESS) {
    if (out.log.empty()) out.log = nvrtcGetErrorString(compiled);
    return out;
  }
  size_t size = 0;
  if (target.rfind("sm_", 0) == 0) {
    if (nvrtcGetCUBINSize(program, &size) == NVRTC_SUCCESS && size > 0) {
      out.cubin.resize(size);
      nvrtcGetCUBIN(program, out.cubin.data());
    }
  } else if (nvrtcGetPTXSize(program, &size) == NVRTC_SUCCESS && size > 1) {
    out.ptx.resize(size);
    nvrtcGetPTX(program, out.ptx.data());
    out.ptx.resize(size - 1);
  }
  out.ok = true;
  return out;
}

std::string firstError(const std::string& log) {
  std::istringstream lines(log);
  for (std::string l; std::getline(lines, l);)
    if (l.find("error") != std::string::npos) return l;
  return log.substr(0, log.find('\n'));
}

std::string virtualTarget(const std::string& arch) {
  return arch.rfind("sm_", 0) == 0 ? "compute_" + arch.substr(3) : arch;
}

}  // namespace

std::string nvrtcVersionString() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string whyNvrtcCannotBuild(const std::string& arch) {
  int count = 0;
  if (nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0) return "";  // nothing to tell by
  std::vector<int> supported(static_cast<size_t>(count));
  if (nvrtcGetSupportedArchs(supported.data()) != NVRTC_SUCCESS) return "";
  const std::string digits = arch.substr(3, arch.size() - 3 - (arch.back() == 'a' ? 1 : 0));
  const int wanted = std::atoi(digits.c_str());
  if (std::find(supported.begin(), supported.end(), wanted) != supported.end()) return "";
  std::string list;
  for (int s : supported) list += (list.empty() ? "sm_" : ", sm_") + std::to_string(s);
  return "NVRTC " + nvrtcVersionString() + " builds for " + list + ", not " + arch;
}

std::vector<std::string> nvrtcOptions(const CompileOptions& options, const std::string& target) {
  std::vector<std::string> o = {"--gpu-architecture=" + target, "-default-device", "--std=c++17", "--ptxas-options=-v",
                                "-I" CUDABURG_CUDA_INCLUDE_DIR};
  if (options.lineInfo) o.push_back("-lineinfo");
  if (options.maxRegisters > 0) o.push_back("--maxrregcount=" + std::to_string(options.maxRegisters));
  o.insert(o.end(), options.extraOptions.begin(), options.extraOptions.end());
  return o;
}

namespace {

// The target a kernel compiles for: the GPU's architecture, or the architecture-specific one
// ("sm_90a") the kernel requires, which only that GPU runs; or why it cannot run there.
std::string compileTarget(const CudaKernel& kernel, const std::string& arch, std::string& refusal) {
  if (kernel.requiredArch.empty()) return arch;
  std::string family = kernel.requiredArch.substr(0, kernel.requiredArch.size() - 1);  // "sm_90a" -> "sm_90"
  if (arch != family)
    refusal = "it uses " + kernel.requiredArch + "'s own instructions (wgmma), which only an " + family +
              " GPU runs, not " + arch;
  return kernel.requiredArch;
}

}  // namespace

CompileResult compile(const CudaKernel& kernel, const CompileOptions& options) {
  CompileResult result;
  const std::string target = compileTarget(kernel, options.arch, result.reason);
  if (!result.reason.empty()) return result;
  std::string optionText;
  for (const auto& o : nvrtcOptions(options, target)) optionText += o + "\n";
  if (options.keepPtx) optionText += "+ptx\n";
  CompileCache cache(options.cacheDir);
  std::string key = CompileCache::key(kernel.source, optionText, "nvrtc " + nvrtcVersionString());
  std::optional<CachedCompilation> cached;
  if (options.useCache) cached = cache.load(key);
  if (cached) {
    result.fromCache = true;
    result.compiled = true;
    result.cubin = std::move(cached->cubin);
    result.ptx = std::move(cached->ptx);
    result.log = std::move(cached->log);
  } else {
    std::string name = kernel.entry + ".cu";
    NvrtcOutput binary = runNvrtc(kernel.source, name, options, target);
    result.log = binary.log;
    if (!binary.ok) {
      result.errorLog = binary.log;
      result.reason = "compilation failed: " + firstError(binary.log);
      return result;
    }
    result.cubin = std::move(binary.cubin);
    if (options.keepPtx) {
      NvrtcOutput ptx = runNvrtc(kernel.source, name, options, virtualTarget(target));
      if (!ptx.ok) {
        result.errorLog = ptx.log;
        result.reason = "compilation to PTX failed: " + firstError(ptx.log);
        return result;
      }
      result.ptx = std::move(ptx.ptx);
    }
    result.compiled = true;
    if (options.useCache) cache.store(key, CachedCompilation{result.cubin, result.ptx, result.log});
  }
  result.resources = parsePtxasReport(result.log, kernel.entry);
  if (auto text = kernelTextBytes(result.cubin, kernel.entry))
    result.resources.instructions = *text / kSassInstructionBytes;
  if (!result.resources.known) {
    result.reason = "ptxas reported no resources for `" + kernel.entry + "`";
    return result;
  }
  result.reason = launchRefusal(result.resources, kernel.threads(), static_cast<int64_t>(kernel.dynamicSharedBytes),
                                options.allowSpills, LaunchLimits::forArchitecture(options.arch));
  result.ok = result.reason.empty();
  return result;
}

bool binaryRunsOn(const std::string& arch, const std::string& device) {
  auto version = [](const std::string& a) { return std::atoi(a.c_str() + std::min<size_t>(3, a.size())); };
  if (!arch.empty() && arch.back() == 'a') return arch.substr(0, arch.size() - 1) == device;
  return version(arch) / 10 == version(device) / 10 && version(arch) <= version(device);
}

std::future<CompileResult> compileAsync(ThreadPool& pool, CudaKernel kernel, CompileOptions options) {
  return pool.submit([kernel = std::move(kernel), options = std::move(options)] { return compile(kernel, options); });
}

std::vector<CompileResult> compileAll(const std::vector<CudaKernel>& kernels, const CompileOptions& options,
                                      ThreadPool* pool) {
  std::unique_ptr<ThreadPool> own;
  if (!pool) {
    own = std::make_unique<ThreadPool>();
    pool = own.get();
  }
  std::vector<std::future<CompileResult>> pending;
  for (const CudaKernel& k : kernels) pending.push_back(pool->submit([&k, &options] { return compile(k, options); }));
  std::vector<CompileResult> results;
  for (auto& f : pending) results.push_back(f.get());
  return results;
}

}  // namespace cudaburg
