#include "src/tune/problem_report.hpp"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace cudaburg::tune {

namespace {

// A recipe as report.json holds it (a step a line) on one line, its steps joined by "; ".
std::string oneLine(const std::string& recipe) {
  std::string line, step;
  std::istringstream in(recipe);
  while (std::getline(in, step))
    if (!step.empty()) line += (line.empty() ? "" : "; ") + step;
  return line;
}

}  // namespace

LaneOutcome readProblemReport(const std::string& reportPath) {
  LaneOutcome o;
  std::ifstream in(reportPath);
  if (!in) {
    o.detail = "it wrote no " + reportPath;
    return o;
  }
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("variants") || !j["variants"].is_array()) {
    o.detail = reportPath + " is not a search's report";
    return o;
  }
  const nlohmann::json& reference = j.value("reference", nlohmann::json::object());
  if (reference.is_object()) {
    o.library = reference.value("library", "");
    if (reference.value("measured", false) && reference["ms"].is_number()) o.libraryMs = reference["ms"].get<double>();
  }
  const nlohmann::json& best = j.value("best", nlohmann::json());
  if (!best.is_number_unsigned() || best.get<size_t>() >= j["variants"].size()) {
    o.detail = "no kernel (" + reportPath + " names no winner)";
    return o;
  }
  const nlohmann::json& winner = j["variants"][best.get<size_t>()];
  if (!winner.is_object() || !winner.contains("recipe") || !winner["recipe"].is_string()) {
    o.detail = reportPath + " is not a search's report";
    return o;
  }
  o.ok = true;
  o.detail = oneLine(winner["recipe"].get<std::string>());
  if (winner.contains("ms") && winner["ms"].is_number()) o.ms = winner["ms"].get<double>();
  return o;
}

std::string lastErrorLine(const std::string& logPath) {
  std::ifstream in(logPath);
  std::string line, last;
  while (std::getline(in, line)) {
    if (line.rfind("cudaburg: error: ", 0) == 0 || line.rfind("cudaburg: no kernel: ", 0) == 0)
      last = line.substr(std::string("cudaburg: ").size());
    else if (line.find(": error: ") != std::string::npos)
      last = line;
  }
  return last;
}

}  // namespace cudaburg::tune
