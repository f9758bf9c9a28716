#pragma once
// The grammar-independent parts of a k-best matcher: the list its label values are kept in, and
// its definitions: labeling a node by a heap of candidate derivations, keeping them, the
// accessors and the covers' text. The k-best emitter writes the definitions with `$C` replaced by
// the matcher class's name and `$P` by the prefix.
namespace burggen {

// The list that holds label values, declared inside the matcher class: values are large (a
// derivation's whole description) and a node's lists long, so they are kept in blocks that never
// move as the list grows, and the blocks are reused by the next labeling.
inline const char* kKBestValueList = R"valuelist(  // Label values in blocks that stay put as the list
  // grows; cleared, the blocks are kept for the next labeling.
  template <class T>
  class ValueList {
   public:
    ValueList() = default;
    ValueList(const ValueList&) = delete;
    ValueList& operator=(const ValueList&) = delete;
    ~ValueList() { clear(); }

    size_t size() const { return size_; }
    T& operator[](size_t i) { return *slot(i); }
    const T& operator[](size_t i) const { return *const_cast<ValueList*>(this)->slot(i); }
    const T& at(size_t i) const {
      if (i >= size_) throw std::out_of_range("no label value " + std::to_string(i));
      return (*this)[i];
    }
    void push_back(T&& value) {
      if (size_ == blocks_.size() * kBlock) blocks_.push_back(std::make_unique<Block>());
      new (slot(size_)) T(std::move(value));
      ++size_;
    }
    void clear() {
      for (size_t i = 0; i < size_; ++i) slot(i)->~T();
      size_ = 0;
    }

   private:
    static constexpr size_t kBlock = 256;
    struct Block {
      alignas(T) unsigned char bytes[kBlock * sizeof(T)];
    };
    T* slot(size_t i) {
      return std::launder(reinterpret_cast<T*>(blocks_[i / kBlock]->bytes + i % kBlock * sizeof(T)));
    }
    std::vector<std::unique_ptr<Block>> blocks_;
    size_t size_ = 0;
  };
)valuelist";

inline const char* kKBestRuntime = R"runtime(// ---- Labeling ----

bool $C::label(NodePtr root) {
  used_ = 0;
  nextId_ = 0;
  forgetStates();
  return !labelNode(root)->best[kStart].empty();
}

$C::State* $C::newState() {
  if (used_ == states_.size()) states_.emplace_back(new State);
  State* s = states_[used_++].get();
  s->clear();
  return s;
}

// Labels the kids, then takes the node's candidate derivations from a heap in the order
// (phase, cost, nonterminal order, rule, binding, kid ranks). A candidate taken is kept when its
// nonterminal has fewer than best_, and offers what follows from it: the next combinations of
// its kids' ranks (a lazy rule) and the chain rules from its nonterminal.
$C::State* $C::labelNode(NodePtr node) {
  State* s = newState();
  s->op = opOf(node);
  s->id = nextId_++;
  setState(node, s);
  for (int i = 0; i < arity(s->op); ++i) labelNode(kidOf(node, i));
  heap_.clear();
  pending_.clear();
  forgetWaitingValues();
  offerBaseRules(node, s);
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), [this](const Candidate& a, const Candidate& b) { return after(a, b); });
    Candidate c = heap_.back();
    heap_.pop_back();
    if (full(s, c.nt)) continue;
    int rank = keep(node, s, c);
    if (kRules[c.rule].lazy && kRules[c.rule].rhs == 0) offerSuccessors(node, s, c);
    offerChainRules(node, s, c.nt, rank);
  }
  return s;
}

// Whether candidate a comes after b: the order of derivations, and of ties, that the matcher keeps.
bool $C::after(const Candidate& a, const Candidate& b) const {
  if (a.phase != b.phase) return a.phase > b.phase;
  if (a.cost != b.cost) return a.cost > b.cost;
  if (a.order != b.order) return a.order > b.order;
  if (a.rule != b.rule) return a.rule > b.rule;
  if (a.binding != b.binding) return a.binding > b.binding;
  for (int i = 0; i < kRules[a.rule].leaves; ++i) {
    int x = pending_[a.ranks + i], y = pending_[b.ranks + i];
    if (x != y) return x > y;
  }
  return false;
}

