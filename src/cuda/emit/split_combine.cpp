#include "src/cuda/emit/split_combine.hpp"

#include <algorithm>

namespace cudaburg::emit_internal {

void SplitCombine::addWorkspace(const KernelWorkspace& workspace) {
  for (const KernelWorkspace& w : workspaces_)
    if (w.name == workspace.name) return;
  workspaces_.push_back(workspace);
}

std::vector<std::string> SplitCombine::zeroedBeforeLaunch(const std::vector<std::string>& zeroFirst) const {
  std::vector<std::string> zeroed;
  for (const std::string& name : zeroFirst)
    if (std::none_of(workspaces_.begin(), workspaces_.end(),
                     [&](const KernelWorkspace& w) { return w.name == slicesOf(name); }))
      zeroed.push_back(name);
  return zeroed;
}

}  // namespace cudaburg::emit_internal
