// libFuzzer target: recipes must survive any input. The first byte picks one of the examples'
// kernels, the rest is a recipe: it is parsed, applied (each step refuses what it cannot do
// legally), and the result printed and emitted as CUDA, as `cudaburg show --recipe R --cuda`
// does. A crash, a sanitizer report, a hang or unbounded memory is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "common/diagnostics.hpp"
#include "common/source.hpp"
#include "src/cuda/emit/emitter.hpp"
#include "src/loop/parser.hpp"
#include "src/loop/printer.hpp"
#include "src/transform/recipe.hpp"

namespace {

// The examples, with sizes small enough that nothing a recipe does takes long.
const std::vector<cudaburg::Kernel>& kernels() {
  static const std::vector<cudaburg::Kernel> all = [] {
    std::vector<cudaburg::Kernel> out;
    // $CUDABURG_EXAMPLES_DIR, for a build run from another checkout (bench/fuzz-long sets it).
    const char* moved = std::getenv("CUDABURG_EXAMPLES_DIR");
    std::string dir = moved && *moved ? moved : CUDABURG_EXAMPLES_DIR;
    for (const char* name : {"matmul", "matmul_bt", "conv2d", "conv3d", "correlate2d"}) {
      auto file = common::SourceFile::read(dir + "/" + name + ".loop");
      if (!file) {
        std::fprintf(stderr, "%s\n", file.reason().c_str());
        std::abort();
      }
      common::Diagnostics diags(*file);
      auto kernel = cudaburg::parseLoopFile(*file, diags, {});
      if (!kernel) std::abort();
      out.push_back(*kernel);
    }
    return out;
  }();
  return all;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const cudaburg::Kernel& kernel = kernels()[data[0] % kernels().size()];
  common::SourceFile file("fuzz.recipe", std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
  common::Diagnostics diags(file);
  std::optional<cudaburg::Recipe> recipe = cudaburg::parseRecipe(file, diags);
  std::ostringstream rendered;
  diags.printAll(rendered);
  if (!recipe) return 0;
  cudaburg::printRecipeLine(*recipe);
  cudaburg::TransformResult result = cudaburg::applyRecipe(kernel, *recipe);
  if (!result) return 0;
  cudaburg::printKernel(*result.kernel);
  cudaburg::emitKernel(*result.kernel, {cudaburg::printRecipe(*recipe), "", std::nullopt});
  return 0;
}
