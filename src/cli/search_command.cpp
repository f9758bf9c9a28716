// `cudaburg FILE.loop [options]`: the search. Labels the loop tree with the matcher generated
// from specs/loops.burg, measures candidates on the GPU (or ranks them by the model without
// one) and writes best.cu, report.md, report.json, search.svg and the labeled tree to -o DIR.
#include <algorithm>
#include <charconv>
#include <csignal>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <regex>

#include "burggen/output_file.hpp"
#include "src/analysis/nest_sequence.hpp"
#include "src/cli/commands.hpp"
#include "src/cli/input_guard.hpp"
#include "src/cli/loop_input.hpp"
#include "src/cli/search_run.hpp"
#include "src/cli/space_options.hpp"
#include "src/idioms/back_to_back/back_to_back_pair.hpp"
#include "src/report/nest_sequence_report.hpp"
#include "src/report/search_plot.hpp"
#include "src/report/search_report.hpp"
#include "src/search/best_program.hpp"
#include "src/search/loops_matcher.hpp"
#include "src/search/search.hpp"
#include "src/target/gpu_target.hpp"

namespace cudaburg::cli {

namespace {

// Why no kernel built for `arch` can read an array of `kernel` ("" where all can): tf32 elements
// are read rounded by cvt.rna.tf32.f32, which sm_80 and later run. Said before the search rather
// than by every candidate's compile.
std::string unreadableArray(const Kernel& kernel, const std::string& arch) {
  for (const Array& a : kernel.params)
    if (a.type == ScalarType::TF32 && !GpuTarget::forArchitecture(arch).hasMmaSync())
      return "`" + a.name + "` is tf32, whose reads round by an instruction of sm_80 and later";
  return "";
}

// "--budget 60s" (or 5m) limits wall time; "--budget 300" the number of variants measured.
// A budget past a week of measuring (or as many variants) is surely a typing mistake.
constexpr long long kMaxBudget = 7 * 24 * 3600;

bool parseBudget(const std::string& text, EvaluatorOptions& options, std::string& error) {
  std::smatch m;
  if (!std::regex_match(text, m, std::regex(R"((\d+)(s|m)?)"))) {
    error = "--budget: '" + text + "' is neither a time (60s, 5m) nor a number of variants (300)";
    return false;
  }
  std::string digits = m[1];
  long long n = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  long long limit = m[2] == "m" ? kMaxBudget / 60 : kMaxBudget;
  if (ec != std::errc() || n > limit) {
    error = "--budget: '" + text + "' is too large; at most " + std::to_string(limit) +
            (m[2] == "m"   ? "m"
             : m[2] == "s" ? "s"
                           : " variants");
    return false;
  }
  if (n <= 0) {
    error = "--budget: '" + text + "' is neither a time (60s, 5m) nor a number of variants (300)";
    return false;
  }
  if (m[2] == "s")
    options.budget = std::chrono::seconds(n);
  else if (m[2] == "m")
    options.budget = std::chrono::seconds(60 * n);
  else
    options.maxMeasured = static_cast<size_t>(n);
  return true;
}

// Creates `dir` and its missing parents; returns the folders it made, deepest first.
std::optional<std::vector<std::filesystem::path>> makeOutputFolder(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> made;
  std::error_code ec;
  for (std::filesystem::path p = dir; !p.empty() && !std::filesystem::exists(p, ec); p = p.parent_path()) {
    made.push_back(p);
    if (p == p.parent_path()) break;
  }
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    std::cerr << "cudaburg: error: cannot create the output folder '" << dir.string() << "': " << ec.message() << "\n";
    return std::nullopt;
  }
  return made;
}

// Writes every output or none: each goes to a temporary file in `dir` first, and they are
// renamed into place only once all of them are written. On failure the folders this run made
// are removed again (only when empty: nothing else is touched).
bool writeOutputs(const std::filesystem::path& dir, const std::vector<std::filesystem::path>& madeFolders,
                  const std::vector<std::pair<std::string, std::string>>& outputs) {
  std::vector<burggen::OutputFile> files;
  for (const auto& [name, text] : outputs) files.push_back({(dir / name).string(), text});
  std::string error;
  if (burggen::writeOutputFiles(files, error)) return true;
  std::cerr << "cudaburg: error: " << error << "; no output was written\n";
  std::error_code ec;
  for (const std::filesystem::path& folder : madeFolders)
    if (!std::filesystem::remove(folder, ec)) break;
  return false;
}

// The files a search writes into its output folder.
constexpr const char* kOutputNames[] = {"report.md",   "report.json", "search.svg",
                                        "labeled.dot", "cover.txt",   "best.cu"};

// Whether `path` is a best.cu an earlier search wrote (its first line says so), which this one
// may remove; a file of that name the user wrote is left alone.
bool writtenBySearch(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string first;
  std::getline(in, first);
  return first.rfind(kBestProgramFirstLine, 0) == 0;
}

// The cover the labeler chose once measured times were in: the winning kernel's rules, with the
// parameters of each.
std::string coverText(const SearchResult& r) {
  return "# the winning kernel's cover: its rules and their parameters, as the labeler chose them\n" + r.cover;
}

void retimeWinner(Runner& runner, const Kernel& kernel, const Evaluator& evaluator, const Recipe& best,
                  const MeasureOptions& options, SearchOutcome& outcome) {
  std::string line = printRecipeLine(best);
  const CudaKernel* cuda = evaluator.kernelFor(line);
  const CompileResult* binary = evaluator.binaryFor(line);
  auto index = outcome.best();
  if (!cuda || !binary || !index) return;
  MeasureOptions full;  // the full timing policy, the same contract
  full.precision = options.precision;
  RunResult r = runner.measure(kernel, *cuda, *binary, full);
  Measurement& m = outcome.variants[*index].result;
  if (!r.ok()) {  // verified once during the search, not now: say so rather than keep the old time
    m.status = r.status;
    m.reason = "on re-timing: " + r.reason;
    return;
  }
  m.ms = r.ms;
  m.tflops = r.tflops;
  m.gbps = r.gbps;
  m.error = std::max(m.error, r.error);
  m.libraryError = std::max(m.libraryError, r.libraryError);
}

// The bound the winner was verified with, for best.cu to check the same: twice the error the
// library showed beside it, where one was measured.
CheckBound checkBound(const Kernel& kernel, const SearchOutcome& outcome) {
  auto index = outcome.best();
  if (!index || !outcome.variants[*index].measured) return {0, "", false};
  const Measurement& m = outcome.variants[*index].result;
  if (m.libraryError < 0) return {};
  ScalarType output = ScalarType::Float;
  for (const Array& a : kernel.params)
    if (!a.input) output = a.type;
  char error[32];
  std::snprintf(error, sizeof error, "%.2e", m.libraryError);
  std::string library = outcome.reference.library.empty() ? "the reference library" : outcome.reference.library;
  return {contractBound(m.libraryError, output),
          "twice " + library + "'s error on the search's inputs (" + error + "), --precision " + outcome.precision};
}

// What CUDA_VISIBLE_DEVICES names GPU `index` by: the index-th of the GPUs it already makes
// visible (as the driver counts them, and `tune --gpus` with it), or the index itself.
std::string visibleDevice(int index) {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  std::string list = visible ? visible : "";
  size_t start = 0;
  for (int i = 0; !list.empty() && start <= list.size(); ++i) {
    size_t comma = std::min(list.find(',', start), list.size());
    if (i == index) return list.substr(start, comma - start);
    start = comma + 1;
  }
  return std::to_string(index);
}

// One kernel's search: the evaluator that holds its compiled candidates, and what it found, the
// winner and the reference library timed again side by side.
struct KernelSearch {
  Kernel kernel;
  std::unique_ptr<Evaluator> evaluator;
  SearchResult result;
};

void searchKernel(KernelSearch& s, const SearchSpace& space, Strategy& strategy, const EvaluatorOptions& options,
                  Runner& runner, TuningDb* db, Progress& progress, bool verbose) {
  s.evaluator = std::make_unique<Evaluator>(s.kernel, options, &runner, db, progress);
  progress.start(0);
  // The reference library is timed while the labeler chooses among the measured kernels.
  std::future<ReferenceTiming> reference;
  MeasureOptions referenceOptions;  // the full timing policy, in the library's math the contract names
  referenceOptions.precision = space.precision;
  auto timeReference = [&] {
    if (runner.available())
      reference = std::async(std::launch::async, [&] { return runner.reference(s.kernel, referenceOptions); });
  };
  s.result = searchWith<generated::LoopsMatcher>(s.kernel, space, *s.evaluator, strategy, timeReference);
  progress.finish();
  if (tensorCoreTiles(space.tile).empty())
    s.result.outcome.notes.push_back(
        "tensor cores: not considered: --tile allows none of the block tile edges their "
        "rules take (64, 128, 256)");
  if (!runner.available()) return;
  // The winner and the reference library, timed again side by side with the full policy
  // (the search times each variant more briefly).
  ReferenceTiming ref = reference.valid() ? reference.get() : runner.reference(s.kernel, referenceOptions);
  s.result.outcome.reference = {ref.library, ref.ms, ref.tflops, ref.ok()};
  if (!ref.ok() && verbose) progress.note("reference library not timed: " + ref.reason);
  if (s.result.best) retimeWinner(runner, s.kernel, *s.evaluator, *s.result.best, options.measure, s.result.outcome);
}

// The outputs of a body of several nests searched one by one: report.md and report.json over all
// of them, a search plot a nest, the labeled trees and covers one after another, and best.cu
// launching every winner in order (when each nest has one), or, where two products back to back
// were also searched as one kernel (`fused`) and it was the faster, that kernel.
std::vector<std::pair<std::string, std::string>> nestSequenceOutputs(const Kernel& whole,
                                                                     const std::deque<KernelSearch>& nests,
                                                                     const FusedReport* fused,
                                                                     const KernelSearch* fusedSearch) {
  std::vector<NestReport> reports;
  std::string dot, covers;
  std::vector<std::pair<std::string, std::string>> plots;
  for (const KernelSearch& n : nests) {
    NestReport r;
    r.name = n.kernel.name;
    for (const Array& a : n.kernel.params)
      if (!a.input) r.written.push_back(a.name);
    r.outcome = &n.result.outcome;
    r.found = n.result.best.has_value();
    r.recipe = n.result.best ? printRecipeLine(*n.result.best) : "";
    reports.push_back(r);
    dot += n.result.labeledDot;
    covers += "# " + n.kernel.name + "\n" + (n.result.best ? n.result.cover : "(none: " + n.result.reason + ")\n");
    plots.push_back({"search-" + n.kernel.name + ".svg", searchPlotSvg(n.result.outcome)});
  }
  if (fusedSearch) {  // the two products as one kernel, after the nests
    const SearchResult& r = fusedSearch->result;
    dot += r.labeledDot;
    covers += "# " + whole.name + ", as one kernel\n" + (r.best ? r.cover : "(none: " + r.reason + ")\n");
    plots.push_back({"search-" + whole.name + "_b2b.svg", searchPlotSvg(r.outcome)});
  }
  std::vector<std::pair<std::string, std::string>> outputs = {
      {"report.md", nestSequenceReportMarkdown(whole.name, reports, fused)},
      {"report.json", nestSequenceReportJson(whole.name, reports, fused)},
      {"labeled.dot", dot},
      {"cover.txt",
       "# the winning kernels' covers, a nest after another: their rules and parameters, as the labeler "
       "chose them\n" +
           covers},
  };
  outputs.insert(outputs.end(), plots.begin(), plots.end());
  if (fused && fusedSearch && chooseFusion(reports, *fused).fused) {
    const SearchResult& r = fusedSearch->result;
    const CudaKernel* best = fusedSearch->evaluator->kernelFor(printRecipeLine(*r.best));
    EmitResult reference = emitReference(whole);
    if (best && reference.ok())
      outputs.push_back({"best.cu", bestProgram(whole, *best, *reference.kernel, checkBound(whole, r.outcome))});
    return outputs;
  }
  std::vector<EmitResult> references;
  std::vector<ProgramNest> program;
  CheckBound bound{0, "", true};
  double sum = 0;
  bool everyBound = true;  // every nest verified within twice its library's error
  for (const KernelSearch& n : nests) {
    if (!n.result.best) return outputs;
    const CudaKernel* best = n.evaluator->kernelFor(printRecipeLine(*n.result.best));
    references.push_back(emitReference(n.kernel));
    if (!best || !references.back().ok()) return outputs;
    CheckBound own = checkBound(n.kernel, n.result.outcome);
    bound.verified = bound.verified && own.verified;
    sum += own.value;
    everyBound = everyBound && own.value > 0;
    program.push_back({&n.kernel, best, nullptr});
  }
  for (size_t i = 0; i < program.size(); ++i) program[i].reference = &*references[i].kernel;
  if (everyBound) {  // else each nest's own FP64 check's bound, summed (best_program.hpp)
    char text[32];
    std::snprintf(text, sizeof text, "%.2e", sum);
    bound.value = sum;
    bound.source = std::string("the sum of the nests' bounds, each twice its library's error (") + text + ")";
  }
  outputs.push_back({"best.cu", bestProgram(whole, program, bound)});
  return outputs;
}

}  // namespace

