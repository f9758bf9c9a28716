#include <gtest/gtest.h>

#include <random>

#include "src/loop/printer.hpp"
#include "tests/loop/parse_helper.hpp"

namespace cudaburg {
namespace {

using test::findLoop;
using test::parseText;

const char* kMatmul = R"(// C = A * B
size M = 64, N = 32, K = 16;
kernel mm(float C[M][N], const float A[M][K], const float B[K][N]) {
  parallel for (i = 0; i < M; i++)
    parallel for (j = 0; j < N; j++) {
      C[i][j] = 0;
      reduce for (k = 0; k < K; k++)
        C[i][j] += A[i][k] * B[k][j];
    }
}
)";

TEST(LoopParser, ReadsAKernel) {
  auto p = parseText(kMatmul);
  ASSERT_TRUE(p.kernel) << p.errors();
  const Kernel& k = *p.kernel;
  EXPECT_EQ(k.name, "mm");
  EXPECT_EQ(k.sourceName, "test.loop");
  ASSERT_EQ(k.sizes.size(), 3u);
  EXPECT_EQ(k.size("N"), 32);
  ASSERT_EQ(k.params.size(), 3u);
  EXPECT_FALSE(k.params[0].input);
  EXPECT_TRUE(k.params[1].input);
  EXPECT_EQ(k.params[2].extents, (std::vector<int64_t>{16, 32}));

  const Node& i = *k.body;
  ASSERT_EQ(i.kind, NodeKind::For);
  EXPECT_EQ(i.loopKind, LoopKind::Parallel);
  EXPECT_EQ(i.upper, std::vector<Affine>{Affine(64)});
  EXPECT_EQ(i.loc.line, 4u);
  EXPECT_EQ(i.loc.col, 3u);
  const Node& j = *i.body();
  ASSERT_EQ(j.body()->kind, NodeKind::Seq);
  std::vector<NodePtr> stmts = flattenSeq(j.body());
  ASSERT_EQ(stmts.size(), 2u);
  EXPECT_EQ(stmts[0]->kind, NodeKind::Assign);
  EXPECT_FALSE(stmts[0]->accumulate);
  const Node& kLoop = *stmts[1];
  EXPECT_EQ(kLoop.loopKind, LoopKind::Reduce);
  const Node& update = *kLoop.body();
  EXPECT_TRUE(update.accumulate);
  EXPECT_EQ(update.target.str(), "C[i][j]");
  EXPECT_EQ(update.value->str(), "(A[i][k] * B[k][j])");
}

TEST(LoopParser, FoldsSizesAndAffineSubscripts) {
  auto p = parseText(R"(
size H = 10, P = 1, R = 3, S = 2, OH = (H + 2*P - R) / S + 1, Q = OH % 4 - -1;
kernel f(float O[OH], const float I[H] padded, int X[2*OH]) {
  parallel for (o = 0; o < OH; o++) {
    O[o] = I[S*o + 1 - P] + 2 * (o + 1);
    X[2*o + 1] = max(o, Q);
  }
}
)");
  ASSERT_TRUE(p.kernel) << p.errors();
  EXPECT_EQ(p.kernel->size("OH"), 5);
  EXPECT_EQ(p.kernel->size("Q"), 2);
  EXPECT_TRUE(p.kernel->params[1].zeroPadded);
  EXPECT_EQ(p.kernel->params[2].type, ScalarType::Int);
  EXPECT_EQ(p.kernel->params[2].extents, std::vector<int64_t>{10});
  std::vector<NodePtr> stmts = flattenSeq(p.kernel->body->body());
  Affine expected = Affine::var("o", 2) + Affine(0);
  EXPECT_EQ(stmts[0]->value->args[0]->load.subscripts[0], expected);
  EXPECT_EQ(stmts[1]->target.subscripts[0], Affine::var("o", 2) + Affine(1));
  EXPECT_EQ(stmts[1]->value->kind, Expr::Kind::Call);
  EXPECT_EQ(stmts[1]->value->callee, "max");
}

TEST(LoopParser, ReadsStepsMinBoundsAndTriangularLoops) {
  auto p = parseText(R"(
size N = 100;
kernel f(float A[N][N]) {
  for (ii = 0; ii < N; ii += 32)
    for (i = ii; i < min(ii + 32, N); i++)
      for (j = 0; j < i + 1; j++)
        A[i][j] = -1.5;
}
)");
  ASSERT_TRUE(p.kernel) << p.errors();
  const Node* ii = findLoop(p.kernel->body, "ii");
  const Node* i = findLoop(p.kernel->body, "i");
  const Node* j = findLoop(p.kernel->body, "j");
  EXPECT_EQ(ii->step, 32);
  EXPECT_EQ(ii->loopKind, LoopKind::Serial);
  EXPECT_EQ(i->lower, Affine::var("ii"));
  ASSERT_EQ(i->upper.size(), 2u);
  EXPECT_EQ(i->upper[0], Affine::var("ii") + Affine(32));
  EXPECT_EQ(i->upper[1], Affine(100));
  EXPECT_EQ(j->upper[0], Affine::var("i") + Affine(1));
  EXPECT_EQ(j->body()->value->value, -1.5);
}

TEST(LoopParser, OverridesApplyToTheNamedSizeAndLaterOnes) {
  const char* text = "size N = 8, M = N * 2;\nkernel f(float A[M]) { for (i = 0; i < M; i++) A[i] = N; }\n";
  auto plain = parseText(text);
  ASSERT_TRUE(plain.kernel) << plain.errors();
  EXPECT_EQ(plain.kernel->size("M"), 16);
  auto bigger = parseText(text, {{"N", 100}});
  ASSERT_TRUE(bigger.kernel) << bigger.errors();
  EXPECT_EQ(bigger.kernel->size("N"), 100);
  EXPECT_EQ(bigger.kernel->size("M"), 200);
  EXPECT_EQ(bigger.kernel->params[0].extents[0], 200);
  auto derived = parseText(text, {{"M", 5}});
  ASSERT_TRUE(derived.kernel) << derived.errors();
  EXPECT_EQ(derived.kernel->size("N"), 8);
  EXPECT_EQ(derived.kernel->size("M"), 5);

  auto unknown = parseText(text, {{"Q", 3}});
  EXPECT_FALSE(unknown.kernel);
  EXPECT_NE(unknown.errors().find("test.loop: error: -D Q=3 names no size of this file"), std::string::npos)
      << unknown.errors();
}

// One error, reported at line:col with the source line and a caret under the column.
struct ErrorCase {
  const char* text;
  int line;
  int col;
  const char* message;
};

class LoopParserError : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(LoopParserError, ReportsLocationMessageAndCaret) {
  const ErrorCase& c = GetParam();
  auto p = parseText(c.text);
  EXPECT_FALSE(p.kernel);
  std::string prefix = "test.loop:" + std::to_string(c.line) + ":" + std::to_string(c.col) + ": error: ";
  std::string all = p.errors();
  size_t at = all.find(prefix + c.message);
  ASSERT_NE(at, std::string::npos) << "expected `" << prefix << c.message << "` in:\n" << all;
  // The next two lines: the source line, then the caret under the column.
  size_t lineStart = all.find('\n', at) + 1;
  size_t caretStart = all.find('\n', lineStart) + 1;
  size_t caretEnd = all.find('\n', caretStart);
  std::string sourceLine = all.substr(lineStart, caretStart - 1 - lineStart);
  EXPECT_EQ(sourceLine, std::string(p.file->line(c.line)));
  EXPECT_EQ(all.substr(caretStart, caretEnd - caretStart), std::string(c.col - 1, ' ') + "^");
}

const char* kHead = "size N = 8;\nkernel f(float A[N], const float B[N]) {\n";

std::string body(const std::string& lines) { return std::string(kHead) + lines + "}\n"; }

// Keeps the strings alive for the parameter table.
const std::string kCases[] = {
    body("  for (i = 0; i < N; i++) A[i] = C[i];\n"),                        // 0 unknown array
    body("  for (i = 0; i < N; i++) B[i] = 1;\n"),                           // 1 write to const
    body("  for (i = 0; i < N; i++) A[i][0] = 1;\n"),                        // 2 rank
    body("  for (i = 0; i < N; i++) A[i*i] = 1;\n"),                         // 3 not affine
    body("  for (i = 0; i < N; i++) A[i] = 1\n"),                            // 4 missing ';'
    body("  for (i = 0; j < N; i++) A[i] = 1;\n"),                           // 5 wrong index in condition
    body("  for (i = 0; i < N; i += 0) A[i] = 1;\n"),                        // 6 step
    body("  for (i = 0; i < N; i++) A[i + 1] = 1;\n"),                       // 7 out of bounds
    body("  parallel for (i = 0; i < N; i++) A[0] = B[i];\n"),               // 8 wrong parallel
    body("  reduce for (i = 1; i < N; i++) A[i] = A[i - 1] + 1;\n"),         // 9 wrong reduce
    body("  for (i = 0; i < N; i++) for (i = 0; i < N; i++) A[i] = 1;\n"),   // 10 shadowing
    body("  for (i = 0; i < N; i++) A[i] = 1 $ 2;\n"),                       // 11 invalid character
    body("  for (i = 0; i < N; i++) {}\n"),                                  // 12 empty block
    "size N = 8 / 0;\nkernel f(float A[N]) { A[0] = 1; }\n",                 // 13 division by zero
    "size N = 8;\nkernel f(float A[N - 8]) { A[0] = 1; }\n",                 // 14 extent
    "size N = 8;\nkernel f(float A[N]) { A[0] = M; }\n",                     // 15 unknown name
    "size N = 8;\nkernel f(float A[N]) { A[0] = 1; } extra\n",               // 16 trailing text
    "size N = 8;\nkernel f(float A[N]) { A[0] = 1; /* open\n",               // 17 unterminated comment
    "size N = 8, N = 9;\nkernel f(float A[N]) { A[0] = 1; }\n",              // 18 duplicate size
    "size N = 8;\nkernel f(float A[N], float A[N]) { A[0] = 1; }\n",         // 19 duplicate parameter
    "size N = 99999999999999999999;\nkernel f(float A[1]) { A[0] = 1; }\n",  // 20 too large
    body("  for (i = 0; i < N; i++) N = 1;\n"),                              // 21 assign to a size
    "size N = 8;\nkernel f(float A[N] padded) { A[0] = 1; }\n",              // 22 padded output
};

INSTANTIATE_TEST_SUITE_P(
    Errors, LoopParserError,
    ::testing::Values(ErrorCase{kCases[0].c_str(), 3, 34, "unknown name 'C'"},
                      ErrorCase{kCases[1].c_str(), 3, 27, "cannot write to 'B': it is declared const"},
                      ErrorCase{kCases[2].c_str(), 3, 27, "'A' has 1 dimension but is given 2 subscripts"},
                      ErrorCase{kCases[3].c_str(), 3, 30, "product of two loop indices is not affine"},
                      ErrorCase{kCases[4].c_str(), 4, 1, "expected ';' after the assignment, found '}'"},
                      ErrorCase{kCases[5].c_str(), 3, 15, "expected the loop's index 'i' in the condition"},
                      ErrorCase{kCases[6].c_str(), 3, 24, "loop step must be positive, not 0"},
                      ErrorCase{kCases[7].c_str(), 3, 27, "write to A[i + 1] leaves the array"},
                      ErrorCase{kCases[8].c_str(), 3, 3, "loop 'i' is marked parallel but it is not"},
                      ErrorCase{kCases[9].c_str(), 3, 3, "loop 'i' is marked reduce but it is not"},
                      ErrorCase{kCases[10].c_str(), 3, 32, "'i' is already declared"},
                      ErrorCase{kCases[11].c_str(), 3, 36, "invalid character '$'"},
                      ErrorCase{kCases[12].c_str(), 3, 27, "empty block"},
                      ErrorCase{kCases[13].c_str(), 1, 12, "division by zero"},
                      ErrorCase{kCases[14].c_str(), 2, 17, "extent of 'A' is 0; it must be positive"},
                      ErrorCase{kCases[15].c_str(), 2, 31, "unknown name 'M'"},
                      ErrorCase{kCases[16].c_str(), 2, 36, "expected end of file after the kernel"},
                      ErrorCase{kCases[17].c_str(), 2, 34, "unterminated comment"},
                      ErrorCase{kCases[18].c_str(), 1, 13, "size 'N' is already declared"},
                      ErrorCase{kCases[19].c_str(), 2, 28, "'A' is already declared"},
                      ErrorCase{kCases[20].c_str(), 1, 10, "integer '99999999999999999999' is too large"},
                      ErrorCase{kCases[21].c_str(), 3, 27, "cannot assign to 'N'"},
                      ErrorCase{kCases[22].c_str(), 2, 16, "only const arrays may be 'padded'"}));

// A size whose value is in error is reported once: its uses are no errors of their own.
TEST(LoopParser, ASizeInErrorIsReportedOnce) {
  for (const char* text : {"size N = 8 / 0;\nkernel f(float A[N]) { A[0] = 1; }\n",
                           "size N = 99999999999999999999;\nsize M = N;\nkernel f(float A[M]) { A[0] = 1; }\n"}) {
    auto p = parseText(text);
    EXPECT_FALSE(p.kernel);
    EXPECT_EQ(p.diags->errorCount(), 1) << p.errors();
  }
}

TEST(LoopParser, ReportsSeveralErrorsInOneRun) {
  auto p =
      parseText(body("  for (i = 0; i < N; i++) A[i] = X[i];\n  for (j = 0; j < N; j++) B[j] = 1;\n"
                     "  for (k = 0; k < N; k++) A[k] = ;\n"));
  EXPECT_FALSE(p.kernel);
  EXPECT_EQ(p.diags->errorCount(), 3) << p.errors();
}

TEST(LoopParser, NeverCrashesOnBrokenOrHostileInput) {
  const std::vector<std::string> inputs = {
      "",
      "size",
      "kernel",
      "kernel f(",
      "kernel f(float",
      "kernel f(float A[",
      "kernel f(float A[1]) {",
      "kernel f(float A[1]) { for",
      "kernel f(float A[1]) { parallel for (i = 0; i < 1; i++",
      "kernel f(float A[1]) { for (;;) A[0] = 1; }",
      "}}}}",
      "((((",
      "size N = ((((((1;",
      std::string(5000, '(') + "1",
      "kernel f(float A[1]) { A[0] = " + std::string(5000, '(') + "1; }",
      "kernel f(float A[1]) {" + std::string(3000, '{') + "A[0] = 1;" + std::string(3000, '}') + "}",
      "kernel f(float A[1]) { " +
          [] {
            std::string s;
            for (int i = 0; i < 2000; ++i)
              s +=
                  "for (i" + std::to_string(i) + " = 0; i" + std::to_string(i) + " < 1; i" + std::to_string(i) + "++) ";
            return s;
          }() +
          "A[0] = 1; }",
      std::string("size N = 1;\0kernel", 18),
      "\xff\xfe garbage \x80",
      "size N = 9223372036854775807 * 2;",
  };
  for (const std::string& input : inputs) {
    auto p = parseText(input);
    EXPECT_FALSE(p.kernel) << input.substr(0, 60);
    EXPECT_TRUE(p.diags->hasErrors()) << input.substr(0, 60);
  }
}

}  // namespace
}  // namespace cudaburg

