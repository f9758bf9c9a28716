#include "src/idioms/back_to_back/back_to_back_tiling.hpp"

#include <algorithm>

namespace cudaburg {

namespace {

std::string n(int64_t v) { return std::to_string(v); }

}  // namespace

int64_t BackToBackTiling::registers() const {
  auto inFlight = [&](int64_t floats) { return 4 * ((floats / 4 + threads() - 1) / threads()); };
  int64_t first = tile.threadRows * hiddenCols() + inFlight(tile.rows * tile.depth) + inFlight(tile.depth * hidden);
  int64_t second = tile.threadRows * tile.threadCols + inFlight(tile.depth * tile.cols);
  return std::max(first, second) + tile.threadRows + std::max(hiddenCols(), tile.threadCols) + 32;
}

std::string BackToBackTiling::problem(const BackToBackPair& pair) const {
  const BackToBackTile& t = tile;
  if (t.rows < 1 || t.cols < 1 || t.threadRows < 1 || t.threadCols < 1 || t.depth < 1)
    return "the tile's sizes must be positive";
  if (t.rows % t.threadRows || t.cols % t.threadCols)
    return "the block's " + n(t.rows) + " x " + n(t.cols) + " is no multiple of the thread's " + n(t.threadRows) +
           " x " + n(t.threadCols);
  if (pair.rows % t.rows) return "the " + n(pair.rows) + " rows are no multiple of the block's " + n(t.rows);
  if (pair.cols % t.cols)
    return "the second product's " + n(pair.cols) + " columns are no multiple of the block's " + n(t.cols);
  if (threads() % 32 || threads() > 1024)
    return "a block of " + n(threads()) + " threads is no whole number of warps up to 1024";
  if (hidden % threadColGroups())
    return "the hidden width " + n(hidden) + " is no multiple of the block's " + n(threadColGroups()) +
           " columns of threads";
  if (t.threadRows * hiddenCols() > kMaxBackToBackSums)
    return "a thread would hold " + n(t.threadRows) + " x " + n(hiddenCols()) + " hidden sums, more than " +
           n(kMaxBackToBackSums);
  if (pair.inner % t.depth || pair.hidden % t.depth)
    return "the strip of " + n(t.depth) + " does not divide both the first reduction's " + n(pair.inner) +
           " and the hidden width " + n(pair.hidden);
  if (t.depth % 4 || pair.hidden % 4 || t.cols % 4 || pair.first.lda % 4 || pair.first.ldb % 4 || pair.second.ldb % 4)
    return "the strips are copied 4 floats at a time: the strip, the hidden width, the block's columns and the "
           "rows of " +
           pair.first.a + ", " + pair.first.b + " and " + pair.second.b + " must be multiples of 4";
  return "";
}

}  // namespace cudaburg