void $C::push(const Candidate& c) {
  heap_.push_back(c);
  std::push_heap(heap_.begin(), heap_.end(), [this](const Candidate& a, const Candidate& b) { return after(a, b); });
}

// Appends a candidate taken to its nonterminal's derivations, with its label value (the one
// evaluated when it was offered; a lazy rule's next combination is evaluated now); its rank.
int $C::keep(NodePtr node, State* s, const Candidate& c) {
  const RuleInfo& r = kRules[c.rule];
  int rank = static_cast<int>(s->best[c.nt].size());
  const int* ranks = pending_.data() + c.ranks;
  s->best[c.nt].push_back(Derivation{c.cost, static_cast<RuleIndex>(c.rule), c.binding, static_cast<int>(s->ranks.size())});
  s->ranks.insert(s->ranks.end(), ranks, ranks + r.leaves);
  if (r.labeled) {
    int value = c.value;
    if (value < 0) {
      evaluate(c.rule, node, s, c.binding, ranks);
      value = waitValue(c.nt);
    }
    keepValue(s, c.nt, value);
  }
  if (trace) traceKeep(node, c.nt, rank);
  return rank;
}

// The sum of the costs of the kids' derivations of the given ranks.
$C::Cost $C::kidsCost(const NodePtr kids[], const int nts[], const int ranks[], int n) const {
  Cost sum = 0;
  for (int i = 0; i < n; ++i) sum = add(sum, stateOf(kids[i])->best[nts[i]][ranks[i]].cost);
  return sum;
}

// Offers a base rule whose operators matched at `node`, for each binding of its parameters: a
// lazy rule (its own cost does not depend on which kid derivations it uses) with its kids'
// cheapest derivations, the next combinations following as candidates are taken; any other
// rule with every combination of its kids' kept derivations.
void $C::offer(NodePtr node, State* s, int rule) {
  const RuleInfo& r = kRules[rule];
  if (full(s, r.lhs)) return;
  NodePtr kids[kMaxKids];
  int nts[kMaxKids] = {}, counts[kMaxKids] = {}, ranks[kMaxKids] = {};
  int n = ruleKids(node, rule, kids, nts);
  for (int i = 0; i < n; ++i)
    if ((counts[i] = count(kids[i], nts[i])) == 0) return;
  int bindings = prepareDomains(rule, node, s);
  for (int b = 0; b < bindings; ++b) {
    if (r.lazy) {
      offerCombination(node, s, rule, b, kids, nts, n, ranks);
      continue;
    }
    // Every combination, the last kid's rank turning fastest.
    for (;;) {
      offerCombination(node, s, rule, b, kids, nts, n, ranks);
      int i = n - 1;
      while (i >= 0 && ++ranks[i] == counts[i]) ranks[i--] = 0;
      if (i < 0) break;
    }
  }
}

// Offers a chain rule over the rank-th derivation of its right side at `node`, unless that
// derivation passes through the rule's left side: a derivation visits a nonterminal once at a node.
void $C::offerChain(NodePtr node, State* s, int rule, int rank) {
  const RuleInfo& r = kRules[rule];
  if (full(s, r.lhs) || (r.onCycle && passesThrough(s, r.rhs, rank, r.lhs))) return;
  NodePtr kids[1] = {node};
  int nts[1] = {r.rhs};
  int bindings = prepareDomains(rule, node, s);
  for (int b = 0; b < bindings; ++b) offerCombination(node, s, rule, b, kids, nts, 1, &rank);
}

// Prices one derivation (rule, binding, kid ranks) and puts it in the heap unless infinite, its
// label value waiting beside it.
void $C::offerCombination(NodePtr node, State* s, int rule, int binding, const NodePtr kids[], const int nts[], int n,
                          const int ranks[]) {
  const RuleInfo& r = kRules[rule];
  int at = static_cast<int>(pending_.size());
  pending_.insert(pending_.end(), ranks, ranks + n);
  Cost own = evaluate(rule, node, s, binding, pending_.data() + at);
  Cost cost = r.total || own >= INF ? own : add(own, kidsCost(kids, nts, pending_.data() + at, n));
  if (cost >= INF) {
    pending_.resize(at);
    return;
  }
  push(Candidate{kPhase[r.lhs], cost, kOrder[r.lhs], r.lhs, rule, binding, at, own, r.labeled ? waitValue(r.lhs) : -1});
}

