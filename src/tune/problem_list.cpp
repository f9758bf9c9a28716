#include "src/tune/problem_list.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

namespace cudaburg::tune {

namespace {

// Splits a line into words at blanks; "double quotes" keep blanks in a word. A quote left open
// is an error at the quote.
bool splitWords(std::string_view line, uint32_t lineNo, std::vector<Word>& words, common::Diagnostics& diagnostics) {
  size_t i = 0;
  while (i < line.size()) {
    if (line[i] == ' ' || line[i] == '\t' || line[i] == '\r') {
      ++i;
      continue;
    }
    if (line[i] == '#') break;
    if (static_cast<unsigned char>(line[i]) < 0x20 || line[i] == 0x7f) {  // not text: a binary file, or a stray byte
      char byte[8];
      std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned char>(line[i]));
      diagnostics.error({lineNo, static_cast<uint32_t>(i + 1)},
                        std::string("a control character (byte ") + byte + ") stands here: a problem's line is text");
      return false;
    }
    Word w{"", {lineNo, static_cast<uint32_t>(i + 1)}};
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') {
      if (static_cast<unsigned char>(line[i]) < 0x20 || line[i] == 0x7f) break;  // reported as the next word
      if (line[i] == '"') {
        size_t close = line.find('"', i + 1);
        if (close == std::string_view::npos) {
          diagnostics.error({lineNo, static_cast<uint32_t>(i + 1)}, "this quote is not closed");
          return false;
        }
        w.text += line.substr(i + 1, close - i - 1);
        i = close + 1;
      } else {
        w.text += line[i++];
      }
    }
    words.push_back(std::move(w));
  }
  return true;
}

// "N=32" -> "N32", for a name that says the sizes.
std::string sizeTag(const std::string& definition) {
  std::string tag;
  for (char c : definition)
    if (c != '=') tag += c;
  return tag;
}

}  // namespace

std::vector<std::string> sizeDefinitions(const std::vector<Word>& options) {
  std::vector<std::string> defs;
  for (size_t i = 0; i < options.size(); ++i) {
    const std::string& t = options[i].text;
    if (t == "-D" && i + 1 < options.size())
      defs.push_back(options[++i].text);
    else if (t.size() > 2 && t.rfind("-D", 0) == 0)
      defs.push_back(t.substr(2));
  }
  return defs;
}

std::vector<Problem> parseProblemList(const common::SourceFile& list, common::Diagnostics& diagnostics) {
  std::filesystem::path folder = std::filesystem::path(list.name()).parent_path();
  std::vector<Problem> problems;
  std::map<std::string, size_t> byKey, byName;
  size_t lines = std::count(list.text().begin(), list.text().end(), '\n') + 1;
  for (uint32_t n = 1; n <= lines; ++n) {
    std::vector<Word> words;
    if (!splitWords(list.line(n), n, words, diagnostics) || words.empty()) continue;
    Problem p;
    p.loc = words.front().loc;
    size_t first = 0;
    if (words[0].text.size() > 1 && words[0].text.back() == ':') {
      p.name = words[0].text.substr(0, words[0].text.size() - 1);
      first = 1;
      // The name is the problem's folder among the outputs.
      if (p.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
              std::string::npos ||
          p.name[0] == '.') {
        diagnostics.error(words[0].loc,
                          "a problem's name is made of letters, digits, '.', '_' and '-' (not first '.')");
        continue;
      }
    }
    if (first >= words.size() || words[first].text[0] == '-') {
      common::SourceLoc at = first < words.size() ? words[first].loc : words.back().loc;
      diagnostics.error(at, "a problem starts with its .loop file (then its options)");
      continue;
    }
    std::filesystem::path file = words[first].text;
    p.file = (file.is_absolute() || folder.empty() ? file : folder / file).lexically_normal().string();
    p.options.assign(words.begin() + first + 1, words.end());

    std::vector<std::string> defs = sizeDefinitions(p.options);
    std::vector<std::string> sorted = defs;
    std::sort(sorted.begin(), sorted.end());
    p.key = p.file;
    for (const std::string& d : sorted) p.key += " -D " + d;
    for (size_t i = 0; i < p.options.size(); ++i) {
      const std::string& t = p.options[i].text;
      if (t == "-D") {
        ++i;
        continue;
      }
      if (t.rfind("-D", 0) == 0) continue;
      p.key += " " + t;
    }
    if (auto same = byKey.find(p.key); same != byKey.end()) {
      problems[same->second].repeats.push_back(n);
      continue;
    }
    if (p.name.empty()) {  // made up: numbered where the same file and sizes come with other options
      std::string base = std::filesystem::path(p.file).stem().string();
      for (const std::string& d : defs) base += "-" + sizeTag(d);
      p.name = base;
      for (int k = 2; byName.count(p.name); ++k) p.name = base + "-" + std::to_string(k);
    }
    if (auto taken = byName.find(p.name); taken != byName.end()) {
      diagnostics.error(words.front().loc, "the name '" + p.name + "' is taken by the problem on line " +
                                               std::to_string(problems[taken->second].loc.line));
      continue;
    }
    byKey[p.key] = byName[p.name] = problems.size();
    problems.push_back(std::move(p));
  }
  return problems;
}

}  // namespace cudaburg::tune
