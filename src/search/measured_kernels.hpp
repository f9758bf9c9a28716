#pragma once
// What the search measured, by recipe line, as the labeling with measured times looks each kernel
// up. A kernel's recipe line takes longer to print than its fragment took to build, and most
// kernels were not measured: their steps tell so without it. Each measured line, parsed, leaves a
// signature of its steps (all of each step but the names it gives its loops, which a line leaves
// out where the naming rule gives them); a kernel whose steps do not match one has no line there.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_set>

#include "src/search/fragment.hpp"

namespace cudaburg {

class MeasuredKernels {
 public:
  using Times = std::map<std::string, std::optional<double>>;  // recipe line -> ms (nullopt: failed)

  explicit MeasuredKernels(Times times);
  // The entry for the recipe line of `f`, a kernel of `kernel`; nullptr where it was not measured.
  const std::optional<double>* find(const Fragment& f, const Kernel& kernel) const;

 private:
  Times times_;
  std::unordered_set<uint64_t> signatures_;  // of the measured lines' steps
  bool unsigned_ = false;                    // a line did not parse: every kernel's line is looked up
};

}  // namespace cudaburg