// After a lazy rule's candidate is taken: the combinations one rank further in one kid, for
// each kid up to the first whose rank is not 0, so that each combination is offered once.
void $C::offerSuccessors(NodePtr node, State* s, const Candidate& c) {
  (void)s;
  NodePtr kids[kMaxKids];
  int nts[kMaxKids];
  int n = ruleKids(node, c.rule, kids, nts);
  for (int i = 0; i < n; ++i) {
    int rank = pending_[c.ranks + i];
    if (rank + 1 < count(kids[i], nts[i])) {
      Candidate next = c;
      next.ranks = static_cast<int>(pending_.size());
      next.value = -1;  // its kids' values may make another: evaluated if kept
      for (int j = 0; j < n; ++j) pending_.push_back(pending_[c.ranks + j] + (j == i ? 1 : 0));
      next.cost = add(c.own, kidsCost(kids, nts, pending_.data() + next.ranks, n));
      if (next.cost < INF) push(next);
    }
    if (rank != 0) break;
  }
}

// Whether the rank-th derivation of nt at this node goes through `target` by chain rules.
bool $C::passesThrough(const State* s, int nt, int rank, int target) const {
  for (;;) {
    if (nt == target) return true;
    const Derivation& d = s->best[nt][rank];
    const RuleInfo& r = kRules[d.rule];
    if (r.rhs == 0) return false;
    rank = s->ranks[d.kids];
    nt = r.rhs;
  }
}

// ---- What the labels hold ----

int $C::count(NodePtr node, int nt) const {
  return nt >= 1 && nt <= kNonterminals ? static_cast<int>(stateOf(node)->best[nt].size()) : 0;
}

$C::Cost $C::cost(NodePtr node, int nt, int rank) const {
  return rank >= 0 && rank < count(node, nt) ? stateOf(node)->best[nt][rank].cost : INF;
}

int $C::rule(NodePtr node, int nt, int rank) const {
  return rank >= 0 && rank < count(node, nt) ? kRules[stateOf(node)->best[nt][rank].rule].number : 0;
}

const char* $C::ruleText(NodePtr node, int nt, int rank) const {
  return rank >= 0 && rank < count(node, nt) ? kRules[stateOf(node)->best[nt][rank].rule].text : "";
}

const $C::Derivation& $C::derivation(NodePtr node, int nt, int rank) const {
  if (rank < 0 || rank >= count(node, nt)) throw noCover(node, nt, rank);
  return stateOf(node)->best[nt][rank];
}

std::string $C::coverText(NodePtr root, int rank) const {
  return coverText(root, kStart, rank);
}

std::string $C::coverText(NodePtr node, int nt, int rank) const {
  std::ostringstream out;
  printCover(out, node, nt, rank, 0);
  return out.str();
}

void $C::printCover(std::ostream& out, NodePtr node, int nt, int rank, int depth) const {
  const Derivation& d = derivation(node, nt, rank);
  out << std::string(2 * depth, ' ') << kRules[d.rule].text;
  std::string params = bindingText(node, nt, rank);
  if (!params.empty()) out << " [" << params << "]";
  out << '\n';
  NodePtr kids[kMaxKids];
  int nts[kMaxKids];
  int n = ruleKids(node, d.rule, kids, nts);
  const int* ranks = stateOf(node)->ranks.data() + d.kids;
  for (int i = 0; i < n; ++i) printCover(out, kids[i], nts[i], ranks[i], depth + 1);
}

std::vector<$C::CoverStep> $C::coverSteps(NodePtr root, int rank) const {
  struct Pending {
    NodePtr node;
    int nt;
    int rank;
    int depth;
  };
  std::vector<CoverStep> out;
  std::vector<Pending> todo{{root, kStart, rank, 0}};
  while (!todo.empty()) {
    Pending p = todo.back();
    todo.pop_back();
    const Derivation& d = derivation(p.node, p.nt, p.rank);
    std::string text = kRules[d.rule].text;
    std::string params = bindingText(p.node, p.nt, p.rank);
    if (!params.empty()) text += " [" + params + "]";
    out.push_back({stateOf(p.node)->id, p.nt, kRules[d.rule].number, text, d.cost, p.depth});
    NodePtr kids[kMaxKids];
    int nts[kMaxKids];
    const int* ranks = stateOf(p.node)->ranks.data() + d.kids;
    for (int i = ruleKids(p.node, d.rule, kids, nts) - 1; i >= 0; --i) todo.push_back({kids[i], nts[i], ranks[i], p.depth + 1});
  }
  return out;
}

