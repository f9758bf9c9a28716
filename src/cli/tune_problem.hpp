#pragma once
// One problem of a `cudaburg tune` list, run once: here (a search, or a replay, in this process,
// on the GPU it sees), or as a child process of this executable on one GPU of the host, its output
// in its folder's log.txt and its outcome read back from the report.json it writes there. These
// are what the lanes of src/tune/lane_scheduler.hpp run (its ProblemRunner).
#include <filesystem>
#include <string>
#include <vector>

#include "src/cli/search_run.hpp"
#include "src/cli/tune_command.hpp"
#include "src/tune/lane_scheduler.hpp"
#include "src/tune/problem_list.hpp"

namespace cudaburg::cli {

// The search (the replay, under --replay) of a problem whose options `flags` holds, in this process.
tune::LaneOutcome runProblemHere(const TuneFlags& f, const SearchFlags& flags);

// The search (the replay) of problem `p` as a child process on GPU `gpu`, its outputs in `outDir`:
// killed by a signal, it is lost (worth running again); any other failure says why and where its
// log is.
tune::LaneOutcome runProblemOnGpu(const TuneFlags& f, const tune::Problem& p, int gpu,
                                  const std::filesystem::path& outDir);

}  // namespace cudaburg::cli
