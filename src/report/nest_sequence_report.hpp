#pragma once
// report.md and report.json of a kernel whose body is several nests in a row, each searched as a
// kernel of its own (src/analysis/nest_sequence.hpp): a table of the nests' winners, launched in
// order, their times summed beside their references' summed, then each nest's own report.
#include <optional>
#include <string>
#include <vector>

#include "src/search/outcome.hpp"

namespace cudaburg {

struct NestReport {
  std::string name;                  // the nest's kernel: "mlp2_nest1"
  std::vector<std::string> written;  // the arrays it writes
  const SearchOutcome* outcome = nullptr;
  bool found = false;  // whether the search chose a kernel for it
  std::string recipe;  // the winner's recipe line ("": the nest as written)
};

std::string nestSequenceReportMarkdown(const std::string& kernelName, const std::vector<NestReport>& nests);
std::string nestSequenceReportJson(const std::string& kernelName, const std::vector<NestReport>& nests);

// The nests' winners' times summed: the whole body's, its launches back to back; nullopt unless
// every nest's winner was measured. `library` sums the references' times instead.
std::optional<double> summedMs(const std::vector<NestReport>& nests, bool library = false);

}  // namespace cudaburg
