#include "src/exec/back_to_back_exec.hpp"

#include "src/exec/executor.hpp"
#include "src/idioms/back_to_back/back_to_back_tiling.hpp"

namespace cudaburg {

namespace {

std::vector<double>& buffer(Buffers& buffers, const Kernel& kernel, const std::string& name) {
  const Array* a = kernel.findParam(name);
  auto it = buffers.data.find(name);
  if (!a || it == buffers.data.end() || int64_t(it->second.size()) != a->elements())
    throw ExecutionError("no buffer of the right size for parameter " + name);
  return it->second;
}

// The nest's epilogue over the sums its product stored, where it has one.
void applyEpilogue(const NestEpilogue& nest, Buffers& buffers) {
  if (nest.epilogue.statements.empty()) return;
  Kernel epilogue = nest.epilogueNest;
  epilogue.tile = SimtTile{};
  execute(epilogue, buffers);
}

}  // namespace

void executeBackToBack(const Kernel& kernel, Buffers& buffers) {
  std::string why;
  auto pair = recognizeBackToBack(kernel, why);
  if (!pair || !kernel.backToBack()) throw ExecutionError("kernel " + kernel.name + " is not back to back: " + why);
  const BackToBackTile& t = *kernel.backToBack();
  if (std::string problem = BackToBackTiling{t, pair->hidden}.problem(*pair); !problem.empty())
    throw ExecutionError("kernel " + kernel.name + ": " + problem);
  const BackToBackProduct &p1 = pair->first, &p2 = pair->second;
  const std::vector<double>& x = buffer(buffers, kernel, p1.a);
  const std::vector<double>& w1 = buffer(buffers, kernel, p1.b);
  const std::vector<double>& w2 = buffer(buffers, kernel, p2.b);
  std::vector<double>& h = buffer(buffers, kernel, p1.out);
  std::vector<double>& y = buffer(buffers, kernel, p2.out);
  for (int64_t r = 0; r < pair->rows; ++r)
    for (int64_t f = 0; f < pair->hidden; ++f) {
      float sum = 0.0f;
      for (int64_t d = 0; d < pair->inner; ++d) sum += float(x[r * p1.lda + d]) * float(w1[d * p1.ldb + f]);
      h[r * p1.ldc + f] = sum;
    }
  applyEpilogue(p1.nest, buffers);
  std::vector<float> tile(size_t(t.rows * pair->hidden));  // the block's rows of H, on chip
  for (int64_t row0 = 0; row0 < pair->rows; row0 += t.rows) {
    for (int64_t r = 0; r < t.rows; ++r)
      for (int64_t f = 0; f < pair->hidden; ++f) tile[r * pair->hidden + f] = float(h[(row0 + r) * p1.ldc + f]);
    for (int64_t c0 = 0; c0 < pair->cols; c0 += t.cols)
      for (int64_t r = 0; r < t.rows; ++r)
        for (int64_t c = c0; c < c0 + t.cols; ++c) {
          float sum = 0.0f;
          for (int64_t e = 0; e < pair->hidden; ++e) sum += tile[r * pair->hidden + e] * float(w2[e * p2.ldb + c]);
          y[(row0 + r) * p2.ldc + c] = sum;
        }
  }
  applyEpilogue(p2.nest, buffers);
}

}  // namespace cudaburg
