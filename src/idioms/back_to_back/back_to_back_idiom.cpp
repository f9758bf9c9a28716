#include "src/idioms/back_to_back/back_to_back_idiom.hpp"

#include <algorithm>
#include <cmath>

#include "src/idioms/back_to_back/back_to_back_tiling.hpp"
#include "src/idioms/step_text.hpp"
#include "src/search/cost_model.hpp"
#include "src/transform/transforms.hpp"

namespace cudaburg {

const char* BackToBackIdiom::usage() const {
  return "b2b ROW,ROW BLOCKROWS,BLOCKCOLS THREADROWS,THREADCOLS strip DEPTH";
}

// `I,R BM,BN TM,TN strip S`
bool BackToBackIdiom::parse(StepReader& in, std::vector<std::string>& loops, TileIdiom& out) const {
  std::vector<int64_t> block, thread;
  if (!in.names(loops)) return false;
  if (loops.size() != 2)
    return in.fail("b2b takes the two products' row loops, I,R, not " + std::to_string(loops.size()) + " loops");
  if (!in.numbers(block, 2, "the block's rows and columns") || !in.numbers(thread, 2, "the thread's rows and columns"))
    return false;
  BackToBackTile t{block[0], block[1], thread[0], thread[1], 0};
  if (!in.accept("strip")) return in.fail("expected `strip` and the reductions' strip depth");
  if (!in.number(t.depth, "the reductions' strip depth")) return false;
  out = t;
  return true;
}

std::string BackToBackIdiom::print(const std::vector<std::string>& loops, const TileIdiom& idiom) const {
  BackToBackTile t = holds(idiom) ? std::get<BackToBackTile>(idiom) : BackToBackTile{};
  return std::string(keyword()) + " " + joinList(loops) + " " + joinList(std::vector<int64_t>{t.rows, t.cols}) + " " +
         joinList(std::vector<int64_t>{t.threadRows, t.threadCols}) + " strip " + std::to_string(t.depth);
}

TransformResult BackToBackIdiom::apply(const Kernel& kernel, const std::vector<std::string>& loops,
                                       const TileIdiom& idiom) const {
  const BackToBackTile* t = backToBackOf(idiom);
  if (!t || loops.size() != 2) return TransformResult::refuse("the step has the wrong number of loops or factors");
  return backToBackProducts(kernel, loops, *t);
}

// On b2b or not; its tiles are the candidate's own decisions.
std::vector<int64_t> BackToBackIdiom::decisions(const TileIdiom& idiom) const { return {holds(idiom) ? 1 : 0}; }

// Both products' multiply-adds, issued as the register tiles' reuse allows; the operands each
// block reads through L2 (its rows of X, all of W1 and W2) and what device memory holds once
// (X, W1, W2 read; H and Y written: H is never read back); a barrier a strip; a grid of M / BM
// blocks in waves of what fits on the multiprocessors; one launch.
std::optional<Estimate> BackToBackIdiom::estimate(const CandidateShape& s, const GpuModel& gpu) const {
  const BackToBackTile* tile = backToBackOf(s.idiom);
  if (!tile) return std::nullopt;
  Estimate e;
  BackToBackTiling t{*tile, s.hidden};
  const double m = static_cast<double>(s.rows), n = static_cast<double>(s.cols);
  const double d = static_cast<double>(s.reduction), f = static_cast<double>(s.hidden);
  e.threads = static_cast<int>(t.threads());
  e.registers = static_cast<int>(std::min<int64_t>(t.registers(), gpu.target.maxRegistersPerThread));
  e.sharedBytes = t.sharedBytes();
  if (e.sharedBytes > gpu.target.sharedPerBlock) {
    e.infeasible = "a block's rows of H and strips take " + std::to_string(e.sharedBytes) +
                   " bytes of shared memory, more than a block may have";
    return e;
  }
  int64_t perSm = std::min<int64_t>(gpu.target.maxBlocksPerSm,
                                    blocksByRegisters(e.threads, e.registers, gpu.target.registersPerSm));
  perSm = std::min<int64_t>(perSm, gpu.target.sharedPerSm / (e.sharedBytes + 1024));
  perSm = std::min<int64_t>(perSm, gpu.target.maxThreadsPerSm / e.threads);
  if (perSm < 1) {
    e.infeasible = "no block fits on a multiprocessor";
    return e;
  }
  e.blocksPerSm = perSm;
  e.occupancy = static_cast<double>(perSm * e.threads) / gpu.target.maxThreadsPerSm;

  auto issue = [](double a, double b) { return std::min(1.0, a * b / (a + b) / 2.5); };
  const double tm = static_cast<double>(tile->threadRows);
  double operations = m * f * d / issue(tm, static_cast<double>(t.hiddenCols())) +
                      m * n * f / issue(tm, static_cast<double>(tile->threadCols));
  double latency = std::min(1.0, 0.35 + e.occupancy);
  double computeNs = 2 * operations / (gpu.fp32Tflops * 1e3 * latency);
  const double blocks = m / static_cast<double>(tile->rows);
  double l2Bytes = blocks * (static_cast<double>(tile->rows) * d + d * f + f * n) * 4;
  double memoryNs = std::max(l2Bytes / gpu.l2GBps, (m * d + d * f + f * n + m * f + m * n) * 4 / gpu.memoryGBps);
  double slots = static_cast<double>(perSm) * gpu.multiprocessors;
  double waves = std::ceil(blocks / slots);
  double waveEfficiency = blocks / (waves * slots);
  double strips = (d + n / static_cast<double>(tile->cols) * f) / static_cast<double>(tile->depth);
  double syncNs = strips * 2 * 20.0 * waves;
  e.ns = (std::max(computeNs, memoryNs) + kImperfectOverlap * std::min(computeNs, memoryNs)) / waveEfficiency + syncNs +
         gpu.launchMicroseconds * 1e3;
  return e;
}

}  // namespace cudaburg
