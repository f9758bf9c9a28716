#pragma once
// Names a spec gives that become C or C++ identifiers in a generated matcher (bindings become
// variables, nonterminals parts of function names): keywords and reserved names would make it
// fail to compile, or compile into undefined behaviour, so the checks refuse them.
#include <optional>
#include <string>

namespace burgspec {

// Why `name` cannot name a C or C++ variable (a keyword, or reserved: it begins with an
// underscore, or holds two in a row); nullopt when it can.
std::optional<std::string> unusableIdentifier(const std::string& name);

}  // namespace burgspec
