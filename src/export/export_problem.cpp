#include "src/export/export_problem.hpp"

#include <fstream>
#include <sstream>

namespace cudaburg {

std::optional<ExportProblem> parseProblem(const std::string& text, std::string& error) {
  std::istringstream words(text);
  std::string word;
  ExportProblem p;
  while (words >> word) {
    if (word == "-D") {
      if (!(words >> word)) {
        error = "the problem '" + text + "' ends in -D without NAME=VALUE";
        return std::nullopt;
      }
      p.defines.push_back(word);
    } else if (word.rfind("-D", 0) == 0) {
      p.defines.push_back(word.substr(2));
    } else if (p.file.empty() && word[0] != '-') {
      p.file = word;
    } else {
      error = "the problem '" + text + "' has '" + word + "' where a .loop file and -D NAME=VALUE sizes are expected";
      return std::nullopt;
    }
  }
  if (p.file.empty()) {
    error = "the problem '" + text + "' names no .loop file";
    return std::nullopt;
  }
  return p;
}

std::optional<std::vector<ExportProblem>> readProblemList(const std::string& path, std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = "cannot read the problem list '" + path + "'";
    return std::nullopt;
  }
  std::vector<ExportProblem> problems;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line = line.substr(0, line.find('#'));
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto p = parseProblem(line, error);
    if (!p) {
      error = path + ":" + std::to_string(number) + ": " + error;
      return std::nullopt;
    }
    problems.push_back(*p);
  }
  if (problems.empty()) {
    error = "the problem list '" + path + "' holds no problem";
    return std::nullopt;
  }
  return problems;
}

std::string problemText(const ExportProblem& p) {
  std::string s = p.file;
  for (const std::string& d : p.defines) s += " -D " + d;
  return s;
}

}  // namespace cudaburg
