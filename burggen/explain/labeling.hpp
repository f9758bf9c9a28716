#pragma once
// A labeling as a page draws it (labeling_page.hpp): the tree, every match the labeler tried in
// order, and the covers read back. describeLabeling and addBestCovers take it from any matcher
// burggen generated, through the members the matchers offer for drawing (steps, coverSteps,
// nodeId, nodeOp, nodeKid).
#include <cstdint>
#include <string>
#include <vector>

namespace burggen::explain {

using Cost = std::int64_t;

struct TreeNode {
  int id;             // number in labeling order, from 0
  std::string op;     // the operator's name, as traces show it
  std::string title;  // what the picture shows ("CONST 8")
  std::vector<int> kids;
};

// A match the labeler tried, as `--trace` prints it; nt 0 marks that a node's matches are done.
struct Step {
  int node;
  int nt;
  Cost cost;
  int rule;  // number in the spec
  std::string text;
  bool better;  // it improved the node's entry for nt
  bool chain;
};

struct CoverRule {
  int node;
  int nt;
  int rule;
  std::string text;
  Cost cost;  // of the subtree from nt
  int depth;
};

struct Cover {
  Cost cost;
  std::vector<CoverRule> rules;  // top down, as the reducer walks them
};

struct Labeling {
  std::string title;                      // what was labeled (a statement)
  std::vector<std::string> nonterminals;  // by number; [0] is unused
  int start = 0;
  std::vector<TreeNode> nodes;  // by id
  int root = 0;
  std::vector<Step> steps;
  std::vector<Cover> covers;   // cheapest first; none when the root does not derive `start`
  std::string failure;         // then, where labeling stopped and why
  std::vector<int> unmatched;  // the nodes no rule matched
};

// The number of nodes of the tree at `root`.
template <class Matcher>
int countNodes(typename Matcher::NodePtr root) {
  int count = 1;
  for (int i = 0; i < Matcher::arity(Matcher::nodeOp(root)); ++i)
    count += countNodes<Matcher>(Matcher::nodeKid(root, i));
  return count;
}

namespace detail {

template <class Matcher, class Title>
void addNodes(const Matcher& m, typename Matcher::NodePtr node, const Title& title, Labeling& out) {
  int id = m.nodeId(node);
  if (out.nodes.size() <= static_cast<size_t>(id)) out.nodes.resize(id + 1);
  TreeNode& t = out.nodes[id];
  t.id = id;
  t.op = Matcher::opName(Matcher::nodeOp(node));
  t.title = title(node);
  for (int i = 0; i < Matcher::arity(Matcher::nodeOp(node)); ++i) {
    typename Matcher::NodePtr kid = Matcher::nodeKid(node, i);
    out.nodes[id].kids.push_back(m.nodeId(kid));
    addNodes(m, kid, title, out);
  }
}

template <class Matcher>
bool derivesAnything(const Matcher& m, typename Matcher::NodePtr node) {
  for (int nt = 1; nt <= Matcher::kNonterminals; ++nt)
    if (m.cost(node, nt) < Matcher::INF) return true;
  return false;
}

template <class Matcher>
void findUnmatched(const Matcher& m, typename Matcher::NodePtr node, std::vector<int>& out) {
  for (int i = 0; i < Matcher::arity(Matcher::nodeOp(node)); ++i) findUnmatched(m, Matcher::nodeKid(node, i), out);
  if (!derivesAnything(m, node)) out.push_back(m.nodeId(node));
}

template <class Matcher>
Cover coverOf(Cost cost, const std::vector<typename Matcher::CoverStep>& steps) {
  Cover cover{cost, {}};
  for (const auto& s : steps) cover.rules.push_back({s.node, s.nt, s.rule, s.text, s.cost, s.depth});
  return cover;
}

}  // namespace detail

// The labeling `m` just did of `root`, whose steps it recorded in `steps` (Matcher::steps set
// before label()); `title` names a node in the picture (a std::string from a NodePtr).
template <class Matcher, class Title>
Labeling describeLabeling(const Matcher& m, typename Matcher::NodePtr root,
                          const std::vector<typename Matcher::LabelStep>& steps, const Title& title,
                          const std::string& heading) {
  Labeling out;
  out.title = heading;
  out.nonterminals.push_back("");
  for (int nt = 1; nt <= Matcher::kNonterminals; ++nt) out.nonterminals.push_back(Matcher::nonterminalName(nt));
  out.start = Matcher::kStart;
  detail::addNodes(m, root, title, out);
  out.root = m.nodeId(root);
  for (const auto& s : steps) out.steps.push_back({s.node, s.nt, s.cost, s.rule, s.text, s.better, s.chain});
  detail::findUnmatched(m, root, out.unmatched);
  Cost cost = m.cost(root, Matcher::kStart);
  if (cost < Matcher::INF) {
    out.covers.push_back(detail::coverOf<Matcher>(cost, m.coverSteps(root)));
    return out;
  }
  // Where it stopped: the first node no rule matched, in the order labeling finished them.
  const TreeNode& top = out.nodes[out.root];
  std::string rootText = "#" + std::to_string(top.id) + " " + top.op;
  std::string derives;
  for (int nt = 1; nt <= Matcher::kNonterminals; ++nt)
    if (m.cost(root, nt) < Matcher::INF) derives += (derives.empty() ? "" : ", ") + out.nonterminals[nt];
  if (!out.unmatched.empty() && out.unmatched.front() != out.root) {
    const TreeNode& stop = out.nodes[out.unmatched.front()];
    out.failure = "labeling stopped at #" + std::to_string(stop.id) + " " + stop.op + ": no rule matches it, so " +
                  rootText + " derives no " + out.nonterminals[out.start];
  } else if (derives.empty()) {
    out.failure = "no rule matches " + rootText + ", so it derives no " + out.nonterminals[out.start];
  } else {
    out.failure = rootText + " derives " + derives + " but no " + out.nonterminals[out.start] + ": no rule of " +
                  out.nonterminals[out.start] + " matches there";
  }
  return out;
}

// Replaces the covers of `out` by the `count` cheapest that the k-best matcher `m` kept for
// `root` (fewer where fewer exist). `m` labeled the same tree, so its nodes' numbers agree.
template <class KMatcher>
void addBestCovers(const KMatcher& m, typename KMatcher::NodePtr root, int count, Labeling& out) {
  out.covers.clear();
  for (int rank = 0; rank < count && rank < m.count(root, KMatcher::kStart); ++rank)
    out.covers.push_back(detail::coverOf<KMatcher>(m.cost(root, KMatcher::kStart, rank), m.coverSteps(root, rank)));
}

}  // namespace burggen::explain
