// The recipes of the candidates the grammar offers: pinned for every example
// (tests/search/golden/<example>.recipes, cheapest first as the model ranks them), and, for the
// searches behind the shipped tuning databases, still offering every recipe measured there. A
// tuning database is keyed by a recipe's printed line, so a change to how the rules build recipes
// must leave these lines as they are. After a deliberate change, regenerate the pinned lines with
// UPDATE_GOLDEN=1 and review the diff.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "src/search/loop_rules.hpp"
#include "src/search/loops_matcher.hpp"
#include "tests/search/search_problem.hpp"

namespace cudaburg {
namespace {

using testing::SearchProblem;

// Every example, at its own sizes, over ranges that reach every rule of the grammar.
const char* const kExamples[] = {"conv2d", "conv3d", "correlate2d", "matmul", "matmul_bt", "hgemm", "tf32gemm"};
const char* const kRanges = " --tile 16,64 --unroll 2,8 --stage 8 --split 2";

// The distinct recipe lines among the root's covers as a kernel, cheapest first.
std::vector<std::string> offeredRecipes(const SearchProblem& p) {
  LoopRules rules(p.kernel, p.space);
  generated::LoopsMatcher matcher(&rules);
  EXPECT_TRUE(matcher.label(p.kernel.body.get()));
  const Node* root = p.kernel.body.get();
  std::set<std::string> seen;
  std::vector<std::string> out;
  for (int rank = 0; rank < matcher.count(root, generated::LoopsMatcher::kernel_NT); ++rank) {
    std::string line = printRecipeLine(matcher.value(root, generated::LoopsMatcher::kernel_NT, rank).recipe(p.kernel));
    if (seen.insert(line).second) out.push_back(line);
  }
  return out;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ExampleRecipes, EveryCandidatePrintsAsPinned) {
  for (const char* example : kExamples) {
    SearchProblem p = testing::parseSearchProblem(std::string(example) + " examples/" + example + ".loop" + kRanges);
    SCOPED_TRACE(p.name);
    std::string actual;
    for (const auto& line : offeredRecipes(p)) actual += (line.empty() ? "(the nest as written)" : line) + "\n";
    EXPECT_GT(std::count(actual.begin(), actual.end(), '\n'), 10);
    std::string path = std::string(CUDABURG_SOURCE_DIR) + "/tests/search/golden/" + p.name + ".recipes";
    const char* update = std::getenv("UPDATE_GOLDEN");
    if (update && std::string(update) == "1") {
      std::ofstream(path) << actual;
      continue;
    }
    std::string expected = readFile(path);
    ASSERT_FALSE(expected.empty()) << path << " is missing: run with UPDATE_GOLDEN=1 to create it";
    EXPECT_EQ(actual, expected) << "the recipes offered for " << p.name
                                << " changed; if on purpose, regenerate with UPDATE_GOLDEN=1";
  }
}

// A layer with an epilogue (bias and ReLU) is offered the tensor cores' kernels as a bare product
// is: tf32x3 wgmma tiles, with and without promoted sums, that apply it as they store.
TEST(ExampleRecipes, EpilogueLayersAreOfferedTensorCores) {
  SearchProblem p = testing::parseSearchProblem("linear_relu examples/linear_relu.loop");
  int tf32x3 = 0, promoted = 0;
  for (const auto& line : offeredRecipes(p)) {
    tf32x3 += line.find("wgmma j,i,k") != std::string::npos && line.find("tf32x3") != std::string::npos;
    promoted += line.find("tf32x3 promote") != std::string::npos;
  }
  EXPECT_GT(tf32x3, 0);
  EXPECT_GT(promoted, 0);
}

// The recipes measured in a shipped database that the grammar no longer offers, listed with why
// in tests/search/golden/unoffered.recipes: problem name -> recipe lines.
std::map<std::string, std::set<std::string>> unofferedRecipes() {
  std::ifstream in(std::string(CUDABURG_SOURCE_DIR) + "/tests/search/golden/unoffered.recipes");
  std::map<std::string, std::set<std::string>> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#' && line.find('\t') != std::string::npos)
      out[line.substr(0, line.find('\t'))].insert(line.substr(line.find('\t') + 1));
  return out;
}

TEST(ExampleRecipes, EveryRecipeMeasuredInAShippedDatabaseIsStillOffered) {
  std::map<std::string, std::set<std::string>> unoffered = unofferedRecipes();
  EXPECT_FALSE(unoffered.empty());
  for (const SearchProblem& p : testing::shippedProblems()) {
    SCOPED_TRACE(p.name);
    std::vector<std::string> lines = offeredRecipes(p);
    std::set<std::string> offered(lines.begin(), lines.end());
    const std::set<std::string>& listed = unoffered[p.name];
    size_t stored = 0;
    for (const auto& [key, m] : testing::shippedMeasurements(p)) {
      if (listed.count(key.recipe))
        EXPECT_FALSE(offered.count(key.recipe)) << "offered again, still listed in unoffered.recipes: " << key.recipe;
      else
        EXPECT_TRUE(offered.count(key.recipe)) << "measured but no longer offered: " << key.recipe;
      ++stored;
    }
    EXPECT_GT(stored, 100u);
  }
}

}  // namespace
}  // namespace cudaburg
