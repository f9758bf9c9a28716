// The fused-layer examples run on the CPU executor and checked, element by element, against the
// same layers computed here directly in double precision.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "src/exec/buffers.hpp"
#include "src/exec/executor.hpp"
#include "src/loop/parser.hpp"
#include "tests/loop/parse_helper.hpp"

namespace cudaburg {
namespace {

using Values = std::map<std::string, std::vector<double>>;

// Runs the example at small sizes on random inputs; returns its output `out` and what the exact
// layer computes from the same inputs, and checks that they agree within `tolerance` relative.
void expectMatches(const std::string& file, const std::map<std::string, int64_t>& sizes, const std::string& out,
                   double tolerance, const std::function<std::vector<double>(const Kernel&, const Values&)>& exact) {
  auto p = test::parseExample(file, sizes);
  ASSERT_TRUE(p.kernel) << p.errors();
  Buffers buffers = fillRandom(*p.kernel, 7);
  Values inputs = buffers.data;
  execute(*p.kernel, buffers);
  std::vector<double> want = exact(*p.kernel, inputs);
  const std::vector<double>& got = buffers.data.at(out);
  ASSERT_EQ(got.size(), want.size());
  for (size_t e = 0; e < want.size(); ++e)
    ASSERT_NEAR(got[e], want[e], tolerance * (1 + std::fabs(want[e]))) << file << ": element " << e;
}

double relu(double x) { return x > 0 ? x : 0; }

// Y[i][j] = sum over k of X[i][k] W[k][j] (row-major M x K by K x N).
std::vector<double> product(const std::vector<double>& x, const std::vector<double>& w, int64_t m, int64_t n,
                            int64_t k) {
  std::vector<double> y(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t t = 0; t < k; ++t) y[i * n + j] += x[i * k + t] * w[t * n + j];
  return y;
}

const std::map<std::string, int64_t> kLinear{{"M", 5}, {"N", 7}, {"K", 9}};

TEST(FusedExamples, LinearRelu) {
  expectMatches("linear_relu.loop", kLinear, "Y", 1e-5, [](const Kernel& k, const Values& v) {
    int64_t n = k.size("N");
    std::vector<double> y = product(v.at("X"), v.at("W"), k.size("M"), n, k.size("K"));
    for (size_t e = 0; e < y.size(); ++e) y[e] = relu(y[e] + v.at("b")[e % n]);
    return y;
  });
}

TEST(FusedExamples, LinearGelu) {
  expectMatches("linear_gelu.loop", kLinear, "Y", 1e-5, [](const Kernel& k, const Values& v) {
    int64_t n = k.size("N");
    std::vector<double> y = product(v.at("X"), v.at("W"), k.size("M"), n, k.size("K"));
    for (size_t e = 0; e < y.size(); ++e) {
      double x = y[e] + v.at("b")[e % n];
      y[e] = 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
    }
    return y;
  });
}

TEST(FusedExamples, LinearHalfRoundsOnceOnTheStore) {
  // The fp32 accumulator's sum, rounded to half once: within half's unit roundoff of the exact value.
  expectMatches("linear_half.loop", kLinear, "Y", 1e-3, [](const Kernel& k, const Values& v) {
    int64_t n = k.size("N");
    std::vector<double> y = product(v.at("X"), v.at("W"), k.size("M"), n, k.size("K"));
    for (size_t e = 0; e < y.size(); ++e) y[e] += v.at("b")[e % n];
    return y;
  });
}

TEST(FusedExamples, Mlp2) {
  expectMatches("mlp2.loop", {{"M", 4}, {"D", 6}, {"F", 5}}, "Y", 1e-5, [](const Kernel& k, const Values& v) {
    std::vector<double> h = product(v.at("X"), v.at("W1"), k.size("M"), k.size("F"), k.size("D"));
    for (double& e : h) e = relu(e);
    return product(h, v.at("W2"), k.size("M"), k.size("D"), k.size("F"));
  });
}

TEST(FusedExamples, ResnetBnRelu) {
  expectMatches("resnet_bn_relu.loop", {{"N", 2}, {"C", 3}, {"H", 5}, {"W", 4}, {"K", 4}}, "Out", 1e-5,
                [](const Kernel& k, const Values& v) {
                  int64_t N = k.size("N"), C = k.size("C"), H = k.size("H"), W = k.size("W"), K = k.size("K");
                  std::vector<double> out;
                  for (int64_t n = 0; n < N; ++n)
                    for (int64_t f = 0; f < K; ++f)
                      for (int64_t oh = 0; oh < H; ++oh)
                        for (int64_t ow = 0; ow < W; ++ow) {
                          double sum = 0;
                          for (int64_t c = 0; c < C; ++c)
                            for (int64_t r = 0; r < 3; ++r)
                              for (int64_t s = 0; s < 3; ++s) {
                                int64_t h = oh + r - 1, w = ow + s - 1;
                                if (h < 0 || h >= H || w < 0 || w >= W) continue;
                                sum += v.at("In")[((n * C + c) * H + h) * W + w] *
                                       v.at("Wt")[((f * C + c) * 3 + r) * 3 + s];
                              }
                          out.push_back(relu(sum * v.at("scale")[f] + v.at("shift")[f]));
                        }
                  return out;
                });
}

TEST(FusedExamples, BottleneckShortcut) {
  expectMatches("bottleneck_shortcut.loop", {{"N", 2}, {"C", 3}, {"K", 4}, {"H", 3}, {"W", 5}}, "Out", 1e-5,
                [](const Kernel& k, const Values& v) {
                  int64_t N = k.size("N"), C = k.size("C"), K = k.size("K"), HW = k.size("H") * k.size("W");
                  std::vector<double> out;
                  for (int64_t n = 0; n < N; ++n)
                    for (int64_t f = 0; f < K; ++f)
                      for (int64_t p = 0; p < HW; ++p) {
                        double sum = 0;
                        for (int64_t c = 0; c < C; ++c) sum += v.at("In")[(n * C + c) * HW + p] * v.at("Wt")[f * C + c];
                        size_t at = static_cast<size_t>((n * K + f) * HW + p);
                        out.push_back(relu(sum * v.at("scale")[f] + v.at("shift")[f] + v.at("Shortcut")[at]));
                      }
                  return out;
                });
}

}  // namespace
}  // namespace cudaburg
