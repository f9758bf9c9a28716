#include "burggen/matcher_parts.hpp"

#include <algorithm>
#include <sstream>

#include "burggen/string_literal.hpp"

namespace burggen {

void writeIncludes(std::ostream& o, std::initializer_list<const char*> extra) {
  for (const char* h : {"cstdint", "limits", "memory", "ostream", "stdexcept", "string", "type_traits", "unordered_map",
                        "utility", "vector"})
    o << "#include <" << h << ">\n";
  for (const char* h : extra) o << "#include <" << h << ">\n";
  o << "\n";
}

void writePreamble(std::ostream& o, const burgspec::Grammar& g, const std::string& P) {
  o << "// Costs are non-negative and ordered; " << P << "Infinity means \"does not match\". A sum of\n"
    << "// finite costs saturates at " << P << "MaxCost, the largest finite cost: a derivation too dear to\n"
    << "// count is still a derivation, and a coverable tree keeps its cover.\n"
    << "using " << P << "Cost = std::int64_t;\n"
    << "constexpr " << P << "Cost " << P << "Infinity = std::numeric_limits<" << P << "Cost>::max();\n"
    << "constexpr " << P << "Cost " << P << "MaxCost = " << P << "Infinity - 1;\n"
    << "inline " << P << "Cost " << P << "Add(" << P << "Cost a, " << P << "Cost b) {\n"
    << "  if (a >= " << P << "Infinity || b >= " << P << "Infinity) return " << P << "Infinity;\n"
    << "  return a > " << P << "MaxCost - b ? " << P << "MaxCost : a + b;\n"
    << "}\n\n";
  o << "// The operators (%term), by the numbers burg_op returns.\n"
    << "enum " << P << "Op : int {\n";
  for (const auto& t : g.terminals) o << "  " << P << "_" << t.name << " = " << t.number << ",\n";
  o << "};\n\n";
  o << "// Costs and actions reach caller state through `ctx`, of the type the prologue may name.\n"
       "#ifdef BURG_CONTEXT_TYPE\n"
    << "using " << P << "Context = BURG_CONTEXT_TYPE;\n"
    << "#else\n"
    << "using " << P << "Context = void;\n"
    << "#endif\n\n";
  o << "// Thrown by the reducer when a node has no derivation from the nonterminal asked for.\n"
    << "class " << P << "NoCover : public std::runtime_error {\n"
    << " public:\n"
    << "  using std::runtime_error::runtime_error;\n"
    << "};\n\n";
  if (g.nodeType.empty())
    o << "#if !defined(OP_LABEL) || !defined(LEFT_CHILD) || !defined(RIGHT_CHILD) || !defined(STATE_LABEL)\n"
         "#error \"a grammar without %node needs iburg's macros OP_LABEL, LEFT_CHILD, RIGHT_CHILD, "
         "STATE_LABEL and the type NODEPTR_TYPE in its prologue\"\n"
         "#endif\n\n";
}

void writeNodeInterface(std::ostream& o, const burgspec::Grammar& g) {
  o << "  // The node interface (see the comment on the class).\n";
  if (!g.nodeType.empty()) {
    // A node's state goes in the slot burg_state(p) when the prologue declares one (iburg's way,
    // and the fastest), else in a table of the matcher keyed by node: the nodes stay untouched.
    o << "  static int opOf(NodePtr p) { return burg_op(p); }\n"
         "  static NodePtr kidOf(NodePtr p, int i) { return burg_kid(p, i); }\n"
         "  // A node's state: in the slot burg_state(p) when the prologue declares it, else in stateTable_.\n"
         "  template <class N, class = void>\n"
         "  struct StateInNode : std::false_type {};\n"
         "  template <class N>\n"
         "  struct StateInNode<N, std::void_t<decltype(burg_state(std::declval<N>()))>> : std::true_type {};\n"
         "  template <class N = NodePtr>\n"
         "  State* stateOf(N p) const {\n"
         "    if constexpr (StateInNode<N>::value) {\n"
         "      return static_cast<State*>(burg_state(p));\n"
         "    } else {\n"
         "      auto it = stateTable_.find(p);\n"
         "      return it == stateTable_.end() ? nullptr : it->second;\n"
         "    }\n"
         "  }\n"
         "  template <class N = NodePtr>\n"
         "  void setState(N p, State* s) {\n"
         "    if constexpr (StateInNode<N>::value)\n"
         "      burg_state(p) = s;\n"
         "    else\n"
         "      stateTable_[p] = s;\n"
         "  }\n"
         "  void forgetStates() { stateTable_.clear(); }\n"
         "  std::unordered_map<NodePtr, State*> stateTable_;  // without burg_state: each labeled node's state\n";
    return;
  }
  // iburg's macros: STATE_LABEL may be a pointer or an integer wide enough for one. The
  // conversions are templates so that only the branch for the label's type is compiled.
  o << "  static int opOf(NodePtr p) { return OP_LABEL(p); }\n"
       "  static NodePtr kidOf(NodePtr p, int i) { return i == 0 ? LEFT_CHILD(p) : RIGHT_CHILD(p); }\n"
       "  template <class Label>\n"
       "  static State* labelState(Label label) {\n"
       "    if constexpr (std::is_pointer_v<Label>) {\n"
       "      return reinterpret_cast<State*>(label);\n"
       "    } else {\n"
       "      static_assert(sizeof(Label) >= sizeof(void*), \"STATE_LABEL must be a pointer or an integer that holds "
       "one\");\n"
       "      return reinterpret_cast<State*>(static_cast<std::uintptr_t>(label));\n"
       "    }\n"
       "  }\n"
       "  template <class Label>\n"
       "  static Label stateLabel(State* s) {\n"
       "    if constexpr (std::is_pointer_v<Label>)\n"
       "      return reinterpret_cast<Label>(s);\n"
       "    else\n"
       "      return static_cast<Label>(reinterpret_cast<std::uintptr_t>(s));\n"
       "  }\n"
       "  static State* stateOf(NodePtr p) { return labelState(STATE_LABEL(p)); }\n"
       "  static void setState(NodePtr p, State* s) {\n"
       "    STATE_LABEL(p) = stateLabel<std::remove_reference_t<decltype(STATE_LABEL(p))>>(s);\n"
       "  }\n"
       "  static void forgetStates() {}  // each label() overwrites the STATE_LABELs it reaches\n";
}

void writeNameTables(std::ostream& o, const burgspec::Grammar& g, const std::string& cls) {
  o << "const char* " << cls << "::opName(int op) {\n  switch (op) {\n";
  for (const auto& t : g.terminals) o << "    case " << t.number << ": return " << cString(t.name) << ";\n";
  o << "  }\n  return \"?\";\n}\n\n";

  o << "int " << cls << "::arity(int op) {\n  switch (op) {\n";
  for (const auto& t : g.terminals)
    if (t.arity > 0) o << "    case " << t.number << ": return " << t.arity << ";  // " << t.name << "\n";
  o << "  }\n  return 0;\n}\n\n";

  o << "const char* " << cls << "::nonterminalName(int nt) {\n"
    << "  static const char* const names[] = {\"\"";
  for (const auto& n : g.nonterminals) o << ", " << cString(n.name);
  o << "};\n"
    << "  return nt >= 1 && nt <= kNonterminals ? names[nt] : \"?\";\n}\n\n";
}

void writeDrawingInterface(std::ostream& o) {
  o << "  // For drawing a labeled tree: a node's number in labeling order, its operator and kids; and\n"
       "  // a cover's rules top down, each with its node, nonterminal, rule (number and text), the\n"
       "  // cost of the subtree from that nonterminal and its depth in the cover.\n"
       "  int nodeId(NodePtr node) const { return stateOf(node)->id; }\n"
       "  static int nodeOp(NodePtr node) { return opOf(node); }\n"
       "  static NodePtr nodeKid(NodePtr node, int i) { return kidOf(node, i); }\n"
       "  struct CoverStep {\n"
       "    int node;\n"
       "    int nt;\n"
       "    int rule;\n"
       "    std::string text;\n"
       "    Cost cost;\n"
       "    int depth;\n"
       "  };\n";
}

void writeHtmlEscape(std::ostream& o, const std::string& prefix) {
  o << "namespace {\n"
    << "std::string " << prefix << "Html(const char* text) {\n"
    << "  std::string out;\n"
    << "  for (; *text; ++text) {\n"
    << "    switch (*text) {\n"
    << "      case '<': out += \"&lt;\"; break;\n"
    << "      case '>': out += \"&gt;\"; break;\n"
    << "      case '&': out += \"&amp;\"; break;\n"
    << "      case '\"': out += \"&quot;\"; break;\n"
    << "      default: out += *text;\n"
    << "    }\n  }\n  return out;\n}\n"
    << "}  // namespace\n\n";
}

namespace {

// What writeSpecCode leaves after the spec's code: a line no C++ code consists of.
const std::string kResumeMark = "#line burggen_resumes_the_generated_source";

// Replaces each resume mark by "#line N \"source\"", N the number of the line after it.
std::string resolveResumeMarks(const std::string& text, const std::string& sourcePath) {
  std::string out;
  out.reserve(text.size());
  size_t lineNumber = 1;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    size_t next = end == std::string::npos ? text.size() : end + 1;
    if (text.compare(at, end - at, kResumeMark) == 0 && end != std::string::npos)
      out += "#line " + std::to_string(lineNumber + 1) + " " + cString(sourcePath) + "\n";
    else
      out.append(text, at, next - at);
    ++lineNumber;
    at = next;
  }
  return out;
}

void openNamespace(std::ostream& o, const EmitOptions& opt) {
  if (!opt.nameSpace.empty()) o << "namespace " << opt.nameSpace << " {\n\n";
}

void closeNamespace(std::ostream& o, const EmitOptions& opt) {
  if (!opt.nameSpace.empty()) o << "}  // namespace " << opt.nameSpace << "\n";
}

}  // namespace