void $C::traceKeep(NodePtr node, int nt, int rank) const {
  const State* s = stateOf(node);
  const Derivation& d = s->best[nt][rank];
  *trace << '#' << s->id << ' ' << opName(s->op) << ": " << kRules[d.rule].text;
  std::string params = bindingText(node, nt, rank);
  if (!params.empty()) *trace << " [" << params << "]";
  *trace << " = " << kRules[d.rule].number << "  cost " << d.cost << "  (" << nonterminalName(nt) << " rank " << rank
         << ")\n";
}

// The labeled tree in Graphviz's DOT language: every node with, per nonterminal, the cost and
// rule of its cheapest derivation and how many are kept; the derivations of the rank-th cover
// from `nt` highlighted, with their own cost and rule.
void $C::printDot(std::ostream& out, NodePtr root, int nt, int rank) const {
  std::vector<std::vector<int>> chosen(static_cast<size_t>(nextId_), std::vector<int>(kNonterminals + 1, -1));
  if (rank >= 0 && rank < count(root, nt)) markCover(root, nt, rank, chosen);
  out << "digraph labeled_tree {\n"
      << "  node [shape=plaintext, fontname=\"Helvetica\", fontsize=11];\n";
  printDotNode(out, root, chosen);
  out << "}\n";
}

void $C::markCover(NodePtr node, int nt, int rank, std::vector<std::vector<int>>& chosen) const {
  const Derivation& d = derivation(node, nt, rank);
  chosen[stateOf(node)->id][nt] = rank;
  NodePtr kids[kMaxKids];
  int nts[kMaxKids];
  int n = ruleKids(node, d.rule, kids, nts);
  const int* ranks = stateOf(node)->ranks.data() + d.kids;
  for (int i = 0; i < n; ++i) markCover(kids[i], nts[i], ranks[i], chosen);
}

void $C::printDotNode(std::ostream& out, NodePtr node, const std::vector<std::vector<int>>& chosen) const {
  const State* s = stateOf(node);
  bool reduced = false;
  for (int nt = 1; nt <= kNonterminals; ++nt) reduced = reduced || chosen[s->id][nt] >= 0;
  // A node inside a larger pattern is greyed: no rule of the cover starts at it.
  out << "  n" << s->id << " [label=<<table border=\"0\" cellborder=\"1\" cellspacing=\"0\">"
      << "<tr><td colspan=\"3\" bgcolor=\"" << (reduced ? "#cfe2f3" : "#eeeeee") << "\"><b>" << $PHtml(opName(s->op))
      << "</b> #" << s->id << "</td></tr>";
  for (int nt = 1; nt <= kNonterminals; ++nt) {
    if (s->best[nt].empty()) continue;
    int rank = chosen[s->id][nt];
    const Derivation& d = s->best[nt][rank >= 0 ? rank : 0];
    const char* open = rank >= 0 ? "<td bgcolor=\"#ffd966\"><b>" : "<td>";
    const char* close = rank >= 0 ? "</b></td>" : "</td>";
    out << "<tr>" << open << nonterminalName(nt) << close << open << d.cost << " (" << s->best[nt].size() << " kept)"
        << close << open << $PHtml(kRules[d.rule].text) << " = " << kRules[d.rule].number << close << "</tr>";
  }
  out << "</table>>];\n";
  for (int i = 0; i < arity(s->op); ++i) {
    NodePtr kid = kidOf(node, i);
    printDotNode(out, kid, chosen);
    out << "  n" << s->id << " -> n" << stateOf(kid)->id << ";\n";
  }
}

$C::NoCoverError $C::noCover(NodePtr node, int nt, int rank) const {
  const State* s = stateOf(node);
  return NoCoverError(std::string("no cover of node #") + std::to_string(s->id) + " (" + opName(s->op) + ") as " +
                      nonterminalName(nt) + (rank > 0 ? " of rank " + std::to_string(rank) : std::string()));
}

)runtime";

}  // namespace burggen
