// The smallest driver of the generated selector: parse, then label and reduce each statement.
#include <iostream>

#include "examples/isel/isel_matcher.hpp"
#include "examples/isel/parser.hpp"

int main(int argc, char** argv) {
  auto file = common::SourceFile::read(argc > 1 ? argv[1] : "-");
  if (!file) return std::cerr << file.reason() << '\n', 1;
  common::Diagnostics diags(*file);
  isel::Trees trees;
  std::vector<isel::Statement> statements;
  if (!isel::parseProgram(*file, diags, trees, statements)) return diags.printAll(std::cerr), 1;
  isel::Program program;
  isel::IselMatcher matcher(&program);
  for (const isel::Statement& s : statements) {
    program.comment(s.text);
    matcher.label(s.tree);   // bottom up: each node's cheapest rule for every nonterminal
    matcher.reduce(s.tree);  // top down from stmt: the cover's actions emit the instructions
  }
  for (const std::string& line : program.lines()) std::cout << line << '\n';
}
