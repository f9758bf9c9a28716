#include "src/cuda/emit/wgmma_groups.hpp"

namespace cudaburg::emit_internal {
namespace {

constexpr int64_t kFragmentRows = 64;  // a warpgroup's accumulator tile: 64 x 8

}  // namespace

// With A from registers each k step is a group of its own, fenced after its fragments are loaded
// (emitWgmmaRegisterTile): the strip adds only the wait for none in flight (wait 0).
void WgmmaGroups::openStrip() {
  if (kernel_.wgmmaRegisterA()) return;
  text_.line("wgmma_fence();  // the accumulators are ready for this strip's wgmma");
}

void WgmmaGroups::closeStrip() {
  if (kernel_.wgmmaRegisterA()) {
    if (kernel_.wgmmaPending() == 0) text_.line("wgmma_wait<0>();  // all done");
    return;
  }
  text_.line("wgmma_commit();  // this strip's wgmma: one group");
  text_.line("wgmma_wait<" + std::to_string(kernel_.wgmmaPending()) + ">();  // " +
             (kernel_.wgmmaPending() == 0 ? "all done" : "all but this strip's group done"));
}

void WgmmaGroups::declarePartialSums(const Array& buffer) {
  const std::string name = buffer.name + "_partial";
  text_.line("float " + name + "[" + std::to_string(buffer.extents[0] / kFragmentRows) + "][" +
             std::to_string(buffer.extents[1] / 8) + "][4] = {};  // the tensor cores' sums of the last strips");
  text_.line("int " + buffer.name +
             "_adding = 0;  // whether they hold products yet: else the next wgmma overwrites them");
  promoted_.push_back(buffer);
}

std::string WgmmaGroups::partialSumsOf(const std::string& fragment) const {
  for (const Array& b : promoted_)
    if (fragment.compare(0, b.name.size() + 1, b.name + "[") == 0)
      return b.name + "_partial" + fragment.substr(b.name.size());
  return fragment;
}

void WgmmaGroups::promotePartialSums(const std::string& iteration) {
  if (kernel_.wgmmaPromote() == 0) return;
  if (iteration.empty()) {
    text_.line("// the partial sums of the last strips, where they hold any");
  } else {
    const std::string every = std::to_string(kernel_.wgmmaPromote());
    text_.open(kernel_.wgmmaPromote() == 1 ? std::string("{  // the strip's sums into the accumulators")
                                           : "if ((" + iteration + " + 1) % " + every + " == 0) {  // every " + every +
                                                 " strips, their sums into the accumulators");
    text_.line("wgmma_wait<0>();  // every wgmma done: the partial sums may be read");
  }
  for (const Array& b : promoted_) {
    const std::string elements = std::to_string(b.extents[0] / kFragmentRows * (b.extents[1] / 8) * 4);
    text_.open(iteration.empty() ? "if (" + b.name + "_adding) {" : std::string("{"));
    text_.line("#pragma unroll");
    text_.line("for (int t = 0; t < " + elements + "; ++t) (&" + b.name + "[0][0][0])[t] += (&" + b.name +
               "_partial[0][0][0])[t];");
    text_.line(b.name + "_adding = 0;");
    text_.close();
  }
  if (!iteration.empty()) text_.close();
}

}  // namespace cudaburg::emit_internal
