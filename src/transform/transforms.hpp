#pragma once
// The loop-tree transformations. Each is a pure function: it reads a kernel and returns a new
// one (sharing unchanged subtrees) or refuses with a sentence saying why. Loops are named by
// their index; where fission left several loops with the same index (copies that run on the
// same threads), a transformation naming that index applies to every one of them.
//
// Naming of new loops: strip-mining loop `i` keeps the name `i` for the inner (element) loop, so
// statements are untouched, and makes one new loop. A transformation that makes loops takes their
// names (`into`, one a new loop; refused when the kernel uses one already); without them it names
// them by the rule of loop_names.hpp: `i_o`, or where that is taken `i_o2`, `i_o3`, ... (`k_s`
// for splitReduction's part loop).
//
// Every transformation also keeps a mapped tree within the model of loop_tree.hpp: a result
// that would break it is refused with the rule it breaks.
#include <cstdint>
#include <string>
#include <vector>

#include "src/loop/loop_tree.hpp"
#include "src/transform/transform_result.hpp"

namespace cudaburg {

// for i -> for i_o (step factor*step) { for i = i_o; i < min(i_o + factor*step, upper...) }.
// The strip loop keeps i's kind and mapping; the element loop is unmapped.
TransformResult stripMine(const Kernel& kernel, const std::string& loop, int64_t factor,
                          const std::vector<std::string>& into = {});

// Strip-mines perfectly nested loops (outermost first) and moves the strip loops outside all of
// the element loops: i { j } -> i_o { j_o { i { j } } }.
TransformResult tile(const Kernel& kernel, const std::vector<std::string>& loops, const std::vector<int64_t>& factors,
                     const std::vector<std::string>& into = {});

// Collapses perfectly nested loops with constant bounds, of one kind and unmapped (outermost
// first), into one loop of that kind over 0 .. the product of their trip counts, named `into` (one
// name) or by the rule of loop_names.hpp (the indices joined by '_': `n_oh_ow`). Their indices
// stay in the statements, derived from the new loop's (see loop_tree.hpp), so nothing else
// changes and the order of the iterations is the nest's: always legal.
TransformResult collapse(const Kernel& kernel, const std::vector<std::string>& loops,
                         const std::vector<std::string>& into = {});

// Strip-mines by `factor` and marks the element loop Mapping::Unrolled (a loop whose constant
// trip count is already at most `factor` is marked in place, and makes no loop).
TransformResult unroll(const Kernel& kernel, const std::string& loop, int64_t factor,
                       const std::vector<std::string>& into = {});

// Swaps `outer` and `inner`, where `inner` is the whole body of `outer`; rectangular bounds only.
TransformResult interchange(const Kernel& kernel, const std::string& outer, const std::string& inner);

// Fission: a loop whose body is a sequence becomes a sequence of loops, one a statement.
TransformResult distribute(const Kernel& kernel, const std::string& loop);

// Marks a loop with a mapping (grid, block, thread-serial, unrolled, vector, or none). An
// asynchronously pipelined loop keeps `asyncStages` buffers of each stage (0: kAsyncStages).
TransformResult mapLoop(const Kernel& kernel, const std::string& loop, Mapping mapping, int asyncStages = 0);

// Stages through shared memory the part of `array` read inside each iteration of `atLoop`:
// the body becomes Alloc(buffer) { Stage; Barrier; body (reading the buffer); Barrier }.
// The buffer is named `<array>_s` (then `<array>_s2`, ...).
// `transposed` (arrays of 2 or more dimensions) stores the box with its last two dimensions
// swapped: A[i][k] staged as A_s[k][i] (the Stage's layout is {1, 0}), a batch's A[b][i][k] as
// A_s[b][k][i] (layout {0, 2, 1}), so that a thread reading several consecutive rows of one column
// reads consecutive buffer elements.
// Where the loads use indices derived from a collapsed loop inside `atLoop`, what they read is no
// box: the stage is a gather (see loop_tree.hpp), one buffer dimension a loop inside whose index
// the loads use, outermost first (a convolution's input under a collapsed c*r*s and n*oh*ow:
// In_s[crs][nohow], im2col), read as In_s[q - q_o][m - m_o]; the loads must all be alike.
// `interleave` n (a multiple of 4, at least 8, dividing the buffer's rows) stores the buffer's
// rows interleaved (see Array::interleave) for threads that each read a run of n elements.
// `padding` p (1 to 64) stores each of the buffer's rows with p unused elements after it
// (Array::padding), against bank conflicts; not with `interleave`.
// `swizzled` stores each row's 16-byte chunks swizzled (Array::swizzled, src/loop/swizzle.hpp)
// instead, against the same conflicts without the padding's bytes: rows of a power of two of
// chunks, at least two; neither padded nor interleaved. `slab` (with `swizzled`) cuts a 2-D
// buffer's rows into slabs of that many columns stored one after another (Array::slab), each
// slab's rows swizzled as rows of their own: a power of two of chunks, dividing the row.
// `table` (gathers only) gives the offsets of the gather's dimension that `atLoop` moves (a
// collapsed loop: a convolution's c*r*s) from a table (src/loop/gather_table.hpp), computed once
// for the kernel, and each row's part of them and the bounds of its elements once before the
// loop, so that a strip's copy divides nothing; refused where that dimension is no collapsed loop
// or its table does not fit (constant memory, taps, offsets).
TransformResult stage(const Kernel& kernel, const std::string& array, const std::string& atLoop,
                      bool transposed = false, int64_t interleave = 0, int64_t padding = 0, bool swizzled = false,
                      int64_t slab = 0, bool table = false);

// Scalar replacement of accumulators over a per-thread tile: the perfectly nested loops are
// strip-mined by `factors` (the strip loops keep their block mapping: they are the threads),
// the element loops are unrolled, and the accumulations into the target of the reduction go to
// a Register buffer `<target>_r`, initialised before the reduction loop, written back once after.
// The reduction loops move outside the thread loops, which are split into three phases
// (initialise, accumulate, write back). The loops must be mapped to block threads first.
// `spread` > 0: each thread's tile is taken as runs of `spread` elements along each loop, the
// threads' runs side by side (thread t's runs start at spread*t, spread*(t + T), ... for T
// threads along the loop) rather than one block of consecutive elements: a warp's 128-bit reads
// of a row of a stage then fall on consecutive addresses. Each loop is then a thread loop of step
// `spread`, a run loop and the element loop; `into` names the thread loops, then the run loops.
TransformResult registerTile(const Kernel& kernel, const std::vector<std::string>& loops,
                             const std::vector<int64_t>& factors, const std::vector<std::string>& into = {},
                             int64_t spread = 0);

// A contiguous innermost loop done `width` (2 or 4) elements at a time as one wide access: the
// loop is strip-mined by `width` and the element loop becomes Mapping::Vector (a loop of exactly
// `width` iterations is marked in place, and makes no loop).
TransformResult vectorize(const Kernel& kernel, const std::string& loop, int width,
                          const std::vector<std::string>& into = {});

// Splits reduction loop `loop` into `parts` parts run in parallel by a new outermost parallel
// loop (`<loop>_s` by default); the parts accumulate atomically into the target, which the kernel
// zeroes first (Kernel::zeroFirst) in place of the initialisation it removes. With `workspace`
// the GPU combines them in a workspace instead (Kernel::workspaceSplit), refused where it would
// pass kMaxSplitWorkspaceBytes or beside another split (the workspace takes all the split sums).
TransformResult splitReduction(const Kernel& kernel, const std::string& loop, int64_t parts,
                               const std::vector<std::string>& into = {}, bool workspace = false);
// The bytes of that workspace for `reduction` split into `parts`: every part's sums of each array
// the loop accumulates into (16-bit ones in float); -1 where one is no global array.
int64_t splitWorkspaceBytes(const Kernel& kernel, const Node& reduction, int64_t parts);

// Arranges the 32 threads of each warp as `rows` values of the block.y loop by `cols` of block.x
// (Kernel::laneRows): powers of two whose product is 32. The block's threads must come in whole
// warps of that shape, which the emitter checks against the launch it plans.
TransformResult arrangeLanes(const Kernel& kernel, int64_t rows, int64_t cols);

// Numbers the blocks of the grid.y x grid.x grid so that `rows` (at least 2) consecutive block rows
// sweep the columns together (Kernel::rasterRows): blocks that run at once share operand rows and
// columns in L2 on large products. Only the order of blocks changes: the kernel computes the same.
TransformResult rasterBlocks(const Kernel& kernel, int64_t rows);

// Asks that `blocks` blocks fit on a multiprocessor at once (Kernel::residentBlocks): the kernel's
// launch bounds say so, and ptxas keeps each thread's registers within what they leave it (a
// kernel that would spill to stay within them is refused when compiled). Only how the GPU runs
// it changes.
TransformResult keepResident(const Kernel& kernel, int64_t blocks);

// Launches at most `blocks` blocks, each taking the tiles of the 2-D grid in turn
// (Kernel::persistentBlocks), so that a wgmma tile's producer warpgroup fills the next tile's
// stages while the last tile is written back. Only for wgmma tiles with a producer (not tf32x3's
// splitting one). With `pingPong`, the warpgroups that multiply are launched twice over, two
// groups that take alternate tiles (Kernel::pingPong): one writes its tile back while the other
// multiplies. Only how the GPU runs it changes.
TransformResult runPersistent(const Kernel& kernel, int64_t blocks, bool pingPong = false);

// Launches the blocks in clusters of `blocks` (2) along grid axis `axis` (0 = x, 1 = y), the
// blocks of a cluster taking neighbouring tiles along it (Kernel::clusterBlocks): each stage that
// is the same for both is copied by each block's producer half into both blocks at once (TMA
// multicast), so that L2 serves it once. Only for wgmma tiles whose producer copies by TMA (not
// tf32x3's, nor ping-pong groups). Only how the GPU runs it changes.
TransformResult clusterBlocks(const Kernel& kernel, int64_t blocks, int axis);

// Tensor cores as instruction selection: the register tile of loops i, j (after registerTile)
// whose reduction loop k runs right around its block loops becomes a warp's tile of mma.sync
// instructions of `shape` (16,8,16 for half and bfloat16 operands, 16,8,8 for tf32; fp32
// accumulators). Each iteration of the block loops becomes a warp (Kernel::warpTiles), i and j
// are cut into 16 x 8 tiles (loops `i_o`, `j_o` by the naming rule) and k into steps of the
// shape's k (`k_o`): k_t { blocks { i_t { j_t { i (Mma) { j { k { R += A * B } } } } } } }, and
// the register tile's other statements (initialisation, write-back) into the same tiles, done by
// each lane on its elements. Each accumulator is summed in the same order as before. With
// `prefetch`, the k steps (an unrolled loop of an even trip count, the work of an asynchronously
// pipelined loop) read their fragments an iteration ahead (Kernel::prefetched), the last step the
// next strip's first right after its barrier, so that the barrier and the loads hide behind the
// last step's multiplies.
TransformResult mmaTile(const Kernel& kernel, const std::vector<std::string>& loops, const std::vector<int64_t>& shape,
                        bool prefetch = false);
// The same on Hopper's warpgroup MMA (sm_90a): each iteration of the block loops becomes a
// warpgroup of 4 warps (Kernel::warpGroupTiles), the register tile's rows a multiple of 64 and
// its columns of `shape`'s N (a multiple of 64, at most 256), its accumulation tiles of 64 x N x
// 16 (`shape` 64,N,16) each one wgmma.mma_async of half or bfloat16 operands that it reads from
// shared buffers: A's rows 128 bytes of k, swizzled; B's rows of n swizzled in slabs of 64
// columns (`stage B at k_o swizzle slabs 64`), or 64 columns in all. For tf32 operands the tiles
// are 64 x N x 8 (`shape` 64,N,8) and B is read K-major as A (wgmma transposes no 32-bit
// operand): stored transposed, its rows 32 k (`stage B at k_o transposed swizzle`), which the
// stage copies through registers, neither TMA nor a cp.async of more than 4 bytes being able
// to transpose. Its other statements go into
// tiles of 64 x 8. `pending` (0 or 1) groups of wgmma stay in flight across iterations of the
// asynchronously pipelined loop around it (Kernel::wgmmaPending), which keeps at least 2 +
// pending buffers a stage. With `producer`, one more warpgroup of the block fills the stages
// while the others multiply (Kernel::wgmmaProducer): the stages' buffers then each hold a strip
// until the warpgroups that read it say they are done with it. `producer` is kWgmmaNoProducer,
// kWgmmaCpAsyncProducer, or kWgmmaTmaProducer: the producer's one thread fills each copy by
// the Tensor Memory Accelerator (Kernel::wgmmaTma).
// With the loops named M first where the register tile nests them the other way (`wgmma j,i,k
// 64,N,8` on a tile i { j }), the instruction's M runs along the tile's columns j and its A
// operand, B[k][j], comes from registers (Kernel::wgmmaRegisterA): tf32 only, B staged as it lies
// in swizzled slabs of 32 columns (`stage B at k_o swizzle slabs 32`), A[i][k] read K-major by
// descriptor (`stage A at k_o swizzle`), N a multiple of 8 up to 256. The tile's loops are
// interchanged (j { i }) and its register buffers transposed (C_r[j][i]), which changes only the
// order of independent iterations: each element is summed as before.
// With `tf32x3` (that form, a TMA producer, float operands), each float x is split into a high
// tf32 part h = rna(x) and a low one l = rna(x - h), and each product a * b is computed on the
// tensor cores as al * bh + ah * bl + ah * bh, the term al * bl dropped: each product within about
// 2^-21 of itself (fp32 rounds it within 2^-24), the sums in fp32, at a third of the tf32 rate
// (CUTLASS's 3xTF32). The threads split A's fragments in registers; the producer warpgroup splits
// each strip of the stage read by descriptor once it lands, the high parts in place and the low
// ones into a second copy (Kernel::wgmmaSplitBuffer). With `promote` P > 0 (`tf32x3 promote P`),
// the tensor cores sum P strips' products in a second set of accumulators, which are then added
// into the first in fp32 (Kernel::wgmmaPromote): the same sums, rounded as fp32 rounds them.
TransformResult wgmmaTile(const Kernel& kernel, const std::vector<std::string>& loops,
                          const std::vector<int64_t>& shape, int pending = kWgmmaPending,
                          int64_t producer = kWgmmaNoProducer, bool tf32x3 = false, int promote = 0);
// Runs the edges of `loops` apart on the GPU (Kernel::peeled, rule 7 of loop_tree.hpp): grid
// loops, whose whole blocks then run without the guards only an edge needs, and uniform serial
// loops outside the block loops (a reduction's strip loop), whose whole iterations run as a loop
// without them and the partial last one after it. The tree does not change. Refused for a loop
// with nothing to peel (its bounds constant and a multiple of its step apart), for a grid loop
// with no whole block, and for loops of other kinds.
TransformResult peel(const Kernel& kernel, const std::vector<std::string>& loops);

// Reads the shared operands of the unrolled loop `index` one iteration ahead on the GPU
// (Kernel::prefetched, rule 9 of loop_tree.hpp): two register copies of what an iteration reads
// from shared buffers, the next iteration's filled before this one's work; under a pipelined
// strip loop, the next strip's first right after the strip's barrier, before the last iteration's
// work. The tree does not change. Refused for a loop that is not unrolled, that copies,
// synchronises or allocates inside, that reads no shared buffer, and in tensor-core tiles.
TransformResult prefetch(const Kernel& kernel, const std::string& index);

// Rounds the register work of tiles up to whole tiles: a loop whose body only reads shared and
// register buffers and writes register buffers, with an upper bound a constant distance above
// its lower (a tile's strip: `i < min(i_o2 + 8, M)`), loses its other upper bounds, so that its
// last iterations past the edge run too. What they compute lands in register elements that no
// iteration inside the bounds uses (a thread's tile, indexed by the iteration's place in its
// strip) and is never stored: the kernel computes the same, and the GPU runs the tile's
// multiply-adds without guards. Every loop where this holds is rounded up; refused when there is
// none. Later steps see the rounded loops.
TransformResult roundUp(const Kernel& kernel);

// A 2-D convolution with 3 x 3 taps, stride 1 and dilation 1 (channels first or last, zero
// padding, ungrouped), as written, computed with Winograd's F(m x m, 3 x 3) (Kernel::winograd):
// `loops` are the output's rows and columns, `tiling` how the kernel is cut into blocks and
// threads (src/loop/winograd.hpp). The tree does not change; the CPU executor and the emitter
// read the tiling, and no step may follow. Refused, with the reason, for any other nest.
TransformResult winogradConvolution(const Kernel& kernel, const std::vector<std::string>& loops,
                                    const WinogradTiling& tiling);

// Two products back to back, as written (src/idioms/back_to_back/back_to_back_pair.hpp), computed
// by one kernel that keeps a block's hidden rows on chip (Kernel::backToBack): `loops` are the
// two products' row loops, `tile` how the kernel is cut into blocks and threads. The tree does
// not change; the CPU executor and the emitter read the tile, and no step may follow. Refused,
// with the reason, for any other body and for a tile that does not fit the pair.
TransformResult backToBackProducts(const Kernel& kernel, const std::vector<std::string>& loops,
                                   const BackToBackTile& tile);

}  // namespace cudaburg
