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

// The winner's measured time, or nullopt.
std::optional<double> winnerMs(const NestReport& n) {
  if (!n.found) return std::nullopt;
  auto best = n.outcome->best();
  if (!best || !n.outcome->variants[*best].measured) return std::nullopt;
  return n.outcome->variants[*best].result.ms;
}

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

std::string nestSequenceReportMarkdown(const std::string& kernelName, const std::vector<NestReport>& nests) {
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
  return md.str();
}

std::string nestSequenceReportJson(const std::string& kernelName, const std::vector<NestReport>& nests) {
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
  return j.dump(2) + "\n";
}

}  // namespace cudaburg
