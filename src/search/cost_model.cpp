#include "src/search/cost_model.hpp"

#include <algorithm>
#include <cmath>

#include "src/idioms/registry.hpp"
#include "src/loop/loop_tree.hpp"

namespace cudaburg {

namespace {

// Registers a thread may give to the next strip of a pipelined stage before it spills.
constexpr int64_t kMaxCarriedRegisters = 32;

// ptxas gives a warp its registers 256 at a time: a thread's count rounds up to 8.
constexpr int64_t kRegisterUnit = 8;

// Unbounded, ptxas hoists the unrolled strip's shared reads ahead of their multiply-adds and keeps
// more registers than the model's tally: about a quarter of the accumulators more (the median
// over the H100 databases: 8x8 tiles +16 to +21, 4x4 +5 to +13).
constexpr double kHoistedPerAccumulator = 0.25;

// A thread's multiply-adds at which its shared reads stop costing issue slots: reuse (tm tn / (tm +
// tn)) of 3, where 8x8 tiles ran 5 to 10% faster than 8x4 ones and 4x4 ones 30% slower.
constexpr double kSaturatingReuse = 3.0;

// A barrier stalls its block until every warp arrives: what shows is this times the barrier's
// cost, divided among the blocks resident to issue meanwhile.
constexpr double kLoneBarrierFactor = 3.0;

// A cluster's blocks wait for each other at every strip (a buffer is refilled once both are done
// with it): launched in clusters without sharing a byte, 128 x 256 half tiles ran 9% longer on an
// H200 (bench/RESULTS.md); what their shared copies save must beat that.
constexpr double kClusterLockstep = 0.09;

// How long a strip's asynchronous copy takes to land, loaded (ns): the strips a pipeline keeps on
// the way bound the operand traffic it moves (Little's law). A long reduction onto a row of 64
// tiles (half 8192x128x8192, 128 x 64 tiles, 24 KB a strip) ran 0.060 ms with 3 strips in flight
// and 0.050 with 5 on an H200 (bench/RESULTS.md): about 1.5 us.
constexpr double kCopyLatencyNs = 1500.0;

// How much of an inner-loop bounds check's instructions show in the time (the rest hides behind
// the multiply-adds' latency).
constexpr double kGuardWeight = 0.25;

// Saturating: a huge tile is infeasible, not a wrapped small one.
int64_t product(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

}  // namespace

int64_t blockThreads(const CandidateShape& s) {
  // Peeled, the register work is rounded up to whole tiles.
  int64_t threadsX = ceilDiv(s.peeled ? s.blockCols : std::min(s.blockCols, s.cols), s.threadCols);
  int64_t threadsY = ceilDiv(s.peeled ? s.blockRows : std::min(s.blockRows, s.rows), s.threadRows);
  const WgmmaTile* wgmma = wgmmaOf(s.idiom);
  int64_t lanes = wgmma ? kWarpGroupThreads : onTensorCores(s) ? 32 : 1;
  int64_t threads = product(product(threadsX, threadsY), lanes);
  if (s.pingPong) threads = product(threads, 2);  // two groups of the warpgroups that multiply
  return wgmma && threads < INT64_MAX ? threads + producerThreads(*wgmma) : threads;
}

// ptxas keeps a warpgroup's accumulators, fragments and addresses in about 40 registers more than
// its share of the accumulators; a producer's threads that copy tf32x3's stages by cp.async about
// 16 more for their unrolled copies' addresses and bounds (ptxas spilled a 128 x 128 tf32x3 tile
// at 127 x 4099 x 513 that TMA's copies let fit).
int64_t wgmmaRegisters(const CandidateShape& s) {
  const WgmmaTile* t = wgmmaOf(s.idiom);
  int64_t accumulators = product(s.threadRows, s.threadCols) / kWarpGroupThreads * (t && t->promote > 0 ? 2 : 1);
  return accumulators + (t && t->tf32x3 && t->producer == WgmmaProducer::CpAsync ? 56 : 40);
}

Estimate estimate(const CandidateShape& s, const GpuModel& gpu) {
  if (std::optional<Estimate> own = idiomUnit(s.idiom).estimate(s, gpu)) return *own;
  // The tile model: the CUDA cores', mma.sync's and wgmma's tiles differ in what follows.
  const bool tensorCores = onTensorCores(s), warpGroups = onWarpGroups(s);
  const WgmmaTile wgmma = warpGroups ? *wgmmaOf(s.idiom) : WgmmaTile{};
  Estimate e;
  // Threads, registers and shared bytes are counted in 64 bits (saturating) and checked against
  // the limits before they are narrowed: a huge tile is infeasible, not a wrapped small one.
  int64_t threads = blockThreads(s);
  // Accumulators, one operand column and row, addresses and loop state (tensor cores: a lane's
  // share of the warp's accumulators and of one k step's fragments).
  int64_t registers = product(s.threadRows, s.threadCols);
  if (warpGroups)
    registers = wgmmaRegisters(s);
  else if (tensorCores)
    registers = registers / 32 + s.threadRows / 4 + s.threadCols / 4 + 24;
  else
    registers = registers > INT32_MAX ? INT64_MAX : registers + s.threadRows + s.threadCols + 24;
  // A strip's gathers through a table are copied in one unrolled run, each element's offset and
  // tap looked up ahead of its copy: a register for each element a thread copies.
  if (s.tabled && registers < INT64_MAX) registers += ceilDiv(s.stagedFootprint, std::max<int64_t>(threads, 1));
  e.sharedBytes = s.staged ? product(s.stagedFootprint, s.elementBytes) + s.stagedPaddingBytes : 0;
  if (threads > gpu.target.maxThreadsPerBlock)
    e.infeasible = "more than " + std::to_string(gpu.target.maxThreadsPerBlock) + " threads a block";
  else if (registers > gpu.target.maxRegistersPerThread)
    e.infeasible = "a register tile too large for one thread";
  e.threads = static_cast<int>(std::min<int64_t>(threads, INT32_MAX));
  e.registers = static_cast<int>(std::min<int64_t>(registers, INT32_MAX));
  if (!e.infeasible.empty()) return e;
  if (s.pipelined) {  // two buffers a stage, and the next strip in registers meanwhile
    e.sharedBytes = product(e.sharedBytes, 2);
    int64_t carried = ceilDiv(s.stagedFootprint, std::max(1, e.threads));
    e.registers = static_cast<int>(std::min<int64_t>(e.registers + carried, INT32_MAX));
    if (carried > kMaxCarriedRegisters) e.infeasible = "the next strip would not fit in a thread's registers";
  }
  // Prefetched: a second copy of a strip element's operands (a thread's rows and columns; a lane's
  // share of a warp's fragments).
  int64_t ahead = tensorCores ? s.threadRows / 4 + s.threadCols / 4 : s.threadRows + s.threadCols;
  if (s.prefetched) e.registers = static_cast<int>(std::min<int64_t>(e.registers + ahead, INT32_MAX));
  if (s.asyncCopies) e.sharedBytes = product(e.sharedBytes, s.asyncStages);  // the copies in flight hold no registers
  if (warpGroups && e.sharedBytes < INT64_MAX)
    e.sharedBytes += producerBarrierBytes(wgmma, s.asyncStages, s.pingPong ? 2 : 1) +
                     rowSliceBytes(wgmma, threads - producerThreads(wgmma));
  if (e.registers > gpu.target.maxRegistersPerThread)
    e.infeasible = "a register tile too large for one thread";
  else if (e.sharedBytes > gpu.target.sharedPerBlock)
    e.infeasible = "more shared memory than a block may have";
  if (!e.infeasible.empty()) return e;

  // Residency: the tightest of threads, registers, shared memory and the block limit.
  int64_t warpsPerBlock = ceilDiv(e.threads, 32);
  auto resident = [&](int64_t registers) {
    int64_t blocks = gpu.target.maxBlocksPerSm;
    blocks = std::min<int64_t>(blocks, gpu.target.maxThreadsPerSm / (warpsPerBlock * 32));
    blocks = std::min<int64_t>(blocks, gpu.target.registersPerSm / (registers * warpsPerBlock * 32));
    if (e.sharedBytes > 0) blocks = std::min<int64_t>(blocks, gpu.target.sharedPerSm / e.sharedBytes);
    return blocks;
  };
  e.boundedBlocksPerSm = resident(e.registers);
  // What ptxas gives a thread of CUDA cores (tensor-core fragments are counted as they lie):
  // hoisted reads beside the tally, up to what the launch bounds leave a thread: the block's
  // threads always, and `residentBlocks` blocks where asked (never below the tally: the rule asks
  // for no more blocks than that allows).
  if (!tensorCores) {
    // (Prefetched, the tally holds the reads ahead already.)
    double hoisted = s.prefetched ? 0.0 : kHoistedPerAccumulator * static_cast<double>(s.threadRows * s.threadCols);
    int64_t given = e.registers + static_cast<int64_t>(hoisted);
    given = ceilDiv(given, kRegisterUnit) * kRegisterUnit;
    int64_t bound = gpu.target.registersPerSm / (std::max<int64_t>(1, s.residentBlocks) * warpsPerBlock * 32) /
                    kRegisterUnit * kRegisterUnit;
    given = std::max<int64_t>(e.registers,
                              std::min({given, bound, static_cast<int64_t>(gpu.target.maxRegistersPerThread)}));
    e.registers = static_cast<int>(given);
  }
  int64_t perSm = resident(e.registers);
  if (perSm < 1) {
    e.infeasible = "no block fits on a multiprocessor";
    return e;
  }
  e.blocksPerSm = perSm;
  e.occupancy = static_cast<double>(perSm * warpsPerBlock * 32) / gpu.target.maxThreadsPerSm;

  // Work, counting what tails waste: a block computes its whole tile, guarded or not.
  int64_t tilesY = ceilDiv(s.rows, s.blockRows), tilesX = ceilDiv(s.cols, s.blockCols);
  double blocks = static_cast<double>(tilesY) * tilesX * s.outer * s.split;  // may pass 64 bits
  double paddedOutputs = static_cast<double>(tilesY * s.blockRows) * (tilesX * s.blockCols) * s.outer * s.serial;
  // Each multiprocessor runs its share of the blocks, as many at once as fit: on a grid too short
  // to fill every slot, fewer, whose warps then hide less latency (a lone block still has the
  // multiprocessor to itself).
  double smBlocks = std::ceil(blocks / gpu.multiprocessors);
  double residentNow = std::min(static_cast<double>(perSm), smBlocks);
  double runOccupancy = residentNow * warpsPerBlock * 32 / gpu.target.maxThreadsPerSm;
  // `reduction` is one part's length: a split reduction's parts together do the whole of it.
  double flops = 2.0 * paddedOutputs * s.reduction * s.split;
  // A gathered stage finds each copy's source by index arithmetic (an issue slot an operation,
  // as a multiply-add takes): the block's footprint once a strip, `gatherWidth` elements a copy.
  // Under tensor cores that arithmetic runs on the CUDA cores beside the mma.sync instructions,
  // at their rate, not the tensor cores'.
  double gatherFlops = 0;
  if (s.staged && s.gatherOps > 0)
    gatherFlops =
        2.0 * blocks * s.serial * static_cast<double>(ceilDiv(s.reduction, std::max<int64_t>(s.stageDepth, 1))) *
        static_cast<double>(s.stagedFootprint) * static_cast<double>(s.gatherOps) / std::max(1, s.gatherWidth);
  if (!tensorCores) flops += gatherFlops;

  // Issue efficiency: a thread's register tile turns (rows + cols) operand reads into
  // rows * cols multiply-adds; small tiles are bound by those reads, and few warps hide no latency.
  double reuse = static_cast<double>(s.threadRows * s.threadCols) / (s.threadRows + s.threadCols);
  double issue = std::min(1.0, reuse / (s.staged ? kSaturatingReuse : 4.0));
  // Shared-memory reads that collide in banks cost issue slots: a stage read down its columns as it
  // lies (not transposed), or a thread's run of 8 or more columns read where it is neither interleaved
  // nor spread.
  // A thread tile wider than tall spreads a warp's accesses over more rows. (Factors from the
  // matmul measurements in tests/data: about 0.93x transposed, 0.87x interleaved, 0.7x for 8x4
  // against 4x8 on large products.) Tensor cores' warps read their fragments by ldmatrix from
  // padded or swizzled stages, without conflicts: the shared-memory term below counts them.
  bool threadReads = s.staged && !tensorCores;
  if (threadReads && !s.transposed) issue /= 1.07;
  if (threadReads && s.threadCols >= 8 && !s.interleaved && !s.spread) issue /= 1.1;
  if (!tensorCores && s.threadCols > s.threadRows)
    issue /= 1.0 + 0.1 * std::log2(double(s.threadCols) / double(s.threadRows));
  // A warp reads the staged rows and columns of the threads it covers each step: fewer 128-byte
  // shared-memory wavefronts when it covers a squarer patch (Kernel::laneRows); of two patches
  // that read as many, the taller ran as fast or faster on every kernel of
  // bench/cases/matmul-lanes.txt. (The factor ranks the databases of tests/data best among 0 to 0.06.)
  if (threadReads) {
    int64_t threadsX = std::max<int64_t>(1, s.blockCols / s.threadCols);
    int64_t warpCols = s.laneRows > 0 ? 32 / s.laneRows : std::min<int64_t>(32, threadsX);
    int64_t warpRows = 32 / warpCols;
    int64_t wavefronts =
        ceilDiv(warpRows * s.threadRows * s.elementBytes, 128) + ceilDiv(warpCols * s.threadCols * s.elementBytes, 128);
    issue /= 1.0 + 0.03 * static_cast<double>(wavefronts);
    if (warpRows > warpCols) issue *= 1.005;
  }
  // Bounds checks in the inner loop, where a tile or strip is partial and the edges are not run
  // apart: every block runs them, a test and a branch each, and the shared-memory reads they
  // guard are no longer merged into 128-bit ones. Per multiply-add: a column's check guards one,
  // a row's a thread's run of columns, the reduction's a whole register tile. (Counted off the
  // emitted PTX of matmul 127x4099x513: 4.4 instructions beside each multiply-add with all three.)
  // Peeled, whole tiles and strips run none; edge tiles' register work is rounded up where it
  // reads staged operands, and keeps its checks where it reads memory directly.
  double guardedShare = 1.0;  // of the blocks
  if (s.peeled) {
    double whole = static_cast<double>(s.rows / s.blockRows) * static_cast<double>(s.cols / s.blockCols);
    guardedShare = s.staged ? 0.0
                            : 1.0 - whole / (static_cast<double>(ceilDiv(s.rows, s.blockRows)) *
                                             static_cast<double>(ceilDiv(s.cols, s.blockCols)));
  }
  double guards = 0;
  if (s.cols % s.blockCols != 0) guards += 2.5;
  if (s.rows % s.blockRows != 0) guards += 1.0 + 3.0 / static_cast<double>(s.threadCols);
  if (s.partialStrip && !s.peeled) guards += 2.0 / static_cast<double>(s.threadRows * s.threadCols);
  issue /= 1.0 + kGuardWeight * guards * guardedShare;
  // Smaller effects that still order candidates the terms above tie: past saturation, more reuse
  // still saves shared-memory reads; block tiles taller than wide ran a little faster.
  issue *= 1.0 + 0.02 * std::log2(std::max(reuse, 1.0));
  if (s.blockCols > s.blockRows) issue /= 1.0 + 0.02 * std::log2(double(s.blockCols) / double(s.blockRows));
  // Latency hidden: by the warps resident, and by the strips a pipeline keeps in flight (a
  // third asynchronous buffer hides a strip's load more). wgmma's fourth buffer is the last that
  // hides latency; more pay only where the copies on the way bound the traffic (below).
  const int64_t hidingBuffers = warpGroups ? 1 : 2;
  double inFlight = s.asyncCopies ? 0.6 + 0.1 * std::min<int64_t>(s.asyncStages - 3, hidingBuffers)
                    : s.pipelined ? 0.6
                                  : 0.35;
  // A group of wgmma left in flight across strips hides the next strip's wait as well.
  if (warpGroups) inFlight += 0.2;
  // A thread's register tile of CUDA-core multiply-adds hides much of the latency itself: its
  // warps count half as much as tensor cores' do.
  // Below two warps a scheduler (of four), a multiprocessor issues from too few to keep busy.
  double warpsPerScheduler = residentNow * static_cast<double>(warpsPerBlock) / 4;
  double latency =
      std::min(1.0, inFlight + (tensorCores ? 1.0 : 0.5) * runOccupancy) * std::min(1.0, warpsPerScheduler / 2);
  // tf32 runs at half the 16-bit types' rate, on wgmma as on mma.sync.
  const double tf32Share = s.elementBytes == 4 ? 0.5 : 1.0;
  double rate = warpGroups ? gpu.wgmmaTflops * tf32Share : tensorCores ? gpu.mmaTflops * tf32Share : gpu.fp32Tflops;
  // tf32x3 computes each product as three, each reading its operands again.
  const double passes = wgmma.tf32x3 ? 3.0 : 1.0;
  rate /= passes;
  double computeNs = flops / (rate * 1e3 * issue * latency);
  // Promoting tf32x3's partial sums waits for the strip's wgmma to finish and adds them in fp32:
  // a share of a strip's work each time.
  if (wgmma.promote > 0) computeNs *= 1.0 + 0.15 / static_cast<double>(wgmma.promote);
  if (tensorCores) computeNs += gatherFlops / (gpu.fp32Tflops * 1e3 * latency);
  // A warp's tile reads its operands' fragments from shared memory each k step: (tm + tn) rows
  // of elements for tm x tn multiply-adds, which small warp tiles make the bound. A wgmma reads
  // its 64 rows of A and its N columns of B for 64 x N.
  // wgmma's reads of both operands and the copies into the stages share the shared memory's
  // bandwidth with little slack (about 32 flops a byte at N = 64 against the tensor cores' 32 a
  // clock): half of the lesser of the two shows.
  // With A from registers, M (64) runs along the columns and N is the warpgroup's rows.
  int64_t readRows = wgmma.registerA ? 64 : warpGroups ? std::min<int64_t>(s.threadRows, 64) : s.threadRows;
  int64_t readCols = wgmma.registerA ? s.threadRows : s.threadCols;
  if (tensorCores && s.staged) {
    double sharedNs = passes * flops / 2 * s.elementBytes * static_cast<double>(readRows + readCols) /
                      static_cast<double>(readRows * readCols) / gpu.sharedGBps;
    computeNs = std::max(computeNs, sharedNs) + (warpGroups ? 0.5 * std::min(computeNs, sharedNs) : 0.0);
  }

  // Operand traffic: each block reads its rows' and columns' operands once per reduction step.
  // A cluster's neighbours along the rows (columns) share the columns' (rows') operand.
  double operandBytes =
      paddedOutputs * s.reduction * s.split * s.elementBytes *
      (1.0 / static_cast<double>(s.blockCols * s.clusterCols) + 1.0 / static_cast<double>(s.blockRows * s.clusterRows));
  // Unstaged, every thread reads its own rows and columns: (threads x (tm + tn)) per step against
  // the block's (bm + bn), mostly from L2.
  double unstagedFactor = static_cast<double>(s.blockRows * s.blockCols * (s.threadRows + s.threadCols)) /
                          static_cast<double>(s.threadRows * s.threadCols * (s.blockRows + s.blockCols));
  // Tensor-core tiles read their staged operands at the rate of L2, which holds what the blocks of
  // a wave share: half 4096^3 in 128 x 128 tiles ran in 0.46 ms on an H100, where device memory
  // alone would allow 0.65 ms (bench/RESULTS.md).
  double stagedGBps = tensorCores ? gpu.l2GBps : gpu.memoryGBps;
  double memoryNs = s.staged ? operandBytes / stagedGBps : operandBytes * unstagedFactor / gpu.l2GBps;
  // wgmma reads so fast that the copies on the way can be the bound: every block resident keeps
  // all its buffers but the one in use in flight.
  if (warpGroups && s.asyncCopies && s.staged) {
    const double onTheWay =
        static_cast<double>(s.asyncStages - 1) * s.stagedFootprint * s.elementBytes * residentNow * gpu.multiprocessors;
    memoryNs = std::max(memoryNs, operandBytes / (onTheWay / kCopyLatencyNs));
  }
  // Blocks resident at once share what they read in L2: numbered `rows` block rows at a time (1:
  // row by row, as CUDA does), they cover that many rows by as many columns of tiles as make the
  // wave (all of them, past a group). What reaches device memory goes with the rows and columns
  // they cover.
  // (Counted at the registers' tally: whether rastering pays, and so which rasters the grammar
  // offers, does not hang on what ptxas adds.)
  if (s.rasterRows > 0 && s.staged) {
    double slots = static_cast<double>(e.boundedBlocksPerSm) * gpu.multiprocessors;
    auto covered = [&](double rows) {
      double cols = std::min(static_cast<double>(tilesX), std::ceil(slots / rows));
      return std::ceil(slots / cols) + cols;
    };
    memoryNs *= std::min(1.0, covered(static_cast<double>(std::min(s.rasterRows, tilesY))) / covered(1.0));
  }
  // A split reduction's parts each add their whole output tile atomically: a read, an add and a
  // write at L2 that contend with the other parts' (counted twice: the rank correlation on the
  // databases of tests/data is best between 1x and 4x). Combined in a workspace, each part writes
  // its tile there once and the last reads the others' back, without contention.
  double outputWrites = s.split == 1 ? 1.0 : s.workspaceSplit ? 2.0 * s.split : 6.0 * s.split;
  // Tensor cores write their fp32 accumulators whatever the operands' type.
  int outputBytes = tensorCores ? 4 : s.elementBytes;
  double outputNs = static_cast<double>(s.rows) * s.cols * s.outer * s.serial * outputBytes * outputWrites /
                    gpu.memoryGBps * (s.vectorized ? 0.9 : 1.0);  // 128-bit stores: fewer transactions
  // Persistent blocks write a tile back while their producer fills the next tile's stages (and,
  // ping-pong, while the other group multiplies): only each block's last write-back shows.
  if (s.persistentBlocks > 0) outputNs /= std::ceil(blocks / static_cast<double>(s.persistentBlocks));
  // The last part of each tile adds the others' sums up alone, at a multiprocessor's share of L2.
  if (s.workspaceSplit)
    outputNs += static_cast<double>(s.blockRows) * s.blockCols * (s.split - 1) * 4 / (gpu.l2GBps / gpu.multiprocessors);

  // Waves: the last one runs partly empty.
  double waves = std::ceil(smBlocks / residentNow);
  double waveEfficiency = blocks / (waves * residentNow * gpu.multiprocessors);
  // A barrier a strip; its wait, and the first shared reads after it, hidden where the strip's last
  // element's multiply-adds come after it (prefetched).
  double barrierNs = s.prefetched ? 10.0 : s.pipelined || s.asyncCopies ? 20.0 : 40.0;
  double syncNs = s.staged ? ceilDiv(s.reduction, std::max<int64_t>(s.stageDepth, 1)) * barrierNs * waves : 0;
  if (!tensorCores) {
    double sharing = std::min(static_cast<double>(perSm), std::ceil(blocks / gpu.multiprocessors));
    syncNs *= kLoneBarrierFactor / sharing;
  }
  // Arithmetic and operand traffic overlap, not perfectly: a tenth of the lesser shows.
  const double lockstep = s.clusterRows * s.clusterCols > 1 ? 1.0 + kClusterLockstep : 1.0;
  e.ns =
      lockstep * (std::max(computeNs, memoryNs) + kImperfectOverlap * std::min(computeNs, memoryNs)) / waveEfficiency +
      outputNs + syncNs + gpu.launchMicroseconds * 1e3;
  return e;
}

}  // namespace cudaburg
