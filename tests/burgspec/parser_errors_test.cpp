#include <gtest/gtest.h>

#include <string>

#include "tests/burgspec/spec_fixture.hpp"

namespace burgspec {
namespace {

using test::parse;

TEST(ParserErrors, MissingSemicolonPointsJustPastThePreviousToken) {
  auto spec = parse("%term A\n%%\nx: A(y)\ny: A;\n");
  EXPECT_FALSE(spec->parsed);
  EXPECT_EQ(spec->diags.str(),
            "t.burg:3:8: error: expected ';' at end of rule, found identifier 'y'\n"
            "x: A(y)\n"
            "       ^\n");
  // The next rule was not swallowed by the recovery.
  ASSERT_EQ(spec->grammar.rules.size(), 2u);
  EXPECT_EQ(spec->grammar.rules[1].lhs, "y");
}

TEST(ParserErrors, CaretKeepsTabs) {
  auto spec = parse("%%\n\tx \t y;\n");
  EXPECT_EQ(spec->diags.str(),
            "t.burg:2:6: error: expected ':' after 'x', found identifier 'y'\n"
            "\tx \t y;\n"
            "\t  \t ^\n");
}

TEST(ParserErrors, SeveralErrorsInOneRun) {
  auto spec = parse(
      "%term A B\n%%\n"
      "x: A(;\n"      // 3: no operand
      "x: B;\n"       // fine
      "y A;\n"        // 5: no colon
      "y: A(x y);\n"  // 6: missing comma
      "z: B = 0;\n"   // 7: rule number 0
      "z: A;\n");
  EXPECT_FALSE(spec->parsed);
  EXPECT_EQ(spec->messages(),
            "3:6: error: expected a pattern, found ';'\n"
            "5:3: error: expected ':' after 'y', found identifier 'A'\n"
            "6:8: error: expected ',' or ')' after an operand of 'A', found identifier 'y'\n"
            "7:8: error: rule number must be positive\n");
  std::vector<std::string> lhs;
  for (const auto& r : spec->grammar.rules) lhs.push_back(r.lhs);
  EXPECT_EQ(lhs, (std::vector<std::string>{"x", "z"}));
}

TEST(ParserErrors, RecoveryResumesAtARuleThatStartsALine) {
  auto spec = parse("%term A\n%%\nx: A A A\n   A A\ny: A;\nz: A;\n");
  EXPECT_EQ(spec->messages(), "3:5: error: expected ';' at end of rule, found identifier 'A'\n");
  ASSERT_EQ(spec->grammar.rules.size(), 3u);
  EXPECT_EQ(spec->grammar.rules[1].lhs, "y");
}

TEST(ParserErrors, RecoverySkipsActionBlocks) {
  auto spec = parse("%term A\n%%\nx: A = (1) { a; b; c: d; }\ny: A;\n");
  EXPECT_EQ(spec->messages(), "3:8: error: expected rule number, found '('\n");
  ASSERT_EQ(spec->grammar.rules.size(), 1u);
  EXPECT_EQ(spec->grammar.rules[0].lhs, "y");
}

TEST(ParserErrors, MissingRulesSection) {
  auto spec = parse("%term A\n");
  EXPECT_EQ(spec->messages(), "2:1: error: expected '%%' before the rules\n");
}

TEST(ParserErrors, LexicalErrorsAreReportedWhereTheyAre) {
  auto spec = parse("%%\nx: A $ ;\n");
  EXPECT_EQ(spec->diags.str(),
            "t.burg:2:6: error: unexpected character\n"
            "x: A $ ;\n"
            "     ^\n");
}

TEST(ParserErrors, UnknownDirectiveAndMisplacedDeclarations) {
  auto spec = parse("%term A\n%frob x y\n%start x\n%%\n%term B\nx: A;\n%{ int a; %}\n");
  EXPECT_EQ(spec->messages(),
            "2:1: error: unknown directive '%frob'\n"
            "5:1: error: declarations must come before the first '%%'\n"
            "7:1: error: declarations must come before the first '%%'\n");
  ASSERT_EQ(spec->grammar.rules.size(), 1u);
  EXPECT_EQ(spec->grammar.start, "x");
}

TEST(ParserErrors, UnterminatedBlocksPointAtTheirOpening) {
  EXPECT_EQ(parse("%{ int a;\n")->messages(), "1:1: error: unterminated '%{' block: missing '%}'\n");
  EXPECT_EQ(parse("%%\nx: y (f(1);\n")->messages(), "2:6: error: unterminated cost: missing ')'\n");
  EXPECT_EQ(parse("%%\nx: y { if (a) { b(); }\n")->messages(), "2:6: error: unterminated action: missing '}'\n");
  EXPECT_EQ(parse("%type <std::vector<int> reg\n%%\n")->messages(), "1:7: error: unterminated type: missing '>'\n");
  EXPECT_EQ(parse("%%\n/* x: y;\n")->messages(), "2:1: error: unterminated comment\n");
}

TEST(ParserErrors, BadNumbersAndCosts) {
  EXPECT_EQ(parse("%%\nx: y = 99999999999;\n")->messages(), "2:8: error: rule number 99999999999 is too large\n");
  EXPECT_EQ(parse("%term A=0\n%%\n")->messages(), "1:9: error: operator number must be positive\n");
  EXPECT_EQ(parse("%%\nx: y (99999999999999999999);\n")->messages(),
            "2:7: error: cost 99999999999999999999 is too large\n");
  EXPECT_EQ(parse("%%\nx: y ( );\n")->messages(),
            "2:6: error: empty cost: write a number or a C++ expression between the parentheses\n");
  EXPECT_EQ(parse("%term A=\n%%\n")->messages(), "2:1: error: expected operator number, found '%%'\n");
}

TEST(ParserErrors, DeclarationMistakes) {
  EXPECT_EQ(parse("%start\n%%\n")->messages(), "2:1: error: expected the start nonterminal after %start, found '%%'\n");
  EXPECT_EQ(parse("%start a\n%start b\n%%\n")->messages(),
            "2:1: error: duplicate %start declaration\n"
            "1:8: note: the start nonterminal was declared here\n");
  EXPECT_EQ(parse("%node <A*>\n%node <B*>\n%%\n")->messages(),
            "2:1: error: duplicate %node declaration\n"
            "1:8: note: the node type was declared here\n");
  EXPECT_EQ(parse("%type int reg\n%%\n")->messages(),
            "1:7: error: expected a C++ type in angle brackets, found identifier 'int'\n");
  EXPECT_EQ(parse("%type <int>\n%%\n")->messages(),
            "2:1: error: expected the nonterminals that %type <int> applies to, found '%%'\n");
  EXPECT_EQ(parse("%node < >\n%%\n")->messages(), "1:7: error: empty type\n");
  EXPECT_EQ(parse("%term A B 3\n%%\n")->messages(), "1:11: error: expected an operator name, found '3'\n");
  EXPECT_EQ(parse("x: y;\n%%\n")->messages(),
            "1:1: error: expected a declaration (%term, %start, %type, %node, %label, %param, %params, %{ ... %}) "
            "or "
            "'%%', found identifier 'x'\n");
}

TEST(ParserErrors, DeeplyNestedPatternsAreRefusedNotOverflowed) {
  std::string deep = "%term A\n%%\nx: ";
  for (int i = 0; i < 100000; ++i) deep += "A(";
  deep += "y;\n";
  auto spec = parse(deep);
  EXPECT_FALSE(spec->parsed);
  ASSERT_EQ(spec->diags.errorCount(), 1);
  EXPECT_NE(spec->diags.all()[0].message.find("nested too deeply"), std::string::npos);
}

TEST(ParserErrors, ParseReturnsFalseOnlyForItsOwnErrors) {
  common::SourceFile file("t.burg", "%%\nx: y;\n");
  common::Diagnostics diags(file);
  diags.error({}, "an earlier error");
  Grammar grammar;
  EXPECT_TRUE(parseGrammar(file, diags, grammar));
}

}  // namespace
}  // namespace burgspec
