#include "src/search/outcome.hpp"

namespace cudaburg {

std::optional<size_t> SearchOutcome::best() const {
  std::optional<size_t> best;
  for (size_t i = 0; i < variants.size(); ++i) {
    const auto& v = variants[i];
    if (v.measured) {
      if (v.result.status != RunStatus::Ok) continue;
      if (!best || !variants[*best].measured || v.result.ms < variants[*best].result.ms) best = i;
    } else if (!best || (!variants[*best].measured && v.modelCost < variants[*best].modelCost)) {
      if (v.result.status == RunStatus::Refused) continue;
      best = i;
    }
  }
  return best;
}

}  // namespace cudaburg
