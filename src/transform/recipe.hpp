#pragma once
// A recipe: the list of transformations with their parameters, as data that is printed, parsed
// back, stored and replayed. Its text has one step a line (or steps separated by ';'), `#`
// starts a comment:
//
//   strip k 16              stripMine(k, 16)
//   tile i,j 64,64          tile({i, j}, {64, 64})
//   unroll k 4              unroll(k, 4)
//   interchange j k         interchange(j, k)
//   distribute j            distribute(j)
//   map i_o grid.y          mapLoop(i_o, GridY); mappings: grid.x|y|z block.x|y|z serial unroll vector
//                           pipelined async none
//   map k_o async 4         mapLoop(k_o, AsyncPipelined, 4): 4 buffers a stage (3 without a number)
//   stage A at k_o          stage(A, k_o)
//   stage A at k_o transposed   stage(A, k_o, true): the 2-D box stored with its dimensions swapped
//   stage B at k_o interleaved 8  stage(B, k_o, false, 8): rows stored interleaved (see Array)
//   stage A at k_o pad 8    stage(A, k_o, false, 0, 8): rows stored 8 elements apart (see Array)
//   stage A at k_o swizzle  stage(A, k_o, false, 0, 0, true): rows' 16-byte chunks swizzled (see Array)
//   stage In at q_o table   stage(In, q_o, ..., true): a gather's offsets along q from a table
//   stage B at k_o swizzle slabs 64   the same, the rows cut into slabs of 64 columns (Array::slab)
//   regtile i,j 4,4         registerTile({i, j}, {4, 4})
//   vectorize j 4           vectorize(j, 4)
//   split k 4               splitReduction(k, 4)
//   split k 4 workspace     splitReduction(k, 4, {}, true): the parts' sums meet in a workspace
//   lanes 8,4               arrangeLanes(8, 4): a warp covers 8 rows of block.y by 4 of block.x
//   collapse n,oh,ow        collapse({n, oh, ow}): one loop n_oh_ow over the perfect nest
//   collapse c,r,s into q   the same, the new loop named q
//   mma i,j,k 16,8,16       mmaTile({i, j, k}, {16, 8, 16}): a register tile's warps on tensor cores
//   wgmma i,j,k 64,256,16   wgmmaTile({i, j, k}, {64, 256, 16}, 1): a register tile's warpgroups on
//                           wgmma, one group of them in flight across strips (`wait 0`: none);
//                           `producer` at the end: a warpgroup of its own fills the stages;
//                           `producer tma`: its one thread, by the Tensor Memory Accelerator;
//                           `tf32x3 promote 2`: float operands as three tf32 products, the
//                           tensor cores' sums of 2 strips added into fp32 registers
//   roundup                 roundUp(): a tile's register work runs over whole tiles, past the edges
//   peel i_o,j_o,k_o        peel({i_o, j_o, k_o}): whole blocks and whole strips run unguarded
//   raster 8                rasterBlocks(8): the grid's blocks launched in groups of 8 rows
//   prefetch k              prefetch(k): unrolled k reads its shared operands an iteration ahead
//   resident 2              keepResident(2): 2 blocks fit on a multiprocessor at once (launch bounds)
//   persistent 132          runPersistent(132): 132 blocks, each taking the grid's tiles in turn
//   winograd oh,ow 4 block 32,32,8 thread 8,8,1
//                           winogradConvolution({oh, ow}, tiling): F(4x4,3x3), a block 32 tiles by 32
//                           filters over strips of 8 channels, a thread 8 tiles by 8 filters of 1
//                           point (`block` and `thread` may be left out: these values); `prefetch` at
//                           the end reads the next strip into registers during the GEMMs
//   b2b i,r 32,128 4,4 strip 16
//                           backToBackProducts({i, r}, tile): two products in a row (rows i and r)
//                           as one kernel, a block 32 rows, Y's columns 128 at a time, a thread
//                           4 x 4 of them, both reductions staged a strip of 16 at a time
//
// A step that makes loops (strip, tile, unroll, vectorize, regtile, split, collapse) may name them,
// one a loop it strip-mines (collapse: one name for the loop it makes), and later steps use those names (the rule of
// loop_names.hpp names what a step leaves unnamed; a name is given once in a recipe):
//
//   strip k 16 into kk      stripMine(k, 16, {kk}): the strip loop kk, the element loop k
//   tile i,j 64,64 into bi,bj   regtile i,j 4,4 into ti,tj   split k 4 into part
#include <optional>
#include <string>
#include <vector>

