#pragma once
// The subcommands of the cudaburg command, one a file. Each adds itself to the application and
// sets `status` (the process's exit status) when it runs.
#include <CLI/CLI.hpp>

namespace cudaburg::cli {

// Exit statuses shared by every subcommand.
constexpr int kOk = 0;
constexpr int kInputError = 1;  // the .loop file (or recipe) has errors, reported as diagnostics
constexpr int kUsageError = 2;  // a command-line mistake, reported as one sentence

// `cudaburg FILE.loop [--tile R] [--unroll R] [--stage R] [-D NAME=VALUE]... [--budget B] ...`:
// the search, the command's main job (options on the application itself).
void addSearchOptions(CLI::App& app, int& status);

// `cudaburg replay FILE.loop --db DB [--strategy S] [ranges] [-D NAME=VALUE]...`
void addReplayCommand(CLI::App& app, int& status);

// `cudaburg export FILE.loop [-D NAME=VALUE]... [--problem P]... [--db DB]... -o DIR [--torch]`
void addExportCommand(CLI::App& app, int& status);

// `cudaburg tune LIST -o DIR [--db FILE] [--replay DB]... [--budget B]`: every problem of a list
void addTuneCommand(CLI::App& app, int& status);

// `cudaburg show FILE.loop [-D NAME=VALUE]... [--recipe R] [--dot FILE] [--deps]`
void addShowCommand(CLI::App& app, int& status);

}  // namespace cudaburg::cli
