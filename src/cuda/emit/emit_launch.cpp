#include "src/cuda/emit/emit_launch.hpp"

#include <algorithm>
#include <map>

#include "src/loop/pipeline.hpp"
#include "src/loop/stage_layout.hpp"

namespace cudaburg {
namespace {

int axisOf(Mapping m) {
  switch (m) {
    case Mapping::GridX:
    case Mapping::BlockX:
      return 0;
    case Mapping::GridY:
    case Mapping::BlockY:
      return 1;
    default:
      return 2;
  }
}

const char* axisName(int axis) { return axis == 0 ? "x" : axis == 1 ? "y" : "z"; }

bool anyGridOrBlockMapping(const Node& node) {
  if (node.kind == NodeKind::For && (isGridMapping(node.mapping) || isBlockMapping(node.mapping))) return true;
  for (const auto& kid : node.kids)
    if (anyGridOrBlockMapping(*kid)) return true;
  return false;
}

int64_t ceilDiv(int64_t a, int64_t b) { return a / b + (a % b != 0); }  // a >= 0, b > 0: no a + b to wrap

int64_t powerOfTwoAtLeast(int64_t n) {
  int64_t p = 1;
  while (p < n && p <= INT64_MAX / 2) p *= 2;  // at most 2^62: callers take the least of it and a block
  return p;
}

// Walks the phases below the grid loops: sizes the block, counts shared memory, checks the model.
class PhaseChecker {
 public:
  PhaseChecker(const Kernel& kernel, LaunchPlan& plan, std::optional<ScalarType> elementType)
      : kernel_(kernel), plan_(plan), elementType_(elementType) {}

  void walk(const Node& node, const IndexRanges& ranges, int blockAxes) {
    if (!reason.empty()) return;
    switch (node.kind) {
      case NodeKind::Seq:
        for (const auto& kid : node.kids) walk(*kid, ranges, blockAxes);
        return;
      case NodeKind::Assign:
        if (blockAxes == 0) assignOutsideBlockLoops_ = true;
        return;
      case NodeKind::Barrier:
        if (blockAxes != 0) refuse("a Barrier inside a block loop (only some threads would reach it)");
        return;
      case NodeKind::Stage:
        if (blockAxes != 0)
          refuse("Stage into `" + node.buffer.name + "` inside a block loop (all threads copy)");
        else if (node.buffer.space != MemorySpace::Shared)
          refuse("Stage into `" + node.buffer.name + "`, which is not a shared buffer");
        return;
      case NodeKind::Alloc:
        if (node.buffer.space == MemorySpace::Shared) {
          if (blockAxes != 0) refuse("shared buffer `" + node.buffer.name + "` allocated inside a block loop");
          auto copies = copies_.find(&node);
          plan_.sharedBytes += declaredBytes(node, copies == copies_.end() ? 1 : copies->second, elementType_);
        } else if (node.buffer.space == MemorySpace::Global) {
          refuse("Alloc of `" + node.buffer.name + "` in global memory");
        }
        walk(*node.body(), ranges, blockAxes);
        return;
      case NodeKind::For:
        walkLoop(node, ranges, blockAxes);
        return;
    }
  }

  void finish() {
    if (!reason.empty()) return;
    if (plan_.threads() > kMaxThreadsPerBlock)
      refuse("a block of " + std::to_string(plan_.threads()) + " threads (at most " +
             std::to_string(kMaxThreadsPerBlock) + ")");
    else if (assignOutsideBlockLoops_ && plan_.threads() > 1)
      refuse("an assignment outside the block loops would run in every thread of the block");
  }

  common::Reason reason;

 private:
  void refuse(std::string why) {
    if (reason.empty()) reason = std::move(why);
  }

