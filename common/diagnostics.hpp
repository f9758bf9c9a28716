#pragma once
// Diagnostics in the form compilers use: "file:line:col: error: message", then the source
// line and a caret under the spot. Shared by the spec language and the loop language.
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

  bool hasErrors() const { return errors_ > 0; }
  int errorCount() const { return errors_; }
  int warningCount() const { return warnings_; }
  const std::vector<Diagnostic>& all() const { return list_; }
  const SourceFile& file() const { return *file_; }

  // Writes one diagnostic, with its source line and caret, as a compiler does.
  void print(std::ostream& out, const Diagnostic& d) const;
  // Writes all of them in the order they were reported.
  void printAll(std::ostream& out) const;
  // All of them as one string (for tests and error messages).
  std::string str() const;

 private:
  const SourceFile* file_;
  std::vector<Diagnostic> list_;
  int errors_ = 0;
  int warnings_ = 0;
};

}  // namespace common
