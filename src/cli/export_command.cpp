// `cudaburg export FILE.loop [-D NAME=VALUE]... [--problem "FILE.loop -D ..."]... [--problems LIST]
// [--db DB]... -o DIR [--library NAME] [--precision MODE] [--gpu NAME] [--torch]`: the fastest
// verified kernel of each problem in the tuning databases, written as a library a C or C++ program
// links (and, with --torch, PyTorch operators). Nothing is compiled or run: no GPU is needed.
#include <filesystem>
#include <iostream>

#include "burggen/output_file.hpp"
#include "src/cli/commands.hpp"
#include "src/cli/loop_input.hpp"
#include "src/export/export_manifest.hpp"
#include "src/export/library_files.hpp"

namespace cudaburg::cli {

namespace {

namespace fs = std::filesystem;

struct ExportFlags {
  std::string file;
  std::vector<std::string> defines;
  std::vector<std::string> problems;
  std::string problemList;
  std::vector<std::string> databases;
  std::string outDir;
  std::string library;
  std::string precision = "strict";
  std::string gpu;
  bool torch = false;
};

bool samePath(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec);
  return fs::weakly_canonical(a, ec) == fs::weakly_canonical(b, ec);
}

// Why `dir` cannot take the export ("" when it can): an input, something other than a folder, or
// a folder holding other things than an earlier export.
std::string outputFolderProblem(const fs::path& dir, const std::vector<std::string>& inputs) {
  for (const std::string& input : inputs)
    if (samePath(dir, input)) return "the output folder '" + dir.string() + "' is the input '" + input + "'";
  std::error_code ec;
  if (!fs::exists(dir, ec)) return "";
  if (!fs::is_directory(dir, ec)) return "the output '" + dir.string() + "' exists and is not a folder";
  if (fs::is_empty(dir, ec) || fs::is_regular_file(dir / kExportManifest, ec)) return "";
  return "the output folder '" + dir.string() + "' is not empty and holds no earlier export (" + kExportManifest +
         "); give a new or empty folder";
}

int runExport(const ExportFlags& f) {
  std::string error;
  auto usage = [](const std::string& sentence) {
    std::cerr << "cudaburg: error: " << sentence << "\n";
    return kUsageError;
  };
  std::vector<ExportProblem> problems;
  if (!f.file.empty())
    problems.push_back({f.file, f.defines});
  else if (!f.defines.empty())
    return usage("-D sizes belong to a FILE.loop given before them");
  for (const std::string& text : f.problems) {
    auto p = parseProblem(text, error);
    if (!p) return usage("--problem: " + error);
    problems.push_back(*p);
  }
  if (!f.problemList.empty()) {
    auto list = readProblemList(f.problemList, error);
    if (!list) return usage("--problems: " + error);
    problems.insert(problems.end(), list->begin(), list->end());
  }
  if (problems.empty()) return usage("export needs a problem: FILE.loop, --problem or --problems");
  RowFilter filter;
  auto precision = parsePrecision(f.precision);
  if (!precision) return usage("--precision: '" + f.precision + "' is none of " + precisionNames());
  filter.precision = *precision;
  filter.gpu = f.gpu;

  std::vector<std::string> paths =
      f.databases.empty() ? std::vector<std::string>{TuningDb::defaultPath()} : f.databases;
  std::vector<std::string> inputs = paths;
  if (!f.problemList.empty()) inputs.push_back(f.problemList);
  for (const ExportProblem& p : problems) inputs.push_back(p.file);
  if (std::string why = outputFolderProblem(f.outDir, inputs); !why.empty()) return usage(why);

  std::vector<TuningDb> opened;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) return usage("the tuning database '" + path + "' does not exist");
    auto db = TuningDb::open(path, error);
    if (!db) return usage(error);
    opened.push_back(std::move(*db));
  }
  std::vector<std::pair<std::string, const TuningDb*>> databases;
  for (size_t i = 0; i < paths.size(); ++i) databases.emplace_back(paths[i], &opened[i]);

  std::vector<TunedKernel> tuned;
  for (const ExportProblem& p : problems) {
    auto sizes = parseSizeDefinitions(p.defines, error);
    if (!sizes) return usage(error);
    std::optional<Kernel> nest = loadLoopFile(p.file, *sizes);
    if (!nest) return kInputError;
    if (std::string why = oneNestRequired(*nest, p.file, "export"); !why.empty()) {
      std::cerr << "cudaburg: error: " << why << "\n";
      return kInputError;
    }
    auto t = findTunedKernel(p, *nest, databases, filter, error);
    if (!t) {
      std::cerr << "cudaburg: error: " << error << "\n";
      return kInputError;
    }
    tuned.push_back(std::move(*t));
  }
  auto plan = planExport(std::move(tuned), f.library, error);
  if (!plan) {
    std::cerr << "cudaburg: error: " << error << "\n";
    return kInputError;
  }

  std::vector<burggen::OutputFile> files;
  std::error_code ec;
  for (const auto& [name, text] : libraryFiles(*plan, f.torch)) {
    fs::path path = fs::path(f.outDir) / name;
    fs::create_directories(path.parent_path(), ec);
    if (ec) return usage("cannot create the folder '" + path.parent_path().string() + "': " + ec.message());
    files.push_back({path.string(), text});
  }
  if (!burggen::writeOutputFiles(files, error)) {
    std::cerr << "cudaburg: error: " << error << "; no output was written\n";
    return kInputError;
  }
  std::cout << "library " << plan->library << " in " << f.outDir << "/ (" << plan->arch << "):\n";
  for (const ExportedFunction& fn : plan->functions)
    for (const TunedKernel& k : fn.kernels)
      std::printf("  %s at %s: %.4f ms on %s\n", fn.name.c_str(), k.key.sizes.c_str(), k.measurement.ms,
                  k.key.gpu.c_str());
  return kOk;
}

}  // namespace

