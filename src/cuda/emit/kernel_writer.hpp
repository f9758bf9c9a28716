#pragma once
// The writer behind the CUDA emitter (emitter.hpp), shared by the files that make it up:
// emitter.cpp (expressions, loops and the kernel around them), emit_stage.cpp (the copies into
// shared memory and the pipelined loops) and the emit_*.cpp of each idiom. What it keeps while it
// writes lies in small classes, one a concern, each the only one to change its state: the body's
// text (ScopedText), what the kernel uses (KernelUses), its prologue's coordinates
// (KernelPrologue), where the writer is (WritePosition), the gathers' counters and tables
// (GatherState), the shared memory's layout (SharedLayout), a strip's wgmma groups and partial
// sums (WgmmaGroups) and the split's combine (SplitCombine). Not part of the emitter's interface.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "src/cuda/emit/emit_launch.hpp"
#include "src/cuda/emit/emit_ranges.hpp"
#include "src/cuda/emit/emitter.hpp"
#include "src/cuda/emit/gather_state.hpp"
#include "src/cuda/emit/index_type.hpp"
#include "src/cuda/emit/kernel_prologue.hpp"
#include "src/cuda/emit/kernel_uses.hpp"
#include "src/cuda/emit/scoped_text.hpp"
#include "src/cuda/emit/shared_layout.hpp"
#include "src/cuda/emit/split_combine.hpp"
#include "src/cuda/emit/wgmma_groups.hpp"
#include "src/cuda/emit/write_position.hpp"
#include "src/loop/pipeline.hpp"
#include "src/loop/scalar_types.hpp"

