// The builder of the grammar's Winograd rule (specs/loops.burg): a whole nest that is a 3x3,
// stride-1 2-D convolution computed with F(m x m, 3 x 3) (the winograd step). Declared with the
// other builders in loop_rules.hpp.
#include "src/analysis/reference_shape.hpp"
#include "src/idioms/write_back.hpp"
#include "src/search/loop_rules.hpp"
#include "src/transform/transforms.hpp"

namespace cudaburg {

Fragment LoopRules::winograd(const Node* node, int64_t m, int64_t tiles, int64_t filters, int64_t channels,
                             int64_t threadTiles, int64_t threadFilters, int64_t points, int64_t prefetch) const {
  Fragment f;
  WinogradTiling t{m, tiles, filters, channels, threadTiles, threadFilters, points, prefetch != 0};
  auto split = splitNestEpilogue(kernel_);  // the output transform applies the epilogue
  auto conv = split ? recognizeConv(split->bare) : std::nullopt;
  if (node != kernel_.body.get() || !conv) {
    f.refused = "the Winograd step takes a whole convolution";
    return f;
  }
  if (mmaK() != 0) {  // its GEMMs run on the CUDA cores, several times slower than tensor cores
    f.refused = "operands of a tensor-core type go to tensor cores";
    return f;
  }
  TransformResult applies = winogradConvolution(kernel_, conv->outIndices, t);
  if (!applies.ok()) {
    f.refused = applies.reason;
    return f;
  }
  RecipeStep step = makeStep(StepKind::Winograd, conv->outIndices);
  step.idiom = WinogradTile{t};
  f.nest.push_back(step);
  CandidateShape& s = f.shape;
  s.rows = conv->n * ((conv->out[0] + m - 1) / m) * ((conv->out[1] + m - 1) / m);
  s.cols = conv->k;
  s.reduction = conv->c;
  s.blockRows = tiles, s.blockCols = filters;
  s.threadRows = threadTiles, s.threadCols = threadFilters;
  s.staged = true;
  s.stageDepth = channels;
  s.pipelined = prefetch != 0;
  s.idiom = step.idiom;
  return f;
}

}  // namespace cudaburg