  void walkLoop(const Node& loop, const IndexRanges& ranges, int blockAxes) {
    for (const Affine* a : boundsOf(loop))
      for (const auto& [name, coef] : a->terms)
        if (!ranges.has(name)) return refuse("loop `" + loop.index + "` uses `" + name + "` outside its loop");
    if (isGridMapping(loop.mapping))
      return refuse("grid-mapped loop `" + loop.index + "` is not among the outermost loops");
    auto trips = ranges.maxTripCount(loop);
    if (!trips) return refuse("loop `" + loop.index + "` has no bounded trip count");
    if (isBlockMapping(loop.mapping)) {
      int axis = axisOf(loop.mapping);
      if (blockAxes & (1 << axis))
        return refuse("block loop `" + loop.index + "` is inside another loop on block." + axisName(axis));
      plan_.block[axis] = std::max(plan_.block[axis], std::max<int64_t>(1, *trips));
      if (plan_.block[axis] > kMaxThreadsPerBlock)
        return refuse("block loop `" + loop.index + "` needs " + std::to_string(*trips) + " threads on block." +
                      axisName(axis) + " (at most " + std::to_string(kMaxThreadsPerBlock) + ")");
      blockAxes |= 1 << axis;
    }
    if (isPipelined(loop.mapping)) {
      PipelineParts parts = pipelineParts(loop);
      if (!parts.ok()) return refuse(parts.problem);
      for (const Node* b : parts.buffers) copies_[b] = bufferCopies(kernel_, loop.mapping, b->buffer.name);
    }
    IndexRanges inner = ranges;
    inner.bindLoop(loop, ranges.loopIndexRange(loop, *trips));
    walk(*loop.body(), inner, blockAxes);
  }

  static std::vector<const Affine*> boundsOf(const Node& loop) {
    std::vector<const Affine*> out{&loop.lower};
    for (const auto& u : loop.upper) out.push_back(&u);
    return out;
  }

