#pragma once
// Data dependences between the statements of a loop tree, from their affine subscripts.
//
// A statement is an Assign or a Stage leaf, at one place in the tree. Two accesses to the same
// array, at least one of them a write, depend on each other when some pair of iterations makes
// their subscripts equal. For the loops the two statements share, each dependence records a
// direction vector (how the source's iteration compares with the sink's, loop by loop) and,
// where it is the same for every pair of iterations, the distance.
//
// The test is exact for the uniform, constant-coefficient subscripts of the examples and
// conservative otherwise (it may report a dependence that does not exist, never the reverse):
// it solves the subscript equations together with the loop bounds (affine, min() uppers,
// steps) by Fourier-Motzkin elimination with a GCD test and integer tightening.
#include <boost/graph/adjacency_list.hpp>
#include <optional>
#include <string>
#include <vector>

#include "src/loop/loop_tree.hpp"

namespace cudaburg {

// How the source's value of a loop index compares with the sink's. Any: one of the three, not
// told apart (see PairTest in the .cpp: only where telling them apart would take exponential time,
// and never at or right after the carrying loop).
enum class Direction { Less, Equal, Greater, Any };
char directionChar(Direction d);  // '<', '=', '>', '*'

enum class DependenceKind {
  Flow,       // write, then a read of the same element
  Anti,       // read, then a write
  Output,     // write, then another write
  Reduction,  // one `+=` statement into the same element from two iterations (reorderable)
};
const char* dependenceKindName(DependenceKind k);  // "flow", "anti", "output", "reduction"

// A statement at one place in the tree, with the loops around it (outermost first).
struct Statement {
  const Node* node = nullptr;
  std::vector<const Node*> loops;
  int order = 0;  // position in a depth-first walk: textual order
};

struct Dependence {
  DependenceKind kind = DependenceKind::Flow;
  int source = 0;  // statement numbers (DependenceGraph::statements())
  int sink = 0;
  std::string array;
  std::vector<const Node*> loops;                 // the loops both share, outermost first
  std::vector<Direction> directions;              // one per shared loop
  std::vector<std::optional<int64_t>> distances;  // sink index - source index, when constant

  // The loop that carries it: the first with a direction other than '='. Null when the
  // dependence holds within one iteration of every shared loop (loop independent).
  const Node* carrier() const;
  // Whether `loop` is one of the shared loops and the dependence is '=' on every one outside it.
  bool sameIterationOutside(const Node* loop) const;
  std::string directionString() const;  // "(=, =, <)"
};

// Statements as vertices, dependences as edges (source -> sink) carrying their Dependence.
class DependenceGraph {
 public:
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, Statement, Dependence>;

  explicit DependenceGraph(const Kernel& kernel);

  const Graph& graph() const { return graph_; }
  const std::vector<Statement>& statements() const { return statements_; }
  const std::vector<Dependence>& dependences() const { return dependences_; }
  // The dependences whose carrier is `loop`.
  std::vector<const Dependence*> carriedBy(const Node* loop) const;
  // Whether `stmt` (a statement number) lies inside `loop`.
  bool encloses(const Node* loop, int stmt) const;
  // One line a dependence: "flow C: S0 -> S1 (=, =, <) distance (0, 0, 1)", S numbers as above.
  std::string describe(const Dependence& d) const;
  std::string str() const;  // all of them, one a line

 private:
  Graph graph_;
  std::vector<Statement> statements_;
  std::vector<Dependence> dependences_;
};

}  // namespace cudaburg
