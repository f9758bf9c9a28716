#pragma once
// The register buffers whose wgmma products go into partial sums that are promoted into them
// every few strips (Kernel::wgmmaPromote; emit_wgmma.cpp), and the partial sums' names.
#include <string>
#include <vector>

#include "src/loop/loop_tree.hpp"

namespace cudaburg::emit_internal {

class PartialSums {
 public:
  void add(const Array& buffer) { buffers_.push_back(buffer); }
  const std::vector<Array>& buffers() const { return buffers_; }
  // The partial sums' fragment in place of `fragment` (an element of a buffer's), or `fragment`
  // where its buffer has none.
  std::string of(const std::string& fragment) const {
    for (const Array& b : buffers_)
      if (fragment.compare(0, b.name.size() + 1, b.name + "[") == 0)
        return b.name + "_partial" + fragment.substr(b.name.size());
    return fragment;
  }

 private:
  std::vector<Array> buffers_;
};

}  // namespace cudaburg::emit_internal
