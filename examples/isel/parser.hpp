#pragma once
// The tiny language: assignments of expressions over integers, variables and memory.
//
//   program := statement*
//   statement := (name | '[' expr ']') '=' expr ';'
//   expr := term (('+' | '-') term)*
//   term := factor ('*' factor)*
//   factor := integer | name | '&' name | '[' expr ']' | '(' expr ')'
//
// A name reads a variable, `&name` is its address and `[e]` reads memory at address e.
#include <string>
#include <vector>

#include "common/diagnostics.hpp"
#include "examples/isel/tree.hpp"

namespace isel {

struct Statement {
  std::string text;  // as written, for listings
  Node* tree;        // ASSIGN(address, value)
};

// Parses `file`; reports errors to `diags` and returns false when there were any.
bool parseProgram(const common::SourceFile& file, common::Diagnostics& diags, Trees& trees,
                  std::vector<Statement>& out);

}  // namespace isel
