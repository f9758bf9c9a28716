#include "src/idioms/simt/simt_idiom.hpp"

namespace cudaburg {

// No step has the SIMT idiom's keyword: a kernel is on the CUDA cores until a step says otherwise.
bool SimtIdiom::parse(StepReader& in, std::vector<std::string>&, TileIdiom& out) const {
  out = SimtTile{};
  return in.fail("the CUDA cores' tile is the default: no step makes it");
}

std::string SimtIdiom::print(const std::vector<std::string>&, const TileIdiom&) const { return ""; }

TransformResult SimtIdiom::apply(const Kernel& kernel, const std::vector<std::string>&, const TileIdiom&) const {
  return TransformResult::success(kernel);
}

// Nothing of its own: the block and register tiles are the candidate's decisions already.
std::vector<int64_t> SimtIdiom::decisions(const TileIdiom&) const { return {}; }

}  // namespace cudaburg
