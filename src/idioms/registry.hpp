#pragma once
// The registered idioms (idiom_unit.hpp): one unit for each kind of TileIdiom.
#include <string>
#include <vector>

#include "src/idioms/idiom_unit.hpp"

namespace cudaburg {

// SIMT first, then in the order of TileIdiom's kinds.
const std::vector<const IdiomUnit*>& idiomUnits();
const IdiomUnit& idiomUnit(const TileIdiom& t);
// The unit whose recipe step has this keyword, or nullptr.
const IdiomUnit* idiomUnitOfStep(const std::string& keyword);
// Every unit's decisions for `t`, in the registry's order: a candidate of one idiom and its
// neighbour of another differ in those.
std::vector<int64_t> idiomDecisions(const TileIdiom& t);

}  // namespace cudaburg