  const Kernel& kernel_;
  LaunchPlan& plan_;
  std::optional<ScalarType> elementType_;
  bool assignOutsideBlockLoops_ = false;
  std::map<const Node*, int> copies_;  // the buffers of pipelined loops: how many copies each
};

// The outermost grid-mapped loops: constant bounds, one loop an axis.
std::string planGrid(const Kernel& kernel, LaunchPlan& plan) {
  NodePtr node = kernel.body;
  int axesUsed = 0;
  while (node->kind == NodeKind::For && isGridMapping(node->mapping)) {
    int axis = axisOf(node->mapping);
    if (axesUsed & (1 << axis))
      return "grid loop `" + node->index + "` is inside another loop on grid." + axisName(axis);
    bool constant = node->lower.isConstant();
    for (const auto& u : node->upper) constant = constant && u.isConstant();
    if (!constant) return "grid loop `" + node->index + "` has bounds that are not constants";
    auto trips = plan.gridRanges.maxTripCount(*node);
    if (!trips || *trips < 1) return "grid loop `" + node->index + "` runs no iteration";
    int64_t limit = axis == 0 ? 2147483647 : 65535;
    if (*trips > limit)
      return "grid loop `" + node->index + "` needs " + std::to_string(*trips) + " blocks on grid." + axisName(axis);
    plan.grid[axis] = *trips;
    plan.gridRanges.bindLoop(*node, plan.gridRanges.loopIndexRange(*node, *trips));
    plan.gridLoops.push_back({node.get(), axis});
    axesUsed |= 1 << axis;
    node = node->body();
  }
  plan.phases = node;
  return "";
}

// The naive mapping: the outermost parallel loops, innermost on x, one thread an iteration. Past
// three loops, the outer ones fold onto the z axis, one block an iteration of them all.
std::string planNaive(const Kernel& kernel, LaunchPlan& plan) {
  std::vector<const Node*> chain;
  NodePtr node = kernel.body;
  while (node->kind == NodeKind::For && node->loopKind == LoopKind::Parallel) {
    chain.push_back(node.get());
    node = node->body();
  }
  plan.naive = true;
  plan.phases = node;
  static const int64_t kDefaultBlock[3][3] = {{256, 1, 1}, {32, 8, 1}, {32, 4, 2}};
  size_t folded = chain.size() > 3 ? chain.size() - 2 : 0;  // loops sharing z
  const int64_t* defaults = kDefaultBlock[chain.empty() ? 0 : folded ? 1 : chain.size() - 1];
  IndexRanges ranges;
  std::vector<int64_t> trips;
  for (size_t i = 0; i < chain.size(); ++i) {
    const Node& loop = *chain[i];
    auto t = ranges.maxTripCount(loop);
    if (!t) return "parallel loop `" + loop.index + "` has no bounded trip count";
    trips.push_back(std::max<int64_t>(1, *t));
    ranges.bindLoop(loop, ranges.loopIndexRange(loop, *t));
    int axis = i < folded ? 2 : static_cast<int>(chain.size() - 1 - i);
    plan.gridLoops.push_back({&loop, axis});
  }
  if (folded) {
    int64_t divisor = 1;
    for (size_t i = folded; i-- > 0;) {
      plan.gridLoops[i].divisor = divisor;
      plan.gridLoops[i].trips = trips[i];
      if (trips[i] > 65535 / divisor) return "the outer parallel loops need more than 65535 blocks on grid.z";
      divisor *= trips[i];
    }
    plan.grid[2] = divisor;
  }
  for (size_t i = folded; i < chain.size(); ++i) {
    int axis = plan.gridLoops[i].axis;
    plan.block[axis] = std::min(defaults[axis], powerOfTwoAtLeast(trips[i]));
    plan.grid[axis] = ceilDiv(trips[i], plan.block[axis]);
    if (plan.grid[axis] > (axis == 0 ? 2147483647 : 65535))
      return "parallel loop `" + chain[i]->index + "` needs too many blocks on grid." + std::string(axisName(axis));
  }
  plan.gridRanges = ranges;
  return "";
}

// A producer warpgroup whose one thread issues the TMA's copies needs few registers. With two
// warpgroups or more that multiply, every thread otherwise held to what the launch gives it
// (65536 / threads, down to a multiple of 8: 168 of 384, where a 64 x 256 float tile takes 128),
// the producer hands what it does not need to them, as CUTLASS's warp-specialized kernels do.
// They may take no more than it gave back: setmaxnreg.inc waits until the block's pool holds them.
// (One warpgroup that multiplies alone may take 255 anyway.)
void splitRegisters(LaunchPlan& plan) {
  const int64_t consumers = plan.block[1] - 1, producer = 40;
  const int64_t launched = kMaxRegistersPerSm / plan.threads() / 8 * 8;
  if (consumers < 2 || launched <= producer) return;
  plan.producerRegisters = producer;
  plan.consumerRegisters = std::min<int64_t>(256, (launched + (launched - producer) / consumers) / 8 * 8);
}

}  // namespace

ScalarType emittedType(const Array& array, std::optional<ScalarType> override) {
  bool floating = array.type != ScalarType::Double && array.type != ScalarType::Int;
  return floating && override ? *override : array.type;
}

bool isPermuted(const std::vector<int>& layout) {
  for (size_t d = 0; d < layout.size(); ++d)
    if (layout[d] != static_cast<int>(d)) return true;
  return false;
}

int bufferCopies(const Kernel& kernel, Mapping m, const std::string& buffer) {
  int copies = m == Mapping::Pipelined ? 2 : m == Mapping::AsyncPipelined ? kernel.asyncStages : 1;
  return !buffer.empty() && buffer == kernel.wgmmaSplitBuffer() ? 2 * copies : copies;
}

std::vector<int64_t> declaredExtents(const Node& alloc, int copies, std::optional<ScalarType> elementType) {
  std::vector<int64_t> extents = alloc.buffer.extents;
  if (alloc.buffer.space == MemorySpace::Shared && !extents.empty())
    extents.back() += stageRowPadding(alloc.buffer.padding, isPermuted(alloc.layout), alloc.buffer.swizzled,
                                      scalarTypeBytes(emittedType(alloc.buffer, elementType)));
  if (alloc.buffer.space == MemorySpace::Shared && alloc.buffer.slab > 0 && extents.size() == 2)
    extents = {extents[1] / alloc.buffer.slab, extents[0], alloc.buffer.slab};  // [column / slab][row][column % slab]
  if (copies > 1) extents.insert(extents.begin(), copies);
  return extents;
}

int64_t declaredBytes(const Node& alloc, int copies, std::optional<ScalarType> elementType) {
  int64_t n = scalarTypeBytes(emittedType(alloc.buffer, elementType));
  for (int64_t e : declaredExtents(alloc, copies, elementType)) n *= e;
  return sharedBufferBytes(n);
}

LaunchPlanResult planLaunch(const Kernel& kernel, std::optional<ScalarType> elementType) {
  LaunchPlanResult result;
  if (!kernel.body) {
    result.reason = "the kernel has no body";
    return result;
  }
  LaunchPlan plan;
  std::string why = anyGridOrBlockMapping(*kernel.body) ? planGrid(kernel, plan) : planNaive(kernel, plan);
  if (!why.empty()) {
    result.reason = why;
    return result;
  }
  PhaseChecker checker(kernel, plan, elementType);
  // In the naive mapping each thread runs one iteration: the body is inside its "block loops".
  checker.walk(*plan.phases, plan.gridRanges, plan.naive ? 7 : 0);
  // A warp (group) an iteration of the block loops.
  if (kernel.warpTiles()) plan.block[0] *= kernel.warpGroupTiles() ? kWarpGroupThreads : 32;
  if (kernel.wgmmaProducer()) {  // one more warpgroup, the last along y, and its barriers
    if (plan.block[0] != kWarpGroupThreads || plan.block[2] != 1) {
      result.reason =
          "a producer warpgroup takes a row of block.y: the warpgroups that multiply must be one along block.x";
      return result;
    }
    if (kernel.pingPong) plan.tileGroups = 2;
    plan.block[1] = plan.block[1] * plan.tileGroups + producerThreads(*kernel.warpGroupTiles()) / kWarpGroupThreads;
    plan.sharedBytes += producerBarrierBytes(*kernel.warpGroupTiles(), kernel.asyncStages, plan.tileGroups);
  }
  if (kernel.wgmmaTma() && kernel.wgmmaSplitBuffer().empty() && kernel.residentBlocks == 0) splitRegisters(plan);
  if (const WgmmaTile* t = kernel.warpGroupTiles()) {
    plan.rowSliceBytes = rowSliceBytes(*t, plan.threads() - producerThreads(*t));
    plan.sharedBytes += plan.rowSliceBytes;
  }
  if (kernel.persistentBlocks > 0) {
    if (plan.naive || plan.grid[2] != 1) {
      result.reason = "persistent blocks take the tiles of a grid along x and y, not of grid.z";
      return result;
    }
    plan.persistentBlocks = kernel.persistentBlocks;
  }
  if (kernel.clusterBlocks > 0) {
    const int a = kernel.clusterAxis;
    const std::string axis = a == 0 ? "grid.x" : "grid.y";
    if (plan.naive || a < 0 || a > 1) {
      result.reason = "a cluster's blocks take neighbouring tiles of a grid along x or y";
      return result;
    }
    if (plan.grid[a] % kernel.clusterBlocks != 0) {
      result.reason = "clusters of " + std::to_string(kernel.clusterBlocks) + " blocks along " + axis +
                      " take whole runs of its " + std::to_string(plan.grid[a]) + " tiles";
      return result;
    }
    if (plan.persistentBlocks > 0 && plan.persistentBlocks < kernel.clusterBlocks) {
      result.reason = std::to_string(plan.persistentBlocks) + " persistent blocks make no cluster of " +
                      std::to_string(kernel.clusterBlocks);
      return result;
    }
    plan.clusterBlocks = kernel.clusterBlocks;
    plan.clusterAxis = a;
  }
  checker.finish();
  if (!checker.reason.empty()) {
    result.reason = checker.reason;
    return result;
  }
  plan.dynamicShared = plan.sharedBytes > kStaticSharedLimit;
  result.plan = std::move(plan);
  return result;
}

}  // namespace cudaburg
