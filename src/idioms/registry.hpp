#pragma once
// The registered idioms: one unit for each kind of TileIdiom (idiom_unit.hpp), and the write-back
// idioms (write_back_unit.hpp).
#include <string>
#include <vector>

#include "src/idioms/idiom_unit.hpp"
#include "src/idioms/write_back_unit.hpp"

namespace cudaburg {

// SIMT first, then in the order of TileIdiom's kinds.
const std::vector<const IdiomUnit*>& idiomUnits();
const IdiomUnit& idiomUnit(const TileIdiom& t);
// The unit whose recipe step has this keyword, or nullptr.
const IdiomUnit* idiomUnitOfStep(const std::string& keyword);
// Every unit's decisions for `t`, in the registry's order: a candidate of one idiom and its
// neighbour of another differ in those.
std::vector<int64_t> idiomDecisions(const TileIdiom& t);

// The write-back idioms, in the order write_back.hpp tries them on a nest's epilogue.
const std::vector<const WriteBackUnit*>& writeBackUnits();

}  // namespace cudaburg
