#include "burgspec/symbol_graph.hpp"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/strong_components.hpp>
#include <boost/property_map/property_map.hpp>
#include <limits>
#include <map>

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
  auto reachedBy =
      boost::make_iterator_property_map(tree.reachedBy.begin(), boost::get(boost::vertex_index, graph));
  auto distance =
      boost::make_iterator_property_map(tree.distance.begin(), boost::get(boost::vertex_index, graph));
  boost::breadth_first_search(graph, start,
                              boost::visitor(boost::make_bfs_visitor(std::make_pair(
                                  boost::record_edge_predecessors(reachedBy, boost::on_tree_edge()),
                                  boost::record_distances(distance, boost::on_tree_edge())))));
  return tree;
}

}  // namespace

void SymbolGraph::addRule(int rule, int lhs, std::vector<int> leaves, bool chain) {
  rules_.push_back({rule, lhs, std::move(leaves), chain});
}

std::vector<bool> SymbolGraph::productive() const {
  std::vector<bool> productive(nonterminals_, false);
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& use : rules_) {
      if (productive[use.lhs]) continue;
      if (std::all_of(use.leaves.begin(), use.leaves.end(), [&](int leaf) { return productive[leaf]; })) {
        productive[use.lhs] = true;
        changed = true;
      }
    }
  }
  return productive;
}

std::vector<ChainCycle> SymbolGraph::chainCycles(const std::function<bool(int rule)>& preferred) const {
  Graph chains(nonterminals_);
  for (const auto& use : rules_)
    if (use.chain && use.leaves.size() == 1)
      boost::add_edge(use.lhs, use.leaves.front(), RuleEdge{use.rule}, chains);

  std::vector<int> component(nonterminals_);
  boost::strong_components(
      chains, boost::make_iterator_property_map(component.begin(), boost::get(boost::vertex_index, chains)));

  // The chain rules inside each component; a component with one is cyclic (self-loops too).
  std::map<int, std::vector<Edge>> inside;
  for (auto [it, end] = boost::edges(chains); it != end; ++it)
    if (component[boost::source(*it, chains)] == component[boost::target(*it, chains)])
      inside[component[boost::source(*it, chains)]].push_back(*it);

  std::vector<ChainCycle> cycles;
  for (auto& [id, edges] : inside) {
    auto byRule = [&](const Edge& a, const Edge& b) { return chains[a].rule < chains[b].rule; };
    std::sort(edges.begin(), edges.end(), byRule);
    auto chosen =
        std::find_if(edges.begin(), edges.end(), [&](const Edge& e) { return preferred(chains[e].rule); });
    Edge first = chosen == edges.end() ? edges.front() : *chosen;
    Vertex start = boost::source(first, chains);
    // The shortest way back to `start` after taking `first`.
    SearchTree tree = breadthFirst(chains, boost::target(first, chains));
    Edge closing = first;
    int best = std::numeric_limits<int>::max();
    for (const Edge& e : edges) {
      Vertex from = boost::source(e, chains);
      if (boost::target(e, chains) == start && tree.distance[from] < best) {
        best = tree.distance[from];
        closing = e;
      }
    }
    ChainCycle cycle;
    if (boost::target(first, chains) != start) {
      std::vector<int> back{chains[closing].rule};
      for (Vertex v = boost::source(closing, chains); v != boost::target(first, chains);) {
        Edge e = tree.reachedBy[v];
        back.push_back(chains[e].rule);
        v = boost::source(e, chains);
      }
      cycle.rules.push_back(chains[first].rule);
      cycle.rules.insert(cycle.rules.end(), back.rbegin(), back.rend());
    } else {
      cycle.rules.push_back(chains[first].rule);
    }
    for (const Edge& e : edges)
      cycle.componentRules.push_back(chains[e].rule);
    cycles.push_back(std::move(cycle));
  }
  std::sort(cycles.begin(), cycles.end(), [](const ChainCycle& a, const ChainCycle& b) {
    return *std::min_element(a.componentRules.begin(), a.componentRules.end()) <
           *std::min_element(b.componentRules.begin(), b.componentRules.end());
  });
  return cycles;
}

std::vector<bool> SymbolGraph::reachableFrom(int start) const {
  Graph uses(nonterminals_);
  for (const auto& use : rules_)
    for (int leaf : use.leaves)
      boost::add_edge(use.lhs, leaf, RuleEdge{use.rule}, uses);
  SearchTree tree = breadthFirst(uses, start);
  std::vector<bool> reachable(nonterminals_);
  for (size_t v = 0; v < nonterminals_; ++v)
    reachable[v] = tree.distance[v] != std::numeric_limits<int>::max();
  return reachable;
}

}  // namespace burgspec
