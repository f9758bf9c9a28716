#include "src/cli/loop_input.hpp"

#include <charconv>
#include <cstdio>
#include <iostream>

#include "burggen/output_file.hpp"
#include "common/diagnostics.hpp"
#include "common/source.hpp"
#include "src/analysis/nest_sequence.hpp"
#include "src/loop/parser.hpp"

namespace cudaburg::cli {

std::optional<std::map<std::string, int64_t>> parseSizeDefinitions(const std::vector<std::string>& defs,
                                                                   std::string& error) {
  std::map<std::string, int64_t> sizes;
  for (const std::string& def : defs) {
    size_t eq = def.find('=');
    std::string name = def.substr(0, eq);
    bool goodName = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
    for (char c : name) goodName = goodName && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (eq == std::string::npos || !goodName) {
      error = "-D expects NAME=VALUE (an integer size), not '" + def + "'";
      return std::nullopt;
    }
    std::string text = def.substr(eq + 1);
    int64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
      error = "-D " + name + " needs an integer value, not '" + text + "'";
      return std::nullopt;
    }
    sizes[name] = value;
  }
  return sizes;
}

std::optional<Kernel> loadLoopFile(const std::string& path, const std::map<std::string, int64_t>& sizes) {
  common::Result<common::SourceFile> file = common::SourceFile::read(path);
  if (!file) {
    std::cerr << "cudaburg: error: " << file.reason() << "\n";
    return std::nullopt;
  }
  common::Diagnostics diags(*file);
  std::optional<Kernel> kernel = parseLoopFile(*file, diags, sizes);
  diags.printAll(std::cerr);
  return kernel;
}

bool writeFileAtomically(const std::string& path, const std::string& text, std::string& error) {
  return burggen::writeOutputFiles({{path, text}}, error);
}

std::string oneNestRequired(const Kernel& kernel, const std::string& path, const std::string& command) {
  std::string single;
  std::vector<Kernel> nests = splitNests(kernel, single);
  if (nests.empty()) return "";
  return path + ": the kernel's body is " + std::to_string(nests.size()) +
         " nests in a row, which the search tunes as a kernel a nest; " + command +
         " takes kernels of one nest (write each nest as a kernel of its own)";
}

}  // namespace cudaburg::cli
