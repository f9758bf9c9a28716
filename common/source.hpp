#pragma once
// A source file held in memory, and positions inside it.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace common {

// A 1-based line and column in a SourceFile. Line 0 means "no position".
struct SourceLoc {
  uint32_t line = 0;
  uint32_t col = 0;
  bool valid() const { return line != 0; }
};

class SourceFile {
 public:
  SourceFile(std::string name, std::string text);
  // The most a source may hold: beyond it, reading stops (a device such as /dev/zero never ends).
  static constexpr size_t kMaxBytes = size_t{16} << 20;
  // Reads a file ("-" reads standard input). Fails when it cannot, or when the file holds more
  // than kMaxBytes.
  static Result<SourceFile> read(const std::string& path);

  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  // The text of a 1-based line, without its newline.
  std::string_view line(uint32_t line) const;
  // The position of a byte offset into text().
  SourceLoc locate(size_t offset) const;

 private:
  std::string name_;
  std::string text_;
  std::vector<size_t> line_starts_;
};

}  // namespace common
