// cudaburg-gpu-examples: runs each example under a few recipes on the GPU and prints a table:
// verified or why not, the median time, TFLOPS, GB/s, the reference library's time and the ratio
// (the library's time over the variant's: above 1 the variant is faster).
// The cases come from a file (or standard input), e.g.
//
//   # example file, then sizes
//   matmul.loop M=2048 N=2048 K=2048
//     naive:
//     tiled 16x16: tile i,j 16,16; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x
//
// An indented line is a recipe "name: steps" for the example above it; paths are relative to the
// examples folder given with --examples.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "common/diagnostics.hpp"
#include "src/cuda/compile/compiler.hpp"
#include "src/cuda/emit/emitter.hpp"
#include "src/cuda/run/runner.hpp"
#include "src/loop/parser.hpp"
#include "src/transform/recipe.hpp"

namespace cudaburg {
namespace {

std::string fixed(double v, int digits) {
  if (v < 0) return "-";
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

std::string scientific(double v) {
  if (v < 0) return "-";
  char text[64];
  std::snprintf(text, sizeof text, "%.1e", v);
  return text;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

struct Example {
  std::string file;
  std::map<std::string, int64_t> sizes;
  std::string sizesText;
  std::optional<Kernel> kernel;
  ReferenceTiming reference;
};

// Applies, emits, compiles and measures one recipe of an example, and prints its row.
void measureRecipe(Runner& runner, Example& ex, const std::string& name, const std::string& text) {
  std::cout << "| " << ex.file << " | " << ex.sizesText << " | " << name << " | ";
  auto fail = [](const std::string& why) { std::cout << why << " | - | - | - | - | - | - |" << std::endl; };
  if (!ex.kernel) return fail("the example does not parse");
  common::SourceFile file(name + ".recipe", text);
  common::Diagnostics diags(file);
  auto recipe = parseRecipe(file, diags);
  if (!recipe) return fail("bad recipe: " + trim(diags.str()));
  TransformResult transformed = applyRecipe(*ex.kernel, *recipe);
  if (!transformed.ok()) return fail("refused: " + transformed.reason);
  EmitOptions emitOptions;
  emitOptions.recipe = printRecipeLine(*recipe);
  EmitResult emitted = emitKernel(*transformed.kernel, emitOptions);
  if (!emitted.ok()) return fail("not emitted: " + emitted.reason);
  CompileOptions compileOptions;
  compileOptions.arch = runner.arch();
  CompileResult binary = compile(*emitted.kernel, compileOptions);
  if (!binary.ok) return fail("not compiled: " + binary.reason);
  RunResult r = runner.measure(*ex.kernel, *emitted.kernel, binary);
  std::string errors = scientific(r.error) + (r.libraryError >= 0 ? "; library " + scientific(r.libraryError) : "");
  std::string verdict = r.ok() ? "yes (" + errors + ")" : std::string(runStatusName(r.status)) + ": " + r.reason;
  double ratio = r.timed() && ex.reference.ok() ? ex.reference.ms / r.ms : -1;
  std::cout << verdict << " | " << fixed(r.ms, 3) << " | " << fixed(r.tflops, 2) << " | " << fixed(r.gbps, 0) << " | "
            << (ex.reference.ok() ? ex.reference.library : "-") << " | " << fixed(ex.reference.ms, 3) << " | "
            << fixed(ratio, 2) << " |" << std::endl;
}

int run(int argc, char** argv) {
  std::string examplesDir = ".", casesPath = "-";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--examples" && i + 1 < argc)
      examplesDir = argv[++i];
    else if (a == "--help") {
      std::cout << "usage: cudaburg-gpu-examples [--examples DIR] [CASES-FILE]\n";
      return 0;
    } else
      casesPath = a;
  }
  std::ifstream fileIn;
  if (casesPath != "-") {
    fileIn.open(casesPath);
    if (!fileIn) {
      std::cerr << "cudaburg-gpu-examples: cannot read " << casesPath << "\n";
      return 2;
    }
  }
  std::istream& in = casesPath == "-" ? std::cin : fileIn;

  Runner runner;
  std::cout << "GPU: " << runner.device() << "\n\n";
  if (!runner.available()) return 0;
  std::cout << "| example | sizes | recipe | verified (error against FP64; the library's) | ms | TFLOPS | GB/s | "
               "reference | reference ms | "
               "reference ms / ms |\n|---|---|---|---|---|---|---|---|---|---|\n";
  Example current;
  std::string line;
  while (std::getline(in, line)) {
    if (trim(line).empty() || trim(line)[0] == '#') continue;
    if (line[0] == ' ' || line[0] == '\t') {
      std::string entry = trim(line);
      size_t colon = entry.find(':');
      if (colon == std::string::npos) {
        std::cerr << "cudaburg-gpu-examples: a recipe line needs \"name: steps\": " << entry << "\n";
        return 2;
      }
      measureRecipe(runner, current, trim(entry.substr(0, colon)), trim(entry.substr(colon + 1)));
      continue;
    }
    current = Example{};
    std::istringstream words(line);
    words >> current.file;
    std::string assignment;
    while (words >> assignment) {
      size_t eq = assignment.find('=');
      if (eq == std::string::npos) continue;
      current.sizes[assignment.substr(0, eq)] = std::stoll(assignment.substr(eq + 1));
      current.sizesText += (current.sizesText.empty() ? "" : " ") + assignment;
    }
    if (auto source = common::SourceFile::read(examplesDir + "/" + current.file)) {
      common::Diagnostics diags(*source);
      current.kernel = parseLoopFile(*source, diags, current.sizes);
      if (!current.kernel) std::cerr << diags.str();
    } else {
      std::cerr << "cudaburg-gpu-examples: " << source.reason() << "\n";
    }
    if (current.kernel) current.reference = runner.reference(*current.kernel);
  }
  return 0;
}

}  // namespace
}  // namespace cudaburg

int main(int argc, char** argv) { return cudaburg::run(argc, argv); }
