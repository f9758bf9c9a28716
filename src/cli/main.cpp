// The cudaburg command. Each subcommand lives in its own file (see commands.hpp); main only
// assembles them and turns command-line mistakes into one plain sentence, naming a mistyped
// command or option with the nearest one there is.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>

#include <CLI/CLI.hpp>

#include "burggen/man_page.hpp"
#include "common/closest_name.hpp"
#include "src/cli/commands.hpp"

namespace {

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// A first word that is neither a command nor a file (no '.' or '/' in it, and nothing of that
// name): a mistyped command, named as such rather than read as a .loop file.
std::optional<std::string> unknownCommand(CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return std::nullopt;
  std::string word = argv[1];
  std::vector<std::string> commands;
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) commands.push_back(sub->get_name());
  std::error_code ec;
  if (contains(commands, word) || word.find_first_of("./") != std::string::npos || std::filesystem::exists(word, ec))
    return std::nullopt;
  std::string suggestion = common::didYouMean(word, commands);
  return "unknown command '" + word + "'" +
         (suggestion.empty() ? "; the commands are show and replay, or give a FILE.loop to search" : suggestion);
}

// The first long option the command (or its subcommand) does not have, with the nearest it has.
std::optional<std::string> unknownOption(CLI::App& app, int argc, char** argv) {
  CLI::App* scope = &app;
  for (int i = 1; i < argc; ++i) {
    std::string word = argv[i];
    if (i == 1 && word[0] != '-') {
      for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
        if (sub->get_name() == word) scope = sub;
      continue;
    }
    if (word == "--") break;  // what follows is not an option
    if (word.rfind("--", 0) != 0) continue;
    std::string name = word.substr(0, word.find('='));
    std::vector<std::string> options;
    for (const CLI::Option* o : scope->get_options())
      for (const std::string& l : o->get_lnames()) options.push_back("--" + l);
    if (!contains(options, name)) return "unknown option '" + name + "'" + common::didYouMean(name, options);
  }
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cudaburg: finds the fastest correct CUDA kernel for a loop nest"};
  app.require_subcommand(0, 1);
  int status = cudaburg::cli::kOk;
  cudaburg::cli::addShowCommand(app, status);
  cudaburg::cli::addReplayCommand(app, status);
  cudaburg::cli::addExportCommand(app, status);
  cudaburg::cli::addTuneCommand(app, status);
  cudaburg::cli::addSearchOptions(app, status);
  app.set_version_flag("--version", std::string("cudaburg ") + CUDABURG_VERSION);
  burggen::addManFlag(
      app, "cudaburg", std::string("cudaburg ") + CUDABURG_VERSION,
      "finds the fastest correct CUDA kernel for a loop nest",
      {{"FILES",
        "cudaburg-KERNEL/ (or --output DIR): best.cu, report.md, report.json, search.svg, labeled.dot, cover.txt.\n"
        "\n"
        "~/.local/share/cudaburg/tuning.db: the measurements, reused by later runs (--db, --no-db).\n"
        "\n"
        "~/.cache/cudaburg/: compiled kernels, by the hash of their source, options and toolkit; safe to delete."},
       {"ENVIRONMENT",
        "CUDABURG_DB: the tuning database, where --db is not given.\n"
        "\n"
        "CUDABURG_CACHE: the folder of compiled kernels (default $XDG_CACHE_HOME/cudaburg, else ~/.cache/cudaburg).\n"
        "\n"
        "XDG_DATA_HOME, XDG_CACHE_HOME: the bases of the two defaults above."},
       {"SEE ALSO",
        "docs/search.md (how the search works), docs/loop-language.md (the .loop language, recipes and\n"
        "cudaburg show), docs/export.md (cudaburg export: tuned kernels as a library and PyTorch\n"
        "operators), docs/tune.md (cudaburg tune: every problem of a list), burggen(1)."}});
  if (auto mistake = unknownCommand(app, argc, argv)) {
    std::cerr << "cudaburg: error: " << *mistake << "\n";
    return cudaburg::cli::kUsageError;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (auto mistake = unknownOption(app, argc, argv)) {
      std::cerr << "cudaburg: error: " << *mistake << "\n";
      return cudaburg::cli::kUsageError;
    }
    std::cerr << "cudaburg: error: " << e.what() << " (see cudaburg --help)\n";
    return cudaburg::cli::kUsageError;
  }
  return status;
}