int runSearch(const SearchFlags& f, ProblemOutcome* problem) {
  auto started = std::chrono::steady_clock::now();  // the budget holds the whole command
  ProblemOutcome unused;
  ProblemOutcome& said = problem ? *problem : unused;
  said = {};
  said.reason = "refused: its options or its .loop file (above)";
  std::string error;
  SearchSpace space;
  auto strategy = makeStrategy(f.exhaustive ? "exhaustive" : f.space.strategy, error);
  if (!strategy || !parseSpace(f.space, space, error)) {
    std::cerr << "cudaburg: error: " << error << "\n";
    return kUsageError;
  }
  EvaluatorOptions options;
  options.started = started;
  options.compile.arch = f.arch;
  // A seed is a whole number of 64 bits; "-1" is not one (once taken as 2^64 - 1).
  auto [seedEnd, seedError] = std::from_chars(f.seed.data(), f.seed.data() + f.seed.size(), options.measure.seed);
  if (f.seed.empty() || seedError != std::errc() || seedEnd != f.seed.data() + f.seed.size()) {
    std::cerr << "cudaburg: error: --seed: '" << f.seed << "' is not a whole number from 0 to 18446744073709551615\n";
    return kUsageError;
  }
  if (f.device < 0) {
    std::cerr << "cudaburg: error: --device: " << f.device << " is no GPU's index (0 is the first)\n";
    return kUsageError;
  }
  options.measure.precision = space.precision;
  // Brief timings while searching (the median of 5 runs of a kernel of 10 ms or more varies by
  // less than a percent); the winner is timed again with the full policy.
  options.measure.runs.minRuns = 5;
  options.measure.runs.minTotalMs = 20;
  options.measure.runs.maxTotalMs = 300;
  if (!f.arch.empty() && !std::regex_match(f.arch, std::regex(R"(sm_\d{2,3}a?)"))) {
    std::cerr << "cudaburg: error: --arch: '" << f.arch << "' is not an architecture such as sm_90\n";
    return kUsageError;
  }
  if (std::string why = f.arch.empty() ? "" : whyNvrtcCannotBuild(f.arch); !why.empty()) {
    std::cerr << "cudaburg: error: --arch " << f.arch << ": " << why << "\n";
    return kUsageError;
  }
  if (!f.budget.empty() && !parseBudget(f.budget, options, error)) {
    std::cerr << "cudaburg: error: " << error << "\n";
    return kUsageError;
  }
  auto sizes = parseSizeDefinitions(f.space.defines, error);
  if (!sizes) {
    std::cerr << "cudaburg: error: " << error << "\n";
    return kUsageError;
  }
  std::optional<Kernel> kernel = loadLoopFile(f.file, *sizes);
  if (!kernel) return kInputError;
  // No output may replace an input (the .loop file, the tuning database): refused before the search.
  std::filesystem::path dir = f.outDir.empty() ? "cudaburg-" + kernel->name : f.outDir;
  std::vector<std::string> outputPaths;
  for (const char* name : kOutputNames) outputPaths.push_back((dir / name).string());
  // A body of several nests in a row is searched a nest at a time (src/analysis/nest_sequence.hpp).
  std::string single;
  std::vector<Kernel> split = splitNests(*kernel, single);
  for (const Kernel& nest : split) outputPaths.push_back((dir / ("search-" + nest.name + ".svg")).string());
  // Two products back to back are searched as one kernel too (src/idioms/back_to_back/).
  FusedReport fusedReport;
  bool pair = !split.empty() && recognizeBackToBack(*kernel, fusedReport.whyNot).has_value();
  if (pair) outputPaths.push_back((dir / ("search-" + kernel->name + "_b2b.svg")).string());
  std::string dbPath = f.noDb ? "" : f.db.empty() ? TuningDb::defaultPath() : f.db;
  if (std::string why = outputReplacingInput(outputPaths, {f.file, dbPath}); !why.empty()) {
    std::cerr << "cudaburg: error: " << why << "\n";
    return kUsageError;
  }
  if (std::string why = outputFolderProblem(dir.string()); !why.empty()) {
    std::cerr << "cudaburg: error: " << why << "\n";
    return kUsageError;
  }

  Progress progress(stderr, f.quiet);
  std::optional<TuningDb> db;
  if (!f.noDb) {
    std::string path = f.db.empty() ? TuningDb::defaultPath() : f.db;
    db = TuningDb::open(path, error);
    if (!db)
      progress.warn(error + "; measurements will not be kept");
    else if (f.verbose)
      progress.note("tuning database: " + path);
    if (db) db->setGpuIndex(f.device);  // beside the GPU's name: which of the host's it was
  }
  if (f.device > 0) setenv("CUDA_VISIBLE_DEVICES", visibleDevice(f.device).c_str(), 1);
  Runner runner;
  if (f.arch.empty()) options.compile.arch = runner.available() ? runner.arch() : "sm_90";
  if (runner.available() && !binaryRunsOn(options.compile.arch, runner.arch())) {
    std::cerr << "cudaburg: error: --arch " << options.compile.arch << ": the GPU (" << runner.arch()
              << ") cannot run code built for it; leave --arch out, or search on such a GPU\n";
    return kUsageError;
  }
  if (std::string why = unreadableArray(*kernel, options.compile.arch); !why.empty()) {
    std::cerr << "cudaburg: error: --arch " << options.compile.arch << ": " << why << "\n";
    return kUsageError;
  }
  // TF32 needs tensor cores that take it (sm_80 and later), whatever the binary is built for.
  if (runner.available() && space.precision == Precision::Tf32 &&
      !GpuTarget::forArchitecture(runner.arch()).hasMmaSync()) {
    std::cerr << "cudaburg: error: --precision tf32: the GPU (" << runner.arch()
              << ") has no TF32 tensor cores (sm_80 and later); use --precision strict\n";
    return kUsageError;
  }
  if (!runner.available())
    progress.note("not measured: " + runner.device() + "; candidates are compiled and ranked by the model");
  else
    progress.note("measuring on " + runner.device());

  // Each nest of several is given its share of the time budget; best.cu launches the winners in order.
  std::deque<KernelSearch> searches;
  if (split.empty()) searches.push_back({*kernel, nullptr, {}});
  for (Kernel& nest : split) searches.push_back({std::move(nest), nullptr, {}});
  if (pair) searches.push_back({*kernel, nullptr, {}});  // the pair as one kernel, last
  for (size_t i = 0; i < searches.size(); ++i) {
    EvaluatorOptions share = options;
    share.budget = options.budget * static_cast<long>(i + 1) / static_cast<long>(searches.size());
    if (i > 0) strategy = makeStrategy(f.exhaustive ? "exhaustive" : f.space.strategy, error);
    if (searches.size() > 1)
      progress.note(pair && i + 1 == searches.size()
                        ? "the two products back to back as one kernel: " + searches[i].kernel.name
                        : "nest " + std::to_string(i + 1) + " of " + std::to_string(split.size()) + ": " +
                              searches[i].kernel.name);
    searchKernel(searches[i], space, *strategy, share, runner, db ? &*db : nullptr, progress, f.verbose);
  }
  if (db && db->malformedRows() > 0) progress.warn(db->malformedRowsWarning());
  std::optional<KernelSearch> fused;
  if (pair) {
    fused = std::move(searches.back());
    searches.pop_back();
    fusedReport.outcome = &fused->result.outcome;
    fusedReport.found = fused->result.best.has_value();
    fusedReport.recipe = fused->result.best ? printRecipeLine(*fused->result.best) : "";
  }

  std::vector<std::pair<std::string, std::string>> outputs;
  if (searches.size() > 1) {
    outputs = nestSequenceOutputs(*kernel, searches, split.empty() ? nullptr : &fusedReport, fused ? &*fused : nullptr);
  } else {
    const SearchResult& result = searches.front().result;
    outputs = {
        {"report.md", searchReportMarkdown(result.outcome)},
        {"report.json", searchReportJson(result.outcome)},
        {"search.svg", searchPlotSvg(result.outcome)},
        {"labeled.dot", result.labeledDot},
        {"cover.txt", coverText(result)},
    };
    if (result.best) {
      const CudaKernel* best = searches.front().evaluator->kernelFor(printRecipeLine(*result.best));
      EmitResult reference = emitReference(*kernel);
      if (best && reference.ok())
        outputs.push_back(
            {"best.cu", bestProgram(*kernel, *best, *reference.kernel, checkBound(*kernel, result.outcome))});
    }
  }
  auto madeFolders = makeOutputFolder(dir);
  said.reason = "its outputs could not be written (above)";
  if (!madeFolders || !writeOutputs(dir, *madeFolders, outputs)) return kInputError;
  // The outputs describe this run: a best.cu an earlier run left goes when this one has none.
  bool wroteBest = std::any_of(outputs.begin(), outputs.end(), [](const auto& o) { return o.first == "best.cu"; });
  if (!wroteBest) {
    std::error_code ec;
    std::filesystem::path stale = dir / "best.cu";
    if (std::filesystem::is_regular_file(std::filesystem::symlink_status(stale, ec)) && writtenBySearch(stale))
      std::filesystem::remove(stale, ec);
  }

  // What came of it: each nest's winner, and for several nests their times summed.
  said.ms = 0;
  said.libraryMs = 0;
  std::vector<std::string> winners, libraries;
  auto join = [](const std::vector<std::string>& parts) {
    std::string s;
    for (const std::string& p : parts) s += (s.empty() ? "" : " | ") + p;
    return s;
  };
  for (const KernelSearch& n : searches) {
    const SearchResult& result = n.result;
    libraries.push_back(result.outcome.reference.library);
    said.library = join(libraries);
    if (!result.outcome.reference.measured)
      said.libraryMs = -1;
    else if (said.libraryMs >= 0)
      said.libraryMs += result.outcome.reference.ms;
    if (!result.best) {
      std::string which = searches.size() > 1 ? " for " + n.kernel.name : "";
      said.reason = "no kernel" + which + ": " + result.reason;
      said.ms = -1;
      if (searches.size() > 1) said.libraryMs = -1;  // not every nest's library timed
      std::cerr << "cudaburg: no kernel" << which << ": " << result.reason << " (see " << (dir / "report.md").string()
                << ")\n";
      return kInputError;
    }
    std::string line = printRecipeLine(*result.best);
    winners.push_back(line);
    std::cout << "best recipe for " << n.kernel.name << ": " << (line.empty() ? "(the nest as written)" : line) << "\n";
    auto bestIndex = result.outcome.best();
    if (bestIndex && result.outcome.variants[*bestIndex].measured) {
      const Measurement& m = result.outcome.variants[*bestIndex].result;
      if (said.ms >= 0) said.ms += m.ms;
      std::printf("  %.4f ms, %.2f TFLOPS, relative error %.1e", m.ms, m.tflops, m.error);
      if (result.outcome.reference.measured)
        std::printf("; %s %.4f ms: ratio %.3f", result.outcome.reference.library.c_str(), result.outcome.reference.ms,
                    result.outcome.reference.ms / m.ms);
      std::printf("\n");
    } else {
      said.ms = -1;
      std::cout << "  not measured: " << result.outcome.notMeasuredReason
                << "; the model's choice among the kernels that compiled, unverified\n";
    }
  }
  if (searches.size() > 1 && said.ms > 0) {
    std::printf("  %zu nests launched in order: %.4f ms, their times summed", searches.size(), said.ms);
    if (said.libraryMs > 0)
      std::printf("; their libraries %.4f ms: ratio %.3f", said.libraryMs, said.libraryMs / said.ms);
    std::printf("\n");
  }
  if (!split.empty()) {  // the pair as one kernel, where it is one: chosen or not, and why
    std::vector<NestReport> nests;
    for (const KernelSearch& n : searches)
      nests.push_back({n.kernel.name, {}, &n.result.outcome, n.result.best.has_value(), ""});
    FusionChoice choice = chooseFusion(nests, fusedReport);
    std::cout << "two products back to back: " << choice.why << "\n";
    if (choice.fused) {
      std::cout << "best recipe for " << kernel->name << ": " << fusedReport.recipe << "\n";
      auto index = fused->result.outcome.best();
      said.ms = index && fused->result.outcome.variants[*index].measured
                    ? fused->result.outcome.variants[*index].result.ms
                    : -1;
      winners = {fusedReport.recipe};
    }
  }
  std::cout << "  outputs in " << dir.string() << "/ (best.cu, report.md, report.json, "
            << (searches.size() > 1 ? "search-*.svg" : "search.svg") << ", labeled.dot)\n";
  said.ok = true;
  said.winner = join(winners);
  said.reason.clear();
  return kOk;
}

