#include "burggen/kbest_emitter.hpp"

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <queue>
#include <set>
#include <sstream>
#include <vector>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>

#include "burggen/kbest_runtime.hpp"
#include "burggen/matcher_parts.hpp"
#include "burggen/reducer_writer.hpp"
#include "burggen/rule_facts.hpp"
#include "burggen/string_literal.hpp"
#include "burgspec/value_refs.hpp"

namespace burggen {

using burgspec::Grammar;
using burgspec::RuleParam;
using common::Diagnostics;

namespace {

// The names `$$` and `$b` become in the generated code.
const char* const kSelfValue = "burgLabel";
const char* const kKidValuePrefix = "burgLabel_";

// How the labeler treats a rule, beyond its pattern.
struct RuleTraits {
  bool lazy = true;             // its own cost does not depend on which kid derivations it uses
  bool passOn = false;          // a chain rule whose label value starts as its kid's
  bool needsEvaluator = false;  // its own cost or label value takes code (else a constant)
  bool onCycle = false;         // a chain rule whose right side may derive from its left by chain rules
};

class KBestWriter {
 public:
  KBestWriter(const Grammar& g, const EmitOptions& o, common::Diagnostics& d) : g_(g), opt_(o), diag_(d) {}

  bool write(EmittedMatcher& out);

 private:
  bool collect();
  void findChainCycles();
  bool computePhases();
  void computeOrder();

  std::string cls() const { return opt_.prefix + "Matcher"; }
  const burgspec::Nonterminal& nonterminal(int nt) const { return g_.nonterminals[nt - 1]; }
  std::string ntName(int nt) const { return nonterminal(nt).name; }
  std::string ntConst(int nt) const { return ntName(nt) + "_NT"; }
  std::string resultType(int nt) const { return typed(nt) ? nonterminal(nt).resultType : "void"; }
  bool typed(int nt) const { return !nonterminal(nt).resultType.empty(); }
  bool labeled(int nt) const { return !nonterminal(nt).labelType.empty(); }
  std::string labelType(int nt) const { return nonterminal(nt).labelType; }
  // The members holding the label values of nonterminal nt's type while its candidates wait in
  // the heap: the one a rule evaluated last, and those of the candidates offered.
  std::string evaluatedValue(int nt) const { return "evaluated" + std::to_string(typeIndex(labelType(nt))) + "_"; }
  std::string waitingValues(int nt) const { return "waiting" + std::to_string(typeIndex(labelType(nt))) + "_"; }
  int typeIndex(const std::string& type) const {
    return static_cast<int>(std::distance(labelTypes_.begin(), labelTypes_.find(type)));
  }
  std::string ruleComment(const RuleFacts& r) const { return "rule " + std::to_string(r.rule->number) + ": " + r.text; }
  std::string num(const RuleFacts& r) const { return std::to_string(r.rule->number); }
  const std::vector<RuleParam>& params(const RuleFacts& r) const { return r.rule->params; }
  // Whether a rule has work to do once a node before its bindings: parameter domains or a guard.
  bool hasDomains(const RuleFacts& r) const { return !params(r).empty() || !r.rule->guard.empty(); }
  // The label values of a rule's labelled leaves that have bindings: `$b` in its code.
  std::vector<const Leaf*> labeledLeaves(const RuleFacts& r) const {
    std::vector<const Leaf*> out;
    for (const Leaf& l : r.leaves)
      if (!l.binding.empty() && labeled(l.nt)) out.push_back(&l);
    return out;
  }

  void writeDeclarations(std::ostream& o) const;
  void writeStateDeclarations(std::ostream& o) const;
  void writeDefinitions(std::ostream& o) const;
  void writeTables(std::ostream& o) const;
  void writeOffers(std::ostream& o) const;
  void writeDomains(std::ostream& o) const;
  void writeEvaluators(std::ostream& o) const;
  void writeRuleKids(std::ostream& o) const;
  void writeBindingText(std::ostream& o) const;
  void writeValues(std::ostream& o) const;
  void writeWaitingValues(std::ostream& o) const;
  void writeReducer(std::ostream& o) const;
  void writeActions(std::ostream& o) const;
  // Locals for a rule's parameters, decoded from a binding index: index i<k> and const ref name.
  void writeParamLocals(std::ostream& o, const RuleFacts& r, const std::string& state, const std::string& binding,
                        const std::string& indent) const;
  void writeBindingLocals(std::ostream& o, const RuleFacts& r, const std::string& indent) const;
  std::string actionSignature(const RuleFacts& r, bool qualified) const;

