// libFuzzer target: the .loop front end must survive any input. It parses and checks (names,
// shapes, bounds, marks), then does what `cudaburg show` does with a kernel that passes: prints
// it, its DOT tree, its dependences and the CUDA kernel it becomes. A printed kernel must read
// back, and print the same. A crash, a sanitizer report, a hang or unbounded memory is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "common/diagnostics.hpp"
#include "common/source.hpp"
#include "src/analysis/dependence.hpp"
#include "src/cuda/emit/emitter.hpp"
#include "src/loop/dot.hpp"
#include "src/loop/parser.hpp"
#include "src/loop/printer.hpp"

namespace {

std::optional<cudaburg::Kernel> parse(const std::string& name, const std::string& text, std::string& rendered) {
  common::SourceFile file(name, text);
  common::Diagnostics diags(file);
  std::optional<cudaburg::Kernel> kernel = cudaburg::parseLoopFile(file, diags, {});
  std::ostringstream out;
  diags.printAll(out);
  rendered = out.str();
  return kernel;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string rendered;
  auto kernel = parse("fuzz.loop", std::string(reinterpret_cast<const char*>(data), size), rendered);
  if (!kernel) return 0;
  std::string printed = cudaburg::printKernel(*kernel);
  cudaburg::kernelToDot(*kernel);
  cudaburg::DependenceGraph deps(*kernel);
  for (const cudaburg::Dependence& d : deps.dependences()) deps.describe(d);
  cudaburg::emitKernel(*kernel);
  auto again = parse("printed.loop", printed, rendered);
  if (!again || cudaburg::printKernel(*again) != printed) {
    std::fprintf(stderr, "a printed kernel does not read back the same:\n%s\n%s", printed.c_str(), rendered.c_str());
    std::abort();
  }
  return 0;
}
