#include "src/tune/gpu_list.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <charconv>

namespace cudaburg::tune {

namespace {

// "2 GPUs (0, 1)", "1 GPU (0)", "no GPU (why)".
std::string hostSays(const HostGpus& host) {
  if (host.count == 0) return "no GPU (" + host.reason + ")";
  std::string indices;
  for (int i = 0; i < host.count; ++i) indices += (i ? ", " : "") + std::to_string(i);
  return std::to_string(host.count) + (host.count == 1 ? " GPU (" : " GPUs (") + indices + ")";
}

}  // namespace

HostGpus countHostGpus() {
  // The driver's library is opened, not linked: cudaburg runs (without a GPU) where it is absent.
  HostGpus host;
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cuda) {
    host.reason = "no CUDA driver: libcuda.so.1 is not there";
    return host;
  }
  using Init = int (*)(unsigned);
  using Count = int (*)(int*);
  auto init = reinterpret_cast<Init>(dlsym(cuda, "cuInit"));
  auto count = reinterpret_cast<Count>(dlsym(cuda, "cuDeviceGetCount"));
  int n = 0;
  if (!init || !count)
    host.reason = "the CUDA driver lacks cuInit or cuDeviceGetCount";
  else if (int rc = init(0); rc != 0)
    host.reason = "the CUDA driver did not start (error " + std::to_string(rc) + ")";
  else if (int rc = count(&n); rc != 0)
    host.reason = "the CUDA driver cannot count its GPUs (error " + std::to_string(rc) + ")";
  else if (n == 0)
    host.reason = "the CUDA driver sees none";
  else
    host.count = n;
  dlclose(cuda);
  return host;
}

std::optional<std::vector<int>> parseGpuList(const std::string& text, const HostGpus& host, bool anyIndex,
                                             std::string& error) {
  const std::string form = "; give all, or GPU indices separated by commas (0,1)";
  std::vector<int> gpus;
  if (text == "all") {
    if (host.count == 0) {
      error = "--gpus all: this host has " + hostSays(host) +
              (anyIndex ? "; under --replay, name the lanes (--gpus 0,1)" : "");
      return std::nullopt;
    }
    for (int i = 0; i < host.count; ++i) gpus.push_back(i);
    return gpus;
  }
  size_t start = 0;
  for (;;) {
    size_t comma = text.find(',', start);
    std::string entry = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    int index = -1;
    auto [end, ec] = std::from_chars(entry.data(), entry.data() + entry.size(), index);
    if (entry.empty()) {
      error = "--gpus " + text + ": an empty entry" + form;
      return std::nullopt;
    }
    if (ec != std::errc() || end != entry.data() + entry.size() || index < 0) {
      error = "--gpus " + text + ": '" + entry + "' is not a GPU index" + form;
      return std::nullopt;
    }
    if (std::find(gpus.begin(), gpus.end(), index) != gpus.end()) {
      error = "--gpus " + text + ": GPU " + entry + " is named twice";
      return std::nullopt;
    }
    gpus.push_back(index);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (!anyIndex)
    for (int index : gpus)
      if (index >= host.count) {
        error = "--gpus " + text + ": this host has " + hostSays(host);
        return std::nullopt;
      }
  return gpus;
}

}  // namespace cudaburg::tune
