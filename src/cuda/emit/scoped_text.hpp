#pragma once
// The body of a kernel as it is written: lines (BodyText) at the indentation of the braces that
// open() and close() nest, the names each pair of braces declares, and fresh names for
// temporaries.
#include <set>
#include <string>
#include <vector>

#include "src/cuda/emit/body_text.hpp"

namespace cudaburg::emit_internal {

class ScopedText {
 public:
  void line(const std::string& text) { body_.add(text.empty() ? text : std::string(2 * indent_, ' ') + text); }
  void open(const std::string& text) {
    line(text);
    ++indent_;
    declared_.emplace_back();
  }
  void close() {
    --indent_;
    declared_.pop_back();
    line("}");
  }
  // `} else {` between the two branches of an `if` that open() began; `comment` says what the
  // second one is for.
  void otherwise(const std::string& comment) {
    --indent_;
    declared_.pop_back();
    line("} else {" + (comment.empty() ? "" : "  // " + comment));
    ++indent_;
    declared_.emplace_back();
  }

  // Where the next line goes (a declaration's mark for dropIfUnused, a place for insert), and
  // the indentation it gets.
  size_t mark() const { return body_.size(); }
  int indent() const { return indent_; }
  // Leaves out the declaration line written at `mark` when nothing written after it uses `name`
  // (an index whose loop body reads only its unrolled counter, say): no unused variables.
  void dropIfUnused(size_t mark, const std::string& name) { body_.dropIfUnused(mark, name); }
  // Lines (each ending in a newline, indented already) placed before line `at`.
  void insert(size_t at, const std::string& text) { body_.insert(at, text); }

  // Whether the innermost braces declare `name` already; declare() says they do.
  bool declaredHere(const std::string& name) const { return declared_.back().count(name) != 0; }
  void declare(const std::string& name) { declared_.back().insert(name); }
  // A name for a temporary no other one has: `<base>_v<n>`.
  std::string temporary(const std::string& base) { return base + "_v" + std::to_string(temporaries_++); }

  // Whether a line that stays uses `name`; the lines that stay.
  bool uses(const std::string& name) const { return body_.uses(name); }
  std::string str() const { return body_.str(); }

 private:
  BodyText body_;
  int indent_ = 1;
  std::vector<std::set<std::string>> declared_{{}};
  int temporaries_ = 0;
};

}  // namespace cudaburg::emit_internal
