#include "burggen/c_emitter.hpp"

#include <algorithm>
#include <map>
#include <sstream>
#include <vector>

#include "burggen/string_literal.hpp"

namespace burggen {

using burgspec::Grammar;
using burgspec::Pattern;
using burgspec::Rule;

namespace {

// The largest cost a state holds; it also stands for "no derivation", as in iburg and lburg.
constexpr int64_t kMaxCost = 32767;

// A path from a rule's root to a node of its pattern: 0 for the left kid, 1 for the right.
using Path = std::vector<int>;

struct Leaf {
  Path path;
  int nt;
};

struct OpTest {
  Path path;
  int op;
};

// One rule, as the C labeler needs it.
struct CRule {
  const Rule* rule;
  int lhs;
  std::vector<Leaf> leaves;
  std::vector<OpTest> tests;  // operators below the root, parents before kids
  std::string text;           // "reg: ADDI(reg,con)", as the tools print a rule
  bool recalc = false;        // lburg's INDIR(VREGP) pattern, which may copy a common subexpression's state
};

// "lhs: OP(kid,kid)" without spaces, the form burm_string and _string hold.
std::string compactText(const Pattern& p) {
  std::string out = p.symbol;
  if (p.kids.empty()) return out;
  out += '(';
  for (size_t i = 0; i < p.kids.size(); ++i) out += (i ? "," : "") + compactText(p.kids[i]);
  return out + ')';
}

class CMatcherWriter {
 public:
  CMatcherWriter(const Grammar& g, const CEmitOptions& o, common::Diagnostics& d)
      : g_(g), opt_(o), diag_(d), policy_(tiePolicy(o.ties)) {
    // iburg fixes a leaf's labels as it writes the matcher, except under -T.
    if (opt_.dialect == CDialect::Iburg && opt_.traceCalls) policy_.leafReplacesOnEqual = false;
  }

  bool write(std::string& out);

 private:
  bool iburg() const { return opt_.dialect == CDialect::Iburg; }
  // A public name: the prefix, '_', the name ("burm_label", "_label").
  std::string P(const std::string& name) const { return opt_.prefix + "_" + name; }
  std::string ntConst(int nt) const { return P(g_.nonterminals[nt - 1].name + "_NT"); }
  std::string ntName(int nt) const { return g_.nonterminals[nt - 1].name; }
  // Declarations are static in lburg's output, external in iburg's.
  std::string linkage() const { return iburg() ? "" : "static "; }
  std::string stateType() const { return "struct " + P("state"); }

  bool collect();
  void collectPattern(CRule& r, const Pattern& p, Path& path, bool root);
  // The state of the node at `path` below the one being labeled.
  std::string stateAt(const Path& path) const;
  // The node at `path` below `root` (lburg's labeler calls the node a, the rest p).
  std::string nodeAt(const Path& path, const std::string& root) const;
  std::string labeledNodeAt(const Path& path) const { return nodeAt(path, iburg() ? "p" : "a"); }

  void writeHeader(std::ostream& o) const;
  void writeTables(std::ostream& o) const;
  void writeRuleFunction(std::ostream& o) const;
  void writeClosures(std::ostream& o) const;
  void writeRecord(std::ostream& o, const CRule& r, const std::string& cost, const std::string& indent,
                   bool orEqual) const;
  void writeMatch(std::ostream& o, const CRule& r, int arity, const std::string& indent) const;
  void writeCases(std::ostream& o) const;
  void writeIburgLabeler(std::ostream& o) const;
  void writeLburgLabeler(std::ostream& o) const;
  void writeKids(std::ostream& o) const;
  void writeFailure(std::ostream& o, const std::string& indent, const std::string& function, const std::string& message,
                    const std::string& value) const;

