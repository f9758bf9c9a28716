#include "src/search/fusion_savings.hpp"

#include <cstdio>

#include "src/fusion/nest_epilogue.hpp"
#include "src/search/cost_model.hpp"

namespace cudaburg {

namespace {

// "4.00 MiB", "24.0 KiB", "96 B".
std::string byteText(double bytes) {
  char text[32];
  if (bytes >= 1024.0 * 1024.0) std::snprintf(text, sizeof text, "%.2f MiB", bytes / (1024.0 * 1024.0));
  else if (bytes >= 1024.0) std::snprintf(text, sizeof text, "%.1f KiB", bytes / 1024.0);
  else std::snprintf(text, sizeof text, "%.0f B", bytes);
  return text;
}

}  // namespace

std::string fusionSavings(const Kernel& kernel) {
  std::optional<NestEpilogue> nest = splitNestEpilogue(kernel);
  if (!nest || nest->epilogue.statements.empty()) return "";
  const Array* output = nullptr;
  for (const Array& a : kernel.params)
    if (a.name == nest->target.array) output = &a;
  if (!output) return "";
  int64_t statements = static_cast<int64_t>(nest->epilogue.statements.size());
  EpilogueTraffic t = epilogueTraffic(output->elements(), scalarTypeBytes(output->type), statements);
  char share[16];
  std::snprintf(share, sizeof share, "%.0f%%", 100.0 * t.savedBytes() / t.unfusedBytes);
  return "fusion: applied at the write-back, the epilogue (" + std::to_string(statements) +
         (statements == 1 ? " statement" : " statements") + ") leaves " + output->name + " stored once, " +
         byteText(t.fusedBytes) + "; unfused, the product stored, then read back and stored again by a pass a "
         "statement, " + byteText(t.unfusedBytes) + ": " + byteText(t.savedBytes()) + " (" + share +
         ") of traffic saved";
}

}  // namespace cudaburg