#include "common/diagnostics.hpp"
#include "common/source.hpp"
#include "src/idioms/tile_idiom.hpp"
#include "src/loop/loop_tree.hpp"
#include "src/transform/transform_result.hpp"

namespace cudaburg {

enum class StepKind {
  StripMine,
  Tile,
  Unroll,
  Interchange,
  Distribute,
  Map,
  Stage,
  RegisterTile,
  Vectorize,
  Split,
  Lanes,
  Collapse,
  Mma,
  Wgmma,
  Peel,
  RoundUp,
  Raster,
  Prefetch,
  Resident,
  Persistent,
  Cluster,
  Winograd,
  BackToBack
};
const char* stepKeyword(StepKind k);  // "strip", "tile", ...
// Whether the step's idiom unit (src/idioms/) reads, prints and applies it: mma, wgmma, winograd.
bool isIdiomStep(StepKind k);

struct RecipeStep {
  StepKind kind = StepKind::StripMine;
  std::vector<std::string> loops;   // loop indices named by the step, in order
  std::vector<int64_t> factors;     // factors / width / parts, one a loop where the step takes them
  TileIdiom idiom;                  // Mma, Wgmma, Winograd: the tile's idiom (src/idioms/), all it says
  Mapping mapping = Mapping::None;  // Map
  std::string array;                // Stage: the array staged (the loop is loops[0])
  bool transposed = false;          // Stage: the box stored transposed
  int64_t interleave = 0;           // Stage: the buffer's rows stored interleaved (0: in order)
  int64_t padding = 0;              // Stage: elements left after each of the buffer's rows (0: none)
  bool swizzled = false;            // Stage: the rows' 16-byte chunks stored swizzled (see Array)
  int64_t slab = 0;                 // Stage: the rows stored in slabs of this many columns (0: whole)
  bool table = false;               // Stage: a gather's offsets from a table (gather_table.hpp)
  std::vector<std::string> into;    // the names of the loops it makes, one a loop (empty: the rule's)
  SourceLoc loc;                    // where it was parsed from (not part of its identity)

  std::string str() const;  // the step as one line of recipe text, e.g. "tile i,j 64,64"
  friend bool operator==(const RecipeStep& a, const RecipeStep& b) {
    return a.kind == b.kind && a.loops == b.loops && a.factors == b.factors && a.mapping == b.mapping &&
           a.array == b.array && a.transposed == b.transposed && a.interleave == b.interleave &&
           a.padding == b.padding && a.swizzled == b.swizzled && a.slab == b.slab && a.table == b.table &&
           a.into == b.into && a.idiom == b.idiom;
  }
};

struct Recipe {
  std::vector<RecipeStep> steps;
  friend bool operator==(const Recipe& a, const Recipe& b) { return a.steps == b.steps; }
};

// One step a line, each line ending in '\n'; the empty recipe prints as "".
std::string printRecipe(const Recipe& recipe);
// Steps on one line separated by "; " (for keys and reports).
std::string printRecipeLine(const Recipe& recipe);
// Parses recipe text; reports every error (line:col, caret) and returns nullopt if there was one.
std::optional<Recipe> parseRecipe(const common::SourceFile& file, common::Diagnostics& diags);

// Applies one step.
TransformResult applyStep(const Kernel& kernel, const RecipeStep& step);
// Applies the steps in order; a refusal names the step ("step 3 `map i_o grid.y`: ...").
TransformResult applyRecipe(const Kernel& kernel, const Recipe& recipe);

}  // namespace cudaburg
