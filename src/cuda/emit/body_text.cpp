#include "src/cuda/emit/body_text.hpp"

#include <algorithm>
#include <cctype>

namespace cudaburg::emit_internal {

namespace {

bool isNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The maximal runs of letters, digits and underscores in `text`, each once.
std::vector<std::string> namesIn(const std::string& text) {
  std::vector<std::string> names;
  for (size_t i = 0; i < text.size();) {
    if (!isNameChar(text[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && isNameChar(text[end])) ++end;
    names.push_back(text.substr(i, end - i));
    i = end;
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

}  // namespace

BodyText::Line BodyText::record(std::string text) {
  Line line{std::move(text), {}, false};
  line.names = namesIn(line.text);
  for (const std::string& name : line.names) ++users_[name];
  return line;
}

void BodyText::add(const std::string& text) { lines_.push_back(record(text)); }

void BodyText::insert(size_t at, const std::string& text) {
  std::vector<Line> added;
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    added.push_back(record(text.substr(begin, end - begin)));
    begin = end + 1;
  }
  lines_.insert(lines_.begin() + static_cast<std::ptrdiff_t>(at), added.begin(), added.end());
}

void BodyText::dropIfUnused(size_t mark, const std::string& name) {
  if (mark >= lines_.size() || lines_[mark].dropped) return;
  for (size_t i = mark + 1; i < lines_.size(); ++i)
    if (!lines_[i].dropped && std::binary_search(lines_[i].names.begin(), lines_[i].names.end(), name)) return;
  lines_[mark].dropped = true;
  for (const std::string& used : lines_[mark].names) --users_[used];
}

bool BodyText::uses(const std::string& name) const {
  auto it = users_.find(name);
  return it != users_.end() && it->second > 0;
}

std::string BodyText::str() const {
  std::string out;
  for (const Line& line : lines_)
    if (!line.dropped) out += line.text + '\n';
  return out;
}

}  // namespace cudaburg::emit_internal
