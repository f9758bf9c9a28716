#include "src/report/nest_sequence_report.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <sstream>

#include "src/report/search_report.hpp"

namespace cudaburg {

namespace {

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// The winner's measured time (or, with `model`, the model's estimate of it), or nullopt.
std::optional<double> winnerMs(const SearchOutcome& outcome, bool found, bool model = false) {
  if (!found) return std::nullopt;
  auto best = outcome.best();
  if (!best) return std::nullopt;
  const VariantResult& v = outcome.variants[*best];
  if (model) return v.modelCost;
  if (!v.measured) return std::nullopt;
  return v.result.ms;
}
std::optional<double> winnerMs(const NestReport& n) { return winnerMs(*n.outcome, n.found); }

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// A nest's own report under the whole body's: every heading one level deeper.
std::string nested(const std::string& md) {
  std::istringstream in(md);
  std::ostringstream out;
  for (std::string line; std::getline(in, line);) out << (line.rfind('#', 0) == 0 ? "#" : "") << line << "\n";
  return out.str();
}

}  // namespace

std::optional<double> summedMs(const std::vector<NestReport>& nests, bool library) {
  double sum = 0;
  for (const NestReport& n : nests) {
    std::optional<double> ms =
        library ? (n.outcome->reference.measured ? std::optional(n.outcome->reference.ms) : std::nullopt) : winnerMs(n);
    if (!ms) return std::nullopt;
    sum += *ms;
  }
  return sum;
}

FusionChoice chooseFusion(const std::vector<NestReport>& nests, const FusedReport& fused) {
  if (!fused.whyNot.empty()) return {false, "not fused: " + fused.whyNot};
  if (!fused.outcome || !fused.found) return {false, "not fused: no back-to-back kernel compiled and verified"};
  std::optional<double> one = winnerMs(*fused.outcome, true), apart = summedMs(nests);
  std::string what = "measured";
  if (!one || !apart) {  // the model's estimates, each nest's winner's summed
    double sum = 0;
    for (const NestReport& n : nests) {
      std::optional<double> model = winnerMs(*n.outcome, n.found, true);
      if (!model) return {true, "fused: the nests have no winners of their own to launch in order"};
      sum += *model;
    }
    one = winnerMs(*fused.outcome, true, true), apart = sum;
    what = "by the model's estimates";
  }
  double ratio = *one > 0 ? *apart / *one : 0;
  if (*one < *apart)
    return {true, "fused: one kernel is " + fixed(ratio, 3) + "x as fast as the nests' winners in order, " + what};
  return {false, "not fused: the nests' winners in order are " + fixed(*one / *apart, 3) +
                     "x as fast as the back-to-back kernel, " + what};
}

std::string nestSequenceReportMarkdown(const std::string& kernelName, const std::vector<NestReport>& nests,
                                       const FusedReport* fused) {
  std::ostringstream md;
  const SearchOutcome& first = *nests.front().outcome;
  md << "# cudaburg search: " << kernelName << " (" << first.sizes << ")\n\n"
     << "- loop file: `" << first.loopFile << "`\n- device: " << first.device << "\n"
     << "- the kernel's body is " << nests.size() << " nests in a row: each is searched as a kernel of its own, and "
     << "best.cu launches the winners in order, each reading what the ones before it wrote, and checks every array "
     << "they write against the FP64 nests run in the same order\n";
  auto ms = summedMs(nests), library = summedMs(nests, true);
  if (ms) md << "- time: " << fixed(*ms, 4) << " ms, the nests' winners' times summed\n";
  if (library)
    md << "- reference: " << fixed(*library, 4) << " ms, the nests' library calls' times summed"
       << (ms ? ": ratio " + fixed(*library / *ms, 3) : "") << "\n";
  if (fused) {
    FusionChoice choice = chooseFusion(nests, *fused);
    md << "- two products back to back: " << choice.why
       << (choice.fused ? "; best.cu launches it (`" + fused->recipe + "`)" : "") << "\n";
  }
  md << "\n## The nests, launched in order\n\n"
     << "| # | nest | writes | kernel | time (ms) | reference | reference (ms) |\n|---|---|---|---|---|---|---|\n";
  for (size_t i = 0; i < nests.size(); ++i) {
    const NestReport& n = nests[i];
    const ReferenceResult& ref = n.outcome->reference;
    std::optional<double> t = winnerMs(n);
    std::string kernel = !n.found           ? "none: no kernel compiled and verified"
                         : n.recipe.empty() ? "the nest as written"
                                            : "`" + n.recipe + "`";
    md << "| " << i + 1 << " | " << n.name << " | " << joined(n.written) << " | " << kernel << " | "
       << (t ? fixed(*t, 4) : "not measured") << " | " << (ref.library.empty() ? "-" : ref.library) << " | "
       << (ref.measured ? fixed(ref.ms, 4) : "-") << " |\n";
  }
  for (size_t i = 0; i < nests.size(); ++i)  // each nest's own report, its title a section
    md << "\n" << nested(searchReportMarkdown(*nests[i].outcome));
  if (fused && fused->outcome)  // the fused kernel's search, its title a section too
    md << "\n" << nested(searchReportMarkdown(*fused->outcome));
  return md.str();
}

std::string nestSequenceReportJson(const std::string& kernelName, const std::vector<NestReport>& nests,
                                   const FusedReport* fused) {
  using nlohmann::json;
  json j;
  j["kernel"] = kernelName;
  auto ms = summedMs(nests), library = summedMs(nests, true);
  j["ms"] = ms ? json(*ms) : json(nullptr);
  j["reference_ms"] = library ? json(*library) : json(nullptr);
  json list = json::array();
  for (const NestReport& n : nests) {
    json e = json::parse(searchReportJson(*n.outcome));
    e["writes"] = n.written;
    e["found"] = n.found;
    e["winner"] = n.recipe;
    list.push_back(e);
  }
  j["nests"] = list;
  if (fused) {
    FusionChoice choice = chooseFusion(nests, *fused);
    json b2b;
    b2b["fused"] = choice.fused;
    b2b["why"] = choice.why;
    b2b["winner"] = fused->recipe;
    b2b["search"] = fused->outcome ? json::parse(searchReportJson(*fused->outcome)) : json(nullptr);
    j["back_to_back"] = b2b;
  }
  return j.dump(2) + "\n";
}

}  // namespace cudaburg
