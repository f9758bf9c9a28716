#include "src/analysis/dependence.hpp"

#include <gtest/gtest.h>

#include "src/analysis/legality.hpp"
#include "src/analysis/linear_system.hpp"
#include "tests/loop/parse_helper.hpp"

namespace cudaburg {
namespace {

using test::findLoop;
using test::parseExample;
using test::parseText;

LinearExpr expr(std::vector<int64_t> coefs, int64_t constant) {
  LinearExpr e(coefs.size());
  e.coefs = std::move(coefs);
  e.constant = constant;
  return e;
}

TEST(LinearSystem, DecidesSmallSystems) {
  // 0 <= x <= 10, y = 2x + 1, y = 8: no integer solution (GCD), though a rational one exists.
  LinearSystem s(2);
  s.addAtLeastZero(expr({1, 0}, 0));
  s.addAtLeastZero(expr({-1, 0}, 10));
  s.addZero(expr({-2, 1}, -1));
  LinearSystem t = s;
  s.addZero(expr({0, 1}, -8));
  EXPECT_FALSE(s.mayBeFeasible());
  t.addZero(expr({0, 1}, -9));
  EXPECT_TRUE(t.mayBeFeasible());
  auto r = t.range(0);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->first, 4);
  EXPECT_EQ(r->second, 4);
  // x >= 3 and x <= 2 contradict after elimination of nothing else.
  LinearSystem u(1);
  u.addAtLeastZero(expr({1}, -3));
  u.addAtLeastZero(expr({-1}, 2));
  EXPECT_FALSE(u.mayBeFeasible());
}

// The dependence vectors of the first example, written out.
TEST(DependenceGraph, MatmulHasTheReductionAndTheInitialisation) {
  auto p = parseExample("matmul.loop", {{"M", 64}, {"N", 64}, {"K", 64}});
  ASSERT_TRUE(p.kernel) << p.errors();
  DependenceGraph deps(*p.kernel);
  ASSERT_EQ(deps.statements().size(), 2u);
  EXPECT_EQ(boost::num_vertices(deps.graph()), 2u);
  EXPECT_EQ(boost::num_edges(deps.graph()), deps.dependences().size());
  std::string all = deps.str();
  // S0: C[i][j] = 0; S1: C[i][j] += A[i][k] * B[k][j]
  EXPECT_NE(all.find("flow C: S0 -> S1 (=, =) distance (0, 0)"), std::string::npos) << all;
  EXPECT_NE(all.find("reduction C: S1 -> S1 (=, =, <) distance (0, 0, *)"), std::string::npos) << all;
  for (const Dependence& d : deps.dependences()) {
    EXPECT_EQ(d.array, "C");
    EXPECT_NE(d.carrier(), findLoop(p.kernel->body, "i"));
    EXPECT_NE(d.carrier(), findLoop(p.kernel->body, "j"));
  }
}

TEST(DependenceGraph, UniformDistancesAndDirections) {
  auto p = parseText(R"(
size N = 100;
kernel f(float A[N][N], const float B[N][N]) {
  for (i = 1; i < N; i++)
    for (j = 0; j < N - 1; j++)
      A[i][j] = A[i - 1][j + 1] + B[i][j];
}
)");
  ASSERT_TRUE(p.kernel) << p.errors();
  DependenceGraph deps(*p.kernel);
  ASSERT_EQ(deps.dependences().size(), 1u) << deps.str();
  const Dependence& d = deps.dependences()[0];
  EXPECT_EQ(d.kind, DependenceKind::Flow);
  EXPECT_EQ(d.directionString(), "(<, >)");
  EXPECT_EQ(d.distances[0], 1);
  EXPECT_EQ(d.distances[1], -1);
  const Node* i = findLoop(p.kernel->body, "i");
  const Node* j = findLoop(p.kernel->body, "j");
  EXPECT_EQ(d.carrier(), i);
  EXPECT_FALSE(isParallel(*p.kernel, i));
  EXPECT_TRUE(isParallel(*p.kernel, j));
  Legality swap = mayInterchange(*p.kernel, i, j);
  EXPECT_FALSE(swap);
  EXPECT_NE(swap.reason.find("would reverse a flow dependence on A"), std::string::npos) << swap.reason;
}

TEST(DependenceGraph, SeesThroughStepsAndMinBounds) {
  // Strip-mined: ii by 4 and i inside the strip; A[i] written once per i, so nothing is carried.
  auto p = parseText(R"(
size N = 30;
kernel f(float A[N], const float B[N]) {
  for (ii = 0; ii < N; ii += 4)
    for (i = ii; i < min(ii + 4, N); i++)
      A[i] = B[i] * 2;
}
)");
  ASSERT_TRUE(p.kernel) << p.errors();
  EXPECT_TRUE(isParallel(*p.kernel, findLoop(p.kernel->body, "ii")));
  EXPECT_TRUE(isParallel(*p.kernel, findLoop(p.kernel->body, "i")));
  // Disjoint even and odd elements never meet (the GCD test).
  auto q = parseText(R"(
size N = 64;
kernel g(float A[N]) {
  for (i = 0; i < N / 2; i++) {
    A[2*i] = 1;
    A[2*i + 1] = A[2*i] + 1;
  }
}
)");
  ASSERT_TRUE(q.kernel) << q.errors();
  DependenceGraph deps(*q.kernel);
  ASSERT_EQ(deps.dependences().size(), 1u) << deps.str();
  EXPECT_EQ(deps.dependences()[0].directionString(), "(=)");
  EXPECT_TRUE(isParallel(deps, findLoop(q.kernel->body, "i")));
}

TEST(Legality, ReductionsOnTheExamples) {
  for (const char* name : {"matmul.loop", "matmul_bt.loop", "conv2d.loop", "conv3d.loop", "correlate2d.loop"}) {
    auto p = parseExample(name);
    ASSERT_TRUE(p.kernel) << p.errors();
    DependenceGraph deps(*p.kernel);
    forEachNode(*p.kernel->body, [&](const Node& loop) {
      if (loop.kind == NodeKind::For) {
        Legality par = isParallel(deps, &loop);
        Legality red = isReduction(deps, &loop);
        if (loop.loopKind == LoopKind::Parallel) {
          EXPECT_TRUE(par) << name << " " << loop.index << ": " << par.reason;
        }
        if (loop.loopKind == LoopKind::Reduce) {
          EXPECT_TRUE(red) << name << " " << loop.index << ": " << red.reason;
          EXPECT_FALSE(par) << name << " " << loop.index;  // the sum is carried by it
          EXPECT_NE(par.reason.find("reduction dependence"), std::string::npos) << par.reason;
        }
      }
    });
  }
}

TEST(Legality, InterchangeOnMatmul) {
  auto p = parseExample("matmul.loop", {{"M", 32}, {"N", 32}, {"K", 32}});
  ASSERT_TRUE(p.kernel) << p.errors();
  const Node* i = findLoop(p.kernel->body, "i");
  const Node* j = findLoop(p.kernel->body, "j");
  const Node* k = findLoop(p.kernel->body, "k");
  EXPECT_TRUE(mayInterchange(*p.kernel, i, j));
  Legality jk = mayInterchange(*p.kernel, j, k);
  EXPECT_FALSE(jk);
  EXPECT_NE(jk.reason.find("not the whole body"), std::string::npos) << jk.reason;
  Legality ik = mayInterchange(*p.kernel, i, k);
  EXPECT_FALSE(ik);
}

TEST(Legality, InterchangeRespectsBoundsAndReductions) {
  auto tri = parseText(R"(
size N = 16;
kernel f(float A[N][N]) {
  parallel for (i = 0; i < N; i++)
    parallel for (j = 0; j < i + 1; j++)
      A[i][j] = 1;
}
)");
  ASSERT_TRUE(tri.kernel) << tri.errors();
  Legality t = mayInterchange(*tri.kernel, findLoop(tri.kernel->body, "i"), findLoop(tri.kernel->body, "j"));
  EXPECT_FALSE(t);
  EXPECT_NE(t.reason.find("upper bound of 'j' uses 'i'"), std::string::npos) << t.reason;

  // A sum over both loops: swapping reorders the sum, which `reduce` allows and `for` does not.
  const char* text = R"(
size N = 16;
kernel f(float S[1], const float A[N][N]) {
  MARK for (i = 0; i < N; i++)
    MARK for (j = 0; j < N; j++)
      S[0] += A[i][j];
}
)";
  auto withMark = [&](const std::string& mark) {
    std::string s = text;
    for (size_t at; (at = s.find("MARK")) != std::string::npos;) s.replace(at, 4, mark);
    return parseText(s);
  };
  auto reduced = withMark("reduce");
  ASSERT_TRUE(reduced.kernel) << reduced.errors();
  EXPECT_TRUE(
      mayInterchange(*reduced.kernel, findLoop(reduced.kernel->body, "i"), findLoop(reduced.kernel->body, "j")));
  auto serial = withMark("");
  ASSERT_TRUE(serial.kernel) << serial.errors();
  EXPECT_FALSE(mayInterchange(*serial.kernel, findLoop(serial.kernel->body, "i"), findLoop(serial.kernel->body, "j")));
}

}  // namespace
}  // namespace cudaburg
