// `cudaburg tune LIST -o DIR [--db FILE | --no-db] [--replay DB]... [--budget B] [--gpus all|0,1,...]`:
// tunes every problem of a list (one a line, see src/tune/problem_list.hpp), with one tuning
// database and one compile cache for all. Without --gpus the problems run in turn in this process;
// with it, one lane a GPU runs them side by side, each problem a child process of this executable
// (src/cli/tune_problem.hpp); under mpirun or srun the ranks share them (src/cli/tune_mpi.cpp). Each
// problem's search writes its outputs to DIR/NAME/; the table of all of them (the winner's time, the
// library's, their ratio, the wall time of its tuning, the GPU, its status) is printed and written to
// DIR/summary.md. A line of the list that does not parse is reported with its place and the other
// problems still run; the exit status says whether any failed.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "common/closest_name.hpp"
#include "common/diagnostics.hpp"
#include "src/cli/commands.hpp"
#include "src/cli/input_guard.hpp"
#include "src/cli/loop_input.hpp"
#include "src/cli/search_run.hpp"
#include "src/cli/tune_command.hpp"
#include "src/cli/tune_problem.hpp"
#include "src/tune/gpu_list.hpp"
#include "src/tune/lane_scheduler.hpp"
#include "src/tune/launcher.hpp"
#include "src/tune/problem_list.hpp"
#include "src/tune/summary_table.hpp"
#include "src/tuning/tuning_db.hpp"

namespace cudaburg::cli {

namespace {

// A problem's options read on top of the command's: false, with the error in `diagnostics` at the
// word it concerns, when they do not parse.
bool readOptions(const tune::Problem& p, SearchFlags& flags, common::Diagnostics& diagnostics) {
  CLI::App app;
  addSpaceOptions(app, flags.space);
  app.add_option("--budget", flags.budget);
  app.add_flag("--exhaustive", flags.exhaustive);
  app.add_option("--seed", flags.seed);
  std::vector<std::string> known;
  for (const CLI::Option* o : app.get_options()) {
    for (const std::string& l : o->get_lnames()) known.push_back("--" + l);
    for (const std::string& s : o->get_snames()) known.push_back("-" + s);
  }
  for (const tune::Word& w : p.options) {
    if (w.text.size() < 2 || w.text[0] != '-') continue;
    std::string name = w.text.substr(0, w.text.rfind("--", 0) == 0 ? w.text.find('=') : 2);
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      std::string suggestion = common::didYouMean(name, known);
      diagnostics.error(w.loc, "unknown option '" + name + "'" +
                                   (suggestion.empty() ? " (a line takes a search's options: -D, --tile, --budget, ...)"
                                                       : suggestion));
      return false;
    }
  }
  std::vector<std::string> args;  // CLI11 takes them last first
  for (auto w = p.options.rbegin(); w != p.options.rend(); ++w) args.push_back(w->text);
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    diagnostics.error(p.options.empty() ? p.loc : p.options.front().loc, e.what());
    return false;
  }
  return true;
}

// "1m05s" for a duration in seconds.
std::string minutes(double seconds) {
  char text[32];
  long s = static_cast<long>(seconds + 0.5);
  if (s >= 60)
    std::snprintf(text, sizeof text, "%ldm%02lds", s / 60, s % 60);
  else
    std::snprintf(text, sizeof text, "%lds", s);
  return text;
}

// The command line's mistakes, said before anything runs: kOk when there are none.
int checkTuneFlags(const TuneFlags& f) {
  if (f.outDir.empty()) {
    std::cerr << "cudaburg: error: tune needs -o DIR, the folder its outputs go to\n";
    return kUsageError;
  }
  if (f.noDb && !f.db.empty()) {
    std::cerr << "cudaburg: error: --db and --no-db cannot both be given\n";
    return kUsageError;
  }
  if (f.rankTimeout <= 0) {
    std::cerr << "cudaburg: error: --rank-timeout must be a positive number of seconds\n";
    return kUsageError;
  }
  if (f.gpusGiven && f.gpus.find_first_not_of(" ") == std::string::npos) {
    std::cerr << "cudaburg: error: --gpus: give all, or GPU indices separated by commas (0,1)\n";
    return kUsageError;
  }
  std::filesystem::path dir = f.outDir;
  if (std::string why = outputReplacingInput({(dir / "summary.md").string()}, {f.list}); !why.empty()) {
    std::cerr << "cudaburg: error: " << why << "\n";
    return kUsageError;
  }
  return kOk;
}

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// The lanes --gpus asks for, or one lane in this process without it; nullopt after saying why.
std::optional<std::vector<tune::Lane>> lanesFor(const TuneFlags& f) {
  if (!f.gpusGiven) return std::vector<tune::Lane>{tune::Lane{}};
  std::string error;
  auto gpus = tune::parseGpuList(f.gpus, tune::countHostGpus(), !f.replay.empty(), error);
  if (!gpus) {
    std::cerr << "cudaburg: error: " << error << "\n";
    return std::nullopt;
  }
  std::vector<tune::Lane> lanes;
  for (int g : *gpus) lanes.push_back({g});
  return lanes;
}

