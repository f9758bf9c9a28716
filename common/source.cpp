#include "common/source.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace common {

SourceFile::SourceFile(std::string name, std::string text) : name_(std::move(name)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
}

Result<SourceFile> SourceFile::read(const std::string& path) {
  bool stdinput = path == "-";
  std::FILE* in = stdinput ? stdin : std::fopen(path.c_str(), "rb");
  if (!in) return Error{"cannot open '" + path + "'"};
  std::string text;
  char chunk[1 << 16];
  bool tooLarge = false;
  while (size_t n = std::fread(chunk, 1, sizeof chunk, in)) {
    if (text.size() + n > kMaxBytes) {
      tooLarge = true;
      break;
    }
    text.append(chunk, n);
  }
  bool failed = std::ferror(in) != 0;
  if (!stdinput) std::fclose(in);
  std::string name = stdinput ? "<stdin>" : path;
  if (tooLarge) {
    std::string limit = std::to_string(kMaxBytes >> 20) + " MiB";
    return Error{"'" + name + "' is larger than " + limit + ", the most a source may hold"};
  }
  if (failed) return Error{"cannot read '" + path + "'"};
  return SourceFile(name, std::move(text));
}

std::string_view SourceFile::line(uint32_t line) const {
  if (line == 0 || line > line_starts_.size()) return {};
  size_t begin = line_starts_[line - 1];
  size_t end = line < line_starts_.size() ? line_starts_[line] - 1 : text_.size();
  std::string_view view(text_.data() + begin, end - begin);
  if (!view.empty() && view.back() == '\r') view.remove_suffix(1);
  return view;
}

SourceLoc SourceFile::locate(size_t offset) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  uint32_t line = static_cast<uint32_t>(it - line_starts_.begin());
  return {line, static_cast<uint32_t>(offset - line_starts_[line - 1] + 1)};
}

}  // namespace common
