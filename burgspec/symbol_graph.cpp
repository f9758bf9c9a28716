#include "burgspec/symbol_graph.hpp"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/property_map/property_map.hpp>
#include <limits>

namespace burgspec {

namespace {

struct RuleEdge {
  int rule;
};
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property, RuleEdge>;
using Vertex = boost::graph_traits<Graph>::vertex_descriptor;
using Edge = boost::graph_traits<Graph>::edge_descriptor;

// Breadth-first search from `start`: for each vertex, the tree edge that reached it and its
// distance (max() when unreached).
struct SearchTree {
  std::vector<Edge> reachedBy;
  std::vector<int> distance;
};

SearchTree breadthFirst(const Graph& graph, Vertex start) {
  size_t n = boost::num_vertices(graph);
  SearchTree tree{std::vector<Edge>(n), std::vector<int>(n, std::numeric_limits<int>::max())};
  tree.distance[start] = 0;
  auto reachedBy = boost::make_iterator_property_map(tree.reachedBy.begin(), boost::get(boost::vertex_index, graph));
  auto distance = boost::make_iterator_property_map(tree.distance.begin(), boost::get(boost::vertex_index, graph));
  boost::breadth_first_search(graph, start,
                              boost::visitor(boost::make_bfs_visitor(
                                  std::make_pair(boost::record_edge_predecessors(reachedBy, boost::on_tree_edge()),
                                                 boost::record_distances(distance, boost::on_tree_edge())))));
  return tree;
}

}  // namespace

void SymbolGraph::addRule(int rule, int lhs, std::vector<int> leaves) {
  rules_.push_back({rule, lhs, std::move(leaves)});
}

// A worklist: each rule counts the leaves not yet known productive; a nonterminal that becomes
// productive lowers the counts of the rules that use it. Linear in the size of the patterns,
// in whatever order the rules are written.
std::vector<bool> SymbolGraph::productive() const {
  std::vector<bool> productive(nonterminals_, false);
  std::vector<size_t> waiting(rules_.size());
  std::vector<std::vector<size_t>> usedBy(nonterminals_);
  std::vector<int> ready;
  for (size_t r = 0; r < rules_.size(); ++r) {
    waiting[r] = rules_[r].leaves.size();
    for (int leaf : rules_[r].leaves) usedBy[leaf].push_back(r);
    if (waiting[r] == 0) ready.push_back(rules_[r].lhs);
  }
  while (!ready.empty()) {
    int nt = ready.back();
    ready.pop_back();
    if (productive[nt]) continue;
    productive[nt] = true;
    for (size_t r : usedBy[nt])
      if (--waiting[r] == 0) ready.push_back(rules_[r].lhs);
  }
  return productive;
}

std::vector<bool> SymbolGraph::reachableFrom(int start) const {
  Graph uses(nonterminals_);
  for (const auto& use : rules_)
    for (int leaf : use.leaves) boost::add_edge(use.lhs, leaf, RuleEdge{use.rule}, uses);
  SearchTree tree = breadthFirst(uses, start);
  std::vector<bool> reachable(nonterminals_);
  for (size_t v = 0; v < nonterminals_; ++v) reachable[v] = tree.distance[v] != std::numeric_limits<int>::max();
  return reachable;
}

}  // namespace burgspec
