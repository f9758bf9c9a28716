// peel: which loops the GPU runs with their edges apart (Kernel::peeled). The tree is unchanged;
// the emitter writes the whole part and the edge of each such loop separately.
#include <algorithm>

#include "src/transform/transforms.hpp"
#include "src/transform/tree_edit.hpp"

namespace cudaburg {

namespace {

// Loops a thread runs by itself: a loop inside one is not uniform over the block.
bool isThreadLoop(const Node& n) {
  return n.kind == NodeKind::For &&
         (isBlockMapping(n.mapping) || n.mapping == Mapping::ThreadSerial || n.mapping == Mapping::Vector);
}

// "" when `loop` (below `above`) can be peeled, else why not.
std::string peelProblem(const Node& loop, const Ancestors& above) {
  const std::string name = "loop " + loop.index;
  int64_t lower = 0, upper = 0;
  bool constant = constantBounds(loop, lower, upper);
  int64_t whole = constant && upper > lower ? (upper - lower) / loop.step : 0;  // whole iterations
  bool partial = constant && upper > lower && (upper - lower) % loop.step != 0;
  if (isGridMapping(loop.mapping)) {
    if (!constant) return name + " is a grid loop without constant bounds";
    if (!partial) return name + " has whole blocks only: nothing to peel";
    if (whole == 0) return name + " has no whole block: nothing would run unguarded";
    return "";
  }
  if (loop.mapping != Mapping::None && !isPipelined(loop.mapping))
    return name + " is mapped " + mappingName(loop.mapping) + "; only grid loops and uniform serial loops are peeled";
  for (const auto& a : above)
    if (isThreadLoop(*a)) return name + " lies inside loop " + a->index + ", which a thread runs by itself";
  if (constant && !partial) return name + "'s bounds are a multiple of its step apart: nothing to peel";
  if (constant && whole == 0) return name + " has no whole iteration: nothing would run unguarded";
  return "";
}

}  // namespace

TransformResult peel(const Kernel& kernel, const std::vector<std::string>& loops) {
  if (loops.empty()) return TransformResult::refuse("peeling needs a loop");
  Kernel out = kernel;
  for (const std::string& index : loops) {
    if (std::find(out.peeled.begin(), out.peeled.end(), index) != out.peeled.end())
      return TransformResult::refuse("loop " + index + " is peeled already");
    std::string problem = soleLoopProblem(kernel.body, index, "is peeled", peelProblem);
    if (!problem.empty()) return TransformResult::refuse(problem);
    out.peeled.push_back(index);
  }
  return TransformResult::success(std::move(out));
}

}  // namespace cudaburg