namespace cudaburg::emit_internal {

// The shortest literal that reads back as `v` in type `t`.
std::string literal(double v, ScalarType t);
// An affine expression as C: "2*i + j - 1".
std::string affineText(const Affine& a);
// Conditions joined with " && ".
std::string joinConditions(const std::vector<std::string>& conds);
// `a` with index `name` replaced by `by`.
Access substituteAccess(Access a, const std::string& name, const Affine& by);
// The loads of an expression, in order.
void collectLoads(const Expr& e, std::vector<Access>& out);
// The number of the current iteration of `loop`, as C: "k_o / 16".
std::string iterationText(const Node& loop);

// The registers that hold what an iteration of a prefetched loop (rule 9 of loop_tree.hpp) reads
// from shared buffers, two copies of each (emit_operands.cpp): `<buffer>_reg[copy][place]`, the
// place the compile-time part of the element's place in the buffer.
struct OperandRegisters {
  std::string loop;     // the prefetched loop's index
  std::string counter;  // its unrolled counter (the index itself where its first value is constant)
  struct Buffer {
    std::string type;
    int64_t places = 0;  // the greatest place read, plus one
    std::string base;    // the run-time part of the places read, which every read must share
  };
  std::map<std::string, Buffer> buffers;  // by shared buffer
  Affine first;                           // the loop's first value
  std::vector<std::string> derived;       // the indices its index derives (a collapsed loop)
  std::set<std::string> fragments;        // tensor-core tiles' fragment registers, declared as they are
  size_t declareAt = 0;                   // where in the body their declarations go, and at what indent
  int indent = 0;
};

// What is known at a point of the kernel being written.
struct Scope {
  IndexRanges ranges;
  std::map<std::string, Array> arrays;
  // Unrolled loops: an index with a run-time first value stands for `lower + step * counter`;
  // after full unrolling the counters (and indices of loops with constant bounds) are constants.
  std::map<std::string, Affine> unrolledAs;
  std::set<std::string> compileTimeIndices;
  // Loads already done as wide accesses: access text -> the lane that holds it.
  std::map<std::string, std::string> loadOverrides;
  // Double-buffered shared buffers: name -> the expression that picks the half in use.
  std::map<std::string, std::string> slots;
  // Inside a prefetched loop: its registers, and which copy its statements read (or fill, while
  // reading ahead: then the statements only load their shared operands, from the places they read
  // with `readAhead` substituted in order).
  std::shared_ptr<OperandRegisters> operands;
  std::string operandCopy;
  bool readingAhead = false;
  std::vector<std::pair<std::string, Affine>> readAhead;
};

// The end of a pipelined loop's strip when its work is a prefetched loop (emit_operands.cpp): the
// next strip's stores and the barrier come before the work's last iteration, and the next strip's
// first operands are read right after the barrier.
struct StripTail {
  std::function<void()> handOver;                // the next strip's stores (where there is one) and the barrier
  bool hasNext = false;                          // the strip loop has a next strip here
  std::vector<std::string> nextConds;            // under which it does ("" when always)
  std::string strip;                             // the strip loop's index
  Affine nextStrip;                              // its value in the next strip
  std::map<std::string, std::string> nextSlots;  // the halves the next strip reads
  std::shared_ptr<OperandRegisters> operands;    // filled for the first strip before the strip loop
};

// A warpgroup tile's loops (emit_wgmma.cpp): it { jt { i (mma) { j { k { stmt } } } } }, and the
// trip counts of all but i.
struct WgmmaTileNest {
  const Node *it, *jt, *i, *j, *k, *stmt;
  int64_t itTrips = 0, jtTrips = 0, nTrips = 0, kTrips = 0;
};

// A Stage the Tensor Memory Accelerator fills (emit_tma.cpp): its tensor map, and the boxes of
// it that land one after another in the buffer (a slab's each), of boxBytes each. A stage the
// blocks of a cluster share (`multicast`) is the same for all of them: each block copies its part
// of every box's rows (the map's box) into all their buffers at once.
struct TmaStage {
  const Node* stage = nullptr;
  TensorMapParam map;
  int64_t boxes = 1;
  int64_t boxBytes = 0;
  bool multicast = false;
};

// How a Stage's items go from the source into the buffer (see planStageCopy).
struct StageCopy {
  int64_t items = 0;                // elements, or vectors of a source row's elements
  std::string places;               // declares the item's place in the box (stage_0, ...) from `stage_e`
  std::string numberedPlaces;       // the same for item `stage_r` of the thread, its part apart
  std::string coords;               // what follows them: the indices the item's place sets
  std::string type;                 // an item's type: "float", "float4", ...
  std::string value;                // the item read from the source, zero outside it
  std::vector<std::string> stores;  // where an item goes, `$` standing for it
  std::string comment;
  // The same copy for asynchronous copies: the item's first source element, the condition that
  // it lies inside the source ("" when always), and each piece of the buffer it fills (the whole
  // item, or an element a piece where the layout permutes the box) with the piece's bytes.
  std::string from, inside;
  std::vector<std::string> pieces;
  int pieceBytes = 0;
  bool sameType = true;  // copied as bytes: no conversion on the way
  // The buffer whose gather counters (GatherState) the copy reads its reduction-side indices
  // from, by the thread's item (`stage_r`), and advances after it; "" when it derives them.
  std::string counters;
  // Per buffer dimension: whether a thread's items all lie at the same place along it.
  std::vector<bool> sameForItems;
  // Whether each item reads what its thread keeps for it (counters, a table's row): the copy goes
  // by the items' numbers (`stage_r`).
  bool byItem = false;
};

// `a` with the indices of `by` replaced by their values.
Access substituted(Access a, const std::map<std::string, Affine>& by);

// The loops of one tensor-core tile: i (Mma) { j { k { R += A * B } } }.
struct MmaTile {
  std::string i, j, k;
  const Node* iLoop = nullptr;
  const Node* jLoop = nullptr;
  const Node* kLoop = nullptr;
  int64_t kSize = 16;
};

class KernelWriter {
 public:
  KernelWriter(const Kernel& kernel, const LaunchPlan& plan, const EmitOptions& options)
      : kernel_(kernel),
        plan_(plan),
        options_(options),
        elementType_(options.elementType),
        index_(indexTypeFor(kernel)) {}

  EmitResult write();

