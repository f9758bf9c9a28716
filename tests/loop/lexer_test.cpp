#include "src/loop/lexer.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cudaburg {
namespace {

std::vector<Token> lexAll(const std::string& text) {
  LoopLexer lexer(std::string_view(text.c_str(), text.size()));
  std::vector<Token> out;
  for (int guard = 0; guard < 1000; ++guard) {
    Token t = lexer.next();
    out.push_back(t);
    if (t.kind == Tok::End) break;
  }
  return out;
}

std::vector<Tok> kinds(const std::string& text) {
  std::vector<Tok> out;
  for (const Token& t : lexAll(text)) out.push_back(t.kind);
  return out;
}

TEST(LoopLexer, KeywordsIdentifiersAndNumbers) {
  EXPECT_EQ(kinds("size kernel const padded parallel reduce for min max float double half int sizes k2 _x"),
            (std::vector<Tok>{Tok::Size, Tok::KernelKw, Tok::Const, Tok::Padded, Tok::Parallel, Tok::Reduce, Tok::For,
                              Tok::Min, Tok::Max, Tok::Float, Tok::Double, Tok::Half, Tok::Int, Tok::Ident, Tok::Ident,
                              Tok::Ident, Tok::End}));
  EXPECT_EQ(kinds("bfloat16 tf32 bfloat tf32x"),
            (std::vector<Tok>{Tok::BFloat16, Tok::Tf32, Tok::Ident, Tok::Ident, Tok::End}));
  EXPECT_EQ(kinds("42 0.5 .5 1e3 2.5e-3 7."),
            (std::vector<Tok>{Tok::Integer, Tok::Real, Tok::Real, Tok::Real, Tok::Real, Tok::Real, Tok::End}));
}

TEST(LoopLexer, PunctuationTakesTheLongestMatch) {
  EXPECT_EQ(kinds("+= ++ + = < ( ) [ ] { } , ; - * / %"),
            (std::vector<Tok>{Tok::PlusAssign, Tok::PlusPlus, Tok::Plus, Tok::Assign, Tok::Less, Tok::LParen,
                              Tok::RParen, Tok::LBracket, Tok::RBracket, Tok::LBrace, Tok::RBrace, Tok::Comma,
                              Tok::Semicolon, Tok::Minus, Tok::Star, Tok::Slash, Tok::Percent, Tok::End}));
}

TEST(LoopLexer, SkipsCommentsAndKeepsOffsets) {
  const std::string text = "// line\n  /* block\n */ for x";
  std::vector<Token> tokens = lexAll(text);
  ASSERT_EQ(tokens.size(), 3u);
  EXPECT_EQ(tokens[0].kind, Tok::For);
  EXPECT_EQ(tokens[0].offset, 23u);
  EXPECT_EQ(tokens[1].text, "x");
}

TEST(LoopLexer, ReportsBadInputAndEnds) {
  EXPECT_EQ(kinds("a $ b"), (std::vector<Tok>{Tok::Ident, Tok::Invalid, Tok::Ident, Tok::End}));
  EXPECT_EQ(kinds("a /* never closed"), (std::vector<Tok>{Tok::Ident, Tok::UnterminatedComment, Tok::End}));
  std::string withNul("a\0b", 3);
  EXPECT_EQ(kinds(withNul), (std::vector<Tok>{Tok::Ident, Tok::Invalid, Tok::Ident, Tok::End}));
  LoopLexer lexer("");
  EXPECT_EQ(lexer.next().kind, Tok::End);
  EXPECT_EQ(lexer.next().kind, Tok::End);  // and keeps saying so
}

}  // namespace
}  // namespace cudaburg
