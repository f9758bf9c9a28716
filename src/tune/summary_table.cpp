#include "src/tune/summary_table.hpp"

#include <cstdio>

namespace cudaburg::tune {

namespace {

std::string number(const char* format, double value) {
  char text[32];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

std::string lines(const Row& r) {
  std::string text = std::to_string(r.line);
  for (size_t l : r.repeats) text += ", " + std::to_string(l);
  return text;
}

}  // namespace

std::string summaryMarkdown(const std::string& listName, const std::vector<Row>& rows, size_t failed,
                            double wallSeconds) {
  std::string out = "# Tuning of " + listName + "\n\n";
  out += "| problem | lines | time (ms) | library (ms) | library / time | tuning (s) | GPU | status |\n";
  out += "|---|---|---|---|---|---|---|---|\n";
  for (const Row& r : rows) {
    bool timed = r.ok && r.ms > 0;
    std::string library = r.libraryMs > 0 ? number("%.4f", r.libraryMs) + " " + r.library : "-";
    std::string ratio = timed && r.libraryMs > 0 ? number("%.3f", r.libraryMs / r.ms) : "-";
    std::string status = !r.ok ? "failed: " + r.detail : timed ? "ok" : "not measured";
    out += "| " + r.name + " | " + lines(r) + " | " + (timed ? number("%.4f", r.ms) : "-") + " | " + library + " | " +
           ratio + " | " + number("%.1f", r.wallSeconds) + " | " + r.gpu + " | " + status + " |\n";
  }
  // `failed` counts the list's lines that did not parse beside the rows that failed.
  size_t rowsFailed = 0;
  for (const Row& r : rows) rowsFailed += r.ok ? 0 : 1;
  const size_t unparsed = failed > rowsFailed ? failed - rowsFailed : 0;
  auto count = [](size_t n, const char* one) { return std::to_string(n) + " " + one + (n == 1 ? "" : "s"); };
  out += "\n" + count(rows.size(), "problem") + " tuned in " + number("%.1f", wallSeconds) + " s; " +
         std::to_string(rowsFailed) + " failed" +
         (unparsed ? ", and " + count(unparsed, "line") + " of the list did not parse" : std::string()) + ".\n";
  out += "\nWinners:\n\n";
  for (const Row& r : rows)
    if (r.ok) out += "- " + r.name + ": " + (r.detail.empty() ? "(the nest as written)" : r.detail) + "\n";
  return out;
}

}  // namespace cudaburg::tune
