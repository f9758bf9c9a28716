#pragma once
// A search as the command line writes it, and as each line of tests/data/problems.txt does: a
// name, the .loop file (from the source tree), sizes (-D NAME=VALUE) and the parameter ranges
// (--tile, --unroll, --stage, --split, --precision), read into the kernel and the search space; and what the
// tuning database shipped for it holds.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "common/diagnostics.hpp"
#include "src/loop/parser.hpp"
#include "src/search/evaluator.hpp"
#include "src/search/loop_rules.hpp"
#include "src/search/loops_matcher.hpp"
#include "src/search/search_space.hpp"
#include "src/tuning/tuning_db.hpp"

namespace cudaburg::testing {

struct SearchProblem {
  std::string name;
  std::string file;  // the .loop file, from the source tree
  Kernel kernel;
  SearchSpace space;
  bool budgeted = false;  // its database holds what a budgeted search measured (problems.txt)
};

inline SearchProblem parseSearchProblem(const std::string& line) {
  std::istringstream words(line);
  SearchProblem p;
  words >> p.name >> p.file;
  std::map<std::string, int64_t> sizes;
  std::string word, error;
  while (words >> word) {
    if (word == "budgeted") {
      p.budgeted = true;
      continue;
    }
    std::string value;
    words >> value;
    if (word == "-D") sizes[value.substr(0, value.find('='))] = std::stoll(value.substr(value.find('=') + 1));
    if (word == "--precision") {
      auto precision = parsePrecision(value);
      EXPECT_TRUE(precision) << line << ": no precision " << value;
      if (precision) p.space.precision = *precision;
    }
    ParamRange* range = word == "--tile"     ? &p.space.tile
                        : word == "--unroll" ? &p.space.unroll
                        : word == "--stage"  ? &p.space.stage
                        : word == "--split"  ? &p.space.split
                                             : nullptr;
    if (range) {
      auto parsed = parseParamRange(value, word, error);
      EXPECT_TRUE(parsed) << line << ": " << error;
      if (parsed) *range = *parsed;
    }
  }
  std::ifstream in(std::string(CUDABURG_SOURCE_DIR) + "/" + p.file);
  std::stringstream text;
  text << in.rdbuf();
  common::SourceFile source(p.file, text.str());
  common::Diagnostics diags(source);
  auto kernel = parseLoopFile(source, diags, sizes);
  EXPECT_TRUE(kernel) << diags.str();
  if (kernel) p.kernel = *kernel;
  return p;
}

// The candidate kernels the grammar offers for the problem (the root's derivations as `kernel`),
// in the model's order.
inline std::vector<Fragment> candidates(const SearchProblem& p) {
  LoopRules rules(p.kernel, p.space);
  generated::LoopsMatcher matcher(&rules);
  EXPECT_TRUE(matcher.label(p.kernel.body.get()));
  std::vector<Fragment> all;
  const Node* root = p.kernel.body.get();
  for (int rank = 0; rank < matcher.count(root, generated::LoopsMatcher::kernel_NT); ++rank)
    all.push_back(matcher.value(root, generated::LoopsMatcher::kernel_NT, rank));
  return all;
}

// The searches behind the tuning databases shipped in tests/data.
inline std::vector<SearchProblem> shippedProblems() {
  std::ifstream in(std::string(CUDABURG_SOURCE_DIR) + "/tests/data/problems.txt");
  std::vector<SearchProblem> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') out.push_back(parseSearchProblem(line));
  return out;
}

// The rows of tests/data/<name>.db for the problem's nest and sizes, on the device that measured
// it most.
inline std::vector<std::pair<MeasurementKey, Measurement>> shippedMeasurements(const SearchProblem& p) {
  std::string error;
  auto db =
      TuningDb::open(std::string(CUDABURG_SOURCE_DIR) + "/tests/data/" + p.name + ".db", error, DbAccess::ReadOnly);
  EXPECT_TRUE(db) << error;
  if (!db) return {};
  Progress quiet(stderr, true);
  EvaluatorOptions options;
  options.replay = true;
  Evaluator evaluator(p.kernel, options, nullptr, &*db, quiet);
  auto device = db->mostMeasuredDevice(evaluator.nestKey(), evaluator.outcome().sizes);
  EXPECT_TRUE(device) << p.name;
  if (!device) return {};
  return db->forNest(evaluator.nestKey(), device->gpu, device->toolkit);
}

}  // namespace cudaburg::testing
