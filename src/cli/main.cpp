// The cudaburg command. Each subcommand lives in its own file (see commands.hpp); main only
// assembles them and turns command-line mistakes into one plain sentence.
#include <iostream>

#include <CLI/CLI.hpp>

#include "src/cli/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"cudaburg: finds the fastest correct CUDA kernel for a loop nest"};
  app.require_subcommand(0, 1);
  int status = cudaburg::cli::kOk;
  cudaburg::cli::addShowCommand(app, status);
  cudaburg::cli::addReplayCommand(app, status);
  cudaburg::cli::addSearchOptions(app, status);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "cudaburg: error: " << e.what() << " (see cudaburg --help)\n";
    return cudaburg::cli::kUsageError;
  }
  return status;
}
