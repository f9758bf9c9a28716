#include "src/transform/mapped_tree_check.hpp"

#include <algorithm>
#include <map>

#include "src/loop/pipeline.hpp"
#include "src/transform/loop_facts.hpp"
#include "src/transform/tree_edit.hpp"

namespace cudaburg {

namespace {

// Loops a thread runs by itself. An unrolled loop is not one of them: outside the block loops it
// is uniform (every thread unrolls it alike) and may hold block loops, stages and barriers.
bool isThreadLevel(Mapping m) { return m == Mapping::ThreadSerial || m == Mapping::Vector; }

// "" when every index of a register access is tied to the thread: a block loop's index, or the
// index of a loop inside a block loop whose index the same subscript uses (an element of the
// thread's tile, as `i - i_o` under block loop i_o).
std::string registerIndexProblem(const Access& access, const std::vector<const Node*>& path) {
  for (const auto& sub : access.subscripts) {
    for (const auto& [index, coef] : sub.terms) {
      size_t at = path.size();
      for (size_t p = 0; p < path.size(); ++p)
        if (path[p]->index == index) at = p;
      if (at == path.size()) return "register " + access.str() + " uses " + index + ", which is no loop around it";
      if (isBlockMapping(path[at]->mapping)) continue;
      bool tied = false;
      for (size_t p = 0; p < at; ++p) tied |= isBlockMapping(path[p]->mapping) && sub.uses(path[p]->index);
      if (!tied)
        return "register " + access.str() + " is indexed by " + index + ", which is not tied to a block thread";
    }
  }
  return "";
}

void registerAccesses(const ExprPtr& e, const std::string& name, std::vector<Access>& out) {
  if (e->kind == Expr::Kind::Load && e->load.array == name) out.push_back(e->load);
  for (const auto& a : e->args) registerAccesses(a, name, out);
}

bool constantBounds(const Node& loop) {
  if (!loop.lower.isConstant()) return false;
  for (const auto& u : loop.upper)
    if (!u.isConstant()) return false;
  return true;
}

std::string loopName(const Node& loop) { return "loop " + loop.index + " (" + mappingName(loop.mapping) + ")"; }

bool accessesArray(const Node& n, const std::string& array) {
  return n.kind == NodeKind::Assign && (n.target.array == array || reads(n.value, array));
}

}  // namespace

std::string checkMappedTree(const Kernel& kernel) {
  std::string broken;
  std::map<Mapping, int64_t> blockTrips;  // every loop on one block dimension has one trip count

  walk(kernel.body, [&](const NodePtr& node, const Ancestors& above) {
    if (!broken.empty()) return;
    const Node& n = *node;
    const Node* blockAbove = nullptr;
    const Node* threadLevelAbove = nullptr;
    for (const auto& a : above) {
      if (a->kind != NodeKind::For) continue;
      if (isBlockMapping(a->mapping)) blockAbove = a.get();
      if (isThreadLevel(a->mapping)) threadLevelAbove = a.get();
    }
    if (n.kind == NodeKind::For) {
      if (isGridMapping(n.mapping)) {
        for (const auto& a : above) {
          if (a->kind != NodeKind::For || !isGridMapping(a->mapping))
            broken = loopName(n) + " is a grid loop below something other than grid loops; grid loops are outermost";
          else if (a->mapping == n.mapping)
            broken =
                loopName(n) + " uses " + mappingName(n.mapping) + ", already used by loop " + a->index + " above it";
          if (!broken.empty()) return;
        }
        if (!constantBounds(n))
          broken = loopName(n) + " is a grid loop without constant bounds";
        else if (n.loopKind != LoopKind::Parallel)
          broken = loopName(n) + " is a grid loop but not parallel";
        return;
      }
      if (isBlockMapping(n.mapping)) {
        if (n.loopKind != LoopKind::Parallel) {
          broken = loopName(n) + " is a block loop but not parallel";
          return;
        }
        for (const auto& a : above) {
          if (a->kind == NodeKind::For && a->mapping == n.mapping) {
            broken =
                loopName(n) + " uses " + mappingName(n.mapping) + ", already used by loop " + a->index + " above it";
            return;
          }
        }
        if (threadLevelAbove) {
          broken = loopName(n) + " is a block loop inside the thread-level loop " + threadLevelAbove->index;
          return;
        }
        auto trips = constantTripCount(n);
        if (!trips) {
          broken = loopName(n) + " is a block loop without a constant trip count";
          return;
        }
        auto [it, inserted] = blockTrips.emplace(n.mapping, *trips);
        if (!inserted && it->second != *trips)
          broken = loopName(n) + " runs " + std::to_string(*trips) + " threads on " + mappingName(n.mapping) +
                   " where another loop runs " + std::to_string(it->second);
        return;
      }
      if (isPipelined(n.mapping)) {
        if (blockAbove || threadLevelAbove)
          broken = loopName(n) + " is pipelined inside loop " + (blockAbove ? blockAbove : threadLevelAbove)->index +
                   "; a pipelined loop runs alike in every thread";
        else if (PipelineParts parts = pipelineParts(n); !parts.ok())
          broken = parts.problem;
        return;
      }
      if (n.mapping == Mapping::Unrolled || n.mapping == Mapping::Vector) {
        auto trips = constantTripCount(n);
        if (!trips) {
          broken = loopName(n) + " has no constant trip count";
          return;
        }
        if (n.mapping == Mapping::Vector) {
          if ((*trips != 2 && *trips != 4) || n.step != 1)
            broken = loopName(n) + " is a vector loop but not of 2 or 4 consecutive elements";
          else if (anyNode(n.body(), [](const Node& k) { return k.kind == NodeKind::For; }))
            broken = loopName(n) + " is a vector loop but not innermost";
        }
      }
      if (n.loopKind == LoopKind::Reduce && (isGridMapping(n.mapping) || isBlockMapping(n.mapping)))
        broken = loopName(n) + " is a reduce loop mapped to parallel hardware";
      return;
    }
    if (n.kind == NodeKind::Stage || n.kind == NodeKind::Barrier ||
        (n.kind == NodeKind::Alloc && n.buffer.space == MemorySpace::Shared)) {
      const char* what = n.kind == NodeKind::Stage     ? "a stage"
                         : n.kind == NodeKind::Barrier ? "a barrier"
                                                       : "a shared buffer";
      if (blockAbove)
        broken = std::string(what) + " lies inside the block loop " + blockAbove->index;
      else if (threadLevelAbove)
        broken = std::string(what) + " lies inside the thread-level loop " + threadLevelAbove->index;
      return;
    }
    // A local scalar whose scope holds no block loop is private to whichever thread runs that
    // scope, as a variable of the thread, before the tiles are mapped as after.
    bool threadLocal = n.kind == NodeKind::Alloc && isLocalScalar(n.buffer) && !anyNode(n.body(), [](const Node& k) {
                         return k.kind == NodeKind::For && isBlockMapping(k.mapping);
                       });
    if (n.kind == NodeKind::Alloc && n.buffer.space == MemorySpace::Register && !threadLocal) {
      // A thread's registers: every use is inside a block loop, where the thread is known, and
      // indexed by what ties it to its thread (a kernel whose block loops were all unmapped
      // would share one thread's registers among all its threads).
      std::string name = n.buffer.name;
      walk(n.body(), [&](const NodePtr& use, const Ancestors& inner) {
        if (!broken.empty() || !accessesArray(*use, name)) return;
        std::vector<const Node*> path;
        for (const auto& a : above)
          if (a->kind == NodeKind::For) path.push_back(a.get());
        for (const auto& a : inner)
          if (a->kind == NodeKind::For) path.push_back(a.get());
        if (!std::any_of(path.begin(), path.end(), [](const Node* l) { return isBlockMapping(l->mapping); })) {
          broken = "register buffer " + name + " is used outside the block loops";
          return;
        }
        std::vector<Access> accesses;
        if (use->target.array == name) accesses.push_back(use->target);
        registerAccesses(use->value, name, accesses);
        for (const auto& a : accesses)
          if (broken.empty()) broken = registerIndexProblem(a, path);
      });
    }
  });
  return broken;
}

}  // namespace cudaburg
