#pragma once
// Text as a C or C++ string literal, for the emitters.
#include <string>

namespace burggen {

// `text` between double quotes, with quotes and backslashes escaped and newlines as \n.
inline std::string cString(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + '"';
}

}  // namespace burggen
