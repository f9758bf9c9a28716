#pragma once
// The parts of a pipelined loop (Mapping::Pipelined, rule 6 of loop_tree.hpp): the shared
// buffers, the Stages that fill them, and the work between the two barriers. The check of the
// mapped tree and the emitter read a pipelined loop through this one view.
#include <string>
#include <vector>

#include "src/loop/loop_tree.hpp"

namespace cudaburg {

struct PipelineParts {
  std::vector<const Node*> buffers;  // the Allocs of the shared buffers, outermost first
  std::vector<const Node*> stages;   // the Stages, in order, before the first barrier
  std::vector<NodePtr> work;         // what runs between the barriers
  std::string problem;               // why the body has not this shape; "" when it has

  bool ok() const { return problem.empty(); }
};

PipelineParts pipelineParts(const Node& loop);

}  // namespace cudaburg
