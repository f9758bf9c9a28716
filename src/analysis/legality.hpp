#pragma once
// Questions transformations ask before they change a loop tree. Each answers yes, or no with
// a sentence saying why (naming the array and the direction vector that forbid it).
// Loops are named by their node in `kernel.body`'s tree.
#include <string>

#include "common/result.hpp"
#include "src/analysis/dependence.hpp"
#include "src/loop/loop_tree.hpp"

namespace cudaburg {

struct Legality {
  bool ok = true;
  common::Reason reason;  // empty when ok

  static Legality yes() { return {}; }
  static Legality no(std::string why) { return {false, std::move(why)}; }
  explicit operator bool() const { return ok; }
};

// No dependence is carried by `loop`: its iterations may run in any order, all at once.
Legality isParallel(const Kernel& kernel, const Node* loop);
Legality isParallel(const DependenceGraph& deps, const Node* loop);

// `loop` carries only reduction dependences: the `+=` of one statement into an element whose
// subscripts do not use the loop's index, and nothing else inside the loop reads or writes that
// element. Its iterations may run in any order if their sums are combined.
Legality isReduction(const Kernel& kernel, const Node* loop);
Legality isReduction(const DependenceGraph& deps, const Node* loop);

// `inner` is the whole body of `outer`, its bounds do not use `outer`'s index, and swapping the
// two reverses no dependence. Reduction dependences whose non-'=' loops are all marked `reduce`
// are reorderable and do not forbid it.
Legality mayInterchange(const Kernel& kernel, const Node* outer, const Node* inner);
Legality mayInterchange(const DependenceGraph& deps, const Node* outer, const Node* inner);

}  // namespace cudaburg
