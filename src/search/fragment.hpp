#pragma once
// A fragment: what the rules of specs/loops.burg decided for one subtree of a loop nest, carried
// as the label value of each derivation. Recipe steps (with the phase they apply in) and the
// shape the cost model reads; a complete fragment at the root is a candidate kernel.
#include <string>
#include <utility>
#include <vector>

#include "src/search/cost_model.hpp"
#include "src/transform/recipe.hpp"

namespace cudaburg {

// The order in which a candidate's steps apply, whatever rule contributed them: a split
// reduction first (it adds a loop), then tiling, the grid and the block mappings, the register
// tile, the staging of the reduction, and last the finishing touches (unrolling, pipelining,
// wide accesses). Grid mappings go outermost first: the mapped-tree model is checked after every
// step.
enum class Phase { Split, Tile, OuterGrid, Grid, Block, Registers, Strip, Stage, Finish };

// A loop name with this suffix in a step means "the strip loop last made from that loop": the
// recipe's text needs the name the transformation will give it (see transforms.hpp), resolved
// when the recipe is made.
constexpr char kStripMark = '#';

struct Fragment {
  std::vector<std::pair<Phase, RecipeStep>> steps;
  CandidateShape shape;            // the decisions, as the model reads them
  std::string tileRows, tileCols;  // the loops tiled onto the block (for rules above the tile)
  std::string refused;             // why the rule that built it does not apply, when it does not

  // The steps in phase order, strip marks resolved against the names `kernel` already uses.
  Recipe recipe(const Kernel& kernel) const;
  void add(Phase phase, RecipeStep step) { steps.emplace_back(phase, std::move(step)); }
};

RecipeStep makeStep(StepKind kind, std::vector<std::string> loops, std::vector<int64_t> factors = {},
                    Mapping mapping = Mapping::None, std::string array = {});

}  // namespace cudaburg
