// libFuzzer target: the spec front end must survive any input. It parses, checks (even a
// grammar whose parse failed, to exercise the checks on partial grammars) and renders every
// diagnostic; a crash, a sanitizer report, a hang or unbounded memory is a bug.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "burgspec/checks.hpp"
#include "burgspec/grammar.hpp"
#include "burgspec/parser.hpp"
#include "common/diagnostics.hpp"
#include "common/source.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  common::SourceFile file("fuzz.burg", std::string(reinterpret_cast<const char*>(data), size));
  common::Diagnostics diags(file);
  burgspec::Grammar grammar;
  burgspec::parseGrammar(file, diags, grammar);
  burgspec::checkGrammar(grammar, diags);
  std::ostringstream rendered;
  diags.printAll(rendered);
  return 0;
}
