#pragma once
// Two products back to back, as a kernel of two nests writes them (a transformer's MLP):
//   H[i][f] = e1(sum over d of X[i][d] * W1[d][f])    over parallel i, f
//   Y[r][c] = e2(sum over e of H[r][e] * W2[e][c])    over parallel r, c, e over all of H's row
// with e1, e2 element-wise epilogues (a bias, an activation: src/idioms/epilogue/). Row r of Y
// reads row r of H alone, so one block can compute a few rows of H, keep them on chip and
// multiply them by W2 at once (the b2b step), and one thread can compute a row of both (the FP64
// reference of such a kernel).
#include <cstdint>
#include <optional>
#include <string>

#include "src/idioms/write_back.hpp"
#include "src/loop/loop_tree.hpp"

namespace cudaburg {

// The widest hidden row the b2b step keeps on chip: a block's rows of H in shared memory beside
// its strips (256 floats a row: 16 rows take 16 KiB, 64 rows 64 KiB).
constexpr int64_t kMaxBackToBackHidden = 256;

// One of the two products: its nest (a kernel of its own), the product without its epilogue and
// the epilogue, the output's loop indices (rows, columns) and the reduction's.
struct BackToBackProduct {
  NestEpilogue nest;  // nest.bare's params: the arrays this nest reads or writes
  std::string a, b, out;
  int64_t lda = 0, ldb = 0, ldc = 0;  // their row strides (their last extents)
  std::string row, col, reduction;
};

struct BackToBackPair {
  BackToBackProduct first, second;  // first writes H (second.a), second reads it
  int64_t rows = 0;                 // M: rows of X, H and Y
  int64_t inner = 0;                // D: the first product's reduction
  int64_t hidden = 0;               // F: H's row, the second product's reduction
  int64_t cols = 0;                 // N: Y's row
};

// The pair `kernel`'s body is, or nullopt with the sentence saying why not in `why` ("the second
// nest reads H[c][e], not the rows the first writes", "the hidden width F = 512 is more than the
// 256 a block keeps on chip", ...). Only float arrays, row major as written.
std::optional<BackToBackPair> recognizeBackToBack(const Kernel& kernel, std::string& why);

// The pair as one nest a row: `parallel for i { serial for f {...}; serial for c {...} }`, the
// second product's row index renamed to the first's. Each iteration of i computes what the two
// nests compute for row i, so a thread a row runs it without waiting for other rows: the exact
// reference of the kernel, which the naive mapping can emit.
Kernel backToBackRowNest(const Kernel& kernel, const BackToBackPair& pair);

}  // namespace cudaburg