void addSearchOptions(CLI::App& app, int& status) {
  auto f = std::make_shared<SearchFlags>();
  app.add_option("file", f->file, "the .loop file to find a kernel for")->option_text("FILE.loop");
  addSpaceOptions(app, f->space);
  app.add_option("--budget", f->budget, "a time (60s, 5m) or a number of variants to measure at most")
      ->option_text("TIME|COUNT");
  app.add_flag("--exhaustive", f->exhaustive, "measure every candidate (--strategy exhaustive)");
  app.add_option("--arch", f->arch, "the GPU architecture to compile for (default: the GPU's, else sm_90)")
      ->option_text("sm_NN");
  app.add_option("--device", f->device, "the GPU to measure on (an index)")->option_text("INDEX");
  app.add_option("--db", f->db, "the tuning database (default: $CUDABURG_DB, else ~/.local/share/cudaburg/tuning.db)")
      ->option_text("FILE");
  app.add_flag("--no-db", f->noDb, "neither reuse nor store measurements");
  app.add_option("--seed", f->seed, "the seed of the random inputs (0: fresh each time)")->option_text("N");
  app.add_option("-o,--output", f->outDir, "where the outputs go (default: cudaburg-<kernel>)")->option_text("DIR");
  app.add_flag("-v,--verbose", f->verbose, "say more");
  app.add_flag("-q,--quiet", f->quiet, "no progress");
  app.callback([f, &app, &status] {
    if (app.get_subcommands().empty()) {
      if (f->file.empty()) throw CLI::RequiredError("file");
      status = runSearch(*f);
    }
  });
}

}  // namespace cudaburg::cli
