#pragma once
// Diagnostics in the form compilers use: "file:line:col: error: message", then the source
// line and a caret under the spot. Shared by the spec language and the loop language. Printing
// is bounded whatever the input: at most `limit` errors and warnings (each with its notes), then
// one line that counts the rest; a long source line is shown as a window around the spot.
#include <ostream>
#include <string>
#include <vector>

#include "common/source.hpp"

namespace common {

enum class Severity { Note, Warning, Error };

struct Diagnostic {
  Severity severity;
  SourceLoc loc;
  std::string message;
};

class Diagnostics {
 public:
  explicit Diagnostics(const SourceFile& file) : file_(&file) {}

  void error(SourceLoc loc, std::string message) { add(Severity::Error, loc, std::move(message)); }
  void warning(SourceLoc loc, std::string message) { add(Severity::Warning, loc, std::move(message)); }
  void note(SourceLoc loc, std::string message) { add(Severity::Note, loc, std::move(message)); }
  void add(Severity severity, SourceLoc loc, std::string message);

  // How many errors and warnings printAll writes before it counts the rest; 0: all of them.
  static constexpr int kDefaultLimit = 50;
  void setLimit(int limit) { limit_ = limit; }
  // The longest source line printed whole; a longer one is cut to this many bytes around the spot.
  static constexpr size_t kMaxLineShown = 160;

  bool hasErrors() const { return errors_ > 0; }
  int errorCount() const { return errors_; }
  int warningCount() const { return warnings_; }
  const std::vector<Diagnostic>& all() const { return list_; }
  const SourceFile& file() const { return *file_; }

  // Writes one diagnostic, with its source line and caret, as a compiler does.
  void print(std::ostream& out, const Diagnostic& d) const;
  // Writes them in the order they were reported, up to the limit, then a line that counts the
  // errors and warnings left out.
  void printAll(std::ostream& out) const;
  // All of them as one string (for tests and error messages).
  std::string str() const;

 private:
  const SourceFile* file_;
  std::vector<Diagnostic> list_;
  int errors_ = 0;
  int warnings_ = 0;
  int limit_ = kDefaultLimit;
};

}  // namespace common
