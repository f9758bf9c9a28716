// lburg's dialect (burggen --lburg): the parts of an lcc machine description, and its errors.
#include <gtest/gtest.h>

#include "burgspec/checks.hpp"
#include "burgspec/lburg_parser.hpp"

namespace burgspec {
namespace {

struct Parsed {
  common::SourceFile file;
  common::Diagnostics diags{file};
  Grammar grammar;
  bool ok;
  explicit Parsed(const std::string& text)
      : file("x.md", text), ok(parseLburgGrammar(file, diags, grammar) && checkGrammar(grammar, diags)) {}
};

const char* kDescription =
    "%{\n#include \"c.h\"\n%}\n"
    "%start stmt\n"
    "%term CNSTI4=4117 ADDI4=4405\n"
    "%term INDIRI4=4167 VREGP=711\n"
    "%%\n"
    "reg: INDIRI4(VREGP)     \"# read register\\n\"\n"
    "\n"
    "stmt: reg  \"\"\n"
    "con: CNSTI4  \"%a\"  range(a, 0, 255)\n"
    "reg: ADDI4(reg,con)  \"addl %1,%0\\n\"  1\n"
    "reg: con  \"movl $%0,%c\\n\"  imm(a) + 1\n"
    "%%\n"
    "static int range(Node a, int lo, int hi) { return 0; }\n";

TEST(LburgParser, ReadsAMachineDescription) {
  Parsed p(kDescription);
  ASSERT_TRUE(p.ok) << p.diags.str();
  const Grammar& g = p.grammar;
  EXPECT_EQ(g.prologue, "#include \"c.h\"\n");
  EXPECT_EQ(g.start, "stmt");
  ASSERT_EQ(g.terminals.size(), 4u);
  EXPECT_EQ(g.terminals[1].name, "ADDI4");
  EXPECT_EQ(g.terminals[1].number, 4405);
  ASSERT_EQ(g.rules.size(), 5u);
  // Rules are numbered from 1 in order; templates are kept as written.
  EXPECT_EQ(g.rules[0].number, 1);
  EXPECT_EQ(g.rules[0].asmTemplate, "# read register\\n");
  EXPECT_FALSE(g.rules[0].cost.dynamic);
  EXPECT_EQ(g.rules[0].cost.value, 0);
  EXPECT_EQ(g.rules[1].asmTemplate, "");
  // A cost that is a number is a constant; anything else is C code.
  EXPECT_TRUE(g.rules[2].cost.dynamic);
  EXPECT_EQ(g.rules[2].cost.code, "range(a, 0, 255)");
  EXPECT_EQ(g.rules[2].cost.loc.line, 11u);
  EXPECT_EQ(g.rules[2].cost.loc.col, 20u);
  EXPECT_FALSE(g.rules[3].cost.dynamic);
  EXPECT_EQ(g.rules[3].cost.value, 1);
  EXPECT_EQ(g.rules[3].pattern.kids.size(), 2u);
  EXPECT_EQ(g.rules[4].number, 5);
  EXPECT_EQ(g.rules[4].cost.code, "imm(a) + 1");
  EXPECT_EQ(g.epilogue, "static int range(Node a, int lo, int hi) { return 0; }\n");
}

// A template is the body of a C string literal: an escaped quote stays inside it, and one that
// ends in a lone backslash (which would escape the closing quote in C) is unterminated.
TEST(LburgParser, TemplatesKeepTheirEscapes) {
  Parsed escaped("%term A=1 B=2\n%%\ns: A \"say \\\"hi\\\" \\\\\" 2\ns: B \"\"\n");
  ASSERT_TRUE(escaped.ok) << escaped.diags.str();
  EXPECT_EQ(escaped.grammar.rules[0].asmTemplate, "say \\\"hi\\\" \\\\");
  EXPECT_EQ(escaped.grammar.rules[0].cost.value, 2);

  Parsed backslash("%term A=1\n%%\ns: A \"x\\\" 1\n");
  EXPECT_FALSE(backslash.ok);
  EXPECT_EQ(backslash.diags.str(),
            "x.md:3:6: error: unterminated template: missing '\"' on this line\ns: A \"x\\\" 1\n     ^\n");
}

TEST(LburgParser, ReportsEachErrorWhereItIs) {
  Parsed missingQuote("%term A=1\n%%\ns: A \"x\n");
  EXPECT_FALSE(missingQuote.ok);
  EXPECT_NE(missingQuote.diags.str().find("x.md:3:6: error: unterminated template"), std::string::npos)
      << missingQuote.diags.str();

  Parsed noTemplate("%term A=1\n%%\ns: A 1\n");
  EXPECT_NE(noTemplate.diags.str().find("x.md:3:6: error: expected the assembler template"), std::string::npos)
      << noTemplate.diags.str();

  Parsed noNumber("%term A\n%%\ns: A \"\"\n");
  EXPECT_NE(noNumber.diags.str().find("x.md:1:8: error: expected '=' and the operator's number"), std::string::npos)
      << noNumber.diags.str();

  Parsed noSeparator("%term A=1\ns: A \"\"\n");
  EXPECT_NE(noSeparator.diags.str().find("x.md:2:1: error: expected a declaration"), std::string::npos)
      << noSeparator.diags.str();

  Parsed openPrologue("%{\nint x;\n");
  EXPECT_NE(openPrologue.diags.str().find("x.md:1:1: error: unterminated '%{' block"), std::string::npos)
      << openPrologue.diags.str();
}

}  // namespace
}  // namespace burgspec
