#pragma once
// Where a kernel's shared buffers lie: the next free byte of its dynamic shared memory, and the
// buffers declared once before a peeled block's copies of its work (which their later
// declarations then skip), with the extents they were declared with.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace cudaburg::emit_internal {

class SharedLayout {
 public:
  // The byte the next buffer of the dynamic shared memory starts at; take() gives it `bytes`.
  int64_t next() const { return next_; }
  int64_t take(int64_t bytes) {
    int64_t at = next_;
    next_ += bytes;
    return at;
  }

  // The extents `buffer` was hoisted with, or null where it was not.
  const std::vector<int64_t>* hoisted(const std::string& buffer) const {
    auto it = hoisted_.find(buffer);
    return it == hoisted_.end() ? nullptr : &it->second;
  }
  void hoist(const std::string& buffer, const std::vector<int64_t>& extents) { hoisted_[buffer] = extents; }

 private:
  int64_t next_ = 0;
  std::map<std::string, std::vector<int64_t>> hoisted_;
};

}  // namespace cudaburg::emit_internal
