#pragma once
// Kernels for the runner's tests, read by the real .loop parser: the project's examples (with
// smaller sizes) and small nests written in the tests.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "common/diagnostics.hpp"
#include "src/loop/parser.hpp"

namespace cudaburg::testing {

inline Kernel parseLoopText(const std::string& name, const std::string& text,
                            const std::map<std::string, int64_t>& sizes = {}) {
  common::SourceFile file(name, text);
  common::Diagnostics diags(file);
  auto kernel = parseLoopFile(file, diags, sizes);
  if (!kernel) ADD_FAILURE() << diags.str();
  return kernel ? *kernel : Kernel{};
}

inline Kernel loadExample(const std::string& name, const std::map<std::string, int64_t>& sizes = {}) {
  std::ifstream in(std::string(CUDABURG_EXAMPLES_DIR) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return parseLoopText(name, text.str(), sizes);
}

}  // namespace cudaburg::testing