  const Grammar& g_;
  const EmitOptions& opt_;
  common::Diagnostics& diag_;
  GrammarFacts facts_;
  std::vector<RuleTraits> traits_;  // by rule index - 1
  std::vector<int> phase_;          // by nonterminal
  std::vector<int> order_;          // by nonterminal
  std::set<std::string> labelTypes_;
};

// ---- Rule traits, phases and the order of nonterminals ----

bool KBestWriter::collect() {
  if (!collectFacts(g_, opt_, diag_, facts_)) return false;
  for (const RuleFacts& r : facts_.rules) {
    RuleTraits t;
    const burgspec::Cost& cost = r.rule->cost;
    bool readsSelf = false, readsKids = false;
    if (cost.dynamic)
      for (const auto& ref : burgspec::findValueRefs(cost.code)) {
        readsSelf = readsSelf || (ref.valid && ref.name.empty());
        readsKids = readsKids || (ref.valid && !ref.name.empty());
      }
    t.passOn =
        r.rule->isChain() && labeled(r.lhs) && labeled(r.leaves[0].nt) && labelType(r.lhs) == labelType(r.leaves[0].nt);
    t.lazy = !cost.total && !readsKids && !(t.passOn && readsSelf);
    t.needsEvaluator = cost.dynamic || labeled(r.lhs);
    traits_.push_back(t);
    if (labeled(r.lhs)) labelTypes_.insert(labelType(r.lhs));
  }
  findChainCycles();
  if (!computePhases()) return false;
  computeOrder();
  return true;
}

// A derivation visits a nonterminal once at a node, so the labeler checks that a chain rule's
// right side does not already pass through its left; only where chain rules lead from the left
// side back to the right can it.
// That is where both sides lie in one strongly connected component of the chain rules' graph.
void KBestWriter::findChainCycles() {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  Graph chains(g_.nonterminals.size() + 1);  // an edge from a chain rule's right side to its left
  for (const RuleFacts& r : facts_.rules)
    if (r.rule->isChain()) boost::add_edge(r.leaves[0].nt, r.lhs, chains);
  std::vector<int> component(boost::num_vertices(chains));
  auto index = boost::get(boost::vertex_index, chains);
  boost::strong_components(chains, boost::make_iterator_property_map(component.begin(), index));
  for (const RuleFacts& r : facts_.rules)
    if (r.rule->isChain()) traits_[r.index - 1].onCycle = component[r.lhs] == component[r.leaves[0].nt];
}

// A chain rule that is not lazy prices its left side from each whole derivation of its right
// side, so the right side's derivations must all be known first: its left side is labeled in a
// later phase. Checks ensure such rules lie on no chain cycle (their costs are dynamic).
bool KBestWriter::computePhases() {
  size_t n = g_.nonterminals.size();
  phase_.assign(n + 1, 0);
  for (size_t round = 0; round <= n; ++round) {
    bool changed = false;
    for (const RuleFacts& r : facts_.rules) {
      if (!r.rule->isChain()) continue;
      int need = phase_[r.leaves[0].nt] + (traits_[r.index - 1].lazy ? 0 : 1);
      if (phase_[r.lhs] < need) {
        phase_[r.lhs] = need;
        changed = true;
      }
    }
    if (!changed) return true;
  }
  diag_.error({}, "chain rules whose costs read label values or are totals form a cycle");
  return false;
}

// Ties between nonterminals at equal cost: a chain rule that may cost 0 puts its right side
// before its left, so that its derivations join the left side's before an equal one of a later
// rule is taken.
void KBestWriter::computeOrder() {
  size_t n = g_.nonterminals.size();
  std::vector<std::vector<int>> next(n + 1);
  std::vector<int> incoming(n + 1, 0);
  for (const RuleFacts& r : facts_.rules) {
    const burgspec::Cost& cost = r.rule->cost;
    if (!r.rule->isChain() || (!cost.dynamic && cost.value > 0) || r.leaves[0].nt == r.lhs) continue;
    next[r.leaves[0].nt].push_back(r.lhs);
    ++incoming[r.lhs];
  }
  // The nonterminals in topological order, the lowest-numbered ready one first; on a cycle of
  // chain rules that may cost 0, where none is ready, the lowest-numbered one left.
  order_.assign(n + 1, 0);
  std::vector<bool> placed(n + 1, false);
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (size_t nt = 1; nt <= n; ++nt)
    if (incoming[nt] == 0) ready.push(static_cast<int>(nt));
  size_t lowest = 1;
  for (int position = 0; position < static_cast<int>(n); ++position) {
    int pick;
    if (!ready.empty()) {
      pick = ready.top();
      ready.pop();
    } else {
      while (placed[lowest]) ++lowest;
      pick = static_cast<int>(lowest);
    }
    placed[pick] = true;
    order_[pick] = position;
    for (int to : next[pick])
      if (--incoming[to] == 0 && !placed[to]) ready.push(to);
  }
}

// ---- Declarations ----

std::string KBestWriter::actionSignature(const RuleFacts& r, bool qualified) const {
  std::string out = resultType(r.lhs) + " " + (qualified ? cls() + "::" : "") + "action" + num(r) + "(NodePtr node";
  for (const RuleParam& p : params(r)) out += ", const " + g_.paramType(p.name) + "& " + p.name;
  if (labeled(r.lhs)) out += ", const " + labelType(r.lhs) + "& " + kSelfValue;
  for (const Leaf& l : r.leaves)
    if (!l.binding.empty()) out += ", " + (typed(l.nt) ? resultType(l.nt) : std::string("NodePtr")) + " " + l.binding;
  for (const Leaf* l : labeledLeaves(r)) out += ", const " + labelType(l->nt) + "& " + kKidValuePrefix + l->binding;
  for (const NodeBinding& b : r.nodeBindings) out += ", NodePtr " + b.name;
  return out + ")";
}

void KBestWriter::writeDeclarations(std::ostream& o) const {
  const std::string P = opt_.prefix;
  writePreamble(o, g_, P);
  const std::string nodeType = g_.nodeType.empty() ? "NODEPTR_TYPE" : g_.nodeType;
  int K = std::max(opt_.kbest, 1);
  o << "// The tree matcher, k-best. Nodes are the caller's; the matcher reaches them only through\n";
  if (g_.nodeType.empty())
    o << "// iburg's macros OP_LABEL(p), LEFT_CHILD(p), RIGHT_CHILD(p) and STATE_LABEL(p).\n";
  else
    o << "// int burg_op(NodePtr), NodePtr burg_kid(NodePtr, int i) and, when the prologue declares it,\n"
         "// void*& burg_state(NodePtr) (without it, states are kept in a table keyed by node).\n";
  o << "// label(root) keeps, bottom up, for every node and nonterminal, the K cheapest distinct\n"
       "// derivations: a derivation is a rule, a binding of its parameters and the ranks of the kid\n"
       "// derivations it uses (through chain rules at the same node, a nonterminal at most once).\n"
       "// Rank 0 is the cheapest; equal costs are ordered by rule (the earlier in the spec first),\n"
       "// then binding (in domain order), then kid ranks (lexicographically). reduce(root, rank) runs\n"
       "// the actions along the rank-th cover, kids first; covers(root) enumerates the covers in cost\n"
       "// order. States are the matcher's, reused by the next label(); a tree's labels last until then.\n";
  o << "class " << cls() << " {\n public:\n"
    << "  using NodePtr = " << nodeType << ";\n"
    << "  using Cost = " << P << "Cost;\n"
    << "  using NoCoverError = " << P << "NoCover;\n"
    << "  static constexpr Cost INF = " << P << "Infinity;\n\n"
    << "  enum Nonterminal : int {\n";
  for (size_t i = 0; i < g_.nonterminals.size(); ++i)
    o << "    " << ntConst(static_cast<int>(i) + 1) << " = " << i + 1 << ",\n";
  o << "  };\n"
    << "  static constexpr int kNonterminals = " << g_.nonterminals.size() << ";\n"
    << "  static constexpr int kStart = " << ntConst(facts_.start) << ";\n"
    << "  static constexpr int kBest = " << K << ";  // derivations kept per node and nonterminal (burggen --kbest)\n\n"
    << "  explicit " << cls() << "(" << P << "Context* context = nullptr, int best = kBest)\n"
    << "      : ctx(context), best_(best < 1 ? 1 : best) {}\n\n"
    << "  " << P << "Context* ctx;             // seen by costs, domains and actions\n"
    << "  std::ostream* trace = nullptr;  // when set, labeling writes every derivation it keeps\n\n"
    << "  // Labels the tree; true when the root derives from the start nonterminal.\n"
    << "  bool label(NodePtr root);\n"
    << "  // After label(): how many derivations of `node` from `nt` are kept (at most K); the total\n"
    << "  // cost of the rank-th (0: the cheapest; INF past the last), its rule's number in the spec\n"
    << "  // (0 past the last) and text, and its parameter binding as text (\"depth=16, buf=2\").\n"
    << "  int count(NodePtr node, int nt) const;\n"
    << "  Cost cost(NodePtr node, int nt, int rank) const;\n"
    << "  Cost cost(NodePtr node, int nt) const { return cost(node, nt, 0); }\n"
    << "  int rule(NodePtr node, int nt, int rank) const;\n"
    << "  int ruleNumber(NodePtr node, int nt) const { return rule(node, nt, 0); }\n"
    << "  const char* ruleText(NodePtr node, int nt, int rank = 0) const;\n"
    << "  std::string bindingText(NodePtr node, int nt, int rank) const;\n";
  bool anyLabel = false;
  for (size_t nt = 1; nt <= g_.nonterminals.size(); ++nt) anyLabel = anyLabel || labeled(static_cast<int>(nt));
  if (anyLabel) {
    o << "  // The label value of the rank-th derivation of a nonterminal with a %label; throws\n"
      << "  // std::out_of_range past the last, or for a nonterminal without one.\n";
    for (size_t i = 1; i <= g_.nonterminals.size(); ++i) {
      int nt = static_cast<int>(i);
      if (labeled(nt))
        o << "  const " << labelType(nt) << "& value_" << ntName(nt) << "(NodePtr node, int rank) const;\n";
    }
    if (labelTypes_.size() == 1)
      o << "  const " << *labelTypes_.begin() << "& value(NodePtr node, int nt, int rank) const;\n";
  }
  o << "\n"
    << "  // The rank-th cover of `root` from the start nonterminal (or of `node` from `nt`) as text:\n"
    << "  // one rule a line, indented by depth, with its parameters: \"red: FOR_RED(ACCUM) [depth=16]\".\n"
    << "  // Throws " << P << "NoCover past the last.\n"
    << "  std::string coverText(NodePtr root, int rank) const;\n"
    << "  std::string coverText(NodePtr node, int nt, int rank) const;\n"
    << "  // The labeled tree in Graphviz's DOT language: per node and nonterminal the cheapest\n"
    << "  // derivation's cost and rule and how many are kept; the rank-th cover highlighted.\n"
    << "  void printDot(std::ostream& out, NodePtr root, int nt = kStart, int rank = 0) const;\n\n"
    << "  // Runs the actions along the rank-th cover of `root` from the start nonterminal, or of\n"
    << "  // `node` from one nonterminal by name; throws " << P << "NoCover past the last.\n"
    << "  " << resultType(facts_.start) << " reduce(NodePtr root, int rank = 0);\n";
  for (size_t i = 1; i <= g_.nonterminals.size(); ++i)
    o << "  " << resultType(static_cast<int>(i)) << " reduce_" << ntName(static_cast<int>(i))
      << "(NodePtr node, int rank = 0);\n";
  o << "\n"
    << "  // The covers of a labeled root from the start nonterminal, cheapest first.\n"
    << "  struct Cover {\n    int rank;\n    Cost cost;\n  };\n"
    << "  class CoverEnumerator {\n   public:\n"
    << "    CoverEnumerator(const " << cls() << "& matcher, NodePtr root) : matcher_(&matcher), root_(root) {}\n"
    << "    // The next cover, or none after the last kept.\n"
    << "    std::optional<Cover> next() {\n"
    << "      if (rank_ >= matcher_->count(root_, kStart)) return std::nullopt;\n"
    << "      Cover cover{rank_, matcher_->cost(root_, kStart, rank_)};\n"
    << "      ++rank_;\n      return cover;\n    }\n\n"
    << "   private:\n"
    << "    const " << cls() << "* matcher_;\n    NodePtr root_;\n    int rank_ = 0;\n  };\n"
    << "  CoverEnumerator covers(NodePtr root) const { return CoverEnumerator(*this, root); }\n\n"
    << "  static const char* opName(int op);\n"
    << "  static const char* nonterminalName(int nt);\n"
    << "  static int arity(int op);\n\n";
  writeDrawingInterface(o);
  o << "  // The rank-th cover's rules top down (rule text with its parameters); throws past the last.\n"
    << "  std::vector<CoverStep> coverSteps(NodePtr root, int rank = 0) const;\n\n"
    << " private:\n";
  writeStateDeclarations(o);
  writeNodeInterface(o, g_);
  o << "\n"
    << "  static Cost add(Cost a, Cost b) { return " << P << "Add(a, b); }\n"
    << "  static Cost dynamicCost(Cost c) { return c < 0 ? 0 : c; }\n"
    << "  // A parameter is printed with operator<< where it has one, else as its index in its domain.\n"
    << "  template <typename T, typename = void>\n"
    << "  struct Printable : std::false_type {};\n"
    << "  template <typename T>\n"
    << "  struct Printable<T, std::void_t<decltype(std::declval<std::ostream&>() << std::declval<const T&>())>>\n"
    << "      : std::true_type {};\n"
    << "  template <typename T>\n"
    << "  static void printParam(std::ostream& out, const T& value, int index) {\n"
    << "    if constexpr (Printable<T>::value)\n      out << value;\n    else\n      out << '#' << index;\n  }\n"
    << "  bool full(const State* s, int nt) const { return s->best[nt].size() >= static_cast<size_t>(best_); }\n"
    << "  State* newState();\n"
    << "  State* labelNode(NodePtr node);\n"
    << "  bool after(const Candidate& a, const Candidate& b) const;\n"
    << "  void push(const Candidate& c);\n"
    << "  int keep(NodePtr node, State* s, const Candidate& c);\n"
    << "  Cost kidsCost(const NodePtr kids[], const int nts[], const int ranks[], int n) const;\n"
    << "  void offerBaseRules(NodePtr node, State* s);\n"
    << "  void offerChainRules(NodePtr node, State* s, int nt, int rank);\n"
    << "  void offer(NodePtr node, State* s, int rule);\n"
    << "  void offerChain(NodePtr node, State* s, int rule, int rank);\n"
    << "  void offerCombination(NodePtr node, State* s, int rule, int binding, const NodePtr kids[], const int nts[],\n"
    << "                        int n, const int ranks[]);\n"
    << "  void offerSuccessors(NodePtr node, State* s, const Candidate& c);\n"
    << "  bool passesThrough(const State* s, int nt, int rank, int target) const;\n"
    << "  int prepareDomains(int rule, NodePtr node, State* s);\n"
    << "  Cost evaluate(int rule, NodePtr node, State* s, int binding, const int* ranks);\n"
    << "  int waitValue(int nt);\n"
    << "  void keepValue(State* s, int nt, int value);\n"
    << "  void forgetWaitingValues();\n";
  for (const RuleFacts& r : facts_.rules) {
    if (hasDomains(r)) o << "  int domains" << num(r) << "(NodePtr node, State* s);\n";
    if (traits_[r.index - 1].needsEvaluator)
      o << "  Cost evaluate" << num(r) << "(NodePtr node, State* s, int binding, const int* ranks);\n";
  }
  for (const RuleFacts& r : facts_.rules)
    if (r.rule->action) o << "  " << actionSignature(r, false) << ";\n";
  o << "  const Derivation& derivation(NodePtr node, int nt, int rank) const;\n"
    << "  NoCoverError noCover(NodePtr node, int nt, int rank) const;\n"
    << "  int ruleKids(NodePtr node, int rule, NodePtr kids[], int nts[]) const;\n"
    << "  void printCover(std::ostream& out, NodePtr node, int nt, int rank, int depth) const;\n"
    << "  void markCover(NodePtr node, int nt, int rank, std::vector<std::vector<int>>& chosen) const;\n"
    << "  void printDotNode(std::ostream& out, NodePtr node, const std::vector<std::vector<int>>& chosen) const;\n"
    << "  void traceKeep(NodePtr node, int nt, int rank) const;\n\n"
    << "  int best_;\n"
    << "  std::vector<std::unique_ptr<State>> states_;\n"
    << "  size_t used_ = 0;  // states taken by this labeling\n"
    << "  int nextId_ = 0;\n"
    << "  std::vector<Candidate> heap_;  // the node's candidates, the next to take at the front\n"
    << "  std::vector<int> pending_;     // the candidates' kid ranks; Candidate::ranks indexes here\n";
  if (!labelTypes_.empty())
    o << "  // By label type: the value a rule evaluated last, and the values of the node's candidates,\n"
      << "  // evaluated once, as they were offered (Candidate::value indexes here).\n";
  for (const std::string& type : labelTypes_) {
    std::string index = std::to_string(typeIndex(type));
    o << "  " << type << " evaluated" << index << "_;\n"
      << "  ValueList<" << type << "> waiting" << index << "_;\n";
  }
  o << "};\n\n";
}

void KBestWriter::writeStateDeclarations(std::ostream& o) const {
  if (!labelTypes_.empty()) o << kKBestValueList;
  o << "  using RuleIndex = " << (facts_.rules.size() < 32767 ? "short" : "int") << ";\n"
    << "  // A kept derivation; its label value, where its nonterminal has one, is in the state's\n"
    << "  // values_<nonterminal>, at its rank.\n"
    << "  struct Derivation {\n"
    << "    Cost cost;       // total\n"
    << "    RuleIndex rule;  // index into kRules\n"
    << "    int binding;     // index of the parameters' binding, in domain order (0 without parameters)\n"
    << "    int kids;        // where the ranks of its kids' derivations start in State::ranks\n"
    << "  };\n";
  for (const RuleFacts& r : facts_.rules) {
    if (!hasDomains(r)) continue;
    o << "  // The parameter domains of " << ruleComment(r) << ", at one node.\n"
      << "  struct Domains" << num(r) << " {\n    bool ready = false;\n";
    if (!r.rule->guard.empty()) o << "    bool open = false;  // the guard held\n";
    for (const RuleParam& p : params(r)) o << "    std::vector<" << g_.paramType(p.name) << "> " << p.name << ";\n";
    o << "  };\n";
  }
  o << "  struct State {\n"
    << "    int op = 0;\n"
    << "    int id = 0;  // names the node in traces: nodes are numbered top down from the root, 0\n"
    << "    std::vector<Derivation> best[kNonterminals + 1];  // by nonterminal, cheapest first\n"
    << "    std::vector<int> ranks;  // the kids' ranks of all derivations kept here\n";
  for (size_t i = 1; i <= g_.nonterminals.size(); ++i) {
    int nt = static_cast<int>(i);
    if (labeled(nt))
      o << "    ValueList<" << labelType(nt) << "> values_" << ntName(nt) << ";  // of best[" << ntConst(nt)
        << "], by rank\n";
  }
  for (const RuleFacts& r : facts_.rules)
    if (hasDomains(r)) o << "    Domains" << num(r) << " domains" << num(r) << ";\n";
  o << "    void clear() {\n"
    << "      for (auto& list : best) list.clear();\n"
    << "      ranks.clear();\n";
  for (size_t i = 1; i <= g_.nonterminals.size(); ++i)
    if (labeled(static_cast<int>(i))) o << "      values_" << ntName(static_cast<int>(i)) << ".clear();\n";
  for (const RuleFacts& r : facts_.rules)
    if (hasDomains(r)) o << "      domains" << num(r) << ".ready = false;\n";
  o << "    }\n  };\n"
    << "  // A derivation waiting in the heap of the node being labeled.\n"
    << "  struct Candidate {\n"
    << "    int phase;  // of its nonterminal: one whose rules price whole kid derivations comes later\n"
    << "    Cost cost;\n"
    << "    int order;  // of its nonterminal, for ties: before those its chain rules derive\n"
    << "    int nt;\n"
    << "    int rule;\n"
    << "    int binding;\n"
    << "    int ranks;  // where its kids' ranks start in pending_\n"
    << "    Cost own;   // the rule's own cost (the total for `(= expr)`)\n"
    << "    int value;  // where its label value waits (-1: none, or evaluated once it is kept)\n"
    << "  };\n"
    << "  struct RuleInfo {\n"
    << "    int number;\n"
    << "    int lhs;\n"
    << "    int rhs;      // a chain rule's right side; 0 for a base rule\n"
    << "    int leaves;   // nonterminal leaves of its pattern\n"
    << "    bool lazy;    // its own cost does not depend on its kids' derivations\n"
    << "    bool total;   // its cost is the derivation's total: `(= expr)`\n"
    << "    bool labeled; // its left side has a label value\n"
    << "    bool onCycle; // a chain rule whose right side may derive from its left by chain rules\n"
    << "    const char* text;\n"
    << "  };\n"
    << "  static const RuleInfo kRules[];\n"
    << "  static const int kPhase[kNonterminals + 1];\n"
    << "  static const int kOrder[kNonterminals + 1];\n"
    << "  static constexpr int kMaxKids = " << facts_.maxLeaves << ";\n\n";
}

// ---- Definitions ----

void KBestWriter::writeTables(std::ostream& o) const {
  const std::string C = cls();
  o << "const " << C << "::RuleInfo " << C << "::kRules[] = {\n"
    << "    {0, 0, 0, 0, false, false, false, false, \"\"},\n";
  for (const RuleFacts& r : facts_.rules) {
    const RuleTraits& t = traits_[r.index - 1];
    o << "    {" << r.rule->number << ", " << ntConst(r.lhs) << ", "
      << (r.rule->isChain() ? ntConst(r.leaves[0].nt) : "0") << ", " << r.leaves.size() << ", "
      << (t.lazy ? "true" : "false") << ", " << (r.rule->cost.total ? "true" : "false") << ", "
      << (labeled(r.lhs) ? "true" : "false") << ", " << (t.onCycle ? "true" : "false") << ", " << cString(r.text)
      << "},\n";
  }
  o << "};\n\n";
  o << "const int " << C << "::kPhase[] = {0";
  for (size_t nt = 1; nt <= g_.nonterminals.size(); ++nt) o << ", " << phase_[nt];
  o << "};\n";
  o << "const int " << C << "::kOrder[] = {0";
  for (size_t nt = 1; nt <= g_.nonterminals.size(); ++nt) o << ", " << order_[nt];
  o << "};\n\n";
  writeNameTables(o, g_, C);
}

void KBestWriter::writeOffers(std::ostream& o) const {
  const std::string C = cls();
  o << "// The base rules whose operators match at `node`.\n"
    << "void " << C << "::offerBaseRules(NodePtr node, State* s) {\n"
    << "  switch (s->op) {\n";
  for (const auto& t : g_.terminals) {
    auto rules = facts_.baseRulesByOp.find(t.number);
    if (rules == facts_.baseRulesByOp.end()) continue;
    o << "    case " << t.number << ": {  // " << t.name << "\n";
    std::vector<bool> used(std::max(t.arity, 0), false);
    for (const RuleFacts* r : rules->second)
      for (const OpTest& test : r->tests) used[test.path[0]] = true;
    for (size_t i = 0; i < used.size(); ++i)
      if (used[i]) o << "      State* k" << i << " = stateOf(kidOf(node, " << i << "));\n";
    for (const RuleFacts* r : rules->second) {
      o << "      // " << ruleComment(*r) << "\n      ";
      if (!r->tests.empty()) {
        o << "if (";
        for (size_t i = 0; i < r->tests.size(); ++i)
          o << (i ? " && " : "") << stateExpr(r->tests[i].path) << "->op == " << r->tests[i].op;
        o << ") ";
      }
      o << "offer(node, s, " << r->index << ");\n";
    }
    o << "      break;\n    }\n";
  }
  o << "  }\n}\n\n";

  o << "// The chain rules from `nt`, over its rank-th derivation at `node`.\n"
    << "void " << C << "::offerChainRules(NodePtr node, State* s, int nt, int rank) {\n"
    << "  (void)node;\n  (void)s;\n  (void)rank;\n"
    << "  switch (nt) {\n";
  for (size_t nt = 1; nt < facts_.chainsFrom.size(); ++nt) {
    if (facts_.chainsFrom[nt].empty()) continue;
    o << "    case " << ntConst(static_cast<int>(nt)) << ":\n";
    for (const RuleFacts* r : facts_.chainsFrom[nt])
      o << "      offerChain(node, s, " << r->index << ", rank);  // " << ruleComment(*r) << "\n";
    o << "      break;\n";
  }
  o << "  }\n}\n\n";
}

void KBestWriter::writeBindingLocals(std::ostream& o, const RuleFacts& r, const std::string& indent) const {
  for (const Leaf& l : r.leaves)
    if (!l.binding.empty()) o << indent << "NodePtr " << l.binding << " = " << nodeExpr(l.path) << ";\n";
  for (const NodeBinding& b : r.nodeBindings) o << indent << "NodePtr " << b.name << " = " << nodeExpr(b.path) << ";\n";
  for (const Leaf& l : r.leaves)
    if (!l.binding.empty()) o << indent << "(void)" << l.binding << ";\n";
  for (const NodeBinding& b : r.nodeBindings) o << indent << "(void)" << b.name << ";\n";
}

void KBestWriter::writeDomains(std::ostream& o) const {
  const std::string C = cls();
  o << "// Fills the parameter domains of a rule at `node` (once a node); the number of bindings.\n"
    << "int " << C << "::prepareDomains(int rule, NodePtr node, State* s) {\n"
    << "  (void)node;\n  (void)s;\n"
    << "  switch (rule) {\n";
  for (const RuleFacts& r : facts_.rules)
    if (hasDomains(r))
      o << "    case " << r.index << ": return domains" << num(r) << "(node, s);  // " << ruleComment(r) << "\n";
  o << "  }\n  return 1;\n}\n\n";
  for (const RuleFacts& r : facts_.rules) {
    if (!hasDomains(r)) continue;
    const std::string& guard = r.rule->guard;
    o << "// " << ruleComment(r) << "\n"
      << "int " << C << "::domains" << num(r) << "(NodePtr node, State* s) {\n"
      << "  Domains" << num(r) << "& d = s->domains" << num(r) << ";\n"
      << "  if (!d.ready) {\n"
      << "    (void)node;\n";
    writeBindingLocals(o, r, "    ");
    std::string indent = "    ";
    if (!guard.empty()) {
      // A rule whose guard fails has no bindings: its domains are not even evaluated.
      o << "    d.open = static_cast<bool>(";
      writeSpecCode(o, opt_, r.rule->guardLoc, guard);
      o << ");\n    if (d.open) {\n";
      indent = "      ";
    }
    for (const RuleParam& p : params(r))
      o << indent << "d." << p.name << ".clear();\n"
        << indent << "for (const auto& v : " << p.domain << ") d." << p.name << ".emplace_back(v);\n";
    if (!guard.empty()) o << "    }\n";
    o << "    d.ready = true;\n  }\n  return ";
    if (!guard.empty()) o << "!d.open ? 0 : ";
    o << "static_cast<int>(";
    for (size_t i = 0; i < params(r).size(); ++i) o << (i ? " * " : "") << "d." << params(r)[i].name << ".size()";
    if (params(r).empty()) o << "1";
    o << ");\n}\n\n";
  }
}

void KBestWriter::writeParamLocals(std::ostream& o, const RuleFacts& r, const std::string& state,
                                   const std::string& binding, const std::string& indent) const {
  const auto& ps = params(r);
  if (ps.empty()) return;
  std::string d = state + "->domains" + num(r);
  // The first parameter is the outermost: the binding index is mixed-radix, the last turning fastest.
  o << indent << "int rest = " << binding << ";\n";
  for (size_t k = ps.size(); k-- > 0;) {
    std::string size = "static_cast<int>(" + d + "." + ps[k].name + ".size())";
    if (k > 0)
      o << indent << "int i" << k << " = rest % " << size << ";\n" << indent << "rest /= " << size << ";\n";
    else
      o << indent << "int i0 = rest;\n";
  }
  for (size_t k = 0; k < ps.size(); ++k)
    o << indent << "const " << g_.paramType(ps[k].name) << "& " << ps[k].name << " = " << d << "." << ps[k].name << "[i"
      << k << "];\n"
      << indent << "(void)" << ps[k].name << ";\n";
}

void KBestWriter::writeEvaluators(std::ostream& o) const {
  const std::string C = cls();
  o << "// A rule's own cost for one binding and kid ranks (its total for `(= expr)`); its label value,\n"
    << "// where it has one, is left in evaluated<type>_ (waitValue() takes it).\n"
    << C << "::Cost " << C << "::evaluate(int rule, NodePtr node, State* s, int binding, const int* ranks) {\n"
    << "  switch (rule) {\n";
  for (const RuleFacts& r : facts_.rules) {
    o << "    case " << r.index << ":  // " << ruleComment(r) << "\n";
    if (traits_[r.index - 1].needsEvaluator)
      o << "      return evaluate" << num(r) << "(node, s, binding, ranks);\n";
    else
      o << "      return " << r.rule->cost.value << ";\n";
  }
  o << "  }\n  (void)node;\n  (void)s;\n  (void)binding;\n  (void)ranks;\n  return INF;\n}\n\n";

  for (const RuleFacts& r : facts_.rules) {
    if (!traits_[r.index - 1].needsEvaluator) continue;
    o << "// " << ruleComment(r) << "\n"
      << C << "::Cost " << C << "::evaluate" << num(r) << "(NodePtr node, State* s, int binding, const int* ranks) {\n"
      << "  (void)node;\n  (void)s;\n  (void)binding;\n  (void)ranks;\n";
    writeBindingLocals(o, r, "  ");
    writeParamLocals(o, r, "s", "binding", "  ");
    for (size_t i = 0; i < r.leaves.size(); ++i) {
      const Leaf& l = r.leaves[i];
      if (l.binding.empty() || !labeled(l.nt)) continue;
      o << "  const " << labelType(l.nt) << "& " << kKidValuePrefix << l.binding << " = stateOf(" << nodeExpr(l.path)
        << ")->values_" << ntName(l.nt) << "[ranks[" << i << "]];\n"
        << "  (void)" << kKidValuePrefix << l.binding << ";\n";
    }
    const burgspec::Cost& cost = r.rule->cost;
    if (labeled(r.lhs)) {
      o << "  " << labelType(r.lhs) << "& " << kSelfValue << " = " << evaluatedValue(r.lhs);
      // Where the cost assigns the value first, what it held before is never read: not set.
      if (cost.dynamic && burgspec::assignsSelfFirst(cost.code))
        o << ";  // the cost assigns it first\n";
      else if (traits_[r.index - 1].passOn)
        o << ";\n  " << kSelfValue << " = s->values_" << ntName(r.leaves[0].nt)
          << "[ranks[0]];  // a chain rule passes its kid's value on\n";
      else
        o << ";\n  " << kSelfValue << " = " << labelType(r.lhs) << "{};\n";
    }
    if (cost.dynamic) {
      o << "  Cost own = dynamicCost(static_cast<Cost>(";
      writeSpecCode(o, opt_, cost.loc, burgspec::replaceValueRefs(cost.code, kSelfValue, kKidValuePrefix));
      o << "));\n";
    } else
      o << "  Cost own = " << cost.value << ";\n";
    o << "  return own;\n}\n\n";
  }
}

void KBestWriter::writeRuleKids(std::ostream& o) const {
  o << "// The kids a rule derives from nonterminals, and those nonterminals; how many.\n"
    << "int " << cls() << "::ruleKids(NodePtr node, int rule, NodePtr kids[], int nts[]) const {\n"
    << "  (void)node;\n  (void)kids;\n  (void)nts;\n"
    << "  switch (rule) {\n";
  for (const RuleFacts& r : facts_.rules) {
    if (r.leaves.empty()) continue;
    o << "    case " << r.index << ":  // " << ruleComment(r) << "\n";
    for (size_t i = 0; i < r.leaves.size(); ++i)
      o << "      kids[" << i << "] = " << nodeExpr(r.leaves[i].path) << ";\n"
        << "      nts[" << i << "] = " << ntConst(r.leaves[i].nt) << ";\n";
    o << "      return " << r.leaves.size() << ";\n";
  }
  o << "  }\n  return 0;\n}\n\n";
}

void KBestWriter::writeBindingText(std::ostream& o) const {
  o << "std::string " << cls() << "::bindingText(NodePtr node, int nt, int rank) const {\n"
    << "  const Derivation& d = derivation(node, nt, rank);\n"
    << "  const State* s = stateOf(node);\n"
    << "  (void)s;\n"
    << "  std::ostringstream out;\n"
    << "  switch (d.rule) {\n";
  for (const RuleFacts& r : facts_.rules) {
    if (params(r).empty()) continue;
    o << "    case " << r.index << ": {  // " << ruleComment(r) << "\n";
    writeParamLocals(o, r, "s", "d.binding", "      ");
    for (size_t k = 0; k < params(r).size(); ++k)
      o << "      out << \"" << (k ? ", " : "") << params(r)[k].name << "=\";\n"
        << "      printParam(out, " << params(r)[k].name << ", i" << k << ");\n";
    o << "      break;\n    }\n";
  }
  o << "  }\n  return out.str();\n}\n\n";
}

void KBestWriter::writeValues(std::ostream& o) const {
  const std::string C = cls();
  for (size_t i = 1; i <= g_.nonterminals.size(); ++i) {
    int nt = static_cast<int>(i);
    if (!labeled(nt)) continue;
    o << "const " << labelType(nt) << "& " << C << "::value_" << ntName(nt) << "(NodePtr node, int rank) const {\n"
      << "  return stateOf(node)->values_" << ntName(nt) << ".at(static_cast<size_t>(rank));\n}\n\n";
  }
  if (labelTypes_.size() != 1) return;
  o << "const " << *labelTypes_.begin() << "& " << C << "::value(NodePtr node, int nt, int rank) const {\n"
    << "  switch (nt) {\n";
  for (size_t i = 1; i <= g_.nonterminals.size(); ++i)
    if (labeled(static_cast<int>(i)))
      o << "    case " << ntConst(static_cast<int>(i)) << ": return value_" << ntName(static_cast<int>(i))
        << "(node, rank);\n";
  o << "  }\n  throw std::out_of_range(std::string(\"nonterminal \") + nonterminalName(nt) + \" has no label "
       "value\");\n}\n\n";
}

void KBestWriter::writeWaitingValues(std::ostream& o) const {
  const std::string C = cls();
  std::map<std::string, std::vector<int>> byType;  // the labeled nonterminals of each label type
  for (size_t i = 1; i <= g_.nonterminals.size(); ++i)
    if (labeled(static_cast<int>(i))) byType[labelType(static_cast<int>(i))].push_back(static_cast<int>(i));
  o << "// The label value a rule deriving `nt` evaluated last, set to wait beside its candidate: its index.\n"
    << "int " << C << "::waitValue(int nt) {\n"
    << "  switch (nt) {\n";
  for (const auto& [type, nts] : byType) {
    for (int nt : nts) o << "    case " << ntConst(nt) << ":\n";
    o << "      " << waitingValues(nts[0]) << ".push_back(std::move(" << evaluatedValue(nts[0]) << "));\n"
      << "      return static_cast<int>(" << waitingValues(nts[0]) << ".size()) - 1;\n";
  }
  o << "  }\n  return -1;\n}\n\n";
  o << "// Waiting value `value` kept as the label value of nt's next derivation at `s`.\n"
    << "void " << C << "::keepValue(State* s, int nt, int value) {\n"
    << "  (void)s;\n  (void)value;\n"
    << "  switch (nt) {\n";
  for (const auto& [type, nts] : byType)
    for (int nt : nts)
      o << "    case " << ntConst(nt) << ":\n"
        << "      s->values_" << ntName(nt) << ".push_back(std::move(" << waitingValues(nt)
        << "[static_cast<size_t>(value)]));\n"
        << "      return;\n";
  o << "  }\n}\n\n";
  o << "void " << C << "::forgetWaitingValues() {\n";
  for (const auto& [type, nts] : byType) o << "  " << waitingValues(nts[0]) << ".clear();\n";
  o << "}\n\n";
}

void KBestWriter::writeReducer(std::ostream& o) const {
  ReducerStyle style;
  style.cls = cls();
  style.prefix = opt_.prefix;
  style.rankParameter = ", int rank";
  style.rankArgument = ", rank";
  style.openSwitch = [this](std::ostream& out, int nt) {
    out << "  const Derivation& d = derivation(node, " << ntConst(nt) << ", rank);\n"
        << "  const State* s = stateOf(node);\n"
        << "  const int* ranks = s->ranks.data() + d.kids;\n"
        << "  (void)ranks;\n"
        << "  switch (d.rule) {\n";
  };
  style.kidRank = [](size_t leaf) { return ", ranks[" + std::to_string(leaf) + "]"; };
  style.argumentsBeforeKids = [this](std::ostream& out, const RuleFacts& r) {
    writeParamLocals(out, r, "s", "d.binding", "      ");
    std::string args;
    for (const RuleParam& p : params(r)) args += ", " + p.name;
    if (labeled(r.lhs)) args += ", s->values_" + ntName(r.lhs) + "[static_cast<size_t>(rank)]";
    return args;
  };
  style.argumentsAfterKids = [this](const RuleFacts& r) {
    std::string args;
    for (size_t i = 0; i < r.leaves.size(); ++i) {
      const Leaf& l = r.leaves[i];
      if (!l.binding.empty() && labeled(l.nt))
        args += ", stateOf(" + nodeExpr(l.path) + ")->values_" + ntName(l.nt) + "[ranks[" + std::to_string(i) + "]]";
    }
    return args;
  };
  burggen::writeReducer(o, g_, facts_, style);
}

void KBestWriter::writeActions(std::ostream& o) const {
  for (const RuleFacts& r : facts_.rules) {
    if (!r.rule->action) continue;
    o << "// " << ruleComment(r) << "\n" << actionSignature(r, true) << " {\n  (void)node;\n";
    for (const RuleParam& p : params(r)) o << "  (void)" << p.name << ";\n";
    if (labeled(r.lhs)) o << "  (void)" << kSelfValue << ";\n";
    for (const Leaf& l : r.leaves)
      if (!l.binding.empty()) o << "  (void)" << l.binding << ";\n";
    for (const Leaf* l : labeledLeaves(r)) o << "  (void)" << kKidValuePrefix << l->binding << ";\n";
    for (const NodeBinding& b : r.nodeBindings) o << "  (void)" << b.name << ";\n";
    writeSpecCode(o, opt_, diag_.file().locate(r.rule->actionOffset),
                  burgspec::replaceValueRefs(*r.rule->action, kSelfValue, kKidValuePrefix));
    o << "\n}\n\n";
  }
}

void KBestWriter::writeDefinitions(std::ostream& o) const {
  writeTables(o);
  writeHtmlEscape(o, opt_.prefix);
  std::string runtime = kKBestRuntime;
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"$C", cls()}, {"$P", opt_.prefix}})
    for (size_t at = runtime.find(from); at != std::string::npos; at = runtime.find(from, at + to.size()))
      runtime.replace(at, from.size(), to);
  o << runtime;
  o << "// ---- What the grammar says ----\n\n";
  writeOffers(o);
  writeDomains(o);
  writeEvaluators(o);
  writeRuleKids(o);
  writeBindingText(o);
  writeValues(o);
  writeWaitingValues(o);
  o << "// ---- Reducing ----\n\n";
  writeReducer(o);
  writeActions(o);
}

bool KBestWriter::write(EmittedMatcher& out) {
  if (!collect()) return false;
  assembleMatcher(
      g_, opt_, {"algorithm", "new", "optional"}, [this](std::ostream& o) { writeDeclarations(o); },
      [this](std::ostream& o) { writeDefinitions(o); }, out);
  return true;
}

}  // namespace

bool emitKBestMatcher(const Grammar& grammar, const EmitOptions& options, common::Diagnostics& diagnostics,
                      EmittedMatcher& out) {
  KBestWriter writer(grammar, options, diagnostics);
  return writer.write(out);
}

}  // namespace burggen
