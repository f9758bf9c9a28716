#pragma once
// The wgmma of a pipelined strip as one group (fenced, committed, waited for), and with
// Kernel::wgmmaPromote the partial sums the tensor cores add into, promoted into the register
// buffers' accumulators every few strips (emit_wgmma.cpp writes the wgmma themselves).
#include <string>
#include <vector>

#include "src/cuda/emit/scoped_text.hpp"
#include "src/loop/loop_tree.hpp"

namespace cudaburg::emit_internal {

class WgmmaGroups {
 public:
  WgmmaGroups(const Kernel& kernel, ScopedText& text) : kernel_(kernel), text_(text) {}

  // The lines before and after a strip's wgmma.
  void openStrip();
  void closeStrip();
  // The partial sums' fragments of register buffer `buffer`, declared beside its own.
  void declarePartialSums(const Array& buffer);
  // The partial sums' fragment in place of `fragment` (an element of a buffer's), or `fragment`
  // where its buffer has none.
  std::string partialSumsOf(const std::string& fragment) const;
  // After the strip of iteration `iteration` (every wgmmaPromote strips), or after the loop
  // (`iteration` empty, where they hold products), the partial sums added into the accumulators
  // once every wgmma is done.
  void promotePartialSums(const std::string& iteration);

 private:
  const Kernel& kernel_;
  ScopedText& text_;
  std::vector<Array> promoted_;  // the register buffers whose partial sums are promoted
};

}  // namespace cudaburg::emit_internal
