#include "burgspec/value_refs.hpp"

#include <cctype>

namespace burgspec {

namespace {

bool identifierStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool identifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The offset just past the literal or comment that starts at `i`, or `i` when none does.
size_t skipLiteralOrComment(std::string_view code, size_t i) {
  if (code.compare(i, 2, "//") == 0) {
    size_t end = code.find('\n', i);
    return end == std::string_view::npos ? code.size() : end;
  }
  if (code.compare(i, 2, "/*") == 0) {
    size_t end = code.find("*/", i + 2);
    return end == std::string_view::npos ? code.size() : end + 2;
  }
  if (code[i] == 'R' && i + 1 < code.size() && code[i + 1] == '"' && (i == 0 || !identifierChar(code[i - 1]))) {
    size_t open = code.find('(', i + 2);
    if (open == std::string_view::npos) return code.size();
    std::string close = ")" + std::string(code.substr(i + 2, open - (i + 2))) + "\"";
    size_t end = code.find(close, open + 1);
    return end == std::string_view::npos ? code.size() : end + close.size();
  }
  if (code[i] == '"' || code[i] == '\'') {
    char quote = code[i];
    size_t j = i + 1;
    while (j < code.size() && code[j] != quote && code[j] != '\n') j += code[j] == '\\' ? 2 : 1;
    return j < code.size() ? j + 1 : code.size();
  }
  return i;
}

}  // namespace

std::vector<ValueRef> findValueRefs(std::string_view code) {
  std::vector<ValueRef> refs;
  size_t i = 0;
  while (i < code.size()) {
    size_t skipped = skipLiteralOrComment(code, i);
    if (skipped != i) {
      i = skipped;
      continue;
    }
    if (identifierChar(code[i])) {  // a whole identifier or number, so that a`'` digit separator stays inside
      while (i < code.size() && (identifierChar(code[i]) || code[i] == '\'')) ++i;
      continue;
    }
    if (code[i] != '$') {
      ++i;
      continue;
    }
    if (i + 1 < code.size() && code[i + 1] == '$') {
      refs.push_back({i, 2, "", true});
      i += 2;
      continue;
    }
    size_t end = i + 1;
    if (end < code.size() && identifierStart(code[end]))
      while (end < code.size() && identifierChar(code[end])) ++end;
    refs.push_back({i, end - i, std::string(code.substr(i + 1, end - i - 1)), end > i + 1});
    i = end == i + 1 ? i + 1 : end;
  }
  return refs;
}

std::string replaceValueRefs(std::string_view code, const std::string& self, const std::string& kidPrefix) {
  std::string out;
  size_t at = 0;
  for (const ValueRef& ref : findValueRefs(code)) {
    if (!ref.valid) continue;
    out += code.substr(at, ref.offset - at);
    out += ref.name.empty() ? self : kidPrefix + ref.name;
    at = ref.offset + ref.length;
  }
  out += code.substr(at);
  return out;
}

bool assignsSelfFirst(std::string_view code) {
  auto skipSpace = [&](size_t i) {
    while (i < code.size() && std::isspace(static_cast<unsigned char>(code[i]))) ++i;
    return i;
  };
  size_t i = skipSpace(0);
  int open = 0;  // parentheses around the assignment
  for (; i < code.size() && code[i] == '('; i = skipSpace(i + 1)) ++open;
  if (code.compare(i, 2, "$$") != 0) return false;
  i = skipSpace(i + 2);
  if (i + 1 >= code.size() || code[i] != '=' || code[i + 1] == '=') return false;
  // The right side: up to a comma or a closing parenthesis outside any brackets it opens (a '<'
  // outside them may open template arguments, whose commas would end it early: not told).
  size_t start = ++i;
  for (int depth = 0; i < code.size(); ++i) {
    size_t skipped = skipLiteralOrComment(code, i);
    if (skipped != i) {
      i = skipped - 1;
      continue;
    }
    char c = code[i];
    if (depth == 0 && c == '<') return false;
    if (depth == 0 && (c == ',' || c == ')')) break;
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
  }
  for (const ValueRef& ref : findValueRefs(code.substr(start, i - start)))
    if (ref.valid && ref.name.empty()) return false;
  // Then only the parentheses around it close, before a comma (whatever follows is sequenced
  // after the assignment) or the end.
  for (i = skipSpace(i); i < code.size() && code[i] == ')' && open > 0; i = skipSpace(i + 1)) --open;
  return i == code.size() ? open == 0 : code[i] == ',';
}

}  // namespace burgspec