 private:
  // Output, into the body's text.
  void line(const std::string& text) { text_.line(text); }
  void dropIfUnused(size_t mark, const std::string& name) { text_.dropIfUnused(mark, name); }
  void open(const std::string& text) { text_.open(text); }
  void close() { text_.close(); }
  void otherwise(const std::string& comment) { text_.otherwise(comment); }
  void refuse(const std::string& why) {
    if (refusal_.empty()) refusal_ = why;
  }

  ScalarType typeOf(const Array& a) const { return emittedType(a, elementType_); }
  // The type the tensor cores multiply `a` as: its own, or tf32 for a float read as tf32.
  ScalarType productType(const Array& a) const {
    ScalarType t = typeOf(a);
    return t == ScalarType::Float && kernel_.floatsAsTf32() ? ScalarType::TF32 : t;
  }
  std::string cudaType(ScalarType t) { return uses_.cudaType(t); }
  // The type statements into an array of type `t` compute in: float for half, bfloat16 and tf32.
  static ScalarType computeType(ScalarType t) { return arithmeticType(t); }
  // `value`, a float expression, converted to a half or bfloat16 element (unchanged otherwise).
  std::string fromFloat(ScalarType t, const std::string& value);

  // Statements.
  void emit(const Node& node, const Scope& scope);
  void emitGridLoops(size_t i, const Scope& scope);
  void emitLoop(const Node& loop, const Scope& scope);
  void emitBlockLoop(const Node& loop, const Scope& scope);
  void emitSerialLoop(const Node& loop, const Scope& scope);
  // `beforeBody`, when given, writes what each iteration does before its body (the body then
  // sees `bodyScope`'s changes to the iteration's scope).
  void emitUnrolledLoop(const Node& loop, const Scope& scope, const std::string& note,
                        const std::function<void(Scope&)>& beforeBody = {});
  // Prefetched loops (rule 9 of loop_tree.hpp; emit_operands.cpp).
  bool isPrefetched(const std::string& index) const;
  // The registers of prefetched loop `loop`, declared (at the end, by declareOperandRegisters) where the
  // body stands now.
  std::shared_ptr<OperandRegisters> openOperandRegisters(const Node& loop);
  void declareOperandRegisters(const OperandRegisters& regs);
  // Writes `loop`'s body reading ahead: loads of the shared operands at the places `shift` moves
  // them to, into copy `copy` of the registers.
  void emitReadAhead(const Node& loop, const Scope& scope, const std::shared_ptr<OperandRegisters>& regs,
                     const std::string& copy, const std::vector<std::pair<std::string, Affine>>& shift);
  void emitPrefetchedLoop(const Node& loop, const Scope& scope, const StripTail* tail);
  // The register of the scope's operands that holds what `a` reads (a shared buffer's element) in `scope`.
  std::string operandRegister(const Access& a, const Scope& scope, const std::string& copy);
  bool readsOperandRegisters(const Access& a, const Scope& scope) const;
  // A statement while reading ahead: its shared operands loaded into registers.
  void emitOperandLoads(const Node& assign, const Scope& scope);
  // A vector loop's statements while reading ahead: their shared operands loaded `width` elements
  // at a time where they lie contiguous and aligned.
  void emitVectorReadAhead(const Node& loop, const std::vector<NodePtr>& stmts, int width, const Scope& scope);
  // Where a statement read ahead reads `a`: its place with the scope's readAhead substituted.
  static Access aheadOf(const Access& a, const Scope& scope);
  void emitVectorLoop(const Node& loop, const Scope& scope);
  void emitPipelinedLoop(const Node& loop, const Scope& scope);
  // The operands of the strip loop `loop`'s first strip read ahead into copy 0 of `regs`, for the
  // first iteration of its work loop `prefetched` (scope `first`: the strip's buffers in copy 0).
  void readFirstStripAhead(const Node& loop, const Node& prefetched, const Scope& first,
                           const std::shared_ptr<OperandRegisters>& regs);
  // The work of a pipelined loop when it is one prefetched loop of an even trip count, whose last
  // iteration then takes the strip's barrier (StripTail); null otherwise.
  const Node* prefetchedWork(const Node& loop, const PipelineParts& parts, const Scope& scope);
  // The indices a collapsed loop derives from its index (declared just before), a line each:
  // one division chain where the index is set, not at their uses. Returns where the lines lie,
  // for dropDerived to remove those the body did not use.
  std::vector<size_t> declareDerived(const Node& loop);
  std::vector<std::string> derivedDeclarations(const std::string& index, const std::vector<CollapsedLoop>& collapsed);
  void dropDerived(const Node& loop, const std::vector<size_t>& marks);
  // A serial loop's header parts: its continuation condition and its increment.
  std::string loopConditions(const Node& loop, const Scope& scope);
  static std::string loopStep(const Node& loop) {
    return loop.step == 1 ? "++" + loop.index : loop.index + " += " + std::to_string(loop.step);
  }
  void emitAlloc(const Node& node, const Scope& scope);
  void declareShared(const Node& alloc, int copies);
  StageCopy planStageCopy(const Node& node, const Scope& scope);
  // Splits a copy's item number `stage_e` into one coordinate a dimension of `extents`,
  // `stage_<d>`, the dimensions taken in `order` (outermost first; the last holds `width`
  // elements an item): declares them in c.places (and c.numberedPlaces) and binds their ranges in
  // `inner`. Returns, for each place in `order`, how many items one step along that dimension spans.
  std::vector<int64_t> splitItems(StageCopy& c, const std::vector<int64_t>& extents, const std::vector<size_t>& order,
                                  int width, Scope& inner) const;
  // Whether a Stage's box (`box`, in the source's order) is copied in warp tiles (transposed and
  // swizzled 32-bit elements), and the split of its items so.
  bool transposedSwizzleTiles(const Node& node, const std::vector<int64_t>& box) const;
  void splitIntoWarpTiles(StageCopy& c, const std::vector<int64_t>& box, Scope& inner) const;
  // A copy's item read from `from` (`width` elements as one vector), zero outside the source and
  // where a condition of `alsoInside` fails.
  void readItem(StageCopy& c, const Access& from, const Array& buffer, const Array& source, int width,
                const Scope& inner, const std::vector<std::string>& alsoInside = {});
  // The same from the source element `element` (its text), zero where `conds` fail; `converted`,
  // where not empty, is the element converted to the buffer's type (one element an item).
  void readElementAt(StageCopy& c, const std::string& element, const std::string& converted,
                     const std::vector<std::string>& conds, ScalarType bufferType, ScalarType sourceType, int width);
  // A gather's copy (emit_gather.cpp): the items are the buffer's elements in its order.
  StageCopy planGatherCopy(const Node& node, const Scope& scope);
  int gatherWidth(const Node& node, size_t fastest, const Array& source, const Scope& scope);
  void emitStage(const Node& node, const Scope& scope);
  // One item of a copy read and stored by the thread (its place declared before).
  void storeItem(const StageCopy& c);
  // The counters of the gathers among `stages` (filled a strip of `loop` at a time, in order),
  // declared and set for the loop's first strip; dropGatherCounters forgets them after the loop.
  void declareGatherCounters(const Node& loop, const std::vector<const Node*>& stages, const Scope& scope);
  // The copy of `stage` planned over every strip of `loop`, so that each strip's copy numbers the
  // items alike: what counters and table rows are set for before the loop.
  StageCopy planOverStrips(const Node& loop, const Node& stage, const Scope& scope);
  void dropGatherCounters(const std::vector<const Node*>& stages);
  // The rows of a gather through a table (filled a strip of `loop` at a time), declared and set
  // before the loop, with its table declared once for the kernel (emit_gather_table.cpp); false
  // where the gather goes without its table (its elements change type on the way).
  bool declareGatherRows(const Node& loop, const Node& stage, const Scope& scope);
  // A copy of a gather through its table: its items' places and elements (emit_gather_table.cpp).
  void readThroughTable(StageCopy& c, const Node& node, const Array& source, const GatherRows& rows, Scope& inner);
  // After a copy that read counters: moves them on to the next strip.
  void advanceGatherCounters(const StageCopy& c);
  void emitStageRegisters(const StageCopy& c, const std::string& regs, bool load);
  // The threads that share a stage's asynchronous copies: the block's, or its producer warpgroup's
  // while the producer's part of a pipelined loop is written.
  // A copying thread's rank among copyThreads(): the name, and the name once marked used.
  std::string copyRankName() const { return position_.producerCopies() ? "producer_rank" : "thread_rank"; }
  std::string copyRank() { return position_.producerCopies() ? copyRankName() : coordinate(copyRankName()); }
  int64_t copyThreads() const { return position_.producerCopies() ? 128 : plan_.threads(); }
  // The loop over the items a thread takes of a stage, with their places declared (guarded
  // where the threads outnumber the last round's items: says if it is); closeThreadItems ends it.
  int64_t itemsPerThread(const StageCopy& c) const;
  bool openThreadItems(const StageCopy& c);
  void closeThreadItems(bool guarded);
  // A pipelined loop's trip count, or nothing (and a refusal) when its shape or bounds do not do.
  std::optional<int64_t> pipelineTrips(const Node& loop, const PipelineParts& parts, const Scope& scope);
  // The conditions under which the iteration `shift` steps after the current one exists.
  std::vector<std::string> laterConditions(const Node& loop, int64_t shift, const Scope& body);
  void emitAsyncPipelinedLoop(const Node& loop, const Scope& scope);
  // The asynchronous copies of the items a thread takes of a stage.
  void emitAsyncCopies(const StageCopy& c, const std::string& source);
  int stageWidth(const Node& node, const Array& source, const std::vector<int64_t>& box, const Scope& scope);
  void emitAssign(const Node& node, const Scope& scope);

