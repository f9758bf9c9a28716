#include <gtest/gtest.h>

#include "tests/loop/parse_helper.hpp"

namespace cudaburg {
namespace {

using test::parseText;

std::string kernelWith(const std::string& body) {
  return "size N = 16;\nkernel f(float A[N][N], float S[N], const float B[N][N]) {\n" + body + "}\n";
}

TEST(MarkCheck, AcceptsRightMarks) {
  for (const char* body : {
           "  parallel for (i = 0; i < N; i++) parallel for (j = 0; j < N; j++) A[i][j] = B[j][i];\n",
           "  parallel for (i = 0; i < N; i++) { S[i] = 0; reduce for (j = 0; j < N; j++) S[i] += B[i][j]; "
           "}\n",
           "  reduce for (i = 0; i < N; i++) reduce for (j = 0; j < N; j++) S[0] += B[i][j] * 2;\n",
           "  for (i = 1; i < N; i++) parallel for (j = 0; j < N; j++) A[i][j] = A[i - 1][j] + 1;\n",
           "  parallel for (i = 0; i < N; i++) for (j = 1; j < N; j++) A[i][j] = A[i][j - 1] + B[i][j];\n",
       }) {
    auto p = parseText(kernelWith(body));
    EXPECT_TRUE(p.kernel) << body << p.errors();
  }
}

struct WrongMark {
  const char* body;
  const char* reason;
};

TEST(MarkCheck, RefusesWrongMarksWithReasons) {
  const WrongMark cases[] = {
      {"  parallel for (i = 1; i < N; i++) parallel for (j = 0; j < N; j++) A[i][j] = A[i - 1][j];\n",
       "loop 'i' is marked parallel but it is not: loop 'i' carries a flow dependence on A in "
       "`A[i][j] = A[i - 1][j]`, direction (<, =)"},
      {"  parallel for (i = 0; i < N; i++) parallel for (j = 0; j < N; j++) S[i] += B[i][j];\n",
       "loop 'j' is marked parallel but it is not: loop 'j' carries a reduction dependence on S"},
      {"  parallel for (i = 0; i < N; i++) S[0] = B[i][0];\n",
       "loop 'i' is marked parallel but it is not: loop 'i' carries an output"},
      {"  reduce for (i = 0; i < N; i++) S[0] = S[0] + B[i][0];\n",
       "loop 'i' is marked reduce but it is not: loop 'i' carries an output dependence on S"},
      {"  reduce for (i = 0; i < N; i++) { S[0] += B[i][0]; A[i][0] = S[0]; }\n", "is not a reduction's own `+=`"},
      {"  for (i = 0; i < N; i++) reduce for (j = 0; j < N; j++) { S[i] += B[i][j]; A[i][j] = S[i]; }\n",
       "loop 'j' is marked reduce but it is not"},
      {"  reduce for (i = 0; i < N; i++) for (j = 0; j < N - 1; j++) S[j + 1] += S[j];\n",
       "loop 'i' is marked reduce but it is not"},
  };
  for (const WrongMark& c : cases) {
    auto p = parseText(kernelWith(c.body));
    EXPECT_FALSE(p.kernel) << c.body;
    EXPECT_NE(p.errors().find(c.reason), std::string::npos) << c.body << "\n" << p.errors();
    EXPECT_NE(p.errors().find("test.loop:3:"), std::string::npos) << p.errors();
  }
}

TEST(MarkCheck, ReportsEveryWrongMark) {
  auto p =
      parseText(kernelWith("  parallel for (i = 0; i < N; i++) S[0] = 1;\n"
                           "  parallel for (j = 1; j < N; j++) S[j] = S[j - 1];\n"));
  EXPECT_FALSE(p.kernel);
  EXPECT_EQ(p.diags->errorCount(), 2) << p.errors();
}

}  // namespace
}  // namespace cudaburg
