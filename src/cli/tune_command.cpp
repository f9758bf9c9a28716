// `cudaburg tune LIST -o DIR [--db FILE | --no-db] [--replay DB]... [--budget B] [--gpus all|0,1,...]`:
// tunes every problem of a list (one a line, see src/tune/problem_list.hpp), with one tuning
// database and one compile cache for all. Without --gpus the problems run in turn in this process;
// with it, one lane a GPU runs them side by side, each problem a child process of this executable
// (`cudaburg FILE.loop ... --device G`, or `cudaburg replay` under --replay) whose output goes to
// DIR/NAME/log.txt and whose outcome is read back from DIR/NAME/report.json. Each problem's search
// writes its outputs to DIR/NAME/; the table of all of them (the winner's time, the library's, their
// ratio, the wall time of its tuning, the GPU, its status) is printed and written to DIR/summary.md.
// A line of the list that does not parse is reported with its place and the other problems still
// run; the exit status says whether any failed.
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
#include "src/cli/tune_problem.hpp"
#include "src/tune/gpu_list.hpp"
#include "src/tune/lane_scheduler.hpp"
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

// One line of progress over the whole list: a bar, where it is, the time left at the pace so far,
// and what runs now (on which GPU, where the problems run on several).
void showProgress(const tune::LaneProgress& at, const std::vector<tune::Lane>& lanes,
                  const std::vector<std::string>& names) {
  constexpr int kWidth = 20;
  int filled = at.total ? static_cast<int>(kWidth * at.done / at.total) : kWidth;
  std::string bar = std::string(filled, '#') + std::string(kWidth - filled, '-');
  std::string eta = at.done ? ", ETA " + minutes(at.elapsedSeconds / at.done * (at.total - at.done)) : "";
  std::string now;
  for (const auto& [problem, lane] : at.running) {
    now += now.empty() ? (lanes[lane].gpu < 0 ? "; now " : "; running ") : ", ";
    now += names[problem] + (lanes[lane].gpu < 0 ? "" : " on GPU " + std::to_string(lanes[lane].gpu));
  }
  std::fprintf(stderr, "tune: [%s] %zu/%zu problems, %s elapsed%s%s\n", bar.c_str(), at.done, at.total,
               minutes(at.elapsedSeconds).c_str(), eta.c_str(), now.c_str());
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

int runTune(const TuneFlags& f) {
  if (f.outDir.empty()) {
    std::cerr << "cudaburg: error: tune needs -o DIR, the folder its outputs go to\n";
    return kUsageError;
  }
  if (f.noDb && !f.db.empty()) {
    std::cerr << "cudaburg: error: --db and --no-db cannot both be given\n";
    return kUsageError;
  }
  if (f.gpusGiven && f.gpus.find_first_not_of(" ") == std::string::npos) {
    std::cerr << "cudaburg: error: --gpus: give all, or GPU indices separated by commas (0,1)\n";
    return kUsageError;
  }
  auto lanes = lanesFor(f);
  if (!lanes) return kUsageError;
  std::filesystem::path dir = f.outDir;
  if (std::string why = outputReplacingInput({(dir / "summary.md").string()}, {f.list}); !why.empty()) {
    std::cerr << "cudaburg: error: " << why << "\n";
    return kUsageError;
  }
  auto source = common::SourceFile::read(f.list);
  if (!source) {
    std::cerr << "cudaburg: error: " << source.error() << "\n";
    return kInputError;
  }
  common::Diagnostics diagnostics(*source);
  std::vector<tune::Problem> problems = tune::parseProblemList(*source, diagnostics);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    std::cerr << "cudaburg: error: cannot create the output folder '" << dir.string() << "': " << ec.message() << "\n";
    return kInputError;
  }

  // Every line is read before any runs, so that a mistake is said at once, not after an hour.
  std::vector<std::pair<const tune::Problem*, SearchFlags>> runs;
  for (const tune::Problem& p : problems) {
    SearchFlags flags = f.defaults;
    if (!readOptions(p, flags, diagnostics)) continue;
    flags.file = p.file;
    flags.space.defines = tune::sizeDefinitions(p.options);
    flags.outDir = (dir / p.name).string();
    flags.db = f.db;
    flags.noDb = f.noDb;
    runs.emplace_back(&p, std::move(flags));
  }
  diagnostics.printAll(std::cerr);

  // Searches side by side share the database: it is made (or brought up to date) once, first.
  bool children = lanes->front().gpu >= 0;
  if (children && f.replay.empty() && !f.noDb) {
    std::string error, path = f.db.empty() ? TuningDb::defaultPath() : f.db;
    if (!TuningDb::open(path, error)) std::cerr << "cudaburg: warning: " << error << "\n";
  }
  std::vector<std::string> names;
  for (const auto& run : runs) names.push_back(run.first->name);
  auto onChange = [&](const tune::LaneProgress& at) {
    // Between two problems of one lane there is nothing new to say.
    if (at.running.empty() && at.done < at.total) return;
    showProgress(at, *lanes, names);
  };
  if (runs.empty()) showProgress({0, 0, {}, 0}, *lanes, names);
  auto started = std::chrono::steady_clock::now();
  std::vector<tune::LaneResult> results = tune::runOnLanes(
      runs.size(), *lanes,
      [&](size_t i, const tune::Lane& lane) {
        const auto& [p, flags] = runs[i];
        return lane.gpu < 0 ? runProblemHere(f, flags) : runProblemOnGpu(f, *p, lane.gpu, flags.outDir);
      },
      onChange);
  std::vector<tune::Row> rows;
  for (size_t i = 0; i < runs.size(); ++i) {
    const tune::Problem& p = *runs[i].first;
    const tune::LaneResult& r = results[i];
    int gpu = (*lanes)[r.lane].gpu;
    std::string where = gpu < 0 ? "-" : std::to_string(gpu) + (r.runs > 1 ? " (run twice)" : "");
    rows.push_back({p.name, p.loc.line, p.repeats, r.outcome.ok, r.outcome.ms, r.outcome.library,
                    r.outcome.libraryMs, r.wallSeconds, where, r.outcome.detail});
  }

  size_t failed = diagnostics.errorCount();
  for (const tune::Row& r : rows) failed += r.ok ? 0 : 1;
  std::string table = tune::summaryMarkdown(source->name(), rows, failed,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  std::cout << table;
  std::string error;
  if (!writeFileAtomically((dir / "summary.md").string(), table, error)) {
    std::cerr << "cudaburg: error: " << error << "\n";
    return kInputError;
  }
  if (failed) {
    std::cerr << "cudaburg: " << failed << " of " << rows.size() + diagnostics.errorCount()
              << " problems failed (see the table)\n";
    return kInputError;
  }
  return kOk;
}

}  // namespace

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
  CLI::Option* gpus = cmd->add_option("--gpus", f->gpus,
                  "run the problems side by side, one a GPU, each in a process of its own (all, or indices: 0,1); "
                  "under --replay any indices are taken and nothing runs on a GPU")
      ->option_text("all|0,1,...");
  cmd->add_flag("-q,--quiet", f->defaults.quiet, "no progress within a problem");
  cmd->callback([f, gpus, &status] {
    f->gpusGiven = gpus->count() > 0;
    status = runTune(*f);
  });
}

}  // namespace cudaburg::cli
