#pragma once
// The search's side of specs/loops.burg. The matcher burggen generates from that grammar calls
// these functions from its rules' costs and actions (the grammar's prologue makes this class
// the matcher's context), so the rules decide what is explored:
//
//   - A building block (below kernel level) turns one rule's match at a node into fragments:
//     recipe steps with the decisions they take, each a candidate implementation of that node
//     as that nonterminal. Fragments pile up per node and nonterminal, from every rule that
//     matches; composite blocks combine their kids' fragments with choices of their own. The
//     cost a block returns makes the labeler's cost of (node, nonterminal) the model's best
//     estimate there.
//   - A kernel-level rule measures complete candidates: the best ones by the model (all of them
//     when exhaustive) are compiled, verified and timed, and the measured time is the rule's
//     cost, so the labeler picks the kernel rule whose best variant is fastest on the GPU.
//   - The reducer's action of the chosen kernel rule hands back the winning recipe.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "src/loop/loop_tree.hpp"
#include "src/search/cost_model.hpp"
#include "src/search/search_space.hpp"
#include "src/transform/recipe.hpp"

namespace cudaburg {

class Evaluator;

// A partial or complete candidate: what one building block (and those below it) decided.
struct Fragment {
  // Steps with the phase they run in: recipes apply phases in order (see phaseOf in the .cpp).
  std::vector<std::pair<int, RecipeStep>> steps;
  CandidateShape shape;       // the decisions, as the model reads them
  std::string cover;          // the building blocks that made it, e.g. "tile2d(init(staged))"
  double model = 0;           // estimated ns (complete candidates only)
  std::string infeasible;     // why the model rules it out, when it does
  std::string tileRows, tileCols;  // the loops tiled onto the block (for blocks above the tile)

  Recipe recipe() const;
};

// How a staged reduction uses its shared buffers: filled then used (one a stage), pipelined
// through registers (two a stage, one filled while the other is used), or pipelined with
// asynchronous copies (kAsyncStages a stage, the copies issued that many strips ahead).
enum class Buffering { Single, Double, Async };

class SearchContext {
 public:
  using Cost = int64_t;
  static constexpr Cost kInfinity = INT64_MAX;

  SearchContext(const Kernel& kernel, SearchSpace space, Evaluator* evaluator, GpuModel gpu = {});

  // ---- building blocks (below kernel level) --------------------------------------------
  // The reduction `node` reads its operands from global memory; inner reduction loops too.
  Cost directReduction(const Node* node, const char* nt);
  // The outermost reduction loop `node` is strip-mined by --stage and every array the nest
  // reads is staged through shared memory at the strip loop, whose own loop is unrolled. With
  // Buffering::Double the strip loop is pipelined: two buffers a stage, the next strip loading
  // while the block works on this one.
  Cost stagedReduction(const Node* node, const char* nt, Buffering buffering);
  // As stagedReduction, with each 2-D array whose last subscript is the reduction index (A[i][k])
  // staged transposed (A_s[k][i]): a thread's consecutive rows lie next to each other in shared
  // memory. Offers nothing where no array read qualifies.
  Cost stagedTransposedReduction(const Node* node, const char* nt, Buffering buffering);
  // The reduction loop `node` is split into --split parts run by separate blocks (grid.z),
  // combined atomically.
  Cost splitReduction(const Node* node, const char* nt);
  // Split as splitReduction, each part staged as stagedTransposedReduction stages the whole
  // (the operands read along the reduction transposed): long reductions over small outputs.
  Cost splitStagedReduction(const Node* node, const char* nt, Buffering buffering);
  // An outer reduction loop left as it is, over the inner one's fragments.
  Cost outerReduction(const Node* node, const char* nt, const Node* inner, const char* innerNt);
  // A thread's work, `init; reduction`: the reduction's fragments.
  Cost initThen(const Node* node, const char* nt, const Node* reduction, const char* reductionNt);
  // Two nested parallel loops onto a 2-D block tile (--tile) of threads that each compute a
  // register tile (--unroll) of outputs: grid.y/x over tiles, block.y/x over threads.
  Cost blockTile2d(const Node* node, const char* nt, const Node* body, const char* bodyNt);
  // Three nested parallel loops: the outer and the inner one onto the 2-D block tile (filters and
  // pixels of a convolution), the middle one moved inside the tile's grid loops and run in turn
  // by each block.
  Cost outerInnerTile(const Node* node, const char* nt, const Node* body, const char* bodyNt);
  // An outer parallel loop around a tiled nest onto grid.z.
  Cost gridZ(const Node* node, const char* nt, const Node* inner, const char* innerNt);
  // An outer parallel loop right around the 2-D tile, moved inside the tile's grid loops: each
  // block runs its iterations in turn (and reuses what it staged across them).
  Cost serialInBlock(const Node* node, const char* nt, const Node* inner, const char* innerNt);
  // The nest as written, one thread an output (the emitter's naive mapping): the baseline.
  Cost untransformed(const Node* node, const char* nt);

  // ---- kernel level ------------------------------------------------------------------
  // Measures the best candidates of `node` as `nt`; the fastest verified time (ns) less the
  // model's estimate the labeler already counted for the kids, or kInfinity if none verified.
  Cost measure(const Node* node, const char* nt);
  // After measure(): the fastest verified recipe of `node` as `nt` (empty if none).
  Recipe winner(const Node* node, const char* nt) const;

  // Every fragment offered for `node` as `nt`, best estimate first.
  const std::vector<Fragment>& fragments(const Node* node, const std::string& nt) const;
  // Candidates of every measure() call, in the order they were ranked.
  const std::vector<Fragment>& ranked() const { return ranked_; }

 private:
  using Key = std::pair<const Node*, std::string>;
  Cost offer(const Node* node, const std::string& nt, std::vector<Fragment> fragments,
             std::vector<Key> kids = {});
  void complete(Fragment& f) const;  // fills model/infeasible from the shape
  // The block and register tiles of `rows` x `cols` over each of `body`'s fragments, after the
  // steps `before` (which run first, in the tiling phase).
  std::vector<Fragment> blockTiles(const Node* rows, const Node* cols, const std::vector<Fragment>& bodies,
                                   const std::vector<RecipeStep>& before, const std::vector<RecipeStep>& after,
                                   int64_t serial, const std::string& name);
  // The staged fragments of reduction `node`, one a --stage depth, the arrays in `transposed`
  // staged transposed.
  std::vector<Fragment> stagedFragments(const Node* node, const std::set<std::string>& transposed,
                                        Buffering buffering) const;
  double bestModel(const Key& key) const;
  // True when every read of `array` has `index` alone as its last subscript (B[k][j] along j).
  bool readAlong(const std::string& array, const std::string& index) const;
  // The 2-D arrays read only along the reduction `node` (X[.][k], k alone last): those that a
  // transposed stage puts a thread's rows side by side for.
  std::set<std::string> transposableArrays(const Node* node) const;
  // The steps that split reduction `node` into `parts` run on grid.z.
  std::vector<RecipeStep> splitSteps(const Node* node, int64_t parts) const;
  // Names of the arrays the nest under `node` reads.
  std::vector<std::string> arraysRead(const Node* node) const;
  int64_t reductionLength(const Node* node) const;
  int64_t tripCount(const Node* loop) const;

  const Kernel& kernel_;
  SearchSpace space_;
  Evaluator* evaluator_;
  GpuModel gpu_;
  std::map<Key, std::vector<Fragment>> pools_;
  std::map<Key, std::pair<double, Recipe>> winners_;
  std::vector<Fragment> ranked_;
};

}  // namespace cudaburg