  // Tensor cores (emit_mma.cpp): warp tiles of a kernel the mma step made.
  std::string mmaHelpers() const;
  void declareFragments(const Array& buffer);
  std::string fragmentText(const Access& a, const std::string& i, const Affine& rowOrigin, const std::string& j,
                           const Affine& colOrigin, const Scope& scope);
  void emitMmaElements(const Node& iLoop, const Scope& scope);
  // The write-back of a tile's statement by runs of four tiles along the row (emit_mma.cpp); false
  // where the tiles make no such runs (the caller writes it back tile by tile).
  bool emitRowRuns(const Node& stmt, const Node& iLoop, const Node& jLoop, const Array& target, const Access& fragment,
                   const std::vector<std::string>& rowConds, Scope& inner);
  // The calling warp's slice of the write-back's shared memory (LaunchPlan::rowSliceBytes), taken
  // from the block's at its first use.
  std::string rowSliceText();
  std::optional<int64_t> rowSliceAt_;
  void emitMmaOperand(const Access& a, bool isA, const MmaTile& tile, const Affine& rowOrigin, const Affine& kOrigin,
                      const std::string& regs, const Scope& scope, int tiles = 1);
  // Writes `itLoop { jtLoop { mma tile } }` as a warp's tile and says so; false when it is not one.
  bool emitMmaWarpTile(const Node& itLoop, const Scope& scope);
  // The unrolled loop over tiles `loop` (emit_mma.cpp), its index known to `inner`'s ranges.
  void openTileLoop(const Node& loop, int64_t trips, const Scope& scope, Scope& inner, int64_t every = 1);
  // Threads an iteration of the block loops runs on (a warp, or a warpgroup), and the rows of the
  // tiles their accumulator fragments come in.
  int64_t threadsPerTile() const { return kernel_.warpGroupTiles() ? 128 : 32; }
  int64_t fragmentRows() const { return kernel_.warpGroupTiles() ? 64 : 16; }
  // The row of the 16 x 8 (64 x 8) accumulator tile that a lane's elements of half `half` (0 or 1)
  // lie on, from the tile's first: the PTX ISA's layout, or, where the threads load wgmma's A
  // themselves (Kernel::wgmmaRegisterA), the rows permuted so that those loads meet no bank
  // conflict (emit_wgmma.cpp). As an Affine of the lane's coordinates, and as C text.
  Affine fragmentRow(const Affine& half) const;
  std::string fragmentRowText(const std::string& half) const;
  // The ranges of the lane's coordinate bits fragmentRow's permuted rows are made of.
  static void bindFragmentRowBits(Scope& scope);
  // The loops of a warpgroup tile it { jt { i (mma) { j { k { stmt } } } } } with their trip
  // counts, or nullopt (refused) where one is not constant.
  std::optional<WgmmaTileNest> wgmmaTileNest(const Node& itLoop, const Scope& scope);
  // The unrolled loops over a warpgroup's tiles opened (their indices known to `both`); the
  // tile's accumulator fragment, and in `origin` where its operands start.
  std::string openWgmmaTiles(const WgmmaTileNest& nest, const Scope& scope, Scope& both,
                             std::map<std::string, Affine>& origin);
  // The tiles of a warpgroup whose A comes from registers (Kernel::wgmmaRegisterA).
  void emitWgmmaRegisterTile(const WgmmaTileNest& nest, const Scope& scope);

