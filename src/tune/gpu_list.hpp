#pragma once
// `--gpus all|0,1,...`: the GPUs of the host a tuning run spreads its problems over, one lane each.
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace cudaburg::tune {

// The GPUs this host's CUDA driver sees (through CUDA_VISIBLE_DEVICES, as every process of the
// run sees them), or none and why.
struct HostGpus {
  int count = 0;
  common::Reason reason;  // when count is 0
};
HostGpus countHostGpus();

// The GPU indices `text` names ("all": every GPU of `host`), each once, in the order given;
// nullopt with a sentence in `error` on a mistake. `anyIndex` (a replay: nothing runs on a GPU)
// takes indices the host lacks.
std::optional<std::vector<int>> parseGpuList(const std::string& text, const HostGpus& host, bool anyIndex,
                                             std::string& error);

}  // namespace cudaburg::tune