// What runs now, for the progress line: "l2-3x3-128 on GPU 0, l2-1x1-512-128 on GPU 1".
std::string runningNow(const tune::LaneProgress& at, const std::vector<tune::Lane>& lanes, const TunePlan& plan) {
  std::string now;
  for (const auto& [problem, lane] : at.running) {
    now += (now.empty() ? "" : ", ") + plan.runs[problem].problem->name;
    if (lanes[lane].gpu >= 0) now += " on GPU " + std::to_string(lanes[lane].gpu);
  }
  return now;
}

int runTune(const TuneFlags& f) {
  if (int status = checkTuneFlags(f); status != kOk) return status;
#ifdef CUDABURG_MPI
  if (tune::launchedRanks() > 0) return runTuneMpi(f);
#else
  if (tune::launchedRanks() > 1) {
    std::cerr << "cudaburg: error: this cudaburg was built without MPI, so it cannot tune as one of "
              << tune::launchedRanks()
              << " ranks; run it alone, or build it with Open MPI (scripts/setup installs it)\n";
    return kUsageError;
  }
#endif
  auto lanes = lanesFor(f);
  if (!lanes) return kUsageError;
  int status = kOk;
  std::optional<TunePlan> loaded = loadTune(f, status);
  if (!loaded) return status;
  const TunePlan& plan = *loaded;
  // Searches side by side share the database: it is made (or brought up to date) once, first.
  bool children = lanes->front().gpu >= 0;
  if (children && f.replay.empty() && !f.noDb) {
    std::string error, path = f.db.empty() ? TuningDb::defaultPath() : f.db;
    if (!TuningDb::open(path, error)) std::cerr << "cudaburg: warning: " << error << "\n";
  }
  auto onChange = [&](const tune::LaneProgress& at) {
    // Between two problems of one lane there is nothing new to say.
    if (at.running.empty() && at.done < at.total) return;
    showProgress(at.done, at.total, at.elapsedSeconds, runningNow(at, *lanes, plan));
  };
  if (plan.runs.empty()) showProgress(0, 0, 0, "");
  auto started = std::chrono::steady_clock::now();
  std::vector<tune::LaneResult> results = tune::runOnLanes(
      plan.runs.size(), *lanes,
      [&](size_t i, const tune::Lane& lane) {
        const TuneRun& run = plan.runs[i];
        return lane.gpu < 0 ? runProblemHere(f, run.flags)
                            : runProblemOnGpu(f, *run.problem, lane.gpu, run.flags.outDir);
      },
      onChange);
  std::vector<tune::Row> rows;
  for (size_t i = 0; i < plan.runs.size(); ++i) {
    const tune::LaneResult& r = results[i];
    int gpu = (*lanes)[r.lane].gpu;
    tune::Row row = rowOf(*plan.runs[i].problem, r.outcome, r.wallSeconds);
    row.gpu = gpu < 0 ? "-" : std::to_string(gpu) + (r.runs > 1 ? " (run twice)" : "");
    rows.push_back(row);
  }
  return finishTune(f, plan, rows, secondsSince(started));
}

}  // namespace

void showProgress(size_t done, size_t total, double elapsed, const std::string& now) {
  constexpr int kWidth = 20;
  int filled = total ? static_cast<int>(kWidth * done / total) : kWidth;
  std::string bar = std::string(filled, '#') + std::string(kWidth - filled, '-');
  std::string eta = done ? ", ETA " + minutes(elapsed / done * (total - done)) : "";
  std::fprintf(stderr, "tune: [%s] %zu/%zu problems, %s elapsed%s%s\n", bar.c_str(), done, total,
               minutes(elapsed).c_str(), eta.c_str(), now.empty() ? "" : ("; now " + now).c_str());
}

TunePlan planTune(common::SourceFile source, const TuneFlags& f) {
  TunePlan plan;
  plan.source = std::make_unique<common::SourceFile>(std::move(source));
  plan.diagnostics = std::make_unique<common::Diagnostics>(*plan.source);
  plan.problems = tune::parseProblemList(*plan.source, *plan.diagnostics);
  // Every line is read before any runs, so that a mistake is said at once, not after an hour.
  for (const tune::Problem& p : plan.problems) {
    SearchFlags flags = f.defaults;
    if (!readOptions(p, flags, *plan.diagnostics)) continue;
    flags.file = p.file;
    flags.space.defines = tune::sizeDefinitions(p.options);
    flags.outDir = (std::filesystem::path(f.outDir) / p.name).string();
    flags.db = f.db;
    flags.noDb = f.noDb;
    plan.runs.push_back({&p, std::move(flags)});
  }
  return plan;
}

