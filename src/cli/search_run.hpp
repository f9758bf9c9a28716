#pragma once
// One search, or one replay, as the commands run them: what `cudaburg tune` runs for each problem
// of its list, with what came of it for the table.
#include <string>
#include <vector>

#include "common/result.hpp"
#include "src/cli/space_options.hpp"

namespace cudaburg::cli {

struct SearchFlags {
  std::string file;
  SpaceFlags space;
  std::string budget;
  bool exhaustive = false;
  std::string arch;  // empty: the GPU's own, or sm_90 without one
  int device = 0;
  std::string db;
  bool noDb = false;
  std::string seed = "0";
  std::string outDir;
  bool verbose = false, quiet = false;
};

struct ReplayFlags {
  std::string file;
  std::vector<std::string> dbs;  // answered from the first that holds the nest at its sizes
  SpaceFlags space;
  std::string recordDb;  // where the measurements answered are stored, as a search stores its own ("": nowhere)
  std::string outDir;    // where report.json goes ("": nowhere)
};

// What came of one problem: the winner's time beside the library's, or why there is none.
struct ProblemOutcome {
  bool ok = false;
  std::string winner;   // the recipe line ("" for the nest as written)
  double ms = -1;       // the winner's time; -1: not measured
  std::string library;  // the reference library, and its time (-1: not timed)
  double libraryMs = -1;
  common::Reason reason;  // when not ok
};

// Each returns the command's exit status; `outcome`, when given, says what came of it.
int runSearch(const SearchFlags& flags, ProblemOutcome* outcome = nullptr);
int runReplay(const ReplayFlags& flags, ProblemOutcome* outcome = nullptr);

}  // namespace cudaburg::cli
