#include "src/idioms/registry.hpp"

#include "src/idioms/back_to_back/back_to_back_idiom.hpp"
#include "src/idioms/epilogue/epilogue_idiom.hpp"
#include "src/idioms/mma/mma_idiom.hpp"
#include "src/idioms/simt/simt_idiom.hpp"
#include "src/idioms/wgmma/wgmma_idiom.hpp"
#include "src/idioms/winograd/winograd_idiom.hpp"
#include "src/search/cost_model.hpp"

namespace cudaburg {

std::optional<Estimate> IdiomUnit::estimate(const CandidateShape&, const GpuModel&) const { return std::nullopt; }

const std::vector<const IdiomUnit*>& idiomUnits() {
  static const SimtIdiom simt;
  static const MmaIdiom mma;
  static const WgmmaIdiom wgmma;
  static const WinogradIdiom winograd;
  static const BackToBackIdiom backToBack;
  static const std::vector<const IdiomUnit*> units{&simt, &mma, &wgmma, &winograd, &backToBack};
  return units;
}

const std::vector<const WriteBackUnit*>& writeBackUnits() {
  static const EpilogueIdiom epilogue;
  static const std::vector<const WriteBackUnit*> units{&epilogue};
  return units;
}

const IdiomUnit& idiomUnit(const TileIdiom& t) {
  for (const IdiomUnit* u : idiomUnits())
    if (u->holds(t)) return *u;
  return *idiomUnits().front();  // unreachable: every kind is registered
}

const IdiomUnit* idiomUnitOfStep(const std::string& keyword) {
  for (const IdiomUnit* u : idiomUnits())
    if (keyword == u->keyword()) return u;
  return nullptr;
}

std::vector<int64_t> idiomDecisions(const TileIdiom& t) {
  std::vector<int64_t> all;
  for (const IdiomUnit* u : idiomUnits()) {
    std::vector<int64_t> mine = u->decisions(t);
    all.insert(all.end(), mine.begin(), mine.end());
  }
  return all;
}

}  // namespace cudaburg
