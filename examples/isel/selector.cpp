#include "examples/isel/selector.hpp"

#include <sstream>

#include "examples/isel/isel_matcher.hpp"
#include "examples/isel/parser.hpp"

namespace isel {

bool selectInstructions(const common::SourceFile& file, common::Diagnostics& diags, Selection& out,
                        std::ostream* trace) {
  Trees trees;
  std::vector<Statement> statements;
  if (!parseProgram(file, diags, trees, statements)) return false;
  Program program;
  IselMatcher matcher(&program);
  matcher.trace = trace;
  for (const Statement& s : statements) {
    // Every tree of the language has a cover: reg: ADD(reg, reg) and the like accept anything.
    if (trace) *trace << "# labeling: " << s.text << '\n';
    matcher.label(s.tree);
    SelectedStatement selected{s.text, matcher.cover(s.tree), "", matcher.cost(s.tree, IselMatcher::kStart)};
    std::ostringstream dot;
    matcher.printDot(dot, s.tree);
    selected.dot = dot.str();
    if (trace) *trace << "# reducing from stmt, top down; each rule's action runs after its kids':\n" << selected.cover;
    program.comment(s.text);
    matcher.reduce(s.tree);
    out.statements.push_back(std::move(selected));
  }
  out.listing = program.lines();
  return true;
}

}  // namespace isel
