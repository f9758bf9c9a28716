#pragma once
// A fragment: what the rules of specs/loops.burg decided for one subtree of a loop nest, carried
// as the label value of each derivation: recipe steps and the shape the cost model reads; a
// complete fragment at the root is a candidate kernel.
//
// The steps come in three runs, in the order they apply, and the rule above a fragment adds its
// own steps to the run where they belong: first what gives the nest its loops (a split reduction,
// the tile, interchanges), then the loops outside the tile onto grid.z, then the tile's own work
// (its grid and block mappings, the register tile, the staging of the reduction, the finishing
// touches). The mapped-tree model is checked after every step, so a grid loop is mapped once the
// nest has its shape, and outer grid loops before inner ones. A step that makes loops names them
// when it is made, and later steps use those names.
#include <set>
#include <string>
#include <vector>

#include "src/search/cost_model.hpp"
#include "src/search/step_list.hpp"
#include "src/transform/recipe.hpp"

namespace cudaburg {

struct Fragment {
  StepList nest;                   // what gives the nest its loops: a split, the tile, interchanges
  StepList outer;                  // loops outside the tile onto grid.z
  StepList inTile;                 // the tile's mappings, register tile, staging, finishing touches
  CandidateShape shape;            // the decisions, as the model reads them
  std::string tileRows, tileCols;  // the loops tiled onto the block: the tile's element loops
  std::string gridRows, gridCols;  // the tile's strip loops, onto the grid
  std::string strips;              // the staged reduction's strip loop ("" when not staged)
  std::string refused;             // why the rule that built it does not apply, when it does not

  // Whether `other` is this fragment: the same steps, shared, and the same shape and names.
  bool sameAs(const Fragment& other) const;
  // Every step, in the order they apply.
  std::vector<RecipeStep> steps() const;
  // Whether a step gives a loop it makes this name.
  bool namesLoop(const std::string& name) const;
  // The steps as a recipe for `kernel`, each step's names left out where they are the ones the
  // naming rule gives it (src/transform/loop_names.hpp), so that it prints as it always has.
  Recipe recipe(const Kernel& kernel) const;
};

RecipeStep makeStep(StepKind kind, std::vector<std::string> loops, std::vector<int64_t> factors = {},
                    Mapping mapping = Mapping::None, std::string array = {});

}  // namespace cudaburg
