#pragma once
// The CUDA source an example becomes under a recipe: for tests that read the emitted code.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "common/diagnostics.hpp"
#include "src/cuda/emit/emitter.hpp"
#include "src/loop/parser.hpp"
#include "src/transform/recipe.hpp"

namespace cudaburg::testing {

// examples/<example> at `sizes` under `recipeText`, emitted; nothing (and a test failure) when it
// does not parse, a step refuses or the emitter does.
inline std::optional<CudaKernel> emittedKernel(const std::string& example, const std::map<std::string, int64_t>& sizes,
                                               const std::string& recipeText) {
  auto file = common::SourceFile::read(std::string(CUDABURG_EXAMPLES_DIR) + "/" + example);
  EXPECT_TRUE(file) << example;
  if (!file) return std::nullopt;
  common::Diagnostics diags(*file);
  auto kernel = parseLoopFile(*file, diags, sizes);
  EXPECT_TRUE(kernel) << diags.str();
  common::SourceFile recipeFile("recipe", recipeText);
  common::Diagnostics recipeDiags(recipeFile);
  auto recipe = parseRecipe(recipeFile, recipeDiags);
  EXPECT_TRUE(recipe) << recipeDiags.str();
  if (!kernel || !recipe) return std::nullopt;
  TransformResult t = applyRecipe(*kernel, *recipe);
  EXPECT_TRUE(t.ok()) << t.reason;
  if (!t.ok()) return std::nullopt;
  EmitResult e = emitKernel(*t.kernel);
  EXPECT_TRUE(e.ok()) << e.refusal;
  return e.kernel;
}

// The same kernel's source, "" when there is none.
inline std::string emittedExample(const std::string& example, const std::map<std::string, int64_t>& sizes,
                                  const std::string& recipeText) {
  auto k = emittedKernel(example, sizes, recipeText);
  return k ? k->source : "";
}

}  // namespace cudaburg::testing
