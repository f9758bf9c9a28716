#pragma once
// The names of the loops a transformation makes. A recipe step may give them, as Halide's split
// names its two loops (`strip k 16 into k_o`), and later steps use them; where it does not, one
// rule names them, for the transformations and for the rules that build recipes alike.
//
// Strip-mining keeps a loop's index for the inner (element) loop, so that the statements are
// untouched, and makes one new loop: the strip loop of strip, tile, unroll and vectorize (one a
// tiled loop), the thread loop of regtile (one a tiled loop), the part loop of split.
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "src/loop/loop_tree.hpp"
#include "src/transform/recipe.hpp"

namespace cudaburg {

// Whether a step of this kind makes loops (and so may name them): strip, tile, unroll, vectorize,
// regtile, split and collapse. An unroll or a vectorize of a loop no longer than its factor works in place
// and makes none.
bool makesLoops(StepKind kind);

// The loops a step makes new loops from, one a new loop: its loops (a spread regtile's twice:
// its thread loops, then its run loops).
std::vector<std::string> loopsNamedFrom(const RecipeStep& step);

// The naming rule. The loops a step of `kind` makes from `loops` (one each) are named `<loop>_o`
// (a split's part loop: `<loop>_s`; the one loop of a collapse: the indices joined by '_'), or, where `taken` holds
// that name already, `<loop>_o2`,
// `<loop>_o3`, ...: the first name free, each name reserved before the next loop's is chosen.
std::vector<std::string> defaultLoopNames(StepKind kind, const std::vector<std::string>& loops,
                                          const std::set<std::string>& taken);
// The same, `taken` asked of each name.
std::vector<std::string> defaultLoopNamesWhere(StepKind kind, const std::vector<std::string>& loops,
                                               const std::function<bool(const std::string&)>& taken);

// The names a transformation of `kind` gives the loops it makes from `loops` in `kernel`: `given`,
// one a loop, none used by the kernel and no two alike (else `reason` says why); or, when `given`
// is empty, the rule's names.
struct NewLoopNames {
  std::vector<std::string> names;
  common::Reason reason;
};
NewLoopNames newLoopNames(const Kernel& kernel, StepKind kind, const std::vector<std::string>& loops,
                          const std::vector<std::string>& given);

// `recipe` with each step's names left out where they are the ones the rule gives it when the
// recipe applies to `kernel`, so that a recipe built with every name given prints as one written
// without them (and its printed line keys the tuning database as before). Names are left out only
// where that is certain: a later step's names stay where an unroll or a vectorize that might have
// worked in place decides them.
Recipe withDefaultNamesLeftOut(const Kernel& kernel, Recipe recipe);

}  // namespace cudaburg