void addExportCommand(CLI::App& app, int& status) {
  auto f = std::make_shared<ExportFlags>();
  CLI::App* cmd = app.add_subcommand(
      "export", "write the tuning database's fastest verified kernels as a library (and PyTorch operators)");
  cmd->add_option("file", f->file, "the .loop file of the kernel to export")->option_text("FILE.loop");
  cmd->add_option("-D,--define", f->defines, "a size of FILE.loop: -D NAME=VALUE (repeatable)")
      ->option_text("NAME=VALUE")
      ->allow_extra_args(false);
  cmd->add_option("--problem", f->problems, "another problem, \"FILE.loop -D NAME=VALUE ...\" (repeatable)")
      ->option_text("TEXT")
      ->allow_extra_args(false);
  cmd->add_option("--problems", f->problemList, "a file of problems, one a line as --problem takes them")
      ->option_text("FILE");
  cmd->add_option("--db", f->databases,
                  "a tuning database to take kernels from (repeatable; default: $CUDABURG_DB, else "
                  "~/.local/share/cudaburg/tuning.db)")
      ->option_text("FILE")
      ->allow_extra_args(false);
  cmd->add_option("-o,--output", f->outDir, "the folder the library goes to")->option_text("DIR")->required();
  cmd->add_option("--library", f->library, "the library's name (default: the one function's, else cudaburg_kernels)")
      ->option_text("NAME");
  cmd->add_option("--precision", f->precision,
                  "take kernels verified under this contract: strict (default; also those verified before there "
                  "was one) or tf32 (any)")
      ->option_text("MODE");
  cmd->add_option("--gpu", f->gpu, "take kernels measured on this GPU only, as the database names it")
      ->option_text("NAME");
  cmd->add_flag("--torch", f->torch, "also write torch/: the functions as PyTorch operators cudaburg::<name>");
  cmd->callback([f, &status] { status = runExport(*f); });
}

}  // namespace cudaburg::cli
