// The b2b step: two products in a row computed by one kernel (see backToBackProducts in
// transforms.hpp).
#include "src/idioms/back_to_back/back_to_back_tiling.hpp"
#include "src/transform/transforms.hpp"
#include "src/transform/tree_edit.hpp"

namespace cudaburg {

TransformResult backToBackProducts(const Kernel& kernel, const std::vector<std::string>& loops,
                                   const BackToBackTile& tile) {
  if (kernel.backToBack()) return TransformResult::refuse("the kernel is computed back to back already");
  bool mapped = anyNode(kernel.body, [](const Node& n) {
    return (n.kind == NodeKind::For && n.mapping != Mapping::None) || n.kind == NodeKind::Stage ||
           n.kind == NodeKind::Barrier;
  });
  if (mapped || !std::holds_alternative<SimtTile>(kernel.tile))
    return TransformResult::refuse("the nests have been transformed: b2b takes them as written, as its only step");
  std::string why;
  auto pair = recognizeBackToBack(kernel, why);
  if (!pair) return TransformResult::refuse(why);
  if (loops != std::vector<std::string>{pair->first.row, pair->second.row})
    return TransformResult::refuse("the two products' rows are the loops " + pair->first.row + "," + pair->second.row);
  if (std::string problem = BackToBackTiling{tile, pair->hidden}.problem(*pair); !problem.empty())
    return TransformResult::refuse(problem);
  Kernel k = kernel;
  k.tile = tile;
  return TransformResult::success(std::move(k));
}

}  // namespace cudaburg
