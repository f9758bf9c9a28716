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

std::string outputFolderProblem(const std::string& dir) {
  std::error_code ec;
  for (std::filesystem::path p = dir; !p.empty(); p = p.parent_path()) {
    if (std::filesystem::exists(p, ec))
      return std::filesystem::is_directory(p, ec)
                 ? ""
                 : "cannot create the output folder '" + dir + "': '" + p.string() + "' is a file, not a folder";
    if (p == p.parent_path()) break;
  }
  return "";
}

}  // namespace cudaburg::cli