std::optional<TunePlan> loadTune(const TuneFlags& f, int& status) {
  auto source = common::SourceFile::read(f.list);
  if (!source) {
    std::cerr << "cudaburg: error: " << source.reason() << "\n";
    status = kInputError;
    return std::nullopt;
  }
  TunePlan plan = planTune(std::move(*source), f);
  std::error_code ec;
  std::filesystem::create_directories(f.outDir, ec);
  if (ec) {
    std::cerr << "cudaburg: error: cannot create the output folder '" << f.outDir << "': " << ec.message() << "\n";
    status = kInputError;
    return std::nullopt;
  }
  plan.diagnostics->printAll(std::cerr);
  return plan;
}

bool storesMeasurements(const TuneFlags& f) { return !f.noDb && (f.replay.empty() || !f.db.empty()); }

tune::Row rowOf(const tune::Problem& p, const tune::LaneOutcome& outcome, double wallSeconds) {
  tune::Row row;
  row.name = p.name;
  row.line = p.loc.line;
  row.repeats = p.repeats;
  row.ok = outcome.ok;
  row.ms = outcome.ms;
  row.library = outcome.library;
  row.libraryMs = outcome.libraryMs;
  row.wallSeconds = wallSeconds;
  row.detail = outcome.detail;
  return row;
}

tune::Row tuneProblem(const TuneRun& run, const TuneFlags& f) {
  auto began = std::chrono::steady_clock::now();
  tune::LaneOutcome outcome = runProblemHere(f, run.flags);
  return rowOf(*run.problem, outcome, secondsSince(began));
}

int finishTune(const TuneFlags& f, const TunePlan& plan, const std::vector<tune::Row>& rows, double wallSeconds) {
  size_t failed = plan.diagnostics->errorCount();
  for (const tune::Row& r : rows) failed += r.ok ? 0 : 1;
  std::string table = tune::summaryMarkdown(plan.source->name(), rows, failed, wallSeconds);
  std::cout << table;
  std::string error;
  if (!writeFileAtomically((std::filesystem::path(f.outDir) / "summary.md").string(), table, error)) {
    std::cerr << "cudaburg: error: " << error << "\n";
    return kInputError;
  }
  if (failed) {
    std::cerr << "cudaburg: " << failed << " of " << rows.size() + plan.diagnostics->errorCount()
              << " problems failed (see the table)\n";
    return kInputError;
  }
  return kOk;
}

void addTuneCommand(CLI::App& app, int& status) {
  auto f = std::make_shared<TuneFlags>();
  CLI::App* cmd = app.add_subcommand("tune", "tune every problem of a list (one a line), with one database for all");
  cmd->add_option("list", f->list, "the problems, one a line: [NAME:] FILE.loop [-D NAME=VALUE]... [options]")
      ->option_text("LIST")
      ->required();
  cmd->add_option("-o,--output", f->outDir, "where the outputs go: DIR/summary.md and DIR/NAME/ for each problem")
      ->option_text("DIR");
  cmd->add_option("--db", f->db, "the tuning database (default: $CUDABURG_DB, else ~/.local/share/cudaburg/tuning.db)")
      ->option_text("FILE");
  cmd->add_flag("--no-db", f->noDb, "neither reuse nor store measurements");
  cmd->add_option("--replay", f->replay, "answer every measurement from these tuning databases (no GPU needed)")
      ->option_text("DB")
      ->allow_extra_args(false);
  cmd->add_option("--budget", f->defaults.budget, "a time (60s, 5m) or a number of variants, for each problem")
      ->option_text("TIME|COUNT");
  cmd->add_option("--strategy", f->defaults.space.strategy, "adaptive, model or exhaustive, for each problem")
      ->option_text("NAME");
  CLI::Option* gpus =
      cmd->add_option("--gpus", f->gpus,
                      "run the problems side by side, one a GPU, each in a process of its own (all, or indices: 0,1); "
                      "under --replay any indices are taken and nothing runs on a GPU")
          ->option_text("all|0,1,...");
  cmd->add_flag("-q,--quiet", f->defaults.quiet, "no progress within a problem");
  cmd->add_option("--rank-timeout", f->rankTimeout,
                  "under mpirun or srun: the seconds a rank may stay silent before its work goes to the others (60)")
      ->option_text("SECONDS");
  cmd->callback([f, gpus, &status] {
    f->gpusGiven = gpus->count() > 0;
    status = runTune(*f);
  });
}

}  // namespace cudaburg::cli
