// Diagnostics as compilers print them: file:line:col: severity: message, the line, a caret.
#include <gtest/gtest.h>

#include "common/diagnostics.hpp"

namespace common {
namespace {

TEST(Diagnostics, ErrorWithLineAndCaret) {
  SourceFile file("m.loop", "kernel k {\n  x = y;\n}\n");
  Diagnostics diags(file);
  diags.error({2, 7}, "unknown array 'y'");
  EXPECT_EQ(diags.str(), "m.loop:2:7: error: unknown array 'y'\n  x = y;\n      ^\n");
  EXPECT_TRUE(diags.hasErrors());
  EXPECT_EQ(diags.errorCount(), 1);
}

TEST(Diagnostics, TabsStayInTheCaretLine) {
  SourceFile file("t", "\tx\ty;\n");
  Diagnostics diags(file);
  diags.warning({1, 4}, "here");
  EXPECT_EQ(diags.str(), "t:1:4: warning: here\n\tx\ty;\n\t \t^\n");
  EXPECT_FALSE(diags.hasErrors());
  EXPECT_EQ(diags.warningCount(), 1);
}

TEST(Diagnostics, WithoutAPositionOnlyTheFile) {
  SourceFile file("s.burg", "");
  Diagnostics diags(file);
  diags.note({}, "no start nonterminal");
  diags.error({}, "nothing to match");
  EXPECT_EQ(diags.str(), "s.burg: note: no start nonterminal\ns.burg: error: nothing to match\n");
  ASSERT_EQ(diags.all().size(), 2u);
  EXPECT_EQ(diags.all()[0].severity, Severity::Note);
}

}  // namespace
}  // namespace common
