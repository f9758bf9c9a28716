#pragma once
// Parses (and optionally checks) a spec held in a string, keeping the source, the diagnostics
// and the grammar together for assertions.
#include <memory>
#include <string>

#include "burgspec/checks.hpp"
#include "burgspec/grammar.hpp"
#include "burgspec/parser.hpp"
#include "common/diagnostics.hpp"
#include "common/source.hpp"

namespace burgspec::test {

struct Spec {
  explicit Spec(std::string text) : file("t.burg", std::move(text)), diags(file) {}
  common::SourceFile file;
  common::Diagnostics diags;
  Grammar grammar;
  bool parsed = false;
  bool checked = false;

  // Messages only, one a line: "line:col: severity: message".
  std::string messages() const {
    std::string out;
    for (const auto& d : diags.all()) {
      const char* severity = d.severity == common::Severity::Error     ? "error"
                             : d.severity == common::Severity::Warning ? "warning"
                                                                       : "note";
      out += std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": " + severity + ": " + d.message + "\n";
    }
    return out;
  }
};

inline std::unique_ptr<Spec> parse(std::string text) {
  auto spec = std::make_unique<Spec>(std::move(text));
  spec->parsed = parseGrammar(spec->file, spec->diags, spec->grammar);
  return spec;
}

// Parses, then checks when the parse succeeded.
inline std::unique_ptr<Spec> check(std::string text) {
  auto spec = parse(std::move(text));
  if (spec->parsed) spec->checked = checkGrammar(spec->grammar, spec->diags);
  return spec;
}

}  // namespace burgspec::test
