#include "common/diagnostics.hpp"

#include <algorithm>
#include <sstream>

namespace common {

namespace {
const char* severityName(Severity s) {
  switch (s) {
    case Severity::Note:
      return "note";
    case Severity::Warning:
      return "warning";
    case Severity::Error:
      return "error";
  }
  return "error";
}
}  // namespace

void Diagnostics::add(Severity severity, SourceLoc loc, std::string message) {
  if (severity == Severity::Error) ++errors_;
  if (severity == Severity::Warning) ++warnings_;
  list_.push_back({severity, loc, std::move(message)});
}

void Diagnostics::print(std::ostream& out, const Diagnostic& d) const {
  out << file_->name();
  if (d.loc.valid()) out << ':' << d.loc.line << ':' << d.loc.col;
  out << ": " << severityName(d.severity) << ": " << d.message << '\n';
  if (!d.loc.valid()) return;
  std::string_view line = file_->line(d.loc.line);
  size_t spot = std::min<size_t>(d.loc.col - 1, line.size());
  // A long line is shown as a window around the spot, "..." marking what was cut.
  size_t first = 0;
  std::string before, after;
  if (line.size() > kMaxLineShown) {
    first = spot > kMaxLineShown / 2 ? std::min(spot - kMaxLineShown / 2, line.size() - kMaxLineShown) : 0;
    if (first > 0) before = "...";
    if (first + kMaxLineShown < line.size()) after = "...";
    line = line.substr(first, kMaxLineShown);
  }
  out << before << line << after << '\n';
  // Keep tabs in the caret line so the caret lands under the spot in any tab width.
  std::string caret(before.size(), ' ');
  for (size_t i = first; i < spot; ++i) caret += line[i - first] == '\t' ? '\t' : ' ';
  out << caret << "^\n";
}

void Diagnostics::printAll(std::ostream& out) const {
  int shown = 0, hiddenErrors = 0, hiddenWarnings = 0;
  bool showing = true;  // whether the last error or warning was shown: its notes go with it
  for (const auto& d : list_) {
    if (d.severity != Severity::Note) {
      showing = limit_ <= 0 || shown < limit_;
      if (showing)
        ++shown;
      else
        ++(d.severity == Severity::Error ? hiddenErrors : hiddenWarnings);
    }
    if (showing) print(out, d);
  }
  if (hiddenErrors + hiddenWarnings == 0) return;
  auto count = [](int n, const char* what) { return std::to_string(n) + " more " + what + (n == 1 ? "" : "s"); };
  out << file_->name() << ": ";
  if (hiddenErrors) out << count(hiddenErrors, "error") << (hiddenWarnings ? " and " : "");
  if (hiddenWarnings) out << count(hiddenWarnings, "warning");
  out << " not shown\n";
}

std::string Diagnostics::str() const {
  std::ostringstream out;
  printAll(out);
  return out.str();
}

}  // namespace common
