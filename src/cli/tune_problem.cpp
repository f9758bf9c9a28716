#include "src/cli/tune_problem.hpp"

#include <chrono>
#include <system_error>

#include "src/tune/child_process.hpp"
#include "src/tune/problem_report.hpp"

namespace cudaburg::cli {

namespace {

// Whether a line's options set `name` ("--budget 60s" or "--budget=60s").
bool setsOption(const tune::Problem& p, const std::string& name) {
  for (const tune::Word& w : p.options)
    if (w.text == name || w.text.rfind(name + "=", 0) == 0) return true;
  return false;
}

// The command line of a problem's child: a search on GPU `gpu` (or a replay under --replay) with
// the line's own options, the command's where the line has none, and its outputs in `outDir`.
std::vector<std::string> childCommand(const TuneFlags& f, const tune::Problem& p, int gpu, const std::string& outDir) {
  std::vector<std::string> argv = {tune::thisExecutable()};
  if (!f.replay.empty()) {
    argv.insert(argv.end(), {"replay", p.file});
    for (const std::string& db : f.replay) argv.insert(argv.end(), {"--db", db});
  } else {
    argv.push_back(p.file);
  }
  for (size_t i = 0; i < p.options.size(); ++i) {
    const std::string& w = p.options[i].text;
    // A replay measures nothing: the options of measuring are the search's alone.
    bool measuring = w == "--budget" || w == "--seed" || w == "--exhaustive" || w.rfind("--budget=", 0) == 0 ||
                     w.rfind("--seed=", 0) == 0;
    if (f.replay.empty() || !measuring)
      argv.push_back(w);
    else if ((w == "--budget" || w == "--seed") && i + 1 < p.options.size())
      ++i;  // and its value
  }
  if (!setsOption(p, "--strategy")) argv.insert(argv.end(), {"--strategy", f.defaults.space.strategy});
  argv.insert(argv.end(), {"-o", outDir});
  if (!f.replay.empty()) {
    if (storesMeasurements(f)) argv.insert(argv.end(), {"--record", f.db});
    return argv;
  }
  if (!f.defaults.budget.empty() && !setsOption(p, "--budget"))
    argv.insert(argv.end(), {"--budget", f.defaults.budget});
  argv.insert(argv.end(), {"--device", std::to_string(gpu)});
  if (f.noDb)
    argv.push_back("--no-db");
  else if (!f.db.empty())
    argv.insert(argv.end(), {"--db", f.db});
  if (f.defaults.quiet) argv.push_back("-q");
  return argv;
}

}  // namespace

tune::LaneOutcome runProblemOnGpu(const TuneFlags& f, const tune::Problem& p, int gpu,
                                  const std::filesystem::path& outDir) {
  tune::LaneOutcome outcome;
  std::error_code ec;
  std::filesystem::create_directories(outDir, ec);
  if (ec) {
    outcome.detail = "cannot create " + outDir.string() + ": " + ec.message();
    return outcome;
  }
  std::string log = (outDir / "log.txt").string(), report = (outDir / "report.json").string();
  // A report.json older than the child is an earlier run's, not its own (a filesystem's clock
  // may stamp a file a little before the moment taken here).
  auto started = std::filesystem::file_time_type::clock::now() - std::chrono::milliseconds(100);
  tune::ChildExit exit = tune::runChild(childCommand(f, p, gpu, outDir.string()), log);
  auto written = std::filesystem::last_write_time(report, ec);
  if (!ec && written >= started)
    outcome = tune::readProblemReport(report);
  else
    outcome.detail = "it wrote no report.json";
  bool clean = exit.started && !exit.signaled && exit.code == 0;
  if (outcome.ok && clean) return outcome;
  outcome.ok = false;
  outcome.lost = exit.signaled;
  std::string said = tune::lastErrorLine(log);
  outcome.detail = (exit.started && !exit.signaled && !said.empty() ? said : tune::describeExit(exit)) +
                   (exit.started ? " (see " + log + ")" : "");
  return outcome;
}

tune::LaneOutcome runProblemHere(const TuneFlags& f, const SearchFlags& flags) {
  ProblemOutcome said;
  if (f.replay.empty())
    runSearch(flags, &said);
  else
    runReplay({flags.file, f.replay, flags.space, storesMeasurements(f) ? flags.db : "", ""}, &said);
  tune::LaneOutcome outcome;
  outcome.ok = said.ok;
  outcome.ms = said.ms;
  outcome.library = said.library;
  outcome.libraryMs = said.libraryMs;
  outcome.detail = said.ok ? said.winner : said.reason;
  return outcome;
}

}  // namespace cudaburg::cli
