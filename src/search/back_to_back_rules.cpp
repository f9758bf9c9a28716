// The builder of the grammar's back-to-back rule (specs/loops.burg): a body of two products in a
// row computed by one kernel that keeps a block's hidden rows on chip (the b2b step). Declared
// with the other builders in loop_rules.hpp.
#include "src/idioms/back_to_back/back_to_back_pair.hpp"
#include "src/search/loop_rules.hpp"
#include "src/transform/transforms.hpp"

namespace cudaburg {

Fragment LoopRules::backToBack(const Node* node, int64_t bm, int64_t bn, int64_t tm, int64_t tn, int64_t depth) const {
  Fragment f;
  std::string why;
  auto pair = node == kernel_.body.get() ? recognizeBackToBack(kernel_, why) : std::nullopt;
  if (!pair) {
    f.refused = why.empty() ? "the b2b step takes a whole kernel of two products" : why;
    return f;
  }
  BackToBackTile tile{bm, bn, tm, tn, depth};
  std::vector<std::string> rows{pair->first.row, pair->second.row};
  TransformResult applies = backToBackProducts(kernel_, rows, tile);
  if (!applies.ok()) {
    f.refused = applies.reason;
    return f;
  }
  RecipeStep step = makeStep(StepKind::BackToBack, rows);
  step.idiom = tile;
  f.nest.push_back(step);
  CandidateShape& s = f.shape;
  s.rows = pair->rows;
  s.cols = pair->cols;
  s.reduction = pair->inner;
  s.hidden = pair->hidden;
  s.blockRows = bm, s.blockCols = bn;
  s.threadRows = tm, s.threadCols = tn;
  s.staged = true;
  s.stageDepth = depth;
  s.idiom = step.idiom;
  return f;
}

}  // namespace cudaburg
