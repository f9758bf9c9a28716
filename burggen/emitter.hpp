#pragma once
// The matcher emitter: turns a checked Grammar into the C++17 source of a tree matcher (a
// labeler, a reducer and explanations). docs/tutorial.md describes the generated interface.
#include <string>

#include "burggen/tie_order.hpp"
#include "burgspec/grammar.hpp"
#include "common/diagnostics.hpp"

namespace burggen {

struct EmitOptions {
  std::string prefix = "burm";  // prefixes the public names, as iburg's -p does
  std::string nameSpace;        // when set, the matcher is declared inside this namespace
  std::string specName;         // named in the generated file's first comment
  // When set, the declarations go to EmittedMatcher::header and the source includes the
  // header under this name; otherwise the source holds everything.
  std::string headerIncludeName;
  // When above 0, the labeler keeps the `kbest` cheapest derivations of every node and
  // nonterminal (kbest_emitter.hpp); a grammar with %param or %label gets that labeler even
  // at 0, keeping 1.
  int kbest = 0;
  TieOrder ties = TieOrder::Iburg;  // which of equal-cost rules wins
  // When both are set, the spec's code (actions, costs) is framed by #line directives, so that
  // a compiler's messages about it name the spec's lines: specPath as the compiler should name
  // the spec, sourcePath the generated source, to which the lines after the code belong.
  std::string specPath;
  std::string sourcePath;
};

struct EmittedMatcher {
  std::string source;
  std::string header;  // empty unless EmitOptions::headerIncludeName was set
};

// Writes the matcher of `grammar`, which checkGrammar has completed: the classic labeler, or the
// k-best one (see EmitOptions::kbest). Reports what cannot be
// emitted (a binding that hides the name `node`, a prefix that is not an identifier) to
// `diagnostics` and returns false then.
bool emitMatcher(const burgspec::Grammar& grammar, const EmitOptions& options, common::Diagnostics& diagnostics,
                 EmittedMatcher& out);

// Whether `name` can be used as a C++ identifier (letters, digits, underscores, not a digit first).
bool isIdentifier(const std::string& name);
// Why `name` cannot name a C++ namespace (identifiers joined by "::", none of them a keyword or
// a reserved name), as the end of a sentence that names it; empty when it can.
std::string namespaceNameProblem(const std::string& name);

}  // namespace burggen
