#pragma once
// A split reduction's parts combined in a workspace (Kernel::workspaceSplit;
// emit_split_combine.cpp): which of the combine's passes is being written, and the workspaces
// the kernel takes after its arrays.
#include <string>
#include <vector>

#include "src/cuda/emit/emitter.hpp"

namespace cudaburg::emit_internal {

class SplitCombine {
 public:
  // What the split's atomic accumulations write: the atomic add, this part's sums into the
  // workspace, or the sum of all parts into the outputs.
  enum class Phase { Atomic, Store, Sum };
  Phase phase() const { return phase_; }
  void enter(Phase phase) { phase_ = phase; }

  // The workspace of `array`'s parts' sums.
  static std::string slicesOf(const std::string& array) { return array + "_parts"; }
  // A workspace, once however many accumulations write it.
  void addWorkspace(const KernelWorkspace& workspace);
  const std::vector<KernelWorkspace>& workspaces() const { return workspaces_; }
  // The outputs the launch must zero: `zeroFirst` but those the combine writes whole.
  std::vector<std::string> zeroedBeforeLaunch(const std::vector<std::string>& zeroFirst) const;

 private:
  Phase phase_ = Phase::Atomic;
  std::vector<KernelWorkspace> workspaces_;  // the kernel's parameters after its arrays
};

}  // namespace cudaburg::emit_internal
