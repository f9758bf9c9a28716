#include "src/idioms/winograd/winograd_idiom.hpp"

#include <algorithm>
#include <cmath>

#include "src/idioms/step_text.hpp"
#include "src/search/cost_model.hpp"
#include "src/transform/transforms.hpp"

namespace cudaburg {

namespace {

// Operations of L X L^T for L rows x cols (row major) and X cols x cols, one a nonzero term:
// each of the rows x cols elements of L X takes a row of L's nonzeros, each of the rows x rows
// results likewise.
double sandwichOps(const std::vector<double>& l, int rows, int cols) {
  double nonzeros = 0;
  for (double v : l) nonzeros += v != 0;
  return nonzeros * cols + nonzeros * rows;
}

}  // namespace

const char* WinogradIdiom::usage() const {
  return "winograd ROWS,COLS M [block TILES,FILTERS,CHANNELS] [thread TILES,FILTERS,POINTS] [prefetch]";
}

// `OH,OW M [block T,K,C] [thread T,K,P] [prefetch]`
bool WinogradIdiom::parse(StepReader& in, std::vector<std::string>& loops, TileIdiom& out) const {
  int64_t m = 0;
  if (!in.names(loops) || !in.number(m, "the output tile's side (2 or 4)")) return false;
  WinogradTiling t;
  t.m = m;
  std::vector<int64_t> block, thread;
  if (in.accept("block") && !in.numbers(block, 3, "`block` takes the block's tiles, filters and channels"))
    return false;
  if (in.accept("thread") && !in.numbers(thread, 3, "`thread` takes the thread's tiles, filters and points"))
    return false;
  t.prefetch = in.accept("prefetch");
  if (!block.empty()) t.tiles = block[0], t.filters = block[1], t.channels = block[2];
  if (!thread.empty()) t.threadTiles = thread[0], t.threadFilters = thread[1], t.points = thread[2];
  out = WinogradTile{t};
  return true;
}

std::string WinogradIdiom::print(const std::vector<std::string>& loops, const TileIdiom& idiom) const {
  WinogradTiling t = holds(idiom) ? std::get<WinogradTile>(idiom).tiling : WinogradTiling{};
  return std::string(keyword()) + " " + joinList(loops) + " " + t.str();
}

TransformResult WinogradIdiom::apply(const Kernel& kernel, const std::vector<std::string>& loops,
                                     const TileIdiom& idiom) const {
  const WinogradTile* t = winogradOf(idiom);
  if (!t || loops.size() != 2) return TransformResult::refuse("the step has the wrong number of loops or factors");
  return winogradConvolution(kernel, loops, t->tiling);
}

// The output tile's side and the points a thread takes (0 off Winograd); the block and thread
// tiles are the candidate's own decisions.
std::vector<int64_t> WinogradIdiom::decisions(const TileIdiom& idiom) const {
  const WinogradTile* t = winogradOf(idiom);
  if (!t) return {0, 0};
  return {t->tiling.m, t->tiling.points};
}

// A Winograd convolution: the alpha^2 GEMMs' multiply-adds, which
// the register tile's reuse issues as a matmul's do, and the transforms beside them (every
// nonzero of the transform matrices an operation, with the loads and stores around them); the
// patches read through L2 once for each block of filters, the filters once for each block of
// tiles. Residency, waves and a barrier a strip as for staged matmuls.
std::optional<Estimate> WinogradIdiom::estimate(const CandidateShape& s, const GpuModel& gpu) const {
  const WinogradTile* tile = winogradOf(s.idiom);
  if (!tile) return std::nullopt;
  Estimate e;
  const WinogradTiling& t = tile->tiling;
  if (std::string why = t.problem(); !why.empty()) {
    e.infeasible = why;
    return e;
  }
  const WinogradMatrices& w = winogradMatrices(static_cast<int>(t.m));
  const double points = static_cast<double>(t.alpha() * t.alpha());
  e.threads = static_cast<int>(t.threads());
  e.registers = static_cast<int>(t.registers());
  e.sharedBytes = 2 * t.stripFloats() * 4;
  // A block of more warps than the partitions hold evenly leaves each thread fewer registers
  // (288 threads: 168); a tiling that needs more spills.
  int64_t byRegisters = blocksByRegisters(e.threads, e.registers, gpu.target.registersPerSm);
  if (byRegisters < 1) {
    e.infeasible = "a thread of " + std::to_string(e.threads) + " needs more registers than it may have";
    return e;
  }
  int64_t warpsPerBlock = ceilDiv(e.threads, 32);
  int64_t perSm = std::min<int64_t>(gpu.target.maxBlocksPerSm, byRegisters);
  perSm = std::min<int64_t>(perSm, gpu.target.sharedPerSm / (e.sharedBytes + 1024));
  if (perSm < 1) {
    e.infeasible = "no block fits on a multiprocessor";
    return e;
  }
  e.blocksPerSm = perSm;
  e.occupancy = static_cast<double>(perSm * warpsPerBlock * 32) / gpu.target.maxThreadsPerSm;

  const double tileBlocks = static_cast<double>(ceilDiv(s.rows, t.tiles));
  const double filterBlocks = static_cast<double>(ceilDiv(s.cols, t.filters));
  const double blocks = tileBlocks * filterBlocks;
  const double strips = static_cast<double>(ceilDiv(s.reduction, t.channels));
  const double tiles = static_cast<double>(t.tiles), filters = static_cast<double>(t.filters);
  const double channels = static_cast<double>(t.channels);
  double multiplyAdds = blocks * strips * points * channels * tiles * filters;
  double reuse =
      static_cast<double>(t.threadTiles * t.threadFilters) / static_cast<double>(t.threadTiles + t.threadFilters);
  double issue = std::min(1.0, reuse / 2.5);
  double perStrip = tiles * channels * (sandwichOps(w.bt, w.alpha, w.alpha) + 2 * points) +
                    filters * channels * (sandwichOps(w.g, w.alpha, 3) + 9 + points);
  double perBlock = tiles * filters * (points + sandwichOps(w.at, w.m, w.alpha) + w.m * w.m);
  double operations = multiplyAdds / issue + blocks * (strips * perStrip + perBlock);
  double latency = std::min(1.0, (s.pipelined ? 0.6 : 0.35) + e.occupancy);
  double computeNs = 2 * operations / (gpu.fp32Tflops * 1e3 * latency);

  double patchBytes = static_cast<double>(s.rows) * points * static_cast<double>(s.reduction) * 4 * filterBlocks;
  double filterBytes = static_cast<double>(s.cols) * static_cast<double>(s.reduction) * 9 * 4 * tileBlocks;
  double memoryNs = (patchBytes + filterBytes) / gpu.l2GBps;
  double outputNs = static_cast<double>(s.rows) * static_cast<double>(s.cols) * w.m * w.m * 4 / gpu.memoryGBps;

  double slots = static_cast<double>(perSm) * gpu.multiprocessors;
  double waves = std::ceil(blocks / slots);
  double waveEfficiency = blocks / (waves * slots);
  double syncNs = strips * 20.0 * waves;
  e.ns = (std::max(computeNs, memoryNs) + kImperfectOverlap * std::min(computeNs, memoryNs)) / waveEfficiency +
         outputNs + syncNs + gpu.launchMicroseconds * 1e3;
  return e;
}

}  // namespace cudaburg
