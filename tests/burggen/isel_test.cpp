// The instruction-selection example: the instructions chosen for small programs, worked by hand.
#include <gtest/gtest.h>

#include <algorithm>

#include "examples/isel/best_covers.hpp"
#include "examples/isel/munch.hpp"
#include "examples/isel/selector.hpp"

namespace {

std::vector<std::string> select(const std::string& text, std::string* errors = nullptr) {
  common::SourceFile file("t.tiny", text);
  common::Diagnostics diags(file);
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
  // Slots are given in order of use, and kids are reduced first, left to right: the address a
  // gets 0(fp), then b 4(fp).
  EXPECT_EQ(select("a = 16 * b;"),
            (Lines{"# a = 16 * b;", "    lw    r1, 4(fp)", "    slli  r2, r1, 4", "    sw    r2, 0(fp)"}));
  EXPECT_EQ(select("a = b * 6;"), (Lines{"# a = b * 6;", "    lw    r1, 4(fp)", "    li    r2, 6",
                                         "    mul   r3, r1, r2", "    sw    r3, 0(fp)"}));
}

TEST(IselExample, SubtractingAConstantAddsItsNegation) {
  EXPECT_EQ(select("a = a - 3;"),
            (Lines{"# a = a - 3;", "    lw    r1, 0(fp)", "    addi  r2, r1, -3", "    sw    r2, 0(fp)"}));
}

TEST(IselExample, LoadsAndStoresFoldOffsets) {
  EXPECT_EQ(select("[p + 12] = [q];"), (Lines{"# [p + 12] = [q];", "    lw    r1, 0(fp)", "    lw    r2, 4(fp)",
                                              "    lw    r3, 0(r2)", "    sw    r3, 12(r1)"}));
}

TEST(IselExample, ExplainsTheCover) {
  common::SourceFile file("t.tiny", "a = b + 1;");
  common::Diagnostics diags(file);
  isel::Selection selection;
  ASSERT_TRUE(isel::selectInstructions(file, diags, selection));
  ASSERT_EQ(selection.statements.size(), 1u);
  EXPECT_EQ(selection.statements[0].cost, 3);
  EXPECT_EQ(selection.statements[0].cover,
            "stmt: ASSIGN(a:addr, r:reg)  [#0 ASSIGN, cost 3]\n"
            "  addr: v:VAR  [#1 VAR, cost 0]\n"
            "  reg: ADD(a:reg, i:imm)  [#2 ADD, cost 2]\n"
            "    reg: LOAD(a:addr)  [#3 LOAD, cost 1]\n"
            "      addr: v:VAR  [#4 VAR, cost 0]\n"
            "    imm: c:CONST  [#5 CONST, cost 0]\n");
  const std::string& dot = selection.statements[0].dot;
  EXPECT_NE(dot.find("<b>reg: ADD(a:reg, i:imm) = 12</b>"), std::string::npos) << dot;
  // Nodes are drawn with their values, every nonterminal they derive with its cost.
  EXPECT_NE(dot.find("<b>CONST 1</b>"), std::string::npos) << dot;
  EXPECT_NE(dot.find("<b>VAR b</b>"), std::string::npos) << dot;
  EXPECT_NE(dot.find("<td>reg</td><td>1</td><td>reg: v:VAR = 9</td>"), std::string::npos) << dot;
}

TEST(IselExample, ChainRulesJoinTheNonterminals) {
  // reg: imm (li) and addr: reg (0(r)) are chain rules: [q] loads through a register.
  common::SourceFile file("t.tiny", "a = 7; [b] = 1;");
  common::Diagnostics diags(file);
  isel::Selection selection;
  ASSERT_TRUE(isel::selectInstructions(file, diags, selection));
  EXPECT_NE(selection.statements[0].cover.find("reg: i:imm  [#2 CONST, cost 1]"), std::string::npos)
      << selection.statements[0].cover;
  EXPECT_NE(selection.statements[1].cover.find("addr: b:reg  [#1 LOAD, cost 1]"), std::string::npos)
      << selection.statements[1].cover;
}

TEST(IselExample, TheListingCostsWhatLabelingComputed) {
  common::SourceFile file("t.tiny", "x = 5; y = x * 8 + 100; z = y * x - 70000; [&z + 8] = [&x + 4]; w = a * b + c;");
  common::Diagnostics diags(file);
  isel::Selection selection;
  ASSERT_TRUE(isel::selectInstructions(file, diags, selection));
  long labeled = 0;
  for (const auto& s : selection.statements) labeled += s.cost;
  long emitted = 0;
  for (const std::string& line : selection.listing) {
    if (line.rfind("# ", 0) == 0) continue;
    emitted += line.find("mul") != std::string::npos || line.find("madd") != std::string::npos ? 3 : 1;
  }
  EXPECT_EQ(labeled, emitted);
}

TEST(IselExample, MaximalMunchTakesTheBiggestPatternNotTheCheapest) {
  common::SourceFile file("t.tiny", "y = x * 8 + 100; w = a * b + c;");
  common::Diagnostics diags(file);
  isel::Selection burg, munch;
  ASSERT_TRUE(isel::selectInstructions(file, diags, burg));
  ASSERT_TRUE(isel::selectByMaximalMunch(file, diags, munch));
  // x * 8 + 100: munch takes madd (two operators) and loads 8 and 100; BURG shifts and adds 100.
  EXPECT_EQ(burg.statements[0].cost, 4);
  EXPECT_EQ(munch.statements[0].cost, 7);
  // a * b + c: madd is the cheapest too, and both take it; munch loads 8 and 100 for its madd.
  EXPECT_EQ(burg.statements[1].cost, munch.statements[1].cost);
  EXPECT_NE(std::find(munch.listing.begin(), munch.listing.end(), "    madd  r4, r1, r2, r3"), munch.listing.end());
}

TEST(IselExample, BadProgramsGetDiagnostics) {
  std::string errors;
  EXPECT_TRUE(select("a = (b + ;", &errors).empty());
  EXPECT_EQ(errors, "t.tiny:1:10: error: expected an expression\na = (b + ;\n         ^\n");
  EXPECT_TRUE(select("a = 99999999999;", &errors).empty());
  EXPECT_NE(errors.find("integer too large"), std::string::npos);
}

TEST(IselExample, ThreeCheapestCoversInCostOrder) {
  common::SourceFile file("t.tiny", "a = b + 1;");
  common::Diagnostics diags(file);
  std::vector<isel::StatementCovers> statements;
  ASSERT_TRUE(isel::selectBestCovers(file, diags, 3, statements));
  ASSERT_EQ(statements.size(), 1u);
  const auto& covers = statements[0].covers;
  ASSERT_EQ(covers.size(), 3u);
  EXPECT_EQ(covers[0].cost, 3);
  EXPECT_EQ(covers[0].cover,
            "stmt: ASSIGN(a:addr, r:reg)\n"
            "  addr: v:VAR\n"
            "  reg: ADD(a:reg, i:imm)\n"
            "    reg: LOAD(a:addr)\n"
            "      addr: v:VAR\n"
            "    imm: c:CONST\n");
  EXPECT_EQ(covers[0].instructions, (Lines{"    lw    r1, 4(fp)", "    addi  r2, r1, 1", "    sw    r2, 0(fp)"}));
  // Two covers cost 4: 1 loaded by li (the chain rule reg: i:imm) and added, or b's address
  // computed (addr: b:reg over reg: v:VAR) and loaded through it.
  EXPECT_EQ(covers[1].cost, 4);
  EXPECT_EQ(covers[1].cover,
            "stmt: ASSIGN(a:addr, r:reg)\n"
            "  addr: v:VAR\n"
            "  reg: ADD(a:reg, b:reg)\n"
            "    reg: LOAD(a:addr)\n"
            "      addr: v:VAR\n"
            "    reg: i:imm\n"
            "      imm: c:CONST\n");
  EXPECT_EQ(covers[1].instructions,
            (Lines{"    lw    r1, 4(fp)", "    li    r2, 1", "    add   r3, r1, r2", "    sw    r3, 0(fp)"}));
  EXPECT_EQ(covers[2].cost, 4);
  EXPECT_EQ(covers[2].cover,
            "stmt: ASSIGN(a:addr, r:reg)\n"
            "  addr: v:VAR\n"
            "  reg: ADD(a:reg, i:imm)\n"
            "    reg: LOAD(a:addr)\n"
            "      addr: b:reg\n"
            "        reg: v:VAR\n"
            "    imm: c:CONST\n");
  // The best cover is the one the classic matcher chooses.
  EXPECT_EQ(select("a = b + 1;"),
            (Lines{"# a = b + 1;", covers[0].instructions[0], covers[0].instructions[1], covers[0].instructions[2]}));
}

}  // namespace
