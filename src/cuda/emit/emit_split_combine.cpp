// A split reduction's parts combined in a workspace (Kernel::workspaceSplit), in place of atomic
// adds into outputs zeroed before the launch. Every part stores the sums of its register tile into
// its own slice of `<output>_parts`, then counts its arrival on its tile's counter; the last part
// of the tile to arrive adds the slices up in the parts' order (its own from its registers) into
// the outputs, and sets the counter back to zero for the next launch. No part waits for another,
// the outputs need no zeroing, and the sums come out the same whichever part is last.
#include <algorithm>

#include "src/cuda/emit/kernel_writer.hpp"
#include "src/loop/tree_walk.hpp"

namespace cudaburg::emit_internal {
namespace {

constexpr const char* kArrivals = "split_arrivals";  // a tile's parts that have stored their sums
constexpr const char* kFirstThread = "threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0";

}  // namespace

bool KernelWriter::writesSplitSums(const Node& loop) const {
  if (kernel_.workspaceSplit.empty() || split_.phase() != SplitCombine::Phase::Atomic || position_.insideBlockLoop())
    return false;
  bool atomic = false;
  forEachNode(loop, [&](const Node& n) { atomic = atomic || (n.kind == NodeKind::Assign && n.atomic); });
  return atomic;
}

void KernelWriter::emitWorkspaceCombine(const Node& loop, const Scope& scope) {
  const LaunchPlan::GridLoop* part = nullptr;
  for (const auto& g : plan_.gridLoops)
    if (g.loop->index == kernel_.workspaceSplit) part = &g;
  if (plan_.naive || !part || part->axis != 2 || part->trips != 0)
    return refuse("the parts of " + kernel_.workspaceSplit + " meet in a workspace only from a grid.z of their own");
  if (kernel_.warpTiles())  // not measured on tensor cores' fragments: their parts add up atomically
    return refuse("the parts of " + kernel_.workspaceSplit + " meet in a workspace only from threads' register tiles");
  auto addWorkspace = [&](const std::string& name, ScalarType type, int64_t elements) {
    if (kernel_.findParam(name)) return refuse("the workspace " + name + " has the name of an array of the nest");
    split_.addWorkspace({name, type, elements});
  };
  const std::string parts = std::to_string(plan_.grid[2]);
  const std::string tile = "blockIdx.x + " + std::to_string(plan_.grid[0]) + " * blockIdx.y";
  addWorkspace(kArrivals, ScalarType::Int, plan_.grid[0] * plan_.grid[1]);
  forEachNode(loop, [&](const Node& n) {
    if (n.kind != NodeKind::Assign || !n.atomic) return;
    if (const Array* a = findArray(n.target.array, scope))
      addWorkspace(SplitCombine::slicesOf(a->name), computeType(typeOf(*a)), plan_.grid[2] * a->elements());
  });

  line("// " + kernel_.workspaceSplit + ": this part's sums into its slice of the workspace; the last of the " + parts +
       " parts of the tile to arrive adds the slices up");
  line("const int split_part = blockIdx.z;");
  split_.enter(SplitCombine::Phase::Store);
  emitBlockLoop(loop, scope);
  line("__threadfence();  // the slice visible to whichever part adds it up");
  line("__syncthreads();");
  line("__shared__ bool split_last;");
  line(std::string("if (") + kFirstThread + ") split_last = atomicAdd(&" + kArrivals + "[" + tile +
       "], 1) == " + std::to_string(plan_.grid[2] - 1) + ";");
  line("__syncthreads();");
  open("if (split_last) {  // every other part's slice is in");
  split_.enter(SplitCombine::Phase::Sum);
  emitBlockLoop(loop, scope);
  line(std::string("if (") + kFirstThread + ") " + kArrivals + "[" + tile + "] = 0;  // as the next launch expects it");
  close();
  split_.enter(SplitCombine::Phase::Atomic);
}

void KernelWriter::emitSplitSum(const Node& assign, const Array& array, const std::string& value, const Scope& scope) {
  if (split_.phase() == SplitCombine::Phase::Atomic)
    return refuse("`" + assign.target.str() +
                  " += ...` adds up a part's sum outside the block's register tiles, "
                  "which a workspace combine needs");
  std::string slices = SplitCombine::slicesOf(array.name);
  std::string slice = std::to_string(array.elements());
  std::string offset = affineText(flatOffset(assign.target, array));
  if (split_.phase() == SplitCombine::Phase::Store)
    return line(slices + "[" + slice + " * split_part + " + offset + "] = " + value + ";");
  ScalarType sumType = computeType(typeOf(array));
  open("{");
  line(cudaType(sumType) + " split_sum = " + literal(0, sumType) + ";");
  line("#pragma unroll");
  line("for (int part = 0; part < " + std::to_string(plan_.grid[2]) + "; ++part)");
  line("  split_sum += part == split_part ? " + value + " : __ldcg(&" + slices + "[" + slice + " * part + " + offset +
       "]);");
  Node store = assign;  // into outputs the nest zeroes first, the sum; into updated ones, added
  store.atomic = false;
  store.accumulate = std::count(kernel_.zeroFirst.begin(), kernel_.zeroFirst.end(), array.name) == 0;
  line(storeText(store, accessText(assign.target, scope), typeOf(array), "split_sum"));
  close();
}

}  // namespace cudaburg::emit_internal