  const Grammar& g_;
  const CEmitOptions& opt_;
  common::Diagnostics& diag_;
  TiePolicy policy_;
  std::map<std::string, int> ntNumber_;
  std::vector<CRule> rules_;                            // in the order of the spec
  std::map<int, std::vector<const CRule*>> baseRules_;  // by operator number, in trial order
  std::vector<std::vector<const CRule*>> chains_;       // by the nonterminal on the right, in trial order
  int start_ = 1;
  int maxOp_ = 0;
  int maxRule_ = 0;
};

void CMatcherWriter::collectPattern(CRule& r, const Pattern& p, Path& path, bool root) {
  if (!p.binding.empty())
    diag_.error(p.loc, "bindings ('" + p.binding + ":') need burggen's C++ matcher; the C matchers have none");
  if (!p.isTerminal) {
    r.leaves.push_back({path, ntNumber_.at(p.symbol)});
    return;
  }
  if (p.kids.size() > 2)
    diag_.error(p.loc, "operator '" + p.symbol + "' has " + std::to_string(p.kids.size()) +
                           " operands; iburg's and lburg's trees have at most two");
  if (!root) r.tests.push_back({path, g_.findTerminal(p.symbol)->number});
  for (size_t i = 0; i < p.kids.size(); ++i) {
    path.push_back(static_cast<int>(i));
    collectPattern(r, p.kids[i], path, false);
    path.pop_back();
  }
}

bool CMatcherWriter::collect() {
  for (size_t i = 0; i < g_.nonterminals.size(); ++i) ntNumber_[g_.nonterminals[i].name] = static_cast<int>(i) + 1;
  start_ = ntNumber_.at(g_.start.empty() ? g_.nonterminals[0].name : g_.start);
  if (!g_.nodeType.empty())
    diag_.error(g_.nodeTypeLoc,
                "%node needs burggen's C++ matcher; the C matchers reach nodes through "
                "NODEPTR_TYPE, OP_LABEL, LEFT_CHILD, RIGHT_CHILD and STATE_LABEL");
  for (const auto& type : g_.types)
    diag_.error(type.locs.front(), "%type needs burggen's C++ matcher; the C matchers have no actions");
  for (const auto& t : g_.terminals) maxOp_ = std::max(maxOp_, t.number);
  for (const Rule& rule : g_.rules) {
    CRule r{&rule, ntNumber_.at(rule.lhs), {}, {}, rule.lhs + ": " + compactText(rule.pattern)};
    Path path;
    collectPattern(r, rule.pattern, path, true);
    if (rule.action) diag_.error(rule.actionLoc, "actions need burggen's C++ matcher; the C matchers have none");
    if (!rule.guard.empty())
      diag_.error(rule.guardLoc, "guards ('if (...)') need burggen's C++ matcher; the C matchers have none");
    const burgspec::Cost& cost = rule.cost;
    if (cost.dynamic && iburg())
      diag_.error(cost.loc, "iburg's costs are constants; a cost computed in C needs --lburg or the C++ matcher");
    else if (cost.dynamic && rule.isChain())
      diag_.error(cost.loc, "a chain rule's cost must be a constant in lburg's language");
    else if (!cost.dynamic && cost.value >= kMaxCost)
      diag_.error(cost.loc, "cost " + std::to_string(cost.value) + " is too large: the C matchers keep costs below " +
                                std::to_string(kMaxCost));
    // lcc reuses the labels of a common subexpression held in a register: INDIR*(VREGP).
    r.recalc = !iburg() && rule.pattern.isTerminal && rule.pattern.symbol.rfind("INDIR", 0) == 0 &&
               rule.pattern.kids.size() == 1 && rule.pattern.kids[0].isTerminal &&
               rule.pattern.kids[0].symbol == "VREGP";
    maxRule_ = std::max(maxRule_, rule.number);
    rules_.push_back(std::move(r));
  }
  if (diag_.hasErrors()) return false;
  chains_.resize(g_.nonterminals.size() + 1);
  for (const CRule& r : rules_) {
    if (r.rule->isChain())
      chains_[r.leaves[0].nt].push_back(&r);
    else
      baseRules_[g_.findTerminal(r.rule->pattern.symbol)->number].push_back(&r);
  }
  if (policy_.baseRulesReversed)
    for (auto& entry : baseRules_) std::reverse(entry.second.begin(), entry.second.end());
  if (policy_.chainRulesReversed)
    for (auto& list : chains_) std::reverse(list.begin(), list.end());
  return true;
}

std::string CMatcherWriter::nodeAt(const Path& path, const std::string& root) const {
  std::string out = root;
  for (int i : path) out = std::string(i == 0 ? "LEFT_CHILD(" : "RIGHT_CHILD(") + out + ")";
  return out;
}

std::string CMatcherWriter::stateAt(const Path& path) const {
  if (!iburg()) return "((" + stateType() + " *)STATE_LABEL(" + labeledNodeAt(path) + "))";
  std::string out = path[0] == 0 ? "l" : "r";
  for (size_t i = 1; i < path.size(); ++i) out += path[i] == 0 ? "->left" : "->right";
  return out;
}

void CMatcherWriter::writeFailure(std::ostream& o, const std::string& indent, const std::string& function,
                                  const std::string& message, const std::string& value) const {
  // iburg reports through the client's PANIC and aborts; lburg calls lcc's fatal.
  if (iburg())
    o << indent << P("assert") << "(0, PANIC(\"" << message << " in " << function << "\\n\""
      << (value.empty() ? "" : ", " + value) << "));\n";
  else
    o << indent << "fatal(\"" << function << "\", \"" << message << "\\n\", " << (value.empty() ? "0" : value)
      << ");\n";
}

void CMatcherWriter::writeHeader(std::ostream& o) const {
  o << "/* A tree matcher generated by burggen" << (opt_.specName.empty() ? "" : " from " + opt_.specName) << ", with "
    << (iburg() ? "iburg" : "lburg") << "'s interface. Do not edit; edit the spec. */\n";
  if (!g_.prologue.empty()) o << g_.prologue << (g_.prologue.back() == '\n' ? "" : "\n");
  o << "#include <limits.h>\n#include <stdint.h>\n#include <stdlib.h>\n";
  if (iburg()) {
    o << "#ifndef STATE_TYPE\n#define STATE_TYPE int\n#endif\n"
      << "#ifndef ALLOC\n#define ALLOC(n) malloc(n)\n#endif\n"
      << "#ifndef " << P("assert") << "\n#define " << P("assert") << "(x,y) if (!(x)) { y; abort(); }\n#endif\n";
  } else {
    o << "#ifndef ALLOC\n#define ALLOC(n) allocate((n), FUNC)\n#endif\n";
  }
  // STATE_LABEL may be a pointer or an integer: values cross it through uintptr_t.
  o << "#if defined(__GNUC__) || defined(__clang__)\n"
    << "#define " << P("set_label_") << "(p, s) (STATE_LABEL(p) = (__typeof__(STATE_LABEL(p)))(uintptr_t)(s))\n"
    << "#else\n"
    << "#define " << P("set_label_") << "(p, s) (STATE_LABEL(p) = (s))\n"
    << "#endif\n\n";
  if (iburg() && opt_.traceCalls) o << "static NODEPTR_TYPE " << P("np") << ";  /* the node being labeled */\n\n";
  if (!iburg())
    o << "static void " << P("kids") << "(NODEPTR_TYPE, int, NODEPTR_TYPE[]);\n"
      << "static void " << P("label") << "(NODEPTR_TYPE);\n"
      << "static int " << P("rule") << "(void*, int);\n\n";
  for (size_t nt = 1; nt <= g_.nonterminals.size(); ++nt)
    o << "#define " << ntConst(static_cast<int>(nt)) << " " << nt << "\n";
  if (iburg()) o << "int " << P("max_nt") << " = " << g_.nonterminals.size() << ";\n";
  o << "\n" << linkage() << "char *" << P("ntname") << "[] = {\n\t0,\n";
  for (const auto& n : g_.nonterminals) o << "\t" << cString(n.name) << ",\n";
  o << "\t0\n};\n\n";
  // The rule chosen per nonterminal is kept as its external number.
  o << stateType() << " {\n";
  if (iburg()) o << "\tint op;\n\t" << stateType() << " *left, *right;\n";
  o << "\tshort cost[" << g_.nonterminals.size() + 1 << "];\n"
    << "\t" << (maxRule_ <= kMaxCost ? "short" : "int") << " rule[" << g_.nonterminals.size() + 1 << "];\n};\n\n";
}

void CMatcherWriter::writeTables(std::ostream& o) const {
  std::map<std::string, int> ntsLists;  // the text of one list of nonterminals, its number
  std::map<int, int> ntsOfRule;
  for (const CRule& r : rules_) {
    std::string list;
    for (const Leaf& l : r.leaves) list += ntConst(l.nt) + ", ";
    auto it = ntsLists.find(list);
    if (it == ntsLists.end()) {
      it = ntsLists.emplace(list, static_cast<int>(ntsLists.size())).first;
      o << "static short " << P("nts_") << it->second << "[] = { " << list << "0 };\n";
    }
    ntsOfRule[r.rule->number] = it->second;
  }
  std::map<int, const CRule*> byNumber;
  for (const CRule& r : rules_) byNumber[r.rule->number] = &r;
  auto byRule = [&](const std::string& declaration, auto entry) {
    o << "\n" << linkage() << declaration << " = {\n";
    for (int n = 0; n <= maxRule_; ++n) {
      auto it = byNumber.find(n);
      o << "\t/* " << n << " */ " << (it == byNumber.end() ? std::string("0") : entry(*it->second)) << ",\n";
    }
    o << "};\n";
  };
  byRule("short *" + P("nts") + "[]",
         [&](const CRule& r) { return P("nts_") + std::to_string(ntsOfRule[r.rule->number]); });
  byRule("char *" + P("string") + "[]", [&](const CRule& r) { return cString(r.text); });
  if (iburg()) {
    o << "\nshort " << P("cost") << "[][4] = {\n";
    for (int n = 0; n <= maxRule_; ++n) {
      auto it = byNumber.find(n);
      o << "\t{ " << (it == byNumber.end() ? 0 : it->second->rule->cost.value) << " },\n";
    }
    o << "};\n";
  } else {
    // lburg's templates are copied as written: "\n" in the spec is a newline in C.
    byRule("char *" + P("templates") + "[]", [](const CRule& r) { return "\"" + r.rule->asmTemplate + "\""; });
    byRule("char " + P("isinstruction") + "[]", [](const CRule& r) {
      const std::string& t = r.rule->asmTemplate;
      return std::string(t.size() >= 2 && t.compare(t.size() - 2, 2, "\\n") == 0 ? "1" : "0");
    });
  }
  if (!iburg()) return;
  std::map<int, const burgspec::Terminal*> ops;
  for (const auto& t : g_.terminals) ops[t.number] = &t;
  o << "\nchar " << P("arity") << "[] = {\n";
  for (int n = 0; n <= maxOp_; ++n) {
    auto it = ops.find(n);
    o << "\t" << (it == ops.end() ? 0 : std::max(it->second->arity, 0)) << ",\t/* " << n
      << (it == ops.end() ? "" : "=" + it->second->name) << " */\n";
  }
  o << "};\n\nchar *" << P("opname") << "[] = {\n";
  for (int n = 0; n <= maxOp_; ++n) {
    auto it = ops.find(n);
    o << "\t/* " << n << " */ " << (it == ops.end() ? "0" : cString(it->second->name)) << ",\n";
  }
  o << "};\n\n";
}

void CMatcherWriter::writeRuleFunction(std::ostream& o) const {
  const std::string fn = P("rule");
  std::string n = std::to_string(g_.nonterminals.size());
  if (iburg()) {
    // A state travels as STATE_TYPE: its address when STATE_TYPE holds one, otherwise its
    // position (from 1) in a table, so that an int STATE_LABEL serves on 64-bit machines too.
    o << "static " << stateType() << " **" << P("table_") << ";\n"
      << "static size_t " << P("table_used_") << ", " << P("table_size_") << ";\n\n"
      << "static STATE_TYPE " << P("handle_") << "(" << stateType() << " *s) {\n"
      << "\tif (sizeof (STATE_TYPE) >= sizeof (void *))\n\t\treturn (STATE_TYPE)(uintptr_t)s;\n"
      << "\tif (" << P("table_used_") << " == " << P("table_size_") << ") {\n"
      << "\t\tsize_t size = " << P("table_size_") << " ? 2 * " << P("table_size_") << " : 1024;\n"
      << "\t\t" << stateType() << " **table = realloc(" << P("table_") << ", size * sizeof *table);\n";
    o << "\t\tif (!table) {\n";
    writeFailure(o, "\t\t\t", P("state"), "Out of memory for states", "");
    o << "\t\t}\n";
    o << "\t\t" << P("table_") << " = table;\n\t\t" << P("table_size_") << " = size;\n\t}\n"
      << "\t" << P("table_") << "[" << P("table_used_") << "++] = s;\n"
      << "\treturn (STATE_TYPE)(uintptr_t)" << P("table_used_") << ";\n}\n\n"
      << "static " << stateType() << " *" << P("state_of_") << "(STATE_TYPE state) {\n"
      << "\tif (sizeof (STATE_TYPE) >= sizeof (void *))\n\t\treturn (" << stateType() << " *)(uintptr_t)state;\n"
      << "\treturn state ? " << P("table_") << "[(uintptr_t)state - 1] : 0;\n}\n\n";
    o << "int " << fn << "(STATE_TYPE state, int goalnt) {\n"
      << "\t" << P("assert") << "(goalnt >= 1 && goalnt <= " << n << ", PANIC(\"Bad goal nonterminal %d in " << fn
      << "\\n\", goalnt));\n"
      << "\tif (!state)\n\t\treturn 0;\n"
      << "\treturn " << P("state_of_") << "(state)->rule[goalnt];\n}\n\n";
  } else {
    o << "static int " << fn << "(void *state, int goalnt) {\n"
      << "\tif (goalnt < 1 || goalnt > " << n << ")\n"
      << "\t\tfatal(\"" << fn << "\", \"Bad goal nonterminal %d\\n\", goalnt);\n"
      << "\tif (!state)\n\t\treturn 0;\n"
      << "\treturn ((" << stateType() << " *)state)->rule[goalnt];\n}\n\n";
  }
}

void CMatcherWriter::writeRecord(std::ostream& o, const CRule& r, const std::string& cost, const std::string& indent,
                                 bool orEqual) const {
  std::string slot = "p->cost[" + ntConst(r.lhs) + "]";
  std::string ern = std::to_string(r.rule->number);
  std::string test =
      orEqual ? cost + " < " + std::to_string(kMaxCost) + " && " + cost + " <= " + slot : cost + " < " + slot;
  if (opt_.traceCalls)
    o << indent << P("trace") << "(" << (iburg() ? P("np") : "a") << ", " << ern << ", " << cost << ", " << slot
      << ");\n";
  o << indent << "if (" << test << ") {\n"
    << indent << "\t" << slot << " = " << cost << ";\n"
    << indent << "\tp->rule[" << ntConst(r.lhs) << "] = " << ern << ";\n";
  if (!chains_[r.lhs].empty())
    o << indent << "\t" << P("closure_" + ntName(r.lhs)) << "(" << (iburg() ? "p" : "a") << ", " << cost << ");\n";
  o << indent << "}\n";
}

void CMatcherWriter::writeClosures(std::ostream& o) const {
  std::string target = iburg() ? stateType() + " *p" : "NODEPTR_TYPE a";
  for (size_t nt = 1; nt <= g_.nonterminals.size(); ++nt)
    if (!chains_[nt].empty())
      o << "static void " << P("closure_" + ntName(static_cast<int>(nt))) << "(" << target << ", int c);\n";
  o << "\n";
  for (size_t nt = 1; nt <= g_.nonterminals.size(); ++nt) {
    if (chains_[nt].empty()) continue;
    o << "static void " << P("closure_" + ntName(static_cast<int>(nt))) << "(" << target << ", int c) {\n";
    if (!iburg()) o << "\t" << stateType() << " *p = STATE_LABEL(a);\n";
    for (const CRule* r : chains_[nt]) {
      o << "\t/* " << r->text << " = " << r->rule->number << " */\n";
      writeRecord(o, *r, r->rule->cost.value ? "c + " + std::to_string(r->rule->cost.value) : "c", "\t", false);
    }
    o << "}\n\n";
  }
}

// Computes c, the cost of `r` at the node, and records it; its operators are known to match.
void CMatcherWriter::writeMatch(std::ostream& o, const CRule& r, int arity, const std::string& indent) const {
  std::string sum;
  for (const Leaf& l : r.leaves) sum += stateAt(l.path) + "->cost[" + ntConst(l.nt) + "] + ";
  const burgspec::Cost& cost = r.rule->cost;
  if (r.recalc)
    o << indent << "if (mayrecalc(a)) {\n"
      << indent << "\t" << stateType() << " *q = a->syms[RX]->u.t.cse->x.state;\n"
      << indent << "\t*p = *q;\n"
      << indent << "}\n";
  o << indent << "c = " << sum << (cost.dynamic ? "(" + cost.code + ")" : std::to_string(cost.value)) << ";\n";
  writeRecord(o, r, "c", indent, arity == 0 && policy_.leafReplacesOnEqual);
}

void CMatcherWriter::writeCases(std::ostream& o) const {
  for (const auto& t : g_.terminals) {
    int arity = std::max(t.arity, 0);
    o << "\tcase " << t.number << ": /* " << t.name << " */\n";
    if (iburg() && arity > 0)
      o << "\t\t" << P("assert") << "(" << (arity == 1 ? "l" : "l && r") << ", PANIC(\"Bad kids of operator %d in "
        << P("state") << "\\n\", op));\n";
    if (!iburg())
      for (int i = 0; i < arity; ++i) o << "\t\t" << P("label") << "(" << labeledNodeAt({i}) << ");\n";
    auto rules = baseRules_.find(t.number);
    if (rules != baseRules_.end())
      for (const CRule* r : rules->second) {
        o << "\t\t/* " << r->text << " = " << r->rule->number << " */\n";
        if (r->tests.empty()) {
          writeMatch(o, *r, arity, "\t\t");
          continue;
        }
        o << "\t\tif (";
        for (size_t i = 0; i < r->tests.size(); ++i) {
          const Path& path = r->tests[i].path;
          o << (i ? " && " : "") << (iburg() ? stateAt(path) + "->op" : "OP_LABEL(" + labeledNodeAt(path) + ")")
            << " == " << r->tests[i].op;
        }
        o << ") {\n";
        writeMatch(o, *r, arity, "\t\t\t");
        o << "\t\t}\n";
      }
    o << "\t\tbreak;\n";
  }
}

void CMatcherWriter::writeIburgLabeler(std::ostream& o) const {
  const std::string fn = P("state");
  o << "STATE_TYPE " << fn << "(int op, STATE_TYPE left, STATE_TYPE right) {\n"
    << "\tint c;\n"
    << "\t" << stateType() << " *l = " << P("state_of_") << "(left), *r = " << P("state_of_") << "(right);\n"
    << "\t" << stateType() << " *p = ALLOC(sizeof *p);\n\n"
    << "\t" << P("assert") << "(p, PANIC(\"ALLOC returned NULL in " << fn << "\\n\"));\n"
    << "\t(void)c;\n"
    << "\tp->op = op;\n\tp->left = l;\n\tp->right = r;\n"
    << "\tfor (c = 0; c <= " << g_.nonterminals.size() << "; c++) {\n"
    << "\t\tp->cost[c] = " << kMaxCost << ";\n\t\tp->rule[c] = 0;\n\t}\n"
    << "\tswitch (op) {\n";
  writeCases(o);
  o << "\tdefault:\n";
  writeFailure(o, "\t\t", fn, "Bad operator %d", "op");
  o << "\t}\n\treturn " << P("handle_") << "(p);\n}\n\n";

  // The client's macros: what follows needs STATE_LABEL, as in iburg.
  std::string get = "(STATE_TYPE)(uintptr_t)STATE_LABEL";
  o << "#ifdef STATE_LABEL\n"
    << "static void " << P("label1_") << "(NODEPTR_TYPE p) {\n"
    << "\tint op;\n\n"
    << "\t" << P("assert") << "(p, PANIC(\"NULL tree in " << P("label") << "\\n\"));\n"
    << "\top = OP_LABEL(p);\n"
    << "\t" << P("assert") << "(op >= 0 && op <= " << maxOp_ << ", PANIC(\"Bad operator %d in " << P("label")
    << "\\n\", op));\n";
  if (opt_.traceCalls) o << "\t" << P("np") << " = p;\n";
  o << "\tswitch (" << P("arity") << "[op]) {\n"
    << "\tcase 0:\n"
    << "\t\t" << P("set_label_") << "(p, " << fn << "(op, 0, 0));\n\t\tbreak;\n"
    << "\tcase 1:\n"
    << "\t\t" << P("label1_") << "(LEFT_CHILD(p));\n";
  if (opt_.traceCalls) o << "\t\t" << P("np") << " = p;\n";
  o << "\t\t" << P("set_label_") << "(p, " << fn << "(op, " << get << "(LEFT_CHILD(p)), 0));\n\t\tbreak;\n"
    << "\tdefault:\n"
    << "\t\t" << P("label1_") << "(LEFT_CHILD(p));\n"
    << "\t\t" << P("label1_") << "(RIGHT_CHILD(p));\n";
  if (opt_.traceCalls) o << "\t\t" << P("np") << " = p;\n";
  o << "\t\t" << P("set_label_") << "(p, " << fn << "(op, " << get << "(LEFT_CHILD(p)), " << get
    << "(RIGHT_CHILD(p))));\n\t\tbreak;\n\t}\n}\n\n";
  o << "STATE_TYPE " << P("label") << "(NODEPTR_TYPE p) {\n"
    << "\t" << P("label1_") << "(p);\n"
    << "\treturn " << P("state_of_") << "(" << get << "(p))->rule[" << ntConst(start_) << "] ? " << get
    << "(p) : 0;\n}\n\n";
  o << "int " << P("op_label") << "(NODEPTR_TYPE p) {\n"
    << "\t" << P("assert") << "(p, PANIC(\"NULL tree in " << P("op_label") << "\\n\"));\n"
    << "\treturn OP_LABEL(p);\n}\n\n"
    << "STATE_TYPE " << P("state_label") << "(NODEPTR_TYPE p) {\n"
    << "\t" << P("assert") << "(p, PANIC(\"NULL tree in " << P("state_label") << "\\n\"));\n"
    << "\treturn " << get << "(p);\n}\n\n"
    << "NODEPTR_TYPE " << P("child") << "(NODEPTR_TYPE p, int index) {\n"
    << "\t" << P("assert") << "(p, PANIC(\"NULL tree in " << P("child") << "\\n\"));\n"
    << "\tswitch (index) {\n\tcase 0:\n\t\treturn LEFT_CHILD(p);\n\tcase 1:\n\t\treturn RIGHT_CHILD(p);\n\t}\n";
  writeFailure(o, "\t", P("child"), "Bad index %d", "index");
  o << "\treturn 0;\n}\n\n";
  writeKids(o);
  o << "#endif\n";
}

void CMatcherWriter::writeLburgLabeler(std::ostream& o) const {
  const std::string fn = P("label");
  o << "static void " << fn << "(NODEPTR_TYPE a) {\n"
    << "\tint c;\n"
    << "\t" << stateType() << " *p;\n\n"
    << "\tif (!a)\n\t\tfatal(\"" << fn << "\", \"Null tree\\n\", 0);\n"
    << "\tp = ALLOC(sizeof *p);\n"
    << "\t" << P("set_label_") << "(a, p);\n"
    << "\tfor (c = 0; c <= " << g_.nonterminals.size() << "; c++) {\n"
    << "\t\tp->cost[c] = " << kMaxCost << ";\n\t\tp->rule[c] = 0;\n\t}\n"
    << "\tswitch (OP_LABEL(a)) {\n";
  writeCases(o);
  o << "\tdefault:\n";
  writeFailure(o, "\t\t", fn, "Bad terminal %d", "OP_LABEL(a)");
  o << "\t}\n}\n\n";
  writeKids(o);
}

void CMatcherWriter::writeKids(std::ostream& o) const {
  const std::string fn = P("kids");
  // Rules whose kids lie at the same places share one case.
  std::vector<std::pair<std::string, std::vector<const CRule*>>> groups;
  for (const CRule& r : rules_) {
    std::string body;
    for (size_t i = 0; i < r.leaves.size(); ++i)
      body += "\t\tkids[" + std::to_string(i) + "] = " + nodeAt(r.leaves[i].path, "p") + ";\n";
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == body; });
    if (it == groups.end()) it = groups.insert(groups.end(), {body, {}});
    it->second.push_back(&r);
  }
  if (iburg())
    o << "NODEPTR_TYPE *" << fn << "(NODEPTR_TYPE p, int eruleno, NODEPTR_TYPE kids[]) {\n"
      << "\t" << P("assert") << "(p, PANIC(\"NULL tree in " << fn << "\\n\"));\n"
      << "\t" << P("assert") << "(kids, PANIC(\"NULL kids in " << fn << "\\n\"));\n";
  else
    o << "static void " << fn << "(NODEPTR_TYPE p, int eruleno, NODEPTR_TYPE kids[]) {\n"
      << "\tif (!p)\n\t\tfatal(\"" << fn << "\", \"Null tree\\n\", 0);\n"
      << "\tif (!kids)\n\t\tfatal(\"" << fn << "\", \"Null kids\\n\", 0);\n";
  o << "\tswitch (eruleno) {\n";
  for (const auto& group : groups) {
    for (const CRule* r : group.second) o << "\tcase " << r->rule->number << ": /* " << r->text << " */\n";
    o << group.first << "\t\tbreak;\n";
  }
  o << "\tdefault:\n";
  writeFailure(o, "\t\t", fn, "Bad external rule number %d", "eruleno");
  o << "\t}\n" << (iburg() ? "\treturn kids;\n" : "") << "}\n\n";
}

bool CMatcherWriter::write(std::string& out) {
  if (!collect()) return false;
  std::ostringstream o;
  writeHeader(o);
  writeTables(o);
  writeRuleFunction(o);
  writeClosures(o);
  if (iburg())
    writeIburgLabeler(o);
  else
    writeLburgLabeler(o);
  if (!g_.epilogue.empty()) o << g_.epilogue;
  out = o.str();
  return true;
}

}  // namespace

bool emitCMatcher(const Grammar& grammar, const CEmitOptions& options, common::Diagnostics& diagnostics,
                  std::string& out) {
  CMatcherWriter writer(grammar, options, diagnostics);
  return writer.write(out);
}

}  // namespace burggen
