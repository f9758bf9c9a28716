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

// Two nests that are two products back to back (src/idioms/back_to_back/) are also searched as
// one kernel, the b2b step's: that search beside the nests' own.
struct FusedReport {
  std::string whyNot;                      // why the body is no pair the b2b step fuses ("" when it is)
  const SearchOutcome* outcome = nullptr;  // its search, where there was one
  bool found = false;                      // whether that search chose a kernel
  std::string recipe;
};

// Whether the fused kernel is the one to launch rather than the nests' winners in order, and the
// sentence saying why: the faster measured, or, where either is not measured, the lower of the
// model's estimates (the fused kernel's against the nests' winners' summed).
struct FusionChoice {
  bool fused = false;
  std::string why;
};
FusionChoice chooseFusion(const std::vector<NestReport>& nests, const FusedReport& fused);

// `fused` null: the body was not searched as one kernel.
std::string nestSequenceReportMarkdown(const std::string& kernelName, const std::vector<NestReport>& nests,
                                       const FusedReport* fused = nullptr);
std::string nestSequenceReportJson(const std::string& kernelName, const std::vector<NestReport>& nests,
                                   const FusedReport* fused = nullptr);

// The nests' winners' times summed: the whole body's, its launches back to back; nullopt unless
// every nest's winner was measured. `library` sums the references' times instead.
std::optional<double> summedMs(const std::vector<NestReport>& nests, bool library = false);

}  // namespace cudaburg
