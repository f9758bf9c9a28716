#pragma once
// Kernels for the transformation tests: the examples at small sizes, and small kernels written
// inline, all read through the .loop parser.
#include <map>
#include <string>
#include <vector>

#include "src/loop/loop_tree.hpp"
#include "src/transform/recipe.hpp"
#include "src/transform/transform_result.hpp"

namespace cudaburg::testing {

// examples/<name>.loop with its sizes overridden to small ones (sizes that divide nothing).
Kernel smallExample(const std::string& name);
// The names of the examples smallExample knows.
std::vector<std::string> exampleNames();
// A kernel from .loop text; fails the test (and throws) when the text does not parse.
Kernel kernelFromText(const std::string& text, const std::map<std::string, int64_t>& overrides = {});
// An int matrix multiplication of the given sizes (results compare exactly).
Kernel intMatmul(int64_t m, int64_t n, int64_t k);

// Recipe text parsed; nullopt when it has errors (their text, lines and carets, in `errors`).
std::optional<Recipe> recipeFromText(const std::string& text, std::string* errors = nullptr);
// The transformation applied: fails the test with its reason when it refused.
Kernel applied(const TransformResult& r);
// "" when `transformed` computes what `original` computes on random inputs (exactly for ints,
// within the reduction's tolerance for floats), else what differs.
std::string differenceFrom(const Kernel& original, const Kernel& transformed, uint64_t seed = 1);

// The loops of a kernel, outermost first in a depth-first walk.
std::vector<const Node*> loopsOf(const Kernel& kernel);
// The first loop over `index` (nullptr if none), and how many loops there are over it.
const Node* findLoop(const Kernel& kernel, const std::string& index);
int countLoops(const Kernel& kernel, const std::string& index);

}  // namespace cudaburg::testing