namespace cudaburg {
namespace {

// Thousands of damaged copies of the examples: each either parses or gets an error, and none
// crashes or hangs.
TEST(LoopParser, SurvivesDamagedExamples) {
  std::mt19937 random(12345);
  const std::string tokens[] = {"(",  ")", "{", "}", "[", "]", ";", ",", "for", "parallel", "reduce", "min(",
                                "+=", "=", "<", "i", "k", "0", "-", "*", "/",   "%",        "size",   "kernel"};
  int parsed = 0, refused = 0;
  for (const char* name : {"matmul.loop", "conv2d.loop", "correlate2d.loop"}) {
    auto file = common::SourceFile::read(std::string(CUDABURG_EXAMPLES_DIR) + "/" + name);
    ASSERT_TRUE(file) << file.reason();
    for (int round = 0; round < 300; ++round) {
      std::string text = file->text();
      int edits = 1 + random() % 3;
      for (int e = 0; e < edits && !text.empty(); ++e) {
        size_t at = random() % text.size();
        switch (random() % 3) {
          case 0:
            text.erase(at, 1 + random() % 8);
            break;
          case 1:
            text.insert(at, tokens[random() % std::size(tokens)]);
            break;
          default:
            text[at] = static_cast<char>(random() % 256);
            break;
        }
      }
      auto p = test::parseText(text);
      if (p.kernel)
        ++parsed;
      else
        ++refused;
      EXPECT_EQ(p.kernel.has_value(), !p.diags->hasErrors()) << text;
    }
  }
  EXPECT_GT(refused, 0);
  EXPECT_EQ(parsed + refused, 900);
}

}  // namespace
}  // namespace cudaburg