  // Warpgroup MMA (emit_wgmma.cpp): the tiles of a kernel the wgmma step made.
  std::string wgmmaHelpers() const;
  // `itLoop { jtLoop { i (mma) { j { k { R += A * B } } } } }`: a warpgroup's wgmma instructions.
  void emitWgmmaTile(const Node& itLoop, const Scope& scope);
  // The descriptor of operand `a` (A, or B) at the tile whose loops i, j and k start where
  // `origin` says, as C: K-major (its buffer's rows of k, as A's always are) or N-major (B's rows
  // along N, in slabs).
  std::string wgmmaDescriptorText(const Access& a, bool kMajor, const std::map<std::string, Affine>& origin,
                                  const Scope& scope);
  // An asynchronously pipelined loop whose stages a producer warpgroup fills while the others
  // multiply (Kernel::wgmmaProducer; emit_stage.cpp). `issue` writes the copies of the current
  // iteration's strip into the buffers' copy `slot`.
  void emitProducerPipelinedLoop(const Node& loop, int64_t trips, const Scope& inner,
                                 const std::function<void(const std::string& slot)>& issue);
  // The producer warpgroup's loop of a tf32x3 pipeline: `issue` writes a strip's TMA copies into
  // copy stage_slot; `header` and `slot` open the loop and name the copy (emit_stage.cpp).
  void emitProducerSplit(const std::string& header, const std::string& slot, const Scope& inner,
                         const std::function<void()>& issue);
  // The copy of Kernel::wgmmaSplitBuffer that holds the low tf32 parts of copy `slot` (its high
  // parts), asyncStages further on.
  std::string lowPartsSlot(const std::string& slot) const {
    return "(" + slot + ") + " + std::to_string(kernel_.asyncStages);
  }
  // The full and empty barriers of `buffers` copies (wgmma_full, wgmma_empty), and with
  // Kernel::wgmmaSplitBuffer the ready ones (wgmma_ready), in shared memory.
  std::vector<std::string> barrierDeclarations(int64_t buffers);
  // The Tensor Memory Accelerator (emit_tma.cpp): its helpers; how a stage's buffer is filled by
  // it, or nothing (and a refusal) where it cannot be; the copies of `stages` into the copy of
  // their buffers `at` names, counted on the barrier `barrier`.
  std::string tmaHelpers() const;
  std::optional<TmaStage> planTmaStage(const Node& stage, const Scope& scope);
  // Whether the blocks of a cluster all copy the same box of `stage`: its origin does not depend
  // on the grid loops along the cluster's axis.
  bool sharedByCluster(const Node& stage) const;
  // The statement by which a consumer thread frees a buffer it is done with (emit_stage.cpp).
  std::string releaseText(const std::string& barrier) const;
  void emitTmaCopies(const std::vector<TmaStage>& stages, const std::string& barrier, const Scope& at);
  // Opens `if (guards) {` when some upper bound of `loop` is not proven for `lastIndex`; says if it did.
  bool openGuard(const Node& loop, const Affine& lastIndex, const Scope& scope);

