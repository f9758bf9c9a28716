#include "src/report/search_report.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <regex>
#include <sstream>

#include "src/cuda/run/precision.hpp"

namespace cudaburg {

namespace {

// A recipe step multiplying on tensor cores with a k of 8: tf32 (wgmma 64,N,8; mma 16,8,8).
const std::regex kTf32Step(R"(\bw?mma [^;\n]* (16,8,8|64,[0-9]+,8)\b)");

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// Six significant digits: estimates that differ in the fifth place still print apart.
std::string significant(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string sci(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1e", v);
  return buf;
}

// Verified variants, fastest first; when nothing was measured, the model's ranking.
std::vector<const VariantResult*> ranked(const SearchOutcome& o) {
  std::vector<const VariantResult*> out;
  for (const auto& v : o.variants)
    if ((v.measured && v.result.status == RunStatus::Ok) || (!v.measured && v.result.status != RunStatus::Refused))
      out.push_back(&v);
  std::stable_sort(out.begin(), out.end(), [](const VariantResult* a, const VariantResult* b) {
    if (a->measured != b->measured) return a->measured;
    return a->measured ? a->result.ms < b->result.ms : a->modelCost < b->modelCost;
  });
  return out;
}

std::string oneLine(const std::string& recipe) {
  std::string s;
  for (char c : recipe) s += c == '\n' ? std::string("; ") : std::string(1, c);
  while (s.size() >= 2 && s.compare(s.size() - 2, 2, "; ") == 0) s.resize(s.size() - 2);
  return s;
}

}  // namespace

std::string searchReportMarkdown(const SearchOutcome& o, size_t top) {
  std::ostringstream md;
  md << "# cudaburg search: " << o.kernelName << " (" << o.sizes << ")\n\n";
  md << "- loop file: `" << o.loopFile << "`\n- device: " << o.device << "\n- toolkit: " << o.toolkit << "\n";
  size_t measured = 0, failed = 0, reused = 0;
  for (const auto& v : o.variants) {
    if (v.measured) ++measured;
    if (v.fromDatabase) ++reused;
    if (v.result.status != RunStatus::Ok && v.result.status != RunStatus::NotMeasured) ++failed;
  }
  md << "- variants: " << o.variants.size() << " considered, " << o.compiled << " compiled, " << measured
     << " measured (" << reused << " reused from the tuning database), " << failed << " failed or refused\n";
  // The middle phase compiles every candidate and times those it measures; without a GPU it only compiles.
  md << "- wall time: " << fixed(o.wallSeconds, 1) << " s (labeling " << fixed(o.phases.labeling, 1) << " s, "
     << (measured > 0 ? "compiling and measuring " : "compiling ") << fixed(o.phases.measuring, 1) << " s, "
     << (measured > 0 ? "labeling with measured times " : "labeling again ") << fixed(o.phases.finalLabeling, 1)
     << " s)\n";
  if (!o.strategy.empty())
    md << "- strategy: " << o.strategy << ", over " << o.candidates << " distinct candidates the labeler offered\n";
  if (o.modelSamples > 0)
    md << "- model: Spearman's rho against the " << o.modelSamples << " measured times " << fixed(o.priorRho, 3)
       << " as ranked, " << fixed(o.calibratedRho, 3) << " refitted to this search's measurements"
       << (o.refitOnCompiledCode ? " and to the compiled kernels' registers and instructions" : "")
       << " (each predicted by a fit that did not see it); the refit's estimates in the column `refit`\n";
  for (const std::string& note : o.notes) md << "- " << note << "\n";
  if (!o.gpuAvailable || measured == 0)
    md << "\n**Not measured**: " << (o.notMeasuredReason.empty() ? "no variant was timed" : o.notMeasuredReason)
       << ". Variants are ranked by the model's estimate; no time below is a measurement.\n";
  if (!o.notTiledReason.empty())
    md << "\n**No tiled kernel**: " << o.notTiledReason
       << ". The nest as written is the fallback kernel, compiled, verified and timed like any other.\n";
  if (o.reference.measured)
    md << "- reference: " << o.reference.library << " " << fixed(o.reference.ms, 4) << " ms, "
       << fixed(o.reference.tflops, 2) << " TFLOPS\n";
  if (!o.precision.empty())
    md << "- precision: `" << o.precision << "`: each kernel's error against the exact FP64 nest (column `rel. error`) "
       << "is at most twice the reference library's own on the same inputs (column `library's error`), or within "
       << "the FP64 check's bound where no library computes the nest\n";
  // A winner on tensor cores computes float products as three tf32 products: say so, and how to opt out.
  if (auto b = o.best(); b && o.variants[*b].recipe.find(" tf32x3") != std::string::npos)
    md << "- arithmetic: the winner computes float products on tensor cores as three tf32 products (`tf32x3`); "
          "`--no-tf32x3` keeps float products on the CUDA cores\n";
  else if (b && o.precision == precisionName(Precision::Tf32) && std::regex_search(o.variants[*b].recipe, kTf32Step))
    md << "- arithmetic: the winner multiplies on tensor cores in tf32 (10 bits of mantissa), one product each, "
          "as cuBLAS and cuDNN do under `--precision tf32`\n";

  auto best = ranked(o);
  md << "\n## Top variants\n\n";
  md << "| # | time (ms) | TFLOPS | vs " << (o.reference.library.empty() ? "reference" : o.reference.library)
     << " | regs | smem (B) | rel. error | library's error | model | refit | recipe |\n"
     << "|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (size_t i = 0; i < best.size() && i < top; ++i) {
    const auto& v = *best[i];
    bool timed = v.measured;
    md << "| " << i + 1 << " | " << (timed ? fixed(v.result.ms, 4) : "not measured") << " | "
       << (timed ? fixed(v.result.tflops, 2) : "-") << " | "
       << (timed && o.reference.measured ? fixed(o.reference.ms / v.result.ms, 3) : "-") << " | " << v.result.registers
       << " | " << v.result.sharedBytes << " | " << (timed ? sci(v.result.error) : "-") << " | "
       << (timed && v.result.libraryError >= 0 ? sci(v.result.libraryError) : "-") << " | " << fixed(v.modelCost, 5)
       << " | " << (v.refittedMs > 0 ? significant(v.refittedMs) : "-") << " | `" << oneLine(v.recipe) << "` |\n";
  }
  md << "\n## Every candidate considered, in the order measured\n\n"
     << "| # | rules and their parameters | model (ms) | time (ms) | status |\n|---|---|---|---|---|\n";
  for (size_t i = 0; i < o.variants.size(); ++i) {
    const auto& v = o.variants[i];
    md << "| " << i + 1 << " | " << v.cover << " | " << fixed(v.modelCost, 5) << " | "
       << (v.measured && v.result.status == RunStatus::Ok ? fixed(v.result.ms, 4) : "-") << " | "
       << runStatusName(v.result.status) << (v.fromDatabase ? " (database)" : "") << " |\n";
  }
  bool anyFailed = false;
  for (const auto& v : o.variants) {
    if (v.result.status == RunStatus::Ok || v.result.status == RunStatus::NotMeasured) continue;
    if (!anyFailed) md << "\n## Failed and refused variants\n\n| status | reason | recipe |\n|---|---|---|\n";
    anyFailed = true;
    md << "| " << runStatusName(v.result.status) << " | " << v.result.reason << " | `" << oneLine(v.recipe) << "` |\n";
  }
  return md.str();
}

std::string searchReportJson(const SearchOutcome& o) {
  using nlohmann::json;
  json j;
  j["loop_file"] = o.loopFile;
  j["kernel"] = o.kernelName;
  j["sizes"] = o.sizes;
  j["device"] = o.device;
  j["toolkit"] = o.toolkit;
  j["precision"] = o.precision;
  j["gpu_available"] = o.gpuAvailable;
  j["measured"] = o.gpuAvailable && o.notMeasuredReason.empty();
  if (!o.notMeasuredReason.empty()) j["not_measured_reason"] = o.notMeasuredReason;
  if (!o.notTiledReason.empty()) j["not_tiled_reason"] = o.notTiledReason;
  j["wall_seconds"] = o.wallSeconds;
  j["phase_seconds"] = {
      {"labeling", o.phases.labeling}, {"measuring", o.phases.measuring}, {"final_labeling", o.phases.finalLabeling}};
  j["notes"] = o.notes;
  j["compiled"] = o.compiled;
  j["strategy"] = o.strategy;
  j["candidates"] = o.candidates;
  j["model"] = {{"measurements", o.modelSamples},
                {"rho_as_ranked", o.priorRho},
                {"rho_calibrated", o.calibratedRho},
                {"refit_on_compiled_code", o.refitOnCompiledCode}};
  j["reference"] = {{"library", o.reference.library},
                    {"measured", o.reference.measured},
                    {"ms", o.reference.measured ? json(o.reference.ms) : json(nullptr)},
                    {"tflops", o.reference.measured ? json(o.reference.tflops) : json(nullptr)}};
  auto best = o.best();
  j["best"] = best ? json(*best) : json(nullptr);
  json variants = json::array();
  for (const auto& v : o.variants) {
    json e = {{"recipe", v.recipe},
              {"cover", v.cover},
              {"model_cost", v.modelCost},
              {"model_refitted", v.refittedMs},
              {"measured", v.measured},
              {"from_database", v.fromDatabase},
              {"status", runStatusName(v.result.status)},
              {"registers", v.result.registers},
              {"shared_bytes", v.result.sharedBytes}};
    if (!v.result.reason.empty()) e["reason"] = v.result.reason;
    if (v.measured && v.result.status == RunStatus::Ok) {
      e["ms"] = v.result.ms;
      e["tflops"] = v.result.tflops;
      e["gbps"] = v.result.gbps;
      e["relative_error"] = v.result.error;
      e["library_error"] = v.result.libraryError >= 0 ? json(v.result.libraryError) : json(nullptr);
      if (o.reference.measured) e["ratio_to_reference"] = o.reference.ms / v.result.ms;
    }
    variants.push_back(e);
  }
  j["variants"] = variants;
  return j.dump(2) + "\n";
}

}  // namespace cudaburg
