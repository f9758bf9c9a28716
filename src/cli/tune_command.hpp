#pragma once
// The parts of `cudaburg tune` that a run over several processes (src/cli/tune_mpi.cpp) shares
// with the run in one: reading the list, tuning one problem, the progress line and the table.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/diagnostics.hpp"
#include "common/source.hpp"
#include "src/cli/search_run.hpp"
#include "src/tune/lane_scheduler.hpp"
#include "src/tune/problem_list.hpp"
#include "src/tune/summary_table.hpp"

namespace cudaburg::cli {

struct TuneFlags {
  std::string list;
  std::string outDir;
  std::string db;
  bool noDb = false;
  std::vector<std::string> replay;
  bool gpusGiven = false;  // without --gpus, the problems run in turn in this process
  std::string gpus;
  SearchFlags defaults;     // what each line starts from (its own options go on top)
  double rankTimeout = 60;  // seconds an MPI rank may stay silent before it is given up
};

// A problem of the list with the flags its search runs with.
struct TuneRun {
  const tune::Problem* problem;
  SearchFlags flags;
};

// The list read and each of its problems' flags; the errors of its lines are in `diagnostics`.
struct TunePlan {
  std::unique_ptr<common::SourceFile> source;
  std::unique_ptr<common::Diagnostics> diagnostics;
  std::vector<tune::Problem> problems;
  std::vector<TuneRun> runs;
};

// Reads the list `source` (its lines' mistakes go to the plan's diagnostics, unprinted); each
// problem's outputs go to DIR/NAME/ and its measurements to the flags' database.
TunePlan planTune(common::SourceFile source, const TuneFlags& f);

// Reads the list of `f`, makes the output folder and prints the list's mistakes: nullopt, with the
// exit status in `status`, when the list cannot be read or the folder made.
std::optional<TunePlan> loadTune(const TuneFlags& f, int& status);

// Whether the measurements of `f`'s runs are stored: a search's unless --no-db, a replay's only
// into a database given with --db.
bool storesMeasurements(const TuneFlags& f);

// Tunes one problem as its flags say (a search, or a replay from the --replay databases), in this
// process, and returns its row of the table.
tune::Row tuneProblem(const TuneRun& run, const TuneFlags& f);

// The row of the table of problem `p` from what came of it.
tune::Row rowOf(const tune::Problem& p, const tune::LaneOutcome& outcome, double wallSeconds);

// One line of progress over the whole list on standard error, with what runs now ("" for nothing).
void showProgress(size_t done, size_t total, double elapsed, const std::string& now);

// Prints the table of `rows` (of a run that took `wallSeconds`), writes it to DIR/summary.md and
// returns the exit status.
int finishTune(const TuneFlags& f, const TunePlan& plan, const std::vector<tune::Row>& rows, double wallSeconds);

// `cudaburg tune` started by mpirun or srun: every rank runs this (src/cli/tune_mpi.cpp).
int runTuneMpi(const TuneFlags& f);

}  // namespace cudaburg::cli
