#include "src/exec/winograd_exec.hpp"

#include "src/analysis/reference_shape.hpp"
#include "src/exec/executor.hpp"
#include "src/idioms/write_back.hpp"

namespace cudaburg {

namespace {

// L X L^T in fp32, for L `rows` x `cols` (row major) and X `cols` x `cols`.
std::vector<float> sandwich(const std::vector<double>& l, int rows, int cols, const std::vector<float>& x) {
  std::vector<float> lx(size_t(rows) * cols, 0.0f), out(size_t(rows) * rows, 0.0f);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      for (int p = 0; p < cols; ++p)
        if (l[i * cols + p] != 0) lx[i * cols + j] += float(l[i * cols + p]) * x[p * cols + j];
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < rows; ++j)
      for (int p = 0; p < cols; ++p)
        if (l[j * cols + p] != 0) out[i * rows + j] += lx[i * cols + p] * float(l[j * cols + p]);
  return out;
}

}  // namespace

void executeWinograd(const Kernel& kernel, Buffers& buffers) {
  auto split = splitNestEpilogue(kernel);
  auto conv = split ? recognizeConv(split->bare) : std::nullopt;
  if (!conv || !kernel.winograd()) throw ExecutionError("kernel " + kernel.name + " is no Winograd convolution");
  const WinogradMatrices& w = winogradMatrices(int(kernel.winograd()->m));
  const int m = w.m, alpha = w.alpha, points = alpha * alpha;
  const bool last = conv->layout == ConvShape::Layout::ChannelsLast;
  const int64_t n = conv->n, c = conv->c, k = conv->k, h = conv->in[0], wd = conv->in[1];
  const int64_t oh = conv->out[0], ow = conv->out[1], padY = conv->pad[0], padX = conv->pad[1];
  for (const Array& a : kernel.params) {
    auto it = buffers.data.find(a.name);
    if (it == buffers.data.end() || int64_t(it->second.size()) != a.elements())
      throw ExecutionError("no buffer of " + std::to_string(a.elements()) + " elements for parameter " + a.name);
  }
  const std::vector<double>& in = buffers.data.at(conv->input);
  const std::vector<double>& wt = buffers.data.at(conv->weight);
  std::vector<double>& out = buffers.data.at(conv->output);
  auto input = [&](int64_t b, int64_t ch, int64_t y, int64_t x) -> float {
    if (y < 0 || y >= h || x < 0 || x >= wd) return 0.0f;
    return float(last ? in[((b * h + y) * wd + x) * c + ch] : in[((b * c + ch) * h + y) * wd + x]);
  };
  auto weight = [&](int64_t f, int64_t ch, int r, int s) {
    return float(last ? wt[((f * 3 + r) * 3 + s) * c + ch] : wt[((f * c + ch) * 3 + r) * 3 + s]);
  };

  // U = G g G^T for every filter and channel, once.
  std::vector<std::vector<float>> u(static_cast<size_t>(k * c));
  for (int64_t f = 0; f < k; ++f)
    for (int64_t ch = 0; ch < c; ++ch) {
      std::vector<float> g(9);
      for (int r = 0; r < 3; ++r)
        for (int s = 0; s < 3; ++s) g[r * 3 + s] = weight(f, ch, r, s);
      u[f * c + ch] = sandwich(w.g, alpha, 3, g);
    }
  std::vector<std::vector<float>> v(static_cast<size_t>(c));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ty = 0; ty < oh; ty += m)
      for (int64_t tx = 0; tx < ow; tx += m) {
        for (int64_t ch = 0; ch < c; ++ch) {  // V = B^T d B for the tile's patch of every channel
          std::vector<float> d(static_cast<size_t>(points));
          for (int y = 0; y < alpha; ++y)
            for (int x = 0; x < alpha; ++x) d[y * alpha + x] = input(b, ch, ty + y - padY, tx + x - padX);
          v[ch] = sandwich(w.bt, alpha, alpha, d);
        }
        for (int64_t f = 0; f < k; ++f) {
          std::vector<float> sum(static_cast<size_t>(points), 0.0f);
          for (int64_t ch = 0; ch < c; ++ch)
            for (int xi = 0; xi < points; ++xi) sum[xi] += u[f * c + ch][xi] * v[ch][xi];
          std::vector<float> y = sandwich(w.at, m, alpha, sum);
          for (int dy = 0; dy < m && ty + dy < oh; ++dy)
            for (int dx = 0; dx < m && tx + dx < ow; ++dx) {
              int64_t oy = ty + dy, ox = tx + dx;
              out[last ? ((b * oh + oy) * ow + ox) * k + f : ((b * k + f) * oh + oy) * ow + ox] = y[dy * m + dx];
            }
        }
      }
  // The epilogue, applied to each sum as the output transform writes it: the nest's own statements
  // after the reduction, run on the sums in float as the kernel computes them.
  if (!split->epilogue.statements.empty()) {
    Kernel epilogue = split->epilogueNest;
    if (epilogue.winograd()) epilogue.tile = SimtTile{};
    execute(epilogue, buffers);
  }
}

}  // namespace cudaburg
