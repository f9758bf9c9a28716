#include "src/search/calibrated_model.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace cudaburg {

namespace {

double ln(double x) { return std::log(std::max(x, 1e-12)); }

// Solves A x = b (A symmetric positive definite after the ridge) by Gaussian elimination with
// partial pivoting; A and b are overwritten.
std::vector<double> solve(std::vector<std::vector<double>> a, std::vector<double> b) {
  size_t n = b.size();
  for (size_t c = 0; c < n; ++c) {
    size_t pivot = c;
    for (size_t r = c + 1; r < n; ++r)
      if (std::abs(a[r][c]) > std::abs(a[pivot][c])) pivot = r;
    std::swap(a[c], a[pivot]);
    std::swap(b[c], b[pivot]);
    if (a[c][c] == 0) continue;
    for (size_t r = 0; r < n; ++r) {
      if (r == c || a[r][c] == 0) continue;
      double f = a[r][c] / a[c][c];
      for (size_t k = c; k < n; ++k) a[r][k] -= f * a[c][k];
      b[r] -= f * b[c];
    }
  }
  std::vector<double> x(n, 0);
  for (size_t i = 0; i < n; ++i) x[i] = a[i][i] != 0 ? b[i] / a[i][i] : 0;
  return x;
}

std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    for (size_t t = i; t <= j; ++t) r[order[t]] = (i + j) / 2.0;
    i = j + 1;
  }
  return r;
}

}  // namespace

const std::vector<std::string>& CalibratedModel::names() {
  static const std::vector<std::string> n = {"1",
                                             "ln estimate",
                                             "ln 1/occupancy",
                                             "pipelined",
                                             "transposed",
                                             "interleaved",
                                             "vectorized",
                                             "staged",
                                             "ln split",
                                             "ln tm*tn",
                                             "ln threads",
                                             "ln (tm+tn)",
                                             "staged ln depth",
                                             "ln bm*bn",
                                             "single-buffered ln tm*tn",
                                             "direct ln tm*tn",
                                             "ln registers",
                                             "pipelined ln tm*tn",
                                             "ln reduction",
                                             "ln split * ln outputs",
                                             "ln tm",
                                             "ln bm",
                                             "staged ln bm/bn",
                                             "uninterleaved ln tn"};
  return n;
}

std::vector<double> CalibratedModel::features(const CandidateShape& s, const GpuModel& gpu) {
  return featuresOf(s, estimate(s, gpu));
}

std::vector<double> CalibratedModel::featuresOf(const CandidateShape& s, const Estimate& e) {
  double staged = s.staged, pipelined = s.pipelined || s.asyncCopies,
         interleaved = s.interleaved || s.spread;  // both read a thread's runs conflict-free
  double tile = ln(double(s.threadRows) * s.threadCols);
  return {1.0,
          ln(e.ns),
          ln(1.0 / std::max(e.occupancy, 1e-3)),
          pipelined,
          double(s.transposed),
          interleaved,
          double(s.vectorized),
          staged,
          ln(double(s.split)),
          tile,
          ln(double(std::max(e.threads, 1))),
          ln(double(s.threadRows + s.threadCols)),
          staged ? ln(double(std::max<int64_t>(s.stageDepth, 1))) : 0.0,
          ln(double(s.blockRows) * s.blockCols),
          staged * (1 - pipelined) * tile,
          (1 - staged) * tile,
          ln(double(std::max(e.registers, 1))),
          staged * pipelined * tile,
          ln(double(s.reduction)),
          ln(double(s.split)) * ln(double(s.rows) * s.cols * s.outer * s.serial),
          ln(double(s.threadRows)),
          ln(double(s.blockRows)),
          staged * ln(double(s.blockRows) / double(s.blockCols)),
          (1 - interleaved) * ln(double(s.threadCols))};
}

std::vector<double> CalibratedModel::compiledFeatures(std::vector<double> shapeFeatures, int registers,
                                                      int64_t instructions) {
  shapeFeatures.push_back(ln(double(std::max(registers, 1))));
  shapeFeatures.push_back(ln(double(std::max<int64_t>(instructions, 1))));
  return shapeFeatures;
}

CalibratedModel CalibratedModel::withCompiledFeatures() const {
  std::vector<double> w = weights_;
  w.resize(names().size() + kCompiledFeatures, 0.0);
  return CalibratedModel(std::move(w), samples_);
}

double CalibratedModel::predictMs(const std::vector<double>& x) const {
  double y = 0;
  for (size_t i = 0; i < x.size() && i < weights_.size(); ++i) y += weights_[i] * x[i];
  return std::exp(y);
}

CalibratedModel CalibratedModel::fitted(const std::vector<ModelSample>& samples, double ridge) const {
  // Minimise |X w - y|^2 + ridge |w - w0|^2 (the intercept free): (X'X + R) w = X'y + R w0.
  size_t n = weights_.size();
  std::vector<std::vector<double>> a(n, std::vector<double>(n, 0));
  std::vector<double> b(n, 0);
  for (const auto& s : samples) {
    double y = std::log(s.ms);
    for (size_t i = 0; i < n; ++i) {
      b[i] += s.features[i] * y;
      for (size_t j = 0; j < n; ++j) a[i][j] += s.features[i] * s.features[j];
    }
  }
  for (size_t i = 1; i < n; ++i) {
    a[i][i] += ridge;
    b[i] += ridge * weights_[i];
  }
  if (samples.empty()) return *this;
  return CalibratedModel(solve(std::move(a), std::move(b)), samples_ + samples.size());
}

double rankCorrelation(const std::vector<double>& a, const std::vector<double>& b) {
  size_t n = std::min(a.size(), b.size());
  if (n < 2) return 0;
  std::vector<double> ra = ranks({a.begin(), a.begin() + n}), rb = ranks({b.begin(), b.begin() + n});
  double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / n, mb = std::accumulate(rb.begin(), rb.end(), 0.0) / n;
  double c = 0, va = 0, vb = 0;
  for (size_t i = 0; i < n; ++i) {
    c += (ra[i] - ma) * (rb[i] - mb);
    va += (ra[i] - ma) * (ra[i] - ma);
    vb += (rb[i] - mb) * (rb[i] - mb);
  }
  return va > 0 && vb > 0 ? c / std::sqrt(va * vb) : 0;
}

CalibratedModel CalibratedModel::prior() {
  // The analytic estimate, as is. A fit pooled over the databases of tests/data ranked most of
  // their problems better but put the wrong register tiles first on large matrix products (small
  // problems dominate the pool), so each search calibrates on its own nest instead.
  std::vector<double> w(names().size(), 0.0);
  w[0] = std::log(1e-6);
  w[1] = 1.0;
  return CalibratedModel(w);
}

}  // namespace cudaburg