void writeSpecCode(std::ostream& o, const EmitOptions& opt, common::SourceLoc loc, const std::string& code) {
  bool placed = !opt.specPath.empty() && !opt.sourcePath.empty() && loc.valid();
  if (!placed) {
    o << code;
    return;
  }
  o << "\n#line " << loc.line << " " << cString(opt.specPath) << "\n"
    << std::string(loc.col - 1, ' ') << code << "\n"
    << kResumeMark << "\n";
}

void assembleMatcher(const burgspec::Grammar& g, const EmitOptions& opt,
                     std::initializer_list<const char*> extraIncludes,
                     const std::function<void(std::ostream&)>& declarations,
                     const std::function<void(std::ostream&)>& definitions, EmittedMatcher& out) {
  std::ostringstream banner;
  banner << "// A tree matcher generated by burggen";
  if (!opt.specName.empty()) banner << " from " << opt.specName;
  banner << ". Do not edit; edit the spec.\n\n";

  std::ostringstream decl;
  writeIncludes(decl, extraIncludes);
  if (!g.prologue.empty()) decl << g.prologue << "\n\n";
  openNamespace(decl, opt);
  declarations(decl);
  closeNamespace(decl, opt);

  std::ostringstream src;
  src << banner.str();
  if (opt.headerIncludeName.empty()) {
    src << decl.str();
  } else {
    out.header = banner.str() + "#pragma once\n" + decl.str();
    src << "#include \"" << opt.headerIncludeName << "\"\n\n";
  }
  src << "#include <sstream>\n\n";
  openNamespace(src, opt);
  definitions(src);
  closeNamespace(src, opt);
  if (!g.epilogue.empty()) src << "\n" << g.epilogue << "\n";
  out.source =
      opt.specPath.empty() || opt.sourcePath.empty() ? src.str() : resolveResumeMarks(src.str(), opt.sourcePath);
}
}  // namespace burggen
