// `cudaburg tune LIST -o DIR [--db FILE | --no-db] [--replay DB]... [--budget B]`: tunes every
// problem of a list (one a line, see src/tune/problem_list.hpp) in turn, with one tuning database
// and one compile cache for all. Each problem's search writes its outputs to DIR/NAME/; the table of
// all of them (the winner's time, the library's, their ratio, the wall time of its tuning, its
// status) is printed and written to DIR/summary.md. A line of the list that does not parse is
// reported with its place and the other problems still run; the exit status says whether any failed.
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
#include "src/tune/launcher.hpp"
#include "src/tune/problem_list.hpp"
#include "src/tune/summary_table.hpp"

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
                                   (suggestion.empty() ? " (a line takes a search's options: -D, --tile, --budget, ...)" : suggestion));
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
  if (s >= 60) std::snprintf(text, sizeof text, "%ldm%02lds", s / 60, s % 60);
  else std::snprintf(text, sizeof text, "%lds", s);
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

int runTune(const TuneFlags& f) {
  if (int status = checkTuneFlags(f); status != kOk) return status;
#ifdef CUDABURG_MPI
  if (tune::launchedRanks() > 0) return runTuneMpi(f);
#else
  if (tune::launchedRanks() > 1) {
    std::cerr << "cudaburg: error: this cudaburg was built without MPI, so it cannot tune as one of "
              << tune::launchedRanks() << " ranks; run it alone, or build it with Open MPI (scripts/setup installs it)\n";
    return kUsageError;
  }
#endif
  int status = kOk;
  std::optional<TunePlan> loaded = loadTune(f, status);
  if (!loaded) return status;
  const TunePlan& plan = *loaded;
  std::vector<tune::Row> rows;
  auto started = std::chrono::steady_clock::now();
  for (size_t i = 0; i < plan.runs.size(); ++i) {
    showProgress(i, plan.runs.size(), secondsSince(started), plan.runs[i].problem->name);
    rows.push_back(tuneProblem(plan.runs[i], f));
  }
  showProgress(plan.runs.size(), plan.runs.size(), secondsSince(started), "");
  return finishTune(f, plan, rows);
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
    std::cerr << "cudaburg: error: " << source.error() << "\n";
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

tune::Row tuneProblem(const TuneRun& run, const TuneFlags& f) {
  auto began = std::chrono::steady_clock::now();
  ProblemOutcome outcome;
  if (f.replay.empty()) runSearch(run.flags, &outcome);
  else runReplay({run.flags.file, f.replay, run.flags.space, storesMeasurements(f) ? run.flags.db : ""}, &outcome);
  const tune::Problem& p = *run.problem;
  return {p.name, p.loc.line, p.repeats, outcome.ok, outcome.ms, outcome.library, outcome.libraryMs,
          secondsSince(began), outcome.ok ? outcome.winner : outcome.why};
}

int finishTune(const TuneFlags& f, const TunePlan& plan, const std::vector<tune::Row>& rows) {
  size_t failed = plan.diagnostics->errorCount();
  for (const tune::Row& r : rows) failed += r.ok ? 0 : 1;
  std::string table = tune::summaryMarkdown(plan.source->name(), rows, failed);
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
      ->option_text("LIST")->required();
  cmd->add_option("-o,--output", f->outDir, "where the outputs go: DIR/summary.md and DIR/NAME/ for each problem")
      ->option_text("DIR");
  cmd->add_option("--db", f->db, "the tuning database (default: $CUDABURG_DB, else ~/.local/share/cudaburg/tuning.db)")
      ->option_text("FILE");
  cmd->add_flag("--no-db", f->noDb, "neither reuse nor store measurements");
  cmd->add_option("--replay", f->replay, "answer every measurement from these tuning databases (no GPU needed)")
      ->option_text("DB")->allow_extra_args(false);
  cmd->add_option("--budget", f->defaults.budget, "a time (60s, 5m) or a number of variants, for each problem")
      ->option_text("TIME|COUNT");
  cmd->add_option("--strategy", f->defaults.space.strategy, "adaptive, model or exhaustive, for each problem")
      ->option_text("NAME");
  cmd->add_flag("-q,--quiet", f->defaults.quiet, "no progress within a problem");
  cmd->add_option("--rank-timeout", f->rankTimeout,
                  "under mpirun or srun: the seconds a rank may stay silent before its work goes to the others (60)")
      ->option_text("SECONDS");
  cmd->callback([f, &status] { status = runTune(*f); });
}

}  // namespace cudaburg::cli
