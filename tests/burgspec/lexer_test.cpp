#include "burgspec/lexer.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace burgspec {
namespace {

std::vector<Token> lexAll(const common::SourceFile& file) {
  Lexer lexer(file);
  std::vector<Token> tokens;
  for (;;) {
    tokens.push_back(lexer.next());
    if (tokens.back().kind == TokenKind::End) return tokens;
  }
}

std::vector<TokenKind> kinds(const std::vector<Token>& tokens) {
  std::vector<TokenKind> out;
  for (const auto& t : tokens) out.push_back(t.kind);
  return out;
}

TEST(Lexer, PunctuationIdentifiersAndNumbers) {
  common::SourceFile file("t", "reg: ADDI(x:reg, rc) = 12 ; { <");
  auto tokens = lexAll(file);
  using K = TokenKind;
  EXPECT_EQ(kinds(tokens), (std::vector<K>{K::Identifier, K::Colon, K::Identifier, K::LeftParen, K::Identifier,
                                           K::Colon, K::Identifier, K::Comma, K::Identifier, K::RightParen, K::Equals,
                                           K::Integer, K::Semicolon, K::LeftBrace, K::LeftAngle, K::End}));
  EXPECT_EQ(tokens[2].text, "ADDI");
  EXPECT_EQ(tokens[11].text, "12");
}

TEST(Lexer, LocationsAreOneBasedLineAndColumn) {
  common::SourceFile file("t", "a\n  bc :\n\tdef");
  auto tokens = lexAll(file);
  ASSERT_EQ(tokens.size(), 5u);
  EXPECT_EQ(tokens[0].loc.line, 1u);
  EXPECT_EQ(tokens[0].loc.col, 1u);
  EXPECT_EQ(tokens[1].loc.line, 2u);
  EXPECT_EQ(tokens[1].loc.col, 3u);
  EXPECT_EQ(tokens[2].loc.col, 6u);
  EXPECT_EQ(tokens[3].loc.line, 3u);
  EXPECT_EQ(tokens[3].loc.col, 2u);
  EXPECT_EQ(tokens[3].offset, 10u);
}

TEST(Lexer, DirectivesAndSectionMarks) {
  common::SourceFile file("t", "%term %start %type %node %frob %% %{");
  auto tokens = lexAll(file);
  using K = TokenKind;
  EXPECT_EQ(kinds(tokens), (std::vector<K>{K::Directive, K::Directive, K::Directive, K::Directive, K::Directive,
                                           K::PercentPercent, K::PrologueBegin, K::End}));
  EXPECT_EQ(tokens[0].text, "%term");
  EXPECT_EQ(tokens[4].text, "%frob");
}

TEST(Lexer, CommentsAreSkipped) {
  common::SourceFile file("t", "a // line comment ; ( \n/* block\n ; */ b /**/ c");
  auto tokens = lexAll(file);
  ASSERT_EQ(tokens.size(), 4u);
  EXPECT_EQ(tokens[0].text, "a");
  EXPECT_EQ(tokens[1].text, "b");
  EXPECT_EQ(tokens[1].loc.line, 3u);
  EXPECT_EQ(tokens[2].text, "c");
}

TEST(Lexer, UnterminatedCommentIsAnError) {
  common::SourceFile file("t", "a /* never closed");
  auto tokens = lexAll(file);
  ASSERT_EQ(tokens.size(), 3u);
  EXPECT_EQ(tokens[1].kind, TokenKind::Error);
  EXPECT_STREQ(tokens[1].error, "unterminated comment");
  EXPECT_EQ(tokens[1].loc.col, 3u);
}

TEST(Lexer, StrayCharactersAreErrors) {
  common::SourceFile file("t", "a $ % %} \xc3\xa9");
  auto tokens = lexAll(file);
  ASSERT_EQ(tokens.size(), 6u);
  for (int i = 1; i <= 4; ++i) EXPECT_EQ(tokens[i].kind, TokenKind::Error) << i;
  EXPECT_STREQ(tokens[1].error, "unexpected character");
  EXPECT_STREQ(tokens[2].error, "expected a directive name after '%'");
  EXPECT_STREQ(tokens[3].error, "'%}' without a matching '%{'");
  EXPECT_EQ(tokens[4].text.size(), 2u);  // one token for the whole UTF-8 sequence
}

TEST(Lexer, NulInsideTheTextIsAnOrdinaryCharacter) {
  common::SourceFile file("t", std::string("a\0b", 3));
  auto tokens = lexAll(file);
  ASSERT_EQ(tokens.size(), 4u);
  EXPECT_EQ(tokens[1].kind, TokenKind::Error);
  EXPECT_EQ(tokens[2].text, "b");
}

// Lexes up to and including the first token of kind `open`, then captures.
RawCapture captureAfter(const common::SourceFile& file, char open, char close, size_t* restOffset = nullptr) {
  Lexer lexer(file);
  lexer.next();
  RawCapture capture = lexer.captureBalanced(open, close);
  if (restOffset) *restOffset = lexer.offset();
  return capture;
}

TEST(Lexer, CaptureBalancedParentheses) {
  common::SourceFile file("t", "(f(a, (b)) + g()) rest");
  size_t rest;
  RawCapture c = captureAfter(file, '(', ')', &rest);
  EXPECT_TRUE(c.closed);
  EXPECT_EQ(c.text, "f(a, (b)) + g()");
  EXPECT_EQ(c.textOffset, 1u);
  EXPECT_EQ(file.text().substr(rest), " rest");
}

TEST(Lexer, CaptureIgnoresBracketsInLiteralsAndComments) {
  common::SourceFile file("t", R"({ s = "}{\"}"; c = '}'; d = '\''; /* } */ // }
  x = 1'000; } after)");
  RawCapture c = captureAfter(file, '{', '}');
  EXPECT_TRUE(c.closed);
  EXPECT_EQ(c.text, R"( s = "}{\"}"; c = '}'; d = '\''; /* } */ // }
  x = 1'000; )");
}

// A backslash before a newline continues a string, a character literal or a // comment on the
// next line, in C++ as here: a '}' there is still inside it.
TEST(Lexer, CaptureFollowsLineSplicesInLiteralsAndComments) {
  common::SourceFile file("t", "{ s = \"a\\\n}\"; t = \"b\\\r\n}\"; // c \\\n } still a comment\n x; } after");
  RawCapture c = captureAfter(file, '{', '}');
  EXPECT_TRUE(c.closed);
  EXPECT_EQ(c.text, " s = \"a\\\n}\"; t = \"b\\\r\n}\"; // c \\\n } still a comment\n x; ");
}

TEST(Lexer, CaptureSkipsRawStrings) {
  common::SourceFile file("t", "{ auto s = R\"x(a } \" )\" b)x\"; }");
  RawCapture c = captureAfter(file, '{', '}');
  EXPECT_TRUE(c.closed);
  EXPECT_EQ(c.text, " auto s = R\"x(a } \" )\" b)x\"; ");
}

TEST(Lexer, CaptureNestedAngleBrackets) {
  common::SourceFile file("t", "<std::map<int, std::vector<Tree*>>> reg");
  RawCapture c = captureAfter(file, '<', '>');
  EXPECT_TRUE(c.closed);
  EXPECT_EQ(c.text, "std::map<int, std::vector<Tree*>>");
}

TEST(Lexer, UnclosedCaptureReportsItAndStopsAtTheEnd) {
  common::SourceFile file("t", "{ if (x) { y(); }");
  Lexer lexer(file);
  lexer.next();
  RawCapture c = lexer.captureBalanced('{', '}');
  EXPECT_FALSE(c.closed);
  EXPECT_EQ(c.text, " if (x) { y(); }");
  EXPECT_EQ(lexer.next().kind, TokenKind::End);
}

TEST(Lexer, PrologueRunsToPercentBrace) {
  common::SourceFile file("t", "%{\n#include <x>\nint a = 1;\n%} %term");
  Lexer lexer(file);
  EXPECT_EQ(lexer.next().kind, TokenKind::PrologueBegin);
  RawCapture c = lexer.capturePrologue();
  EXPECT_TRUE(c.closed);
  EXPECT_EQ(c.text, "\n#include <x>\nint a = 1;\n");
  Token after = lexer.next();
  EXPECT_EQ(after.kind, TokenKind::Directive);
  EXPECT_EQ(after.loc.line, 4u);
}

TEST(Lexer, RestIsVerbatim) {
  common::SourceFile file("t", "%% /* not a comment here */ x");
  Lexer lexer(file);
  lexer.next();
  EXPECT_EQ(lexer.rest(), " /* not a comment here */ x");
  EXPECT_EQ(lexer.next().kind, TokenKind::End);
}

}  // namespace
}  // namespace burgspec
