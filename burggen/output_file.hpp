#pragma once
// Writing generated files whole or not at all: the text goes to a temporary file beside the
// target, which is renamed over it only once every byte is written and the file closed. Only a
// regular file (or one a symbolic link leads to) or a new name is ever replaced: a device, a
// FIFO or a folder is refused, and so is one file named for two outputs.
#include <string>
#include <vector>

namespace burggen {

struct OutputFile {
  std::string path;  // "-" is standard output
  std::string text;
};

// Writes every file, or none of them when one cannot be written (then `error` says why).
bool writeOutputFiles(const std::vector<OutputFile>& files, std::string& error);

}  // namespace burggen
