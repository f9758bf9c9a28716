// `cudaburg show`: a kernel as nested loops (before and after a recipe), as Graphviz DOT, and
// as the CUDA kernel the emitter makes of it.
#include <filesystem>
#include <iostream>

#include "src/analysis/dependence.hpp"
#include "src/cli/commands.hpp"
#include "src/cli/input_guard.hpp"
#include "src/cli/loop_input.hpp"
#include "src/cuda/emit/emitter.hpp"
#include "src/loop/dot.hpp"
#include "src/loop/printer.hpp"
#include "src/transform/recipe.hpp"

namespace cudaburg::cli {

namespace {

struct ShowOptions {
  std::string loopFile;
  std::vector<std::string> defines;
  std::string recipe;
  std::string dotFile;
  bool deps = false;
  bool cuda = false;
};

// A recipe given as a file's name is read from it; otherwise the text is the recipe itself
// (steps separated by ';').
std::optional<Recipe> loadRecipe(const std::string& arg) {
  common::Result<common::SourceFile> file = common::SourceFile("--recipe", arg);
  std::error_code ec;
  if (std::filesystem::is_regular_file(arg, ec)) file = common::SourceFile::read(arg);
  if (std::filesystem::is_directory(arg, ec)) {  // no recipe's text: a path meant as its file
    std::cerr << "cudaburg: error: --recipe: '" << arg << "' is a folder, not a recipe's file\n";
    return std::nullopt;
  }
  if (!file) {
    std::cerr << "cudaburg: error: " << file.reason() << "\n";
    return std::nullopt;
  }
  common::Diagnostics diags(*file);
  std::optional<Recipe> recipe = parseRecipe(*file, diags);
  // A long recipe full of mistakes would flood the terminal: the first kMaxShown, then a count.
  constexpr size_t kMaxShown = 50;
  const auto& all = diags.all();
  for (size_t i = 0; i < all.size() && i < kMaxShown; ++i) diags.print(std::cerr, all[i]);
  if (all.size() > kMaxShown) std::cerr << "cudaburg: " << all.size() - kMaxShown << " more diagnostics not shown\n";
  return recipe;
}

void printDependences(const Kernel& kernel) {
  DependenceGraph deps(kernel);
  std::cout << "// dependences\n";
  for (const Statement& s : deps.statements()) {
    std::cout << "//   S" << s.order << ": " << printNode(*s.node);
  }
  if (deps.dependences().empty()) std::cout << "//   none\n";
  for (const Dependence& d : deps.dependences()) std::cout << "//   " << deps.describe(d) << "\n";
}

int runShow(const ShowOptions& options) {
  std::string error;
  auto sizes = parseSizeDefinitions(options.defines, error);
  if (!sizes) {
    std::cerr << "cudaburg: error: " << error << "\n";
    return kUsageError;
  }
  // With `--dot -` standard output carries the DOT alone, for a pipe into dot.
  bool dotOnly = options.dotFile == "-";
  if (dotOnly && (options.deps || options.cuda)) {
    std::cerr << "cudaburg: error: --dot - writes the DOT alone to standard output; give --deps and --cuda "
                 "without it, or write the DOT to a file.\n";
    return kUsageError;
  }
  // Checked before anything is read or printed: the DOT file must not be one of the inputs.
  if (!dotOnly && !options.dotFile.empty()) {
    std::string why = outputReplacingInput({options.dotFile}, {options.loopFile, options.recipe});
    if (!why.empty()) {
      std::cerr << "cudaburg: error: --dot " << why << "\n";
      return kUsageError;
    }
  }
  std::optional<Kernel> kernel = loadLoopFile(options.loopFile, *sizes);
  if (!kernel) return kInputError;

  Kernel shown = *kernel;
  std::string recipeText;
  if (!options.recipe.empty()) {
    std::optional<Recipe> recipe = loadRecipe(options.recipe);
    if (!recipe) return kInputError;
    TransformResult result = applyRecipe(*kernel, *recipe);
    if (!result) {
      std::cerr << "cudaburg: error: the recipe does not apply: " << result.reason << "\n";
      return kInputError;
    }
    shown = *result.kernel;
    recipeText = printRecipe(*recipe);
    if (!dotOnly) {
      std::cout << "// before\n" << printKernel(*kernel) << "\n// recipe\n";
      for (const RecipeStep& step : recipe->steps) std::cout << "//   " << step.str() << "\n";
      std::cout << "\n// after\n";
    }
  }
  if (!dotOnly) std::cout << printKernel(shown);
  if (options.deps) printDependences(shown);
  if (options.cuda) {
    EmitResult emitted = emitKernel(shown, {recipeText, "", std::nullopt});
    if (!emitted.ok()) {
      std::cerr << "cudaburg: error: the kernel cannot be emitted: " << emitted.reason << "\n";
      return kInputError;
    }
    std::cout << "\n" << emitted.kernel->source;
  }
  if (!options.dotFile.empty()) {
    std::string dot = kernelToDot(shown);
    if (options.dotFile == "-") {
      std::cout << dot;
    } else if (!writeFileAtomically(options.dotFile, dot, error)) {
      std::cerr << "cudaburg: error: " << error << "\n";
      return kUsageError;
    }
  }
  return kOk;
}

}  // namespace

void addShowCommand(CLI::App& app, int& status) {
  auto options = std::make_shared<ShowOptions>();
  CLI::App* show = app.add_subcommand("show", "Print a kernel as nested loops (and as Graphviz DOT)");
  show->add_option("file", options->loopFile, "The .loop file")->option_text("FILE.loop")->required();
  show->add_option("-D,--define", options->defines, "Set a size: -D NAME=VALUE (repeatable)")
      ->option_text("NAME=VALUE")
      ->allow_extra_args(false);
  show->add_option("--recipe", options->recipe,
                   "Apply a recipe (a file, or steps separated by ';') and print before and after")
      ->option_text("RECIPE");
  show->add_option("--dot", options->dotFile,
                   "Write the tree as Graphviz DOT to this file ('-': standard output, the DOT alone)")
      ->option_text("FILE");
  show->add_flag("--deps", options->deps, "Also print the statements and their dependences");
  show->add_flag("--cuda", options->cuda, "Also print the CUDA kernel the tree becomes");
  show->callback([options, &status] { status = runShow(*options); });
}

}  // namespace cudaburg::cli
