#include "burggen/emitter.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>
#include <vector>

#include "burggen/kbest_emitter.hpp"
#include "burggen/matcher_parts.hpp"
#include "burggen/reducer_writer.hpp"
#include "burggen/rule_facts.hpp"
#include "burggen/string_literal.hpp"
#include "burgspec/identifiers.hpp"

namespace burggen {

using burgspec::Grammar;
using burgspec::Pattern;
using burgspec::Rule;
using common::Diagnostics;

bool isIdentifier(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

std::string namespaceNameProblem(const std::string& name) {
  size_t at = 0;
  while (true) {
    size_t end = name.find("::", at);
    std::string part = name.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (!isIdentifier(part)) return "is not a C++ namespace name";
    if (auto why = burgspec::unusableIdentifier(part))
      return part == name ? *why : "holds '" + part + "', which " + *why;
    if (end == std::string::npos) return "";
    at = end + 2;
  }
}

namespace {

// How the generated class describes its order of trial.
const char* tieComment(TieOrder order) {
  switch (order) {
    case TieOrder::Iburg:
      return "iburg's order: an operator's rules are tried last to first and one replaces a match only\n"
             "// when strictly cheaper, except at leaves, where the one written first wins; chain rules\n"
             "// likewise last to first";
    case TieOrder::Lburg:
      return "lburg's order: an operator's rules are tried first to last, chain rules last to first,\n"
             "// and one replaces a match only when strictly cheaper";
    case TieOrder::First:
      break;
  }
  return "the one written first wins: rules are tried in the order of the spec, and one\n"
         "// replaces a match only when strictly cheaper";
}

class MatcherWriter {
 public:
  MatcherWriter(const Grammar& g, const EmitOptions& o, common::Diagnostics& d) : g_(g), opt_(o), diag_(d) {}

  bool write(EmittedMatcher& out);

 private:
  bool collect();

  std::string name(const std::string& suffix) const { return opt_.prefix + suffix; }
  std::string cls() const { return name("Matcher"); }
  std::string ntConst(int nt) const { return g_.nonterminals[nt - 1].name + "_NT"; }
  // The C++ type a nonterminal's reduction yields ("void" without %type).
  std::string resultType(int nt) const {
    const std::string& t = g_.nonterminals[nt - 1].resultType;
    return t.empty() ? "void" : t;
  }
  bool typed(int nt) const { return !g_.nonterminals[nt - 1].resultType.empty(); }
  std::string ruleComment(const RuleFacts& r) const { return "rule " + std::to_string(r.rule->number) + ": " + r.text; }
  int arity(const burgspec::Terminal& t) const { return std::max(t.arity, 0); }

  void writeDeclarations(std::ostream& o) const;
  void writeDefinitions(std::ostream& o) const;
  void writeTables(std::ostream& o) const;
  void writeLabeler(std::ostream& o) const;
  void writeMatch(std::ostream& o, const RuleFacts& r, const std::string& indent, bool orEqual) const;
  void writeClosures(std::ostream& o) const;
  void writeRecordAndClose(std::ostream& o, const RuleFacts& r, const std::string& cost, const std::string& indent,
                           bool orEqual = false) const;
  void writeDynamicCosts(std::ostream& o) const;
  void writeReducer(std::ostream& o) const;
  void writeActions(std::ostream& o) const;
  void writeExplanations(std::ostream& o) const;
  std::string actionSignature(const RuleFacts& r, bool qualified) const;
  bool hasClosure(int nt) const { return !chainsFrom_[nt].empty(); }

  const Grammar& g_;
  const EmitOptions& opt_;
  common::Diagnostics& diag_;
  GrammarFacts facts_;
  const std::vector<RuleFacts>& rules_ = facts_.rules;
  // The rules in the order the labeler tries them (EmitOptions::ties).
  std::vector<std::vector<const RuleFacts*>> chainsFrom_;
  std::map<int, std::vector<const RuleFacts*>> baseRulesByOp_;
  const int& start_ = facts_.start;
  const size_t& maxLeaves_ = facts_.maxLeaves;
};

bool MatcherWriter::collect() {
  if (!collectFacts(g_, opt_, diag_, facts_)) return false;
  chainsFrom_ = facts_.chainsFrom;
  baseRulesByOp_ = facts_.baseRulesByOp;
  TiePolicy ties = tiePolicy(opt_.ties);
  if (ties.baseRulesReversed)
    for (auto& entry : baseRulesByOp_) std::reverse(entry.second.begin(), entry.second.end());
  if (ties.chainRulesReversed)
    for (auto& list : chainsFrom_) std::reverse(list.begin(), list.end());
  return true;
}

std::string MatcherWriter::actionSignature(const RuleFacts& r, bool qualified) const {
  std::string out = resultType(r.lhs) + " " + (qualified ? cls() + "::" : "") + "action" +
                    std::to_string(r.rule->number) + "(NodePtr node";
  for (const Leaf& l : r.leaves)
    if (!l.binding.empty()) out += ", " + (typed(l.nt) ? resultType(l.nt) : std::string("NodePtr")) + " " + l.binding;
  for (const NodeBinding& b : r.nodeBindings) out += ", NodePtr " + b.name;
  return out + ")";
}

void MatcherWriter::writeDeclarations(std::ostream& o) const {
  const std::string P = opt_.prefix;
  writePreamble(o, g_, P);
  const std::string nodeType = g_.nodeType.empty() ? "NODEPTR_TYPE" : g_.nodeType;
  o << "// The tree matcher. Nodes are the caller's; the matcher reaches them only through\n";
  if (g_.nodeType.empty())
    o << "// iburg's macros OP_LABEL(p), LEFT_CHILD(p), RIGHT_CHILD(p) and STATE_LABEL(p) (a pointer or\n"
         "// an integer slot that holds the matcher's state of the node).\n";
  else
    o << "// functions the prologue declares: int burg_op(NodePtr), NodePtr burg_kid(NodePtr, int i)\n"
         "// (0-based) and optionally void*& burg_state(NodePtr), a slot where the matcher keeps the\n"
         "// node's state; without it, the matcher keeps the states in a table keyed by node.\n";
  o << "// label(root) computes, bottom up, the cheapest rule for every node and nonterminal (of rules\n"
    << "// of equal cost, " << tieComment(opt_.ties)
    << "). reduce() then walks the chosen cover\n"
       "// from a nonterminal, running actions kids first. States live in chunks the matcher owns,\n"
       "// reused by the next label(); a tree's labels last until then.\n";
  o << "class " << cls() << " {\n public:\n"
    << "  using NodePtr = " << nodeType << ";\n"
    << "  using Cost = " << P << "Cost;\n"
    << "  static constexpr Cost INF = " << P << "Infinity;\n\n"
    << "  enum Nonterminal : int {\n";
  for (size_t i = 0; i < g_.nonterminals.size(); ++i)
    o << "    " << ntConst(static_cast<int>(i) + 1) << " = " << i + 1 << ",\n";
  o << "  };\n"
    << "  static constexpr int kNonterminals = " << g_.nonterminals.size() << ";\n"
    << "  static constexpr int kStart = " << ntConst(start_) << ";\n\n"
    << "  explicit " << cls() << "(" << P << "Context* context = nullptr) : ctx(context) {}\n\n"
    << "  " << P << "Context* ctx;             // seen by costs and actions\n"
    << "  std::ostream* trace = nullptr;  // when set, labeling writes every match to it\n\n"
    << "  // Labels the tree; true when the root derives from the start nonterminal.\n"
    << "  bool label(NodePtr root);\n"
    << "  // After label(): the cost of deriving `node` from `nt` (INF when it does not), and the\n"
    << "  // rule chosen for it (its number in the spec and its text; 0 and \"\" when none).\n"
    << "  Cost cost(NodePtr node, int nt) const { return stateOf(node)->cost[nt]; }\n"
    << "  int ruleNumber(NodePtr node, int nt) const { return kRules[stateOf(node)->rule[nt]].number; }\n"
    << "  const char* ruleText(NodePtr node, int nt) const { return kRules[stateOf(node)->rule[nt]].text; }\n\n"
    << "  // Reduces `root` from the start nonterminal, or `node` from `nt`, or from one nonterminal\n"
    << "  // by name; throws " << P << "NoCover where the labels hold no derivation.\n"
    << "  " << resultType(start_) << " reduce(NodePtr root);\n"
    << "  void reduce(NodePtr node, int nt);\n";
  for (size_t i = 1; i <= g_.nonterminals.size(); ++i)
    o << "  " << resultType(static_cast<int>(i)) << " reduce_" << g_.nonterminals[i - 1].name << "(NodePtr node);\n";
  o << "\n"
    << "  // The chosen cover as indented text, one rule a line; and the labeled tree in Graphviz's\n"
    << "  // DOT language, every node with its cost per nonterminal, the chosen rules highlighted.\n"
    << "  void printCover(std::ostream& out, NodePtr root, int nt = kStart) const;\n"
    << "  std::string cover(NodePtr root, int nt = kStart) const;\n"
    << "  void printDot(std::ostream& out, NodePtr root, int nt = kStart) const;\n\n"
    << "  static const char* opName(int op);\n"
    << "  static const char* nonterminalName(int nt);\n"
    << "  static int arity(int op);\n\n";
  writeDrawingInterface(o);
  o << "  std::vector<CoverStep> coverSteps(NodePtr root, int nt = kStart) const;\n"
    << "  // When set, label() appends to it every match it tries (what `trace` prints) and, once a\n"
    << "  // node's matches are done, a step with nt 0; null (the default), it costs nothing.\n"
    << "  struct LabelStep {\n"
    << "    int node;          // the node's number in labeling order\n"
    << "    int nt;            // the nonterminal matched; 0: the node is labeled\n"
    << "    Cost cost;\n"
    << "    int rule;          // the rule's number in the spec\n"
    << "    const char* text;  // the rule's text\n"
    << "    bool better;       // whether it improved the node's entry for nt\n"
    << "    bool chain;        // a chain rule, tried because its right side improved\n"
    << "  };\n"
    << "  std::vector<LabelStep>* steps = nullptr;\n\n"
    << " private:\n"
    << "  using RuleIndex = " << (rules_.size() < 32767 ? "short" : "int") << ";\n"
    << "  struct State {\n"
    << "    int op;\n"
    << "    int id;  // names the node in traces and pictures: nodes are numbered top down from the root, 0\n"
    << "    Cost cost[kNonterminals + 1];\n"
    << "    RuleIndex rule[kNonterminals + 1];  // index into kRules; 0: none\n"
    << "  };\n"
    << "  struct RuleInfo {\n"
    << "    int number;\n"
    << "    int lhs;\n"
    << "    const char* text;\n"
    << "    bool chain;\n"
    << "  };\n"
    << "  static const RuleInfo kRules[];\n"
    << "  static constexpr int kMaxKids = " << maxLeaves_ << ";\n"
    << "  static constexpr int kChunkStates = 4096;\n\n";
  writeNodeInterface(o, g_);
  o << "\n"
    << "  static Cost add(Cost a, Cost b) { return " << P << "Add(a, b); }\n"
    << "  static Cost dynamicCost(Cost c) { return c < 0 ? 0 : c; }\n"
    << "  State* newState();\n"
    << "  State* labelNode(NodePtr node);\n"
    << "  // Keeps `c` for `nt` when it beats what the node has (or, with orEqual, equals it); says\n"
    << "  // whether it did.\n"
    << "  bool record(State* s, int nt, Cost c, int rule, bool orEqual = false) {\n"
    << "    if (c >= INF) return false;\n"
    << "    bool better = c < s->cost[nt] || (orEqual && c == s->cost[nt]);\n"
    << "    if (trace) traceMatch(*s, c, rule, better);\n"
    << "    if (steps) steps->push_back({s->id, nt, c, kRules[rule].number, kRules[rule].text, better, "
       "kRules[rule].chain});\n"
    << "    if (!better) return false;\n"
    << "    s->cost[nt] = c;\n"
    << "    s->rule[nt] = static_cast<RuleIndex>(rule);\n"
    << "    return true;\n"
    << "  }\n"
    << "  void traceMatch(const State& s, Cost c, int rule, bool better) const;\n";
  for (size_t nt = 1; nt <= g_.nonterminals.size(); ++nt)
    if (hasClosure(static_cast<int>(nt)))
      o << "  void closure_" << g_.nonterminals[nt - 1].name << "(NodePtr node, State* s, Cost c);\n";
  for (const RuleFacts& r : rules_)
    if (r.rule->cost.dynamic) o << "  Cost dynamicCost" << r.rule->number << "(NodePtr node);\n";
  for (const RuleFacts& r : rules_)
    if (r.rule->action) o << "  " << actionSignature(r, false) << ";\n";
  o << "  " << P << "NoCover noCover(NodePtr node, int nt) const;\n"
    << "  int ruleKids(NodePtr node, int rule, NodePtr kids[], int nts[]) const;\n"
    << "  void printCover(std::ostream& out, NodePtr node, int nt, int depth) const;\n"
    << "  void markCover(NodePtr node, int nt, std::vector<std::vector<bool>>& chosen) const;\n"
    << "  void printDotNode(std::ostream& out, NodePtr node, const std::vector<std::vector<bool>>& chosen) const;\n\n"
    << "  std::vector<std::unique_ptr<State[]>> chunks_;\n"
    << "  size_t chunk_ = 0;  // the chunk being filled\n"
    << "  int used_ = 0;      // states taken from it\n"
    << "  int nextId_ = 0;\n"
    << "};\n\n";
}

void MatcherWriter::writeTables(std::ostream& o) const {
  o << "const " << cls() << "::RuleInfo " << cls() << "::kRules[] = {\n"
    << "    {0, 0, \"\", false},\n";
  for (const RuleFacts& r : rules_)
    o << "    {" << r.rule->number << ", " << ntConst(r.lhs) << ", " << cString(r.text) << ", "
      << (r.rule->isChain() ? "true" : "false") << "},\n";
  o << "};\n\n";

  writeNameTables(o, g_, cls());
}

void MatcherWriter::writeRecordAndClose(std::ostream& o, const RuleFacts& r, const std::string& cost,
                                        const std::string& indent, bool orEqual) const {
  std::string record =
      "record(s, " + ntConst(r.lhs) + ", " + cost + ", " + std::to_string(r.index) + (orEqual ? ", true)" : ")");
  if (hasClosure(r.lhs))
    o << indent << "if (" << record << ") closure_" << g_.nonterminals[r.lhs - 1].name << "(node, s, s->cost["
      << ntConst(r.lhs) << "]);\n";
  else
    o << indent << record << ";\n";
}

// The cost of `r` at `node`, given that its operators matched: its kids' costs plus its own.
void MatcherWriter::writeMatch(std::ostream& o, const RuleFacts& r, const std::string& indent, bool orEqual) const {
  std::string sum;
  for (const Leaf& l : r.leaves) {
    std::string term = stateExpr(l.path) + "->cost[" + ntConst(l.nt) + "]";
    sum = sum.empty() ? term : "add(" + sum + ", " + term + ")";
  }
  const burgspec::Cost& cost = r.rule->cost;
  if (!cost.dynamic) {
    if (cost.value != 0 || sum.empty()) {
      std::string value = std::to_string(cost.value);
      sum = sum.empty() ? value : "add(" + sum + ", " + value + ")";
    }
    writeRecordAndClose(o, r, sum, indent, orEqual);
    return;
  }
  // A dynamic cost runs only where the kids derive: it may be dear (cudaburg times kernels).
  std::string dyn = "dynamicCost" + std::to_string(r.rule->number) + "(node)";
  if (sum.empty()) {
    writeRecordAndClose(o, r, dyn, indent, orEqual);
    return;
  }
  o << indent << "Cost c = " << sum << ";\n" << indent << "if (c < INF) {\n";
  writeRecordAndClose(o, r, "add(c, " + dyn + ")", indent + "  ", orEqual);
  o << indent << "}\n";
}

void MatcherWriter::writeLabeler(std::ostream& o) const {
  const std::string C = cls();
  o << "bool " << C << "::label(NodePtr root) {\n"
    << "  chunk_ = 0;\n  used_ = 0;\n  nextId_ = 0;\n  forgetStates();\n"
    << "  return labelNode(root)->cost[kStart] < INF;\n}\n\n";
  o << C << "::State* " << C << "::newState() {\n"
    << "  if (used_ == kChunkStates) {\n    ++chunk_;\n    used_ = 0;\n  }\n"
    << "  if (chunk_ == chunks_.size()) chunks_.emplace_back(new State[kChunkStates]);\n"
    << "  return &chunks_[chunk_][used_++];\n}\n\n";

  o << C << "::State* " << C << "::labelNode(NodePtr node) {\n"
    << "  State* s = newState();\n"
    << "  s->op = opOf(node);\n"
    << "  s->id = nextId_++;\n"
    << "  for (int nt = 1; nt <= kNonterminals; ++nt) {\n"
    << "    s->cost[nt] = INF;\n    s->rule[nt] = 0;\n  }\n"
    << "  setState(node, s);\n"
    << "  switch (s->op) {\n";
  for (const auto& t : g_.terminals) {
    auto rules = baseRulesByOp_.find(t.number);
    o << "    case " << t.number << ": {  // " << t.name << "\n";
    int n = arity(t);
    bool orEqual = n == 0 && tiePolicy(opt_.ties).leafReplacesOnEqual;
    std::vector<bool> used(n, false);
    if (rules != baseRulesByOp_.end())
      for (const RuleFacts* r : rules->second) {
        for (const Leaf& l : r->leaves) used[l.path[0]] = true;
        for (const OpTest& test : r->tests) used[test.path[0]] = true;
      }
    for (int i = 0; i < n; ++i) {
      if (used[i])
        o << "      State* k" << i << " = labelNode(kidOf(node, " << i << "));\n";
      else
        o << "      labelNode(kidOf(node, " << i << "));\n";
    }
    if (rules != baseRulesByOp_.end())
      for (const RuleFacts* r : rules->second) {
        o << "      // " << ruleComment(*r) << "\n";
        bool needsLocal = r->rule->cost.dynamic && !r->leaves.empty();
        if (r->tests.empty() && !needsLocal) {
          writeMatch(o, *r, "      ", orEqual);
          continue;
        }
        if (r->tests.empty()) {
          o << "      {\n";
        } else {
          o << "      if (";
          for (size_t i = 0; i < r->tests.size(); ++i)
            o << (i ? " && " : "") << stateExpr(r->tests[i].path) << "->op == " << r->tests[i].op;
          o << ") {\n";
        }
        writeMatch(o, *r, "        ", orEqual);
        o << "      }\n";
      }
    o << "      break;\n    }\n";
  }
  o << "  }\n"
    << "  if (steps) steps->push_back({s->id, 0, 0, 0, \"\", false, false});\n"
    << "  return s;\n}\n\n";
}

void MatcherWriter::writeClosures(std::ostream& o) const {
  for (size_t nt = 1; nt <= g_.nonterminals.size(); ++nt) {
    if (!hasClosure(static_cast<int>(nt))) continue;
    // Every chain rule from this nonterminal, tried again whenever its cost improves.
    o << "void " << cls() << "::closure_" << g_.nonterminals[nt - 1].name << "(NodePtr node, State* s, Cost c) {\n";
    bool usesNode = false;
    for (const RuleFacts* r : chainsFrom_[nt]) usesNode = usesNode || r->rule->cost.dynamic || hasClosure(r->lhs);
    if (!usesNode) o << "  (void)node;\n";
    for (const RuleFacts* r : chainsFrom_[nt]) {
      o << "  // " << ruleComment(*r) << "\n";
      const burgspec::Cost& cost = r->rule->cost;
      std::string total = cost.dynamic ? "add(c, dynamicCost" + std::to_string(r->rule->number) + "(node))"
                          : cost.value ? "add(c, " + std::to_string(cost.value) + ")"
                                       : "c";
      writeRecordAndClose(o, *r, total, "  ");
    }
    o << "}\n\n";
  }
}

void MatcherWriter::writeDynamicCosts(std::ostream& o) const {
  for (const RuleFacts& r : rules_) {
    if (!r.rule->cost.dynamic) continue;
    o << "// " << ruleComment(r) << "\n"
      << cls() << "::Cost " << cls() << "::dynamicCost" << r.rule->number << "(NodePtr node) {\n";
    for (const Leaf& l : r.leaves)
      if (!l.binding.empty()) o << "  NodePtr " << l.binding << " = " << nodeExpr(l.path) << ";\n";
    for (const NodeBinding& b : r.nodeBindings) o << "  NodePtr " << b.name << " = " << nodeExpr(b.path) << ";\n";
    o << "  (void)node;\n";
    for (const Leaf& l : r.leaves)
      if (!l.binding.empty()) o << "  (void)" << l.binding << ";\n";
    for (const NodeBinding& b : r.nodeBindings) o << "  (void)" << b.name << ";\n";
    o << "  return dynamicCost(static_cast<Cost>(";
    writeSpecCode(o, opt_, r.rule->cost.loc, r.rule->cost.code);
    o << "));\n}\n\n";
  }
}

void MatcherWriter::writeActions(std::ostream& o) const {
  for (const RuleFacts& r : rules_) {
    if (!r.rule->action) continue;
    o << "// " << ruleComment(r) << "\n" << actionSignature(r, true) << " {\n  (void)node;\n";
    for (const Leaf& l : r.leaves)
      if (!l.binding.empty()) o << "  (void)" << l.binding << ";\n";
    for (const NodeBinding& b : r.nodeBindings) o << "  (void)" << b.name << ";\n";
    writeSpecCode(o, opt_, diag_.file().locate(r.rule->actionOffset), *r.rule->action);
    o << "\n}\n\n";
  }
}

void MatcherWriter::writeReducer(std::ostream& o) const {
  ReducerStyle style;
  style.cls = cls();
  style.prefix = opt_.prefix;
  style.byNumber = true;
  style.openSwitch = [this](std::ostream& out, int nt) {
    out << "  switch (stateOf(node)->rule[" << ntConst(nt) << "]) {\n";
  };
  burggen::writeReducer(o, g_, facts_, style);
}

void MatcherWriter::writeExplanations(std::ostream& o) const {
  const std::string C = cls();
  o << opt_.prefix << "NoCover " << C << "::noCover(NodePtr node, int nt) const {\n"
    << "  return " << opt_.prefix
    << "NoCover(std::string(\"no cover of node #\") + std::to_string(stateOf(node)->id) + \" (\" +\n"
    << "                  opName(stateOf(node)->op) + \") as \" + nonterminalName(nt));\n}\n\n";

  o << "int " << C << "::ruleKids(NodePtr node, int rule, NodePtr kids[], int nts[]) const {\n"
    << "  (void)node;\n  (void)kids;\n  (void)nts;\n"
    << "  switch (rule) {\n";
  for (const RuleFacts& r : rules_) {
    if (r.leaves.empty()) continue;
    o << "    case " << r.index << ":  // " << ruleComment(r) << "\n";
    for (size_t i = 0; i < r.leaves.size(); ++i)
      o << "      kids[" << i << "] = " << nodeExpr(r.leaves[i].path) << ";\n"
        << "      nts[" << i << "] = " << ntConst(r.leaves[i].nt) << ";\n";
    o << "      return " << r.leaves.size() << ";\n";
  }
  o << "  }\n  return 0;\n}\n\n";

  o << "void " << C << "::traceMatch(const State& s, Cost c, int rule, bool better) const {\n"
    << "  *trace << '#' << s.id << ' ' << opName(s.op) << \": \" << kRules[rule].text << \" = \" << "
       "kRules[rule].number\n"
    << "         << \"  cost \" << c"
    << " << (better ? \"\" : \"  (not better)\") << '\\n';\n}\n\n";

  o << "void " << C << "::printCover(std::ostream& out, NodePtr root, int nt) const {\n"
    << "  printCover(out, root, nt, 0);\n}\n\n"
    << "std::string " << C << "::cover(NodePtr root, int nt) const {\n"
    << "  std::ostringstream out;\n  printCover(out, root, nt);\n  return out.str();\n}\n\n"
    << "void " << C << "::printCover(std::ostream& out, NodePtr node, int nt, int depth) const {\n"
    << "  const State* s = stateOf(node);\n"
    << "  int rule = s->rule[nt];\n"
    << "  out << std::string(2 * depth, ' ');\n"
    << "  if (rule == 0) {\n"
    << "    out << \"no cover for \" << nonterminalName(nt) << \"  [#\" << s->id << ' ' << opName(s->op) << \"]\\n\";\n"
    << "    return;\n  }\n"
    << "  out << kRules[rule].text << \"  [#\" << s->id << ' ' << opName(s->op) << \", cost \" << s->cost[nt] << "
       "\"]\\n\";\n"
    << "  NodePtr kids[kMaxKids];\n  int nts[kMaxKids];\n"
    << "  int n = ruleKids(node, rule, kids, nts);\n"
    << "  for (int i = 0; i < n; ++i) printCover(out, kids[i], nts[i], depth + 1);\n}\n\n";

  o << "void " << C << "::markCover(NodePtr node, int nt, std::vector<std::vector<bool>>& chosen) const {\n"
    << "  const State* s = stateOf(node);\n"
    << "  chosen[s->id][nt] = true;\n"
    << "  NodePtr kids[kMaxKids];\n  int nts[kMaxKids];\n"
    << "  int n = ruleKids(node, s->rule[nt], kids, nts);\n"
    << "  for (int i = 0; i < n; ++i) markCover(kids[i], nts[i], chosen);\n}\n\n";

  o << "std::vector<" << C << "::CoverStep> " << C << "::coverSteps(NodePtr root, int nt) const {\n"
    << "  struct Pending {\n    NodePtr node;\n    int nt;\n    int depth;\n  };\n"
    << "  std::vector<CoverStep> out;\n"
    << "  std::vector<Pending> todo{{root, nt, 0}};\n"
    << "  while (!todo.empty()) {\n"
    << "    Pending p = todo.back();\n"
    << "    todo.pop_back();\n"
    << "    const State* s = stateOf(p.node);\n"
    << "    int rule = s->rule[p.nt];\n"
    << "    if (rule == 0) throw noCover(p.node, p.nt);\n"
    << "    out.push_back({s->id, p.nt, kRules[rule].number, kRules[rule].text, s->cost[p.nt], p.depth});\n"
    << "    NodePtr kids[kMaxKids];\n    int nts[kMaxKids];\n"
    << "    for (int i = ruleKids(p.node, rule, kids, nts) - 1; i >= 0; --i) todo.push_back({kids[i], nts[i], p.depth "
       "+ 1});\n"
    << "  }\n  return out;\n}\n\n";

  writeHtmlEscape(o, opt_.prefix);

  o << "void " << C << "::printDot(std::ostream& out, NodePtr root, int nt) const {\n"
    << "  std::vector<std::vector<bool>> chosen(nextId_, std::vector<bool>(kNonterminals + 1));\n"
    << "  markCover(root, nt, chosen);\n"
    << "  out << \"digraph labeled_tree {\\n\"\n"
    << "      << \"  node [shape=plaintext, fontname=\\\"Helvetica\\\", fontsize=11];\\n\";\n"
    << "  printDotNode(out, root, chosen);\n"
    << "  out << \"}\\n\";\n}\n\n";

  o << "void " << C << "::printDotNode(std::ostream& out, NodePtr node,\n"
    << "                          const std::vector<std::vector<bool>>& chosen) const {\n"
    << "  const State* s = stateOf(node);\n"
    << "  bool reduced = false;\n"
    << "  for (int nt = 1; nt <= kNonterminals; ++nt) reduced = reduced || chosen[s->id][nt];\n"
    << "  // The node's title: what the prologue's BURG_NODE_TEXT(node) says (a std::string), or\n"
    << "  // its operator and number.\n"
    << "#ifdef BURG_NODE_TEXT\n"
    << "  std::string title = \"<b>\" + " << opt_.prefix
    << "Html(std::string(BURG_NODE_TEXT(node)).c_str()) + \"</b>\";\n"
    << "#else\n"
    << "  std::string title = \"<b>\" + " << opt_.prefix
    << "Html(opName(s->op)) + \"</b> #\" + std::to_string(s->id);\n"
    << "#endif\n"
    << "  // A node inside a larger pattern is greyed: no rule of the cover starts at it.\n"
    << "  out << \"  n\" << s->id << \" [label=<<table border=\\\"0\\\" cellborder=\\\"1\\\" cellspacing=\\\"0\\\">\"\n"
    << "      << \"<tr><td colspan=\\\"3\\\" bgcolor=\\\"\" << (reduced ? \"#cfe2f3\" : \"#eeeeee\") << \"\\\">\"\n"
    << "      << title << \"</td></tr>\";\n"
    << "  for (int nt = 1; nt <= kNonterminals; ++nt) {\n"
    << "    if (s->cost[nt] >= INF) continue;\n"
    << "    const char* open = chosen[s->id][nt] ? \"<td bgcolor=\\\"#ffd966\\\"><b>\" : \"<td>\";\n"
    << "    const char* close = chosen[s->id][nt] ? \"</b></td>\" : \"</td>\";\n"
    << "    out << \"<tr>\" << open << nonterminalName(nt) << close << open << s->cost[nt] << close << open\n"
    << "        << " << opt_.prefix
    << "Html(kRules[s->rule[nt]].text) << \" = \" << kRules[s->rule[nt]].number << close\n"
    << "        << \"</tr>\";\n"
    << "  }\n"
    << "  out << \"</table>>];\\n\";\n"
    << "  for (int i = 0; i < arity(s->op); ++i) {\n"
    << "    NodePtr kid = kidOf(node, i);\n"
    << "    printDotNode(out, kid, chosen);\n"
    << "    out << \"  n\" << s->id << \" -> n\" << stateOf(kid)->id << \";\\n\";\n"
    << "  }\n}\n\n";
}

void MatcherWriter::writeDefinitions(std::ostream& o) const {
  writeTables(o);
  writeLabeler(o);
  writeClosures(o);
  writeDynamicCosts(o);
  writeReducer(o);
  writeActions(o);
  writeExplanations(o);
}

bool MatcherWriter::write(EmittedMatcher& out) {
  if (!collect()) return false;
  assembleMatcher(
      g_, opt_, {}, [this](std::ostream& o) { writeDeclarations(o); }, [this](std::ostream& o) { writeDefinitions(o); },
      out);
  return true;
}

}  // namespace

bool emitMatcher(const Grammar& grammar, const EmitOptions& options, common::Diagnostics& diagnostics,
                 EmittedMatcher& out) {
  if (options.kbest > 0 || grammar.usesDerivations()) return emitKBestMatcher(grammar, options, diagnostics, out);
  MatcherWriter writer(grammar, options, diagnostics);
  return writer.write(out);
}

}  // namespace burggen
