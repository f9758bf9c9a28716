#include "src/cli/input_guard.hpp"

#include <filesystem>

namespace cudaburg::cli {

std::string outputReplacingInput(const std::vector<std::string>& outputs, const std::vector<std::string>& inputs) {
  for (const std::string& output : outputs)
    for (const std::string& input : inputs) {
      std::error_code ec;  // a path that does not exist is no input's
      if (!input.empty() && std::filesystem::equivalent(output, input, ec) && !ec)
        return "'" + output + "' is the input '" + input + "'; an output never replaces an input, so name another";
    }
  return "";
}

}  // namespace cudaburg::cli
