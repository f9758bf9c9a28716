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

// examples/<example> at `sizes` (the nest, in `nest` where given) under `recipeText`: the
// transformed kernel or the step's refusal (and a test failure where the example or the recipe
// does not parse).
inline TransformResult transformedExample(const std::string& example, const std::map<std::string, int64_t>& sizes,
                                          const std::string& recipeText, Kernel* nest = nullptr) {
  auto file = common::SourceFile::read(std::string(CUDABURG_EXAMPLES_DIR) + "/" + example);
  EXPECT_TRUE(file) << example;
  if (!file) return TransformResult::refuse("no example " + example);
  common::Diagnostics diags(*file);
  auto kernel = parseLoopFile(*file, diags, sizes);
  EXPECT_TRUE(kernel) << diags.str();
  common::SourceFile recipeFile("recipe", recipeText);
  common::Diagnostics recipeDiags(recipeFile);
  auto recipe = parseRecipe(recipeFile, recipeDiags);
  EXPECT_TRUE(recipe) << recipeDiags.str();
  if (!kernel || !recipe) return TransformResult::refuse("the example or the recipe does not parse");
  if (nest) *nest = *kernel;
  return applyRecipe(*kernel, *recipe);
}

// What the emitter makes of it: the kernel or its refusal (and a test failure where a step
// refuses).
inline EmitResult emitExample(const std::string& example, const std::map<std::string, int64_t>& sizes,
                              const std::string& recipeText, Kernel* nest = nullptr) {
  TransformResult t = transformedExample(example, sizes, recipeText, nest);
  EXPECT_TRUE(t.ok()) << t.reason;
  if (!t.ok()) return {std::nullopt, t.reason};
  return emitKernel(*t.kernel);
}

// Why a step or the emitter refuses the example under `recipeText` ("": neither does).
inline std::string refusalOf(const std::string& example, const std::map<std::string, int64_t>& sizes,
                             const std::string& recipeText) {
  TransformResult t = transformedExample(example, sizes, recipeText);
  if (!t.ok()) return t.reason;
  return emitKernel(*t.kernel).reason;
}

// The same kernel; nothing (and a test failure) when the emitter refuses it too.
inline std::optional<CudaKernel> emittedKernel(const std::string& example, const std::map<std::string, int64_t>& sizes,
                                               const std::string& recipeText, Kernel* nest = nullptr) {
  EmitResult e = emitExample(example, sizes, recipeText, nest);
  EXPECT_TRUE(e.ok()) << e.reason;
  return e.kernel;
}

// The same kernel's source; "" where there is none.
inline std::string emittedExample(const std::string& example, const std::map<std::string, int64_t>& sizes,
                                  const std::string& recipeText) {
  auto k = emittedKernel(example, sizes, recipeText);
  return k ? k->source : "";
}

// The text of the loop that starts with `header`, to its closing brace.
inline std::string loopText(const std::string& source, const std::string& header) {
  size_t start = source.find(header);
  if (start == std::string::npos) return "";
  int depth = 0;
  for (size_t i = source.find('{', start); i < source.size(); ++i) {
    depth += source[i] == '{' ? 1 : source[i] == '}' ? -1 : 0;
    if (depth == 0) return source.substr(start, i + 1 - start);
  }
  return "";
}

}  // namespace cudaburg::testing