  // Peeled loops (rule 7 of loop_tree.hpp; emit_peel.cpp).
  bool isPeeled(const std::string& index) const;
  // What each block runs, below the grid loops: once, or (peeled grid loops) a copy for whole
  // tiles and one for edge tiles, behind one uniform branch, the shared buffers declared before.
  void emitPhases(const Scope& scope);
  // Which part of a loop's iterations one copy of its body runs: all of them; its whole iterations
  // (a peeled loop: index + step within every upper bound); its partial last one.
  enum class Iterations { All, Whole, Last };
  // Writes `loop`'s iterations around `iteration(body scope, part)`, which writes one iteration's
  // body: one loop, or when `loop` is peeled a loop over its whole iterations and its last after
  // it. `inner` is the scope the body sees, the loop's index not yet bound; `trips` its trip count.
  void emitIterations(const Node& loop, const Scope& inner, int64_t trips,
                      const std::function<void(const Scope&, Iterations)>& iteration);
  // The shared buffers below `node` declared once (their copies for a pipelined loop's), which
  // later declarations of them then skip.
  void hoistShared(const Node& node, int copies);

  // A split reduction's parts combined in a workspace (Kernel::workspaceSplit; emit_split_combine.cpp).
  // Whether the block-level `loop` (outside every block loop) is where the register sums go out:
  // it holds the split's atomic accumulations. It is then written by emitWorkspaceCombine, twice:
  // the sums stored into this part's workspace, and, in the last part of its tile to arrive, the
  // parts' sums added up into the outputs.
  bool writesSplitSums(const Node& loop) const;
  void emitWorkspaceCombine(const Node& loop, const Scope& scope);
  // An atomic accumulation of the split, of `value` into `array`, as the combine's phase writes it.
  void emitSplitSum(const Node& assign, const Array& array, const std::string& value, const Scope& scope);

