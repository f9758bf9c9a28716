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

TEST(Diagnostics, PrintsAtMostTheLimitThenCountsTheRest) {
  SourceFile file("s.burg", "x\n");
  Diagnostics diags(file);
  for (int i = 0; i < 70; ++i) diags.error({1, 1}, "e" + std::to_string(i));
  diags.note({1, 1}, "a note of a hidden error");
  for (int i = 0; i < 5; ++i) diags.warning({1, 1}, "w");
  std::string text = diags.str();
  EXPECT_NE(text.find("error: e49\n"), std::string::npos);
  EXPECT_EQ(text.find("error: e50\n"), std::string::npos);
  EXPECT_EQ(text.find("note"), std::string::npos);
  const std::string last = "\ns.burg: 20 more errors and 5 more warnings not shown\n";
  EXPECT_EQ(text.substr(text.size() - last.size()), last);
  EXPECT_EQ(diags.errorCount(), 70);
  diags.setLimit(0);
  EXPECT_NE(diags.str().find("error: e69\n"), std::string::npos);
}

TEST(Diagnostics, NotesFollowTheirShownDiagnostic) {
  SourceFile file("s.burg", "x\n");
  Diagnostics diags(file);
  diags.setLimit(1);
  diags.error({}, "first");
  diags.note({}, "its note");
  diags.warning({}, "second");
  EXPECT_EQ(diags.str(), "s.burg: error: first\ns.burg: note: its note\ns.burg: 1 more warning not shown\n");
}

TEST(Diagnostics, ALongLineIsShownAsAWindowAroundTheSpot) {
  std::string line(100000, 'a');
  line[50000] = 'X';
  SourceFile file("t", line + "\n");
  Diagnostics diags(file);
  diags.warning({1, 50001}, "here");
  std::string text = diags.str();
  EXPECT_LT(text.size(), 2 * Diagnostics::kMaxLineShown + 100);
  size_t shown = text.find('\n') + 1;
  std::string shownLine = text.substr(shown, text.find('\n', shown) - shown);
  std::string caretLine = text.substr(shown + shownLine.size() + 1);
  EXPECT_EQ(shownLine.substr(0, 3), "...");
  EXPECT_EQ(shownLine.substr(shownLine.size() - 3), "...");
  EXPECT_EQ(shownLine[caretLine.size() - 2], 'X');  // the caret line ends "^\n"
}

TEST(Diagnostics, ALongLineCutAtItsEndOnly) {
  std::string line(1000, 'b');
  SourceFile file("t", line + "\n");
  Diagnostics diags(file);
  diags.error({1, 3}, "near the start");
  EXPECT_EQ(diags.str(),
            "t:1:3: error: near the start\n" + std::string(Diagnostics::kMaxLineShown, 'b') + "...\n  ^\n");
}

}  // namespace
}  // namespace common
