// The instruction-selection example: the instructions chosen for small programs, worked by hand.
#include <gtest/gtest.h>

#include "examples/isel/best_covers.hpp"
#include "examples/isel/selector.hpp"

namespace {

std::vector<std::string> select(const std::string& text, std::string* errors = nullptr) {
  burgspec::SourceFile file("t.tiny", text);
  burgspec::Diagnostics diags(file);
  isel::Selection selection;
  bool ok = isel::selectInstructions(file, diags, selection);
  if (errors) *errors = diags.str();
  EXPECT_EQ(ok, !diags.hasErrors());
  return selection.listing;
}

using Lines = std::vector<std::string>;

TEST(IselExample, ImmediatesFitTwelveBits) {
  EXPECT_EQ(select("a = 2047;"), (Lines{"# a = 2047;", "    li    r1, 2047", "    sw    r1, 0(fp)"}));
  // 2048 does not fit: lui 1 (4096) then addi -2048.
  EXPECT_EQ(select("a = 2048;"),
            (Lines{"# a = 2048;", "    lui   r1, 1", "    addi  r1, r1, -2048", "    sw    r1, 0(fp)"}));
  EXPECT_EQ(select("a = 0;"), (Lines{"# a = 0;", "    sw    zero, 0(fp)"}));
}

TEST(IselExample, MultiplyByPowerOfTwoIsAShift) {
  // Slots are given in order of use, and kids are reduced first: b gets 0(fp), a 4(fp).
  EXPECT_EQ(select("a = 16 * b;"),
            (Lines{"# a = 16 * b;", "    lw    r1, 0(fp)", "    slli  r2, r1, 4", "    sw    r2, 4(fp)"}));
  EXPECT_EQ(select("a = b * 6;"), (Lines{"# a = b * 6;", "    lw    r1, 0(fp)", "    li    r2, 6",
                                         "    mul   r3, r1, r2", "    sw    r3, 4(fp)"}));
}

TEST(IselExample, SubtractingAConstantAddsItsNegation) {
  EXPECT_EQ(select("a = a - 3;"),
            (Lines{"# a = a - 3;", "    lw    r1, 0(fp)", "    addi  r2, r1, -3", "    sw    r2, 0(fp)"}));
}

TEST(IselExample, LoadsAndStoresFoldOffsets) {
  EXPECT_EQ(select("[p + 12] = [q];"),
            (Lines{"# [p + 12] = [q];", "    lw    r1, 0(fp)", "    lw    r2, 4(fp)", "    lw    r3, 0(r2)",
                   "    sw    r3, 12(r1)"}));
}

TEST(IselExample, ExplainsTheCover) {
  burgspec::SourceFile file("t.tiny", "a = b + 1;");
  burgspec::Diagnostics diags(file);
  isel::Selection selection;
  ASSERT_TRUE(isel::selectInstructions(file, diags, selection));
  ASSERT_EQ(selection.statements.size(), 1u);
  EXPECT_EQ(selection.statements[0].cost, 3);
  EXPECT_EQ(selection.statements[0].cover,
            "stmt: ASSIGN(v:VAR, r:reg)  [#0 ASSIGN, cost 3]\n"
            "  reg: ADD(a:reg, c:CONST)  [#2 ADD, cost 2]\n"
            "    reg: LOAD(v:VAR)  [#3 LOAD, cost 1]\n");
  EXPECT_NE(selection.statements[0].dot.find("<b>reg: ADD(a:reg, c:CONST) = 31</b>"), std::string::npos);
}

TEST(IselExample, BadProgramsGetDiagnostics) {
  std::string errors;
  EXPECT_TRUE(select("a = (b + ;", &errors).empty());
  EXPECT_EQ(errors, "t.tiny:1:10: error: expected an expression\na = (b + ;\n         ^\n");
  EXPECT_TRUE(select("a = 99999999999;", &errors).empty());
  EXPECT_NE(errors.find("integer too large"), std::string::npos);
}

TEST(IselExample, ThreeCheapestCoversInCostOrder) {
  burgspec::SourceFile file("t.tiny", "a = b + 1;");
  burgspec::Diagnostics diags(file);
  std::vector<isel::StatementCovers> statements;
  ASSERT_TRUE(isel::selectBestCovers(file, diags, 3, statements));
  ASSERT_EQ(statements.size(), 1u);
  const auto& covers = statements[0].covers;
  ASSERT_EQ(covers.size(), 3u);
  EXPECT_EQ(covers[0].cost, 3);
  EXPECT_EQ(covers[0].cover,
            "stmt: ASSIGN(v:VAR, r:reg)\n"
            "  reg: ADD(a:reg, c:CONST)\n"
            "    reg: LOAD(v:VAR)\n");
  EXPECT_EQ(covers[0].instructions, (Lines{"    lw    r1, 0(fp)", "    addi  r2, r1, 1", "    sw    r2, 4(fp)"}));
  // At equal cost the earlier rule comes first: reg: ADD(a:reg, b:reg) (rule 30) before
  // reg: ADD(a:reg, c:CONST) (rule 31) over reg: LOAD(a:reg).
  EXPECT_EQ(covers[1].cost, 4);
  EXPECT_EQ(covers[1].cover,
            "stmt: ASSIGN(v:VAR, r:reg)\n"
            "  reg: ADD(a:reg, b:reg)\n"
            "    reg: LOAD(v:VAR)\n"
            "    reg: c:CONST\n");
  EXPECT_EQ(covers[1].instructions,
            (Lines{"    lw    r1, 0(fp)", "    li    r2, 1", "    add   r3, r1, r2", "    sw    r3, 4(fp)"}));
  EXPECT_EQ(covers[2].cost, 4);
  EXPECT_EQ(covers[2].cover,
            "stmt: ASSIGN(v:VAR, r:reg)\n"
            "  reg: ADD(a:reg, c:CONST)\n"
            "    reg: LOAD(a:reg)\n"
            "      reg: v:VAR\n");
  // The best cover is the one the classic matcher chooses.
  EXPECT_EQ(select("a = b + 1;"), (Lines{"# a = b + 1;", covers[0].instructions[0], covers[0].instructions[1],
                                         covers[0].instructions[2]}));
}

}  // namespace
