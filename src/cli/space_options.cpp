#include "src/cli/space_options.hpp"

#include "src/target/gpu_target.hpp"

namespace cudaburg::cli {

void addSpaceOptions(CLI::App& app, SpaceFlags& f) {
  app.add_option("--tile", f.tile, "block tile edges: a..b (powers of two), a..b:s, or a,b,c")
      ->option_text("RANGE")
      ->capture_default_str();
  app.add_option("--unroll", f.unroll, "register tile edges of one thread")
      ->option_text("RANGE")
      ->capture_default_str();
  app.add_option("--stage", f.stage, "reduction elements staged in shared memory per step")
      ->option_text("RANGE")
      ->capture_default_str();
  app.add_option("--split", f.split, "parts a split reduction may have")->option_text("RANGE")->capture_default_str();
  app.add_option("-D,--define", f.defines, "override a size: -D M=4096")->option_text("NAME=VALUE");
  app.add_flag("--no-tf32x3", f.noTf32x3,
               "float products on the CUDA cores only, not on tensor cores as three tf32 products each");
  app.add_option("--precision", f.precision,
                 "how accurate every kernel must be: strict (at most twice the error of cuBLAS SGEMM or cuDNN "
                 "in the nest's types, against FP64) or tf32 (of the same libraries with TF32 tensor cores)")
      ->option_text("MODE")
      ->capture_default_str();
  app.add_option("--strategy", f.strategy, "which candidates to measure: adaptive, model or exhaustive")
      ->option_text("STRATEGY")
      ->capture_default_str();
}

bool parseSpace(const SpaceFlags& f, SearchSpace& space, std::string& error) {
  struct {
    const std::string& text;
    const char* flag;
    ParamRange& into;
  } ranges[] = {{f.tile, "--tile", space.tile},
                {f.unroll, "--unroll", space.unroll},
                {f.stage, "--stage", space.stage},
                {f.split, "--split", space.split}};
  for (auto& r : ranges) {
    auto parsed = parseParamRange(r.text, r.flag, error);
    if (!parsed) return false;
    r.into = *parsed;
  }
  // A block keeps its tile's outputs in registers: every GPU so far has at most kMaxRegistersPerSm
  // of them for a block, beside those for addresses, so no tile edge that large can be held.
  constexpr int64_t kMaxTileEdge = kMaxRegistersPerSm / 2;
  for (int64_t edge : space.tile.values)
    if (edge > kMaxTileEdge) {
      error = "--tile: a block tile edge of " + std::to_string(edge) + " is beyond what any GPU can hold (a block's " +
              "outputs live in its at most " + std::to_string(kMaxRegistersPerSm) +
              " registers); a tile edge may be at most " + std::to_string(kMaxTileEdge);
      return false;
    }
  space.tf32x3 = !f.noTf32x3;
  auto precision = parsePrecision(f.precision);
  if (!precision) {
    error = "--precision: unknown mode '" + f.precision + "'; the modes are " + precisionNames();
    return false;
  }
  space.precision = *precision;
  return true;
}

}  // namespace cudaburg::cli
