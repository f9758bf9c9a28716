// The Winograd step: a nest that is a 2-D convolution with 3 x 3 taps and stride 1, as written,
// computed with F(m x m, 3 x 3) (see winogradConvolution in transforms.hpp).
#include "src/analysis/reference_shape.hpp"
#include "src/idioms/write_back.hpp"
#include "src/transform/transforms.hpp"
#include "src/transform/tree_edit.hpp"

namespace cudaburg {

namespace {

std::string dims(const std::vector<int64_t>& v) {
  std::string s;
  for (int64_t e : v) s += (s.empty() ? "" : "x") + std::to_string(e);
  return s;
}

// Why `kernel` is not a nest this step can take as a whole ("" when it is).
std::string notAsWritten(const Kernel& kernel) {
  if (kernel.winograd()) return "the kernel is computed with Winograd's transforms already";
  if (kernel.warpTiles() || kernel.laneRows || !kernel.peeled.empty() || !kernel.zeroFirst.empty() ||
      kernel.residentBlocks)
    return "the nest has been transformed: winograd takes the nest as written, as its only step";
  std::string mapped;
  walk(kernel.body, [&](const NodePtr& n, const Ancestors&) {
    if (n->kind == NodeKind::For && n->mapping != Mapping::None && mapped.empty()) mapped = n->index;
    if (n->kind != NodeKind::For && n->kind != NodeKind::Seq && n->kind != NodeKind::Assign && mapped.empty())
      mapped = "a buffer";
  });
  if (!mapped.empty())
    return "the nest has been transformed (" + mapped + "): winograd takes the nest as written, as its only step";
  return "";
}

}  // namespace

TransformResult winogradConvolution(const Kernel& kernel, const std::vector<std::string>& loops,
                                    const WinogradTiling& tiling) {
  if (std::string why = notAsWritten(kernel); !why.empty()) return TransformResult::refuse(why);
  if (std::string why = tiling.problem(); !why.empty()) return TransformResult::refuse(why);
  // The convolution without its epilogue, which the output transform applies to each output.
  std::string noEpilogue;
  auto split = splitNestEpilogue(kernel, &noEpilogue);
  if (!split) return TransformResult::refuse(noEpilogue);
  for (const Array& a : kernel.params)
    if (a.type != ScalarType::Float)
      return TransformResult::refuse("array `" + a.name + "` holds " + scalarTypeName(a.type) +
                                     ": the Winograd kernel reads and writes float arrays only");
  auto conv = recognizeConv(split->bare);
  if (!conv)
    return TransformResult::refuse(
        "the nest is not a convolution of float arrays as written (winograd takes the nest "
        "as written, as its only step)");
  if (conv->rank() != 2)
    return TransformResult::refuse("the convolution is " + std::to_string(conv->rank()) + "-D, not 2-D");
  if (conv->filter != std::vector<int64_t>{3, 3})
    return TransformResult::refuse("the filters are " + dims(conv->filter) + ", not 3x3");
  if (conv->stride != std::vector<int64_t>{1, 1})
    return TransformResult::refuse("the stride is " + dims(conv->stride) + ", not 1");
  if (conv->dilation != std::vector<int64_t>{1, 1})
    return TransformResult::refuse("the dilation is " + dims(conv->dilation) + ", not 1");
  if (conv->groups != 1) return TransformResult::refuse("the convolution is grouped");
  if (loops != conv->outIndices)
    return TransformResult::refuse("the output's rows and columns are the loops " + conv->outIndices[0] + "," +
                                   conv->outIndices[1]);
  Kernel k = kernel;
  k.tile = WinogradTile{tiling};
  return TransformResult::success(std::move(k));
}

}  // namespace cudaburg
