// `cudaburg replay FILE.loop --db DB [--strategy S] [ranges] [-D NAME=VALUE]...`: re-runs a stored
// search without a GPU. The labeler and the strategy run as in a real search; every measurement is
// answered from the tuning database (as measured on the GPU with the most rows for the nest), and
// a candidate the database lacks (of a rule added since it was recorded) is left out. Prints the winner, how many
// measurements the strategy made and after how many it came within 5% of the best the database holds, and how well the
// model ranked what was measured. With -o DIR, the replay's search report goes to DIR/report.json (what `cudaburg tune
// --gpus` reads back from each problem it replays).
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>

#include "src/cli/commands.hpp"
#include "src/cli/loop_input.hpp"
#include "src/cli/search_run.hpp"
#include "src/cli/space_options.hpp"
#include "src/report/search_report.hpp"
#include "src/search/loops_matcher.hpp"
#include "src/search/search.hpp"

namespace cudaburg::cli {

namespace {

// Within this fraction of the best stored time counts as found.
constexpr double kWithin = 1.05;

// A time to 4 decimals, or in 5 significant digits where that would be long.
std::string milliseconds(double ms) {
  char text[64];
  std::snprintf(text, sizeof text, ms < 1e6 ? "%.4f" : "%.5g", ms);
  return text;
}

// Stores each measurement the replay answered in the database at `path`, under the key the
// search would have stored it under: a replayed run leaves the rows a measured one would.
// The key is the one the answers were found under: the nest on the GPU the database holds most of.
bool recordAnswers(const std::string& path, const TuningDb& answering, Evaluator& evaluator, const SearchOutcome& o) {
  std::string error;
  auto device = answering.mostMeasuredDevice(evaluator.nestKey(), o.sizes);
  std::vector<std::pair<MeasurementKey, Measurement>> rows;
  for (const auto& v : o.variants) {
    if (!device || !v.measured || !v.fromDatabase) continue;
    MeasurementKey key = *device;
    key.recipe = v.recipe;
    rows.emplace_back(key, v.result);
  }
  auto db = TuningDb::open(path, error);
  if (!db || !db->merge(rows, error)) {
    std::cerr << "cudaburg: error: " << error << "\n";
    return false;
  }
  return true;
}

}  // namespace

int runReplay(const ReplayFlags& f, ProblemOutcome* problem) {
  ProblemOutcome unused;
  ProblemOutcome& said = problem ? *problem : unused;
  said = {};
  said.reason = "refused: its options, its .loop file or the database (above)";
  std::string error;
  SearchSpace space;
  auto strategy = makeStrategy(f.space.strategy, error);
  auto sizes =
      strategy && parseSpace(f.space, space, error) ? parseSizeDefinitions(f.space.defines, error) : std::nullopt;
  if (!sizes) {
    std::cerr << "cudaburg: error: " << error << "\n";
    return kUsageError;
  }
  std::optional<Kernel> kernel = loadLoopFile(f.file, *sizes);
  if (!kernel) return kInputError;
  if (std::string why = oneNestRequired(*kernel, f.file, "replay"); !why.empty()) {
    std::cerr << "cudaburg: error: " << why << "\n";
    said.reason = "a body of several nests";
    return kInputError;
  }
  Progress progress(stderr, true);
  EvaluatorOptions options;
  options.replay = true;
  options.measure.precision = space.precision;
  // The first database that holds the nest at these sizes answers.
  std::optional<TuningDb> db;
  std::optional<Evaluator> found;
  std::string dbPath;
  for (const std::string& path : f.dbs) {
    found.reset();
    db = TuningDb::open(path, error, DbAccess::ReadOnly);
    if (!db) {
      std::cerr << "cudaburg: error: " << error << "\n";
      return kInputError;
    }
    found.emplace(*kernel, options, nullptr, &*db, progress);
    dbPath = path;
    if (found->outcome().gpuAvailable) break;
  }
  if (!found || !found->outcome().gpuAvailable) {
    std::string names = f.dbs.size() == 1 ? f.dbs[0] : "none of the databases";
    std::cerr << "cudaburg: error: " << names << " holds no measurement of " << kernel->name << " at "
              << (found ? found->outcome().sizes : std::string("its sizes")) << "\n";
    said.reason = "not in the database";
    return kInputError;
  }
  Evaluator& evaluator = *found;
  SearchResult result = searchWith<generated::LoopsMatcher>(*kernel, space, evaluator, *strategy);
  const SearchOutcome& o = result.outcome;
  // A read that failed part-way (a damaged file) leaves the replay without the rows it needs.
  if (!db->readError().empty()) {
    std::cerr << "cudaburg: error: cannot read the tuning database '" << dbPath << "': " << db->readError() << "\n";
    return kInputError;
  }
  // The rows ignored are said, as the search says them.
  if (db->malformedRows() > 0) std::cerr << "cudaburg: warning: " << db->malformedRowsWarning() << "\n";
  if (!f.recordDb.empty() && !recordAnswers(f.recordDb, *db, evaluator, o)) return kInputError;

  // The best the database holds for this nest on that GPU, and when the replay came near it.
  double stored = -1;
  size_t rows = 0;
  auto device = db->mostMeasuredDevice(evaluator.nestKey(), o.sizes);
  for (const auto& [key, m] : db->forNest(evaluator.nestKey(), device->gpu, device->toolkit))
    if (key.sizes == o.sizes && m.status == RunStatus::Ok) {
      ++rows;
      if (stored < 0 || m.ms < stored) stored = m.ms;
    }
  if (!db->readError().empty() || stored <= 0) {
    std::cerr << "cudaburg: error: the tuning database '" << dbPath << "' holds no verified time of " << kernel->name
              << " at " << o.sizes << (db->readError().empty() ? "" : " that can be read: " + db->readError()) << "\n";
    return kInputError;
  }
  if (!f.outDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(f.outDir, ec);
    std::string path = (std::filesystem::path(f.outDir) / "report.json").string();
    if (ec || !writeFileAtomically(path, searchReportJson(o), error)) {
      std::cerr << "cudaburg: error: "
                << (ec ? "cannot create the output folder '" + f.outDir + "': " + ec.message() : error) << "\n";
      said.reason = "its report could not be written (above)";
      return kInputError;
    }
  }
  size_t measured = 0, needed = 0;
  double best = -1;
  for (const auto& v : o.variants) {
    if (!v.measured) continue;
    ++measured;
    if (v.result.status == RunStatus::Ok && (best < 0 || v.result.ms < best)) best = v.result.ms;
    if (!needed && best > 0 && best <= stored * kWithin) needed = measured;
  }

  std::printf("replay of %s (%s) from %s: %s, strategy %s\n", kernel->name.c_str(), o.sizes.c_str(), dbPath.c_str(),
              o.device.c_str(), o.strategy.c_str());
  std::printf("  candidates: %zu; in the database: %zu measured\n", o.candidates, rows);
  std::printf("  measurements: %zu (%.0f%% of the database's)\n", measured, rows ? 100.0 * measured / rows : 0.0);
  if (!result.best) {
    std::printf("  no winner: %s\n", result.reason.c_str());
    said.reason = "no kernel: " + result.reason;
    return kInputError;
  }
  auto index = o.best();
  double winner = index && o.variants[*index].measured ? o.variants[*index].result.ms : -1;
  if (winner <= 0) {
    std::printf("  winner: %s, not measured\n", printRecipeLine(*result.best).c_str());
    said.reason = "the winner was not measured";
    return kInputError;
  }
  std::printf("  winner: %s\n  winner %s ms; best stored %s ms; winner / best %.3f\n",
              printRecipeLine(*result.best).c_str(), milliseconds(winner).c_str(), milliseconds(stored).c_str(),
              winner / stored);
  if (needed)
    std::printf("  within 5%% of the best after %zu measurements\n", needed);
  else
    std::printf("  never within 5%% of the best\n");
  std::printf("  model: rho %.3f as ranked, %.3f calibrated (%zu measurements, cross-validated)\n", o.priorRho,
              o.calibratedRho, o.modelSamples);
  said.ok = true;
  said.winner = printRecipeLine(*result.best);
  said.ms = winner;
  said.reason.clear();
  return kOk;
}

void addReplayCommand(CLI::App& app, int& status) {
  auto f = std::make_shared<ReplayFlags>();
  CLI::App* cmd =
      app.add_subcommand("replay", "re-run a stored search without a GPU, answering from a tuning database");
  cmd->add_option("file", f->file, "the .loop file the database measured")->option_text("FILE.loop")->required();
  cmd->add_option("--db", f->dbs, "the tuning database to answer from")
      ->option_text("FILE")
      ->allow_extra_args(false)
      ->required();
  addSpaceOptions(*cmd, f->space);
  cmd->add_option("-o,--output", f->outDir, "write the replay's report.json into this folder")->option_text("DIR");
  cmd->add_option("--record", f->recordDb,
                  "store the measurements the replay answered in this database, as a search would")
      ->option_text("FILE");
  cmd->callback([f, &status] { status = runReplay(*f); });
}

}  // namespace cudaburg::cli
