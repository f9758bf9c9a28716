#include "tests/transform/test_kernels.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "common/diagnostics.hpp"
#include "src/exec/compare.hpp"
#include "src/exec/executor.hpp"
#include "src/loop/parser.hpp"
#include "src/loop/printer.hpp"
#include "src/transform/tree_edit.hpp"

namespace cudaburg::testing {

namespace {

const std::map<std::string, std::map<std::string, int64_t>> kSmallSizes = {
    {"matmul", {{"M", 37}, {"N", 29}, {"K", 23}}},
    {"matmul_bt", {{"BATCH", 2}, {"M", 13}, {"N", 11}, {"K", 9}}},
    {"conv2d", {{"N", 2}, {"C", 3}, {"H", 9}, {"W", 7}, {"K", 5}, {"R", 3}, {"S", 3}, {"ST", 2}, {"P", 1}}},
    {"conv3d", {{"D", 8}, {"H", 9}, {"W", 7}, {"T", 3}}},
    {"correlate2d", {{"H", 19}, {"W", 17}, {"TH", 3}, {"TW", 4}}},
};

Kernel parse(const common::SourceFile& file, const std::map<std::string, int64_t>& overrides) {
  common::Diagnostics diags(file);
  auto kernel = parseLoopFile(file, diags, overrides);
  if (!kernel) {
    ADD_FAILURE() << diags.str();
    throw std::runtime_error("kernel does not parse: " + file.name());
  }
  return *kernel;
}

}  // namespace

Kernel smallExample(const std::string& name) {
  auto file = common::SourceFile::read(std::string(CUDABURG_EXAMPLES_DIR) + "/" + name + ".loop");
  if (!file) {
    ADD_FAILURE() << file.reason();
    throw std::runtime_error(file.reason());
  }
  return parse(*file, kSmallSizes.at(name));
}

std::vector<std::string> exampleNames() {
  std::vector<std::string> names;
  for (const auto& [name, sizes] : kSmallSizes) names.push_back(name);
  return names;
}

Kernel kernelFromText(const std::string& text, const std::map<std::string, int64_t>& overrides) {
  return parse(common::SourceFile("test.loop", text), overrides);
}

Kernel intMatmul(int64_t m, int64_t n, int64_t k) {
  return kernelFromText(
      "size M = 4, N = 4, K = 4;\n"
      "kernel imatmul(int C[M][N], const int A[M][K], const int B[K][N]) {\n"
      "  parallel for (i = 0; i < M; i++)\n"
      "    parallel for (j = 0; j < N; j++) {\n"
      "      C[i][j] = 0;\n"
      "      reduce for (k = 0; k < K; k++)\n"
      "        C[i][j] += A[i][k] * B[k][j];\n"
      "    }\n"
      "}\n",
      {{"M", m}, {"N", n}, {"K", k}});
}

std::optional<Recipe> recipeFromText(const std::string& text, std::string* errors) {
  common::SourceFile file("r.recipe", text);
  common::Diagnostics diags(file);
  auto r = parseRecipe(file, diags);
  if (errors) *errors = diags.str();
  return r;
}

Kernel applied(const TransformResult& r) {
  if (!r.ok()) {
    ADD_FAILURE() << "refused: " << r.reason;
    throw std::runtime_error(r.reason);
  }
  return *r.kernel;
}

std::string differenceFrom(const Kernel& original, const Kernel& transformed, uint64_t seed) {
  Buffers expected = fillRandom(original, seed);
  Buffers actual = expected;
  try {
    execute(original, expected);
    execute(transformed, actual);
  } catch (const ExecutionError& e) {
    return std::string("execution failed: ") + e.what() + "\n" + printKernel(transformed);
  }
  Comparison c = compare(original, expected, actual, reductionTolerance(original));
  if (c.ok) return "";
  return c.firstMismatch + " (max error " + std::to_string(c.maxError) + ")\n" + printKernel(transformed);
}

std::vector<const Node*> loopsOf(const Kernel& kernel) {
  std::vector<const Node*> loops;
  walk(kernel.body, [&](const NodePtr& n, const Ancestors&) {
    if (n->kind == NodeKind::For) loops.push_back(n.get());
  });
  return loops;
}

const Node* findLoop(const Kernel& kernel, const std::string& index) {
  for (const Node* l : loopsOf(kernel))
    if (l->index == index) return l;
  return nullptr;
}

int countLoops(const Kernel& kernel, const std::string& index) {
  int n = 0;
  for (const Node* l : loopsOf(kernel)) n += l->index == index;
  return n;
}

}  // namespace cudaburg::testing
