// The cudaburg command. Each subcommand lives in its own file (see commands.hpp); main only
// assembles them and turns command-line mistakes into one plain sentence.
#include <iostream>

#include <CLI/CLI.hpp>

#include "burggen/man_page.hpp"
#include "src/cli/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"cudaburg: finds the fastest correct CUDA kernel for a loop nest"};
  app.require_subcommand(0, 1);
  int status = cudaburg::cli::kOk;
  cudaburg::cli::addShowCommand(app, status);
  cudaburg::cli::addReplayCommand(app, status);
  cudaburg::cli::addExportCommand(app, status);
  cudaburg::cli::addSearchOptions(app, status);
  app.set_version_flag("--version", std::string("cudaburg ") + CUDABURG_VERSION);
  burggen::addManFlag(
      app, "cudaburg", std::string("cudaburg ") + CUDABURG_VERSION, "finds the fastest correct CUDA kernel for a loop nest",
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
       {"SEE ALSO", "docs/search.md (how the search works), docs/loop-language.md (the .loop language, recipes and\n"
                    "cudaburg show), docs/export.md (cudaburg export: tuned kernels as a library and PyTorch\n"
                    "operators), burggen(1)."}});
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "cudaburg: error: " << e.what() << " (see cudaburg --help)\n";
    return cudaburg::cli::kUsageError;
  }
  return status;
}
