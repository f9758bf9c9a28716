#include "common/diagnostics.hpp"

#include <sstream>

namespace common {

namespace {
const char* severityName(Severity s) {
  switch (s) {
    case Severity::Note: return "note";
    case Severity::Warning: return "warning";
    case Severity::Error: return "error";
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
  out << line << '\n';
  // Keep tabs in the caret line so the caret lands under the spot in any tab width.
  std::string caret;
  for (uint32_t i = 1; i < d.loc.col && i <= line.size(); ++i) caret += line[i - 1] == '\t' ? '\t' : ' ';
  out << caret << "^\n";
}

void Diagnostics::printAll(std::ostream& out) const {
  for (const auto& d : list_) print(out, d);
}

std::string Diagnostics::str() const {
  std::ostringstream out;
  printAll(out);
  return out.str();
}

}  // namespace common
