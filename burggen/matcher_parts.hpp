#pragma once
// The parts of a generated C++ matcher that do not depend on how it labels: the includes, the
// cost type, the operators and the context, the node interface, the name tables, and the
// assembly of the source and header files with their banner and namespace.
#include <functional>
#include <initializer_list>
#include <ostream>
#include <string>

#include "burggen/emitter.hpp"

namespace burggen {

void writeIncludes(std::ostream& o, std::initializer_list<const char*> extra = {});
// Cost and Infinity, the operator enum, the context type, NoCover, and (without %node) the check
// that the prologue defines iburg's macros.
void writePreamble(std::ostream& o, const burgspec::Grammar& g, const std::string& prefix);
// The class members opOf, kidOf, stateOf and setState (State is the class's node state).
void writeNodeInterface(std::ostream& o, const burgspec::Grammar& g);
// The static functions opName, arity and nonterminalName of class `cls`.
void writeNameTables(std::ostream& o, const burgspec::Grammar& g, const std::string& cls);

// The public members by which a driver draws a labeling (burggen/explain/labeling.hpp): the
// nodes' numbers, operators and kids, and a cover's rules top down (coverSteps, defined by each
// matcher).
void writeDrawingInterface(std::ostream& o);

// <prefix>Html(const char*): text escaped for Graphviz's HTML labels, in an anonymous namespace.
void writeHtmlEscape(std::ostream& o, const std::string& prefix);

// Code from the spec (an action, a cost expression) that begins at `loc`. With
// EmitOptions::specPath and sourcePath, on lines of its own: a #line directive before it, its
// first line indented to its column, and a mark after it that assembleMatcher turns into a
// #line directive back to the generated source. Otherwise just the code.
void writeSpecCode(std::ostream& o, const EmitOptions& opt, common::SourceLoc loc, const std::string& code);

// Assembles the matcher: the banner, the includes (the usual ones and `extraIncludes`), the
// prologue and the declarations (written by `declarations`) in the header or at the top of the
// source, then the definitions and the epilogue; declarations and definitions inside the
// namespace when one is asked for; the marks writeSpecCode left become #line directives.
void assembleMatcher(const burgspec::Grammar& g, const EmitOptions& opt,
                     std::initializer_list<const char*> extraIncludes,
                     const std::function<void(std::ostream&)>& declarations,
                     const std::function<void(std::ostream&)>& definitions, EmittedMatcher& out);

}  // namespace burggen