  // Expressions.
  std::string accessText(const Access& a, const Scope& scope);
  // Where swizzled `array` stores element `column` of row `row` (emitter.cpp), "" when unswizzled.
  std::string swizzledColumn(const Affine& row, const std::string& column, const Array& array, const Scope& scope);
  std::vector<std::string> outsideConditions(const Access& a, const Array& array, const Scope& scope);
  std::string loadText(const Access& a, ScalarType want, const Scope& scope);
  std::string exprText(const Expr& e, ScalarType type, const Scope& scope, bool top = false);
  std::string storeText(const Node& assign, const std::string& target, ScalarType targetType, const std::string& value);
  // `assign`'s store of `value` into `target`, an element of `array` (a split's sum as its
  // combine writes it).
  void emitStore(const Node& assign, const Access& target, const Array& array, const std::string& value,
                 const Scope& scope);
  const Array* findArray(const std::string& name, const Scope& scope);
  Affine flatOffset(const Access& a, const Array& array);
  bool wideAccessOk(const Access& a, const std::string& index, const Affine& lower, int width, const Scope& scope);

  std::string header();
  // The name of a thread or block coordinate, which the prologue then declares.
  std::string coordinate(const std::string& name) { return prologue_.coordinate(name); }

  const Kernel& kernel_;
  const LaunchPlan& plan_;
  const EmitOptions& options_;
  std::optional<ScalarType> elementType_;
  std::string index_;  // the type of indices and coordinates: "int", or "long long" where bounds need it
  ScopedText text_;
  std::string refusal_;
  KernelUses uses_;
  KernelPrologue prologue_{kernel_, plan_, index_};
  WritePosition position_;
  GatherState gathers_;
  SharedLayout shared_;
  WgmmaGroups wgmmaGroups_{kernel_, text_};  // a strip's wgmma and their partial sums
  SplitCombine split_;
  // A persistent kernel's lines before its loop over tiles: the pipeline's barriers, set up once.
  std::vector<std::string> beforeTiles_;
};

// In a whole iteration of `peeled` (index + step within each of its upper bounds), a loop below
// bounded by `index + c` (c at most the step) needs none of those bounds beside: the same body
// with them left out.
NodePtr dropImpliedBounds(const NodePtr& node, const Node& peeled);

}  // namespace cudaburg::emit_internal
