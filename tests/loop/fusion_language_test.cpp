// The constructs fused layers are written with: math functions, float literals with C's suffix,
// local scalars (their scope, their privacy in the dependence test, their printing) and their
// errors, each at its position with the source line and a caret.
#include <gtest/gtest.h>

#include <string>

#include "src/analysis/dependence.hpp"
#include "src/loop/printer.hpp"
#include "tests/loop/parse_helper.hpp"

namespace cudaburg {
namespace {

using test::parseText;

const char* kLayer = R"(size M = 4, N = 6, K = 5;
kernel layer(half Y[M][N], const half X[M][K], const half W[K][N], const float b[N]) {
  parallel for (i = 0; i < M; i++)
    parallel for (j = 0; j < N; j++) {
      float acc = 0;
      reduce for (k = 0; k < K; k++)
        acc += X[i][k] * W[k][j];
      float x = acc + b[j];
      Y[i][j] = 0.5f * x * (1 + tanh(0.7978845608 * (x + 0.044715 * x * x * x))) + exp(-abs(x)) * sqrt(2.f);
    }
}
)";

TEST(FusionLanguage, LocalsBecomeScopedScalarBuffers) {
  auto p = parseText(kLayer);
  ASSERT_TRUE(p.kernel) << p.errors();
  const Node* j = test::findLoop(p.kernel->body, "j");
  ASSERT_NE(j, nullptr);
  // acc's scope is the whole body of j, x's the rest after its declaration.
  const Node& acc = *j->body();
  ASSERT_EQ(acc.kind, NodeKind::Alloc);
  EXPECT_EQ(acc.buffer.name, "acc");
  EXPECT_EQ(acc.buffer.type, ScalarType::Float);
  EXPECT_TRUE(isLocalScalar(acc.buffer));
  std::vector<NodePtr> scope = flattenSeq(acc.body());
  ASSERT_EQ(scope.size(), 3u);
  EXPECT_EQ(scope[0]->kind, NodeKind::Assign);
  EXPECT_EQ(scope[0]->target.array, "acc");
  EXPECT_EQ(scope[2]->kind, NodeKind::Alloc);
  EXPECT_EQ(scope[2]->buffer.name, "x");
}

TEST(FusionLanguage, PrintsLocalsAsDeclaredAndReadsBackTheSameTree) {
  auto p = parseText(kLayer);
  ASSERT_TRUE(p.kernel) << p.errors();
  std::string text = printKernel(*p.kernel);
  EXPECT_NE(text.find("      float acc = 0;\n"), std::string::npos) << text;
  EXPECT_NE(text.find("      float x = acc + b[j];\n"), std::string::npos) << text;
  EXPECT_NE(text.find("tanh(0.7978845608 * (x + 0.044715 * x * x * x))"), std::string::npos) << text;
  EXPECT_NE(text.find("exp(-abs(x)) * sqrt(2)"), std::string::npos) << text;
  auto again = parseText(text);
  ASSERT_TRUE(again.kernel) << again.errors() << text;
  EXPECT_EQ(printKernel(*again.kernel), text);
}

TEST(FusionLanguage, LocalsCarryNoDependenceAcrossTheLoopsAroundThem) {
  auto p = parseText(kLayer);
  ASSERT_TRUE(p.kernel) << p.errors();
  DependenceGraph deps(*p.kernel);
  bool reduction = false;
  for (const Dependence& d : deps.dependences()) {
    if (d.array != "acc" && d.array != "x") continue;
    // Only k may carry one, and only acc's reduction.
    if (const Node* carrier = d.carrier()) {
      EXPECT_EQ(carrier->index, "k") << deps.describe(d);
      EXPECT_EQ(d.kind, DependenceKind::Reduction) << deps.describe(d);
      reduction = true;
    }
  }
  EXPECT_TRUE(reduction) << deps.str();
}

TEST(FusionLanguage, StatementsBeforeAndAfterAReductionAndNestsInARow) {
  auto p = parseText(R"(size M = 4, N = 3, K = 2;
kernel two(float Y[M][N], float H[M][K], const float X[M][K], const float W[K][N], const float s[K]) {
  parallel for (i = 0; i < M; i++)
    parallel for (k = 0; k < K; k++)
      H[i][k] = max(X[i][k] * s[k], 0);
  parallel for (r = 0; r < M; r++)
    parallel for (c = 0; c < N; c++) {
      Y[r][c] = 0;
      Y[r][c] = Y[r][c] * 2;
      reduce for (e = 0; e < K; e++)
        Y[r][c] += H[r][e] * W[e][c];
      Y[r][c] = Y[r][c] + 1;
      Y[r][c] = erf(Y[r][c]) + log(1 + rsqrt(1 + Y[r][c] * Y[r][c]));
    }
}
)");
  ASSERT_TRUE(p.kernel) << p.errors();
  EXPECT_EQ(flattenSeq(p.kernel->body).size(), 2u);
}

TEST(FusionLanguage, FloatLiteralsTakeCsSuffix) {
  auto p = parseText(
      "size N = 2;\nkernel f(float A[N]) {\n  parallel for (i = 0; i < N; i++)\n"
      "    A[i] = 1e-5f + 2.f + .5F + 0.044715;\n}\n");
  ASSERT_TRUE(p.kernel) << p.errors();
  const Node* i = test::findLoop(p.kernel->body, "i");
  EXPECT_EQ(printExpr(*i->body()->value), "1e-05 + 2 + 0.5 + 0.044715");
}

struct ErrorCase {
  const char* text;
  int line;
  int col;
  const char* message;
};

class FusionLanguageError : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(FusionLanguageError, ReportsLocationMessageAndCaret) {
  const ErrorCase& c = GetParam();
  auto p = parseText(c.text);
  EXPECT_FALSE(p.kernel);
  std::string prefix = "test.loop:" + std::to_string(c.line) + ":" + std::to_string(c.col) + ": error: ";
  std::string all = p.errors();
  size_t at = all.find(prefix + c.message);
  ASSERT_NE(at, std::string::npos) << "expected `" << prefix << c.message << "` in:\n" << all;
  size_t lineStart = all.find('\n', at) + 1;
  size_t caretStart = all.find('\n', lineStart) + 1;
  size_t caretEnd = all.find('\n', caretStart);
  EXPECT_EQ(all.substr(lineStart, caretStart - 1 - lineStart), std::string(p.file->line(c.line)));
  EXPECT_EQ(all.substr(caretStart, caretEnd - caretStart), std::string(c.col - 1, ' ') + "^");
}

#define HEAD "size N = 8;\nkernel f(float A[N], const float B[N], int C[N]) {\n"

const ErrorCase kErrors[] = {
    {HEAD "  parallel for (i = 0; i < N; i++)\n    A[i] = exp(B[i], 2);\n}\n", 4, 12, "exp() takes 1 argument, not 2"},
    {HEAD "  parallel for (i = 0; i < N; i++)\n    A[i] = max(B[i]);\n}\n", 4, 12, "max() takes 2 arguments, not 1"},
    {HEAD "  parallel for (i = 0; i < N; i++)\n    C[i] = tanh(i);\n}\n", 4, 12,
     "tanh() computes on floating-point values, but this statement computes in int"},
    {HEAD "  parallel for (i = 0; i < N; i++) {\n    int n = abs(i);\n    C[i] = n;\n  }\n}\n", 4, 13,
     "abs() computes on floating-point values, but this statement computes in int"},
    {HEAD "  parallel for (i = 0; i < sqrt(N); i++)\n    A[i] = 1;\n}\n", 3, 28,
     "sqrt() is a math function of values; sizes, bounds and subscripts are integers"},
    {HEAD "  parallel for (i = 0; i < N; i++) {\n    float acc;\n    A[i] = acc + 1;\n  }\n}\n", 5, 12,
     "local 'acc' is used before it is set"},
    {HEAD "  parallel for (i = 0; i < N; i++) {\n    float acc;\n    acc += B[i];\n    A[i] = acc;\n  }\n}\n", 5, 5,
     "local 'acc' is used before it is set"},
    {HEAD "  parallel for (i = 0; i < N; i++) {\n    float acc;\n    for (k = 0; k < N; k++)\n      acc = B[k];\n"
          "    A[i] = acc;\n  }\n}\n",
     7, 12, "local 'acc' is used before it is set"},
    {HEAD "  parallel for (i = 0; i < N; i++) {\n    float x = x + 1;\n    A[i] = x;\n  }\n}\n", 4, 15,
     "local 'x' is used before it is set"},
    {HEAD "  parallel for (i = 0; i < N; i++) {\n    float B = 1;\n    A[i] = B;\n  }\n}\n", 4, 11,
     "local 'B' would shadow the array 'B'; give it another name"},
    {HEAD "  parallel for (i = 0; i < N; i++) {\n    float a = 1;\n    double a = 2;\n    A[i] = a;\n  }\n}\n", 5, 12,
     "local 'a' is already declared in this scope"},
    {HEAD "  parallel for (i = 0; i < N; i++) {\n    float i = 1;\n    A[i] = 1;\n  }\n}\n", 4, 11,
     "'i' is already declared; a local needs a fresh name"},
    {HEAD "  parallel for (i = 0; i < N; i++)\n    float a = 1;\n}\n", 4, 5,
     "a local scalar is declared inside a block '{ ... }', where its scope is the rest of the block"},
    {HEAD "  parallel for (i = 0; i < N; i++) {\n    A[i] = 1;\n    float a;\n  }\n}\n", 5, 11,
     "local 'a' is declared but never used"},
    {HEAD "  parallel for (i = 0; i < N; i++) {\n    tf32 a = 2;\n    A[i] = a;\n  }\n}\n", 4, 5,
     "a local cannot be tf32"},
};

INSTANTIATE_TEST_SUITE_P(Cases, FusionLanguageError, ::testing::ValuesIn(kErrors));

}  // namespace
}  // namespace cudaburg
