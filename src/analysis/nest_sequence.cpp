#include "src/analysis/nest_sequence.hpp"

#include <set>

#include "src/loop/tree_walk.hpp"

namespace cudaburg {

namespace {

void addLoads(const Expr& e, std::set<std::string>& read) {
  if (e.kind == Expr::Kind::Load) read.insert(e.load.array);
  for (const ExprPtr& arg : e.args) addLoads(*arg, read);
}

// The arrays `nest` reads and those it writes (an accumulation both reads and writes).
void arraysOf(const Node& nest, std::set<std::string>& read, std::set<std::string>& written) {
  forEachNode(nest, [&](const Node& n) {
    if (n.kind == NodeKind::Assign) {
      written.insert(n.target.array);
      if (n.accumulate) read.insert(n.target.array);
      addLoads(*n.value, read);
    } else if (n.kind == NodeKind::Stage) {
      read.insert(n.source);
    }
  });
}

}  // namespace

std::vector<Kernel> splitNests(const Kernel& kernel, std::string& why) {
  std::vector<NodePtr> nests = flattenSeq(kernel.body);
  if (nests.size() < 2) {
    why = "the kernel's body is a single nest";
    return {};
  }
  for (const NodePtr& nest : nests)
    if (nest->kind != NodeKind::For || nest->loopKind != LoopKind::Parallel) {
      std::string where = nest->loc.valid() ? " at line " + std::to_string(nest->loc.line) : "";
      why = "the statement of the kernel's body" + where + " is not a parallel nest";
      return {};
    }
  std::vector<Kernel> kernels;
  for (size_t i = 0; i < nests.size(); ++i) {
    std::set<std::string> read, written;
    arraysOf(*nests[i], read, written);
    Kernel k;
    k.name = kernel.name + "_nest" + std::to_string(i + 1);
    k.sizes = kernel.sizes;
    k.sourceName = kernel.sourceName;
    k.body = nests[i];
    for (const Array& a : kernel.params) {
      if (!read.count(a.name) && !written.count(a.name)) continue;
      Array param = a;
      param.input = !written.count(a.name);
      k.params.push_back(param);
    }
    kernels.push_back(std::move(k));
  }
  why.clear();
  return kernels;
}

}  // namespace cudaburg
