#include <gtest/gtest.h>

#include "tests/burgspec/spec_fixture.hpp"

namespace burgspec {
namespace {

using test::parse;

// The sample grammar of iburg's paper (Fraser, Hanson and Proebsting, 1992), as printed there.
const char* kIburgPaperSample = R"(%term ADDI=309 ADDRLP=295 ASGNI=53
%term CNSTI=21 CVCI=85 I0I=661 INDIRC=67
%%
stmt: ASGNI(disp,reg) = 4 (1);
stmt: reg = 5;
reg: ADDI(reg,rc) = 6 (1);
reg: CVCI(INDIRC(disp)) = 7 (1);
reg: I0I = 8;
reg: disp = 9 (1);
disp: ADDI(reg,con) = 10;
disp: ADDRLP = 11;
rc: con = 12;
rc: reg = 13;
con: CNSTI = 14;
con: I0I = 15;
)";

TEST(Parser, IburgPaperSampleParsesAsWritten) {
  auto spec = parse(kIburgPaperSample);
  ASSERT_TRUE(spec->parsed) << spec->diags.str();
  const Grammar& g = spec->grammar;
  ASSERT_EQ(g.terminals.size(), 7u);
  EXPECT_EQ(g.terminals[0].name, "ADDI");
  EXPECT_EQ(g.terminals[0].number, 309);
  EXPECT_TRUE(g.terminals[0].numbered);
  EXPECT_EQ(g.terminals[6].name, "INDIRC");
  EXPECT_EQ(g.terminals[6].number, 67);
  ASSERT_EQ(g.rules.size(), 12u);
  for (size_t i = 0; i < g.rules.size(); ++i) {
    EXPECT_EQ(g.rules[i].number, static_cast<int>(i) + 4);
    EXPECT_TRUE(g.rules[i].numbered);
    EXPECT_FALSE(g.rules[i].action);
  }
  const Rule& r7 = g.rules[3];
  EXPECT_EQ(r7.lhs, "reg");
  EXPECT_EQ(r7.pattern.symbol, "CVCI");
  ASSERT_EQ(r7.pattern.kids.size(), 1u);
  EXPECT_EQ(r7.pattern.kids[0].symbol, "INDIRC");
  ASSERT_EQ(r7.pattern.kids[0].kids.size(), 1u);
  EXPECT_EQ(r7.pattern.kids[0].kids[0].symbol, "disp");
  EXPECT_FALSE(r7.cost.dynamic);
  EXPECT_EQ(r7.cost.value, 1);
  EXPECT_EQ(g.rules[1].cost.value, 0);  // `stmt: reg = 5;` has no cost
  EXPECT_TRUE(g.start.empty());         // no %start: checkGrammar picks the first rule's
  EXPECT_TRUE(g.epilogue.empty());
}

TEST(Parser, IburgPaperSamplePassesTheChecksCleanly) {
  auto spec = test::check(kIburgPaperSample);
  ASSERT_TRUE(spec->checked) << spec->diags.str();
  EXPECT_EQ(spec->diags.all().size(), 0u) << spec->diags.str();
  const Grammar& g = spec->grammar;
  EXPECT_EQ(g.start, "stmt");
  std::vector<std::string> names;
  for (const auto& nt : g.nonterminals) names.push_back(nt.name);
  EXPECT_EQ(names, (std::vector<std::string>{"stmt", "disp", "reg", "rc", "con"}));
  EXPECT_EQ(g.findTerminal("ASGNI")->arity, 2);
  EXPECT_EQ(g.findTerminal("CVCI")->arity, 1);
  EXPECT_EQ(g.findTerminal("I0I")->arity, 0);
  EXPECT_TRUE(g.rules[0].pattern.isTerminal);
  EXPECT_FALSE(g.rules[0].pattern.kids[0].isTerminal);
  EXPECT_TRUE(g.rules[1].isChain());
  EXPECT_FALSE(g.rules[4].isChain());  // reg: I0I is a leaf operator, not a chain rule
}

TEST(Parser, LocationsOfRulesPatternsNumbersAndCosts) {
  auto spec = parse("%term A=1\n%%\nx:  A = 7 (3);\n");
  ASSERT_TRUE(spec->parsed) << spec->diags.str();
  const Rule& r = spec->grammar.rules[0];
  EXPECT_EQ(r.loc.line, 3u);
  EXPECT_EQ(r.loc.col, 1u);
  EXPECT_EQ(r.pattern.loc.col, 5u);
  EXPECT_EQ(r.numberLoc.col, 9u);
  EXPECT_EQ(r.cost.loc.col, 12u);
  EXPECT_EQ(spec->grammar.terminals[0].loc.col, 7u);
}

TEST(Parser, ProloguesAreConcatenatedAndEpilogueIsVerbatim) {
  auto spec = parse("%{\nint a;\n%}\n%term A\n%{ int b; %}\n%%\nx: A;\n%%\n/* kept */ int main() {}\n");
  ASSERT_TRUE(spec->parsed) << spec->diags.str();
  EXPECT_EQ(spec->grammar.prologue, "\nint a;\n int b; ");
  EXPECT_EQ(spec->grammar.epilogue, "\n/* kept */ int main() {}\n");
}

TEST(Parser, TermsWithoutNumbersAndOptionalSemicolons) {
  auto spec = parse("%term A B=5 C;\n%start x;\n%%\nx: A;\n");
  ASSERT_TRUE(spec->parsed) << spec->diags.str();
  const auto& t = spec->grammar.terminals;
  ASSERT_EQ(t.size(), 3u);
  EXPECT_FALSE(t[0].numbered);
  EXPECT_TRUE(t[1].numbered);
  EXPECT_EQ(t[1].number, 5);
  EXPECT_FALSE(t[2].numbered);
  EXPECT_EQ(spec->grammar.start, "x");
  EXPECT_EQ(spec->grammar.startLoc.line, 2u);
  EXPECT_EQ(spec->grammar.startLoc.col, 8u);
}

TEST(Parser, RuleNumbersAndCostsAreOptional) {
  auto spec = parse("%term A B\n%%\nx: A;\nx: B (2);\nx: y = 9;\ny: A;\n");
  ASSERT_TRUE(spec->parsed) << spec->diags.str();
  const auto& r = spec->grammar.rules;
  ASSERT_EQ(r.size(), 4u);
  EXPECT_FALSE(r[0].numbered);
  EXPECT_EQ(r[0].cost.value, 0);
  EXPECT_FALSE(r[0].cost.dynamic);
  EXPECT_EQ(r[1].cost.value, 2);
  EXPECT_TRUE(r[2].numbered);
  EXPECT_EQ(r[2].number, 9);
}

TEST(Parser, CommentsAnywhereOutsideCode) {
  auto spec = parse("// header\n%term /* ops */ A=1 // one\n%%\n/* a rule */ x: A /* leaf */ = 1 (2); // done\n");
  ASSERT_TRUE(spec->parsed) << spec->diags.str();
  ASSERT_EQ(spec->grammar.rules.size(), 1u);
  EXPECT_EQ(spec->grammar.rules[0].cost.value, 2);
}

TEST(Parser, BindingsOnAnySymbol) {
  auto spec = parse("%term ADDI\n%%\nreg: a:ADDI(x:reg, c:con);\n");
  ASSERT_TRUE(spec->parsed) << spec->diags.str();
  const Pattern& p = spec->grammar.rules[0].pattern;
  EXPECT_EQ(p.binding, "a");
  EXPECT_EQ(p.symbol, "ADDI");
  EXPECT_EQ(p.loc.col, 6u);  // a binding's pattern is located at the binding
  ASSERT_EQ(p.kids.size(), 2u);
  EXPECT_EQ(p.kids[0].binding, "x");
  EXPECT_EQ(p.kids[0].symbol, "reg");
  EXPECT_EQ(p.kids[1].binding, "c");
  EXPECT_EQ(p.kids[1].symbol, "con");
  EXPECT_EQ(p.kids[1].loc.col, 20u);
}

TEST(Parser, DynamicCostIsCapturedRaw) {
  auto spec = parse("%term CNSTI\n%%\nreg: CNSTI (fitsImm(node, \")\") ? 0 : INF);\nreg: CNSTI = 3 ( 17 );\n");
  ASSERT_TRUE(spec->parsed) << spec->diags.str();
  const Cost& dynamic = spec->grammar.rules[0].cost;
  EXPECT_TRUE(dynamic.dynamic);
  EXPECT_EQ(dynamic.code, "fitsImm(node, \")\") ? 0 : INF");
  EXPECT_EQ(dynamic.loc.col, 13u);
  EXPECT_TRUE(spec->grammar.rules[0].pattern.kids.empty());
  const Cost& constant = spec->grammar.rules[1].cost;
  EXPECT_FALSE(constant.dynamic);
  EXPECT_EQ(constant.value, 17);
}

TEST(Parser, NegativeOrNamedCostsAreDynamic) {
  auto spec = parse("%term A\n%%\nx: A = 1 (-1);\nx: A = 2 (INF);\nx: A ((INF));\n");
  ASSERT_TRUE(spec->parsed) << spec->diags.str();
  const auto& r = spec->grammar.rules;
  EXPECT_TRUE(r[0].cost.dynamic);
  EXPECT_EQ(r[0].cost.code, "-1");
  EXPECT_EQ(r[1].cost.code, "INF");
  EXPECT_EQ(r[2].cost.code, "(INF)");  // doubled parentheses make a leaf's cost unambiguous
  EXPECT_TRUE(r[2].pattern.kids.empty());
}

TEST(Parser, ANameThatIsNoSymbolIsALeafsCost) {
  // `CONST (INF)`: INF is neither an operator nor a nonterminal, so it is the cost, as in iburg;
  // `NEG (reg)` keeps its operand, and so does `NEG (later)`, whose nonterminal is defined below.
  auto spec = parse("%term NEG CONST\n%%\nreg: NEG (reg);\nreg: CONST (INF);\nreg: NEG (later);\nlater: CONST;\n");
  ASSERT_TRUE(spec->parsed) << spec->diags.str();
  const auto& r = spec->grammar.rules;
  ASSERT_EQ(r[0].pattern.kids.size(), 1u);
  EXPECT_EQ(r[0].pattern.kids[0].symbol, "reg");
  EXPECT_FALSE(r[0].cost.dynamic);
  EXPECT_TRUE(r[1].pattern.kids.empty());
  EXPECT_TRUE(r[1].cost.dynamic);
  EXPECT_EQ(r[1].cost.code, "INF");
  EXPECT_EQ(r[1].cost.loc.col, 13u);
  ASSERT_EQ(r[2].pattern.kids.size(), 1u);
  EXPECT_EQ(r[2].pattern.kids[0].symbol, "later");
}

TEST(Parser, ParenthesesTouchingAnOperatorAlwaysOpenOperands) {
  auto spec = parse("%term A\n%%\nx: A(f(y) ? 1 : 2);\n");
  EXPECT_FALSE(spec->parsed);
  EXPECT_EQ(spec->messages(), "3:11: error: unexpected character\n");
}

TEST(Parser, CallsAfterALeafAreCostsUnlessTheCalleeIsAnOperator) {
  auto spec = parse("%term CNSTI NEG\n%%\nreg: CNSTI (immCost(node));\nrc: con (f(c));\nreg: NEG (NEG(reg));\n");
  ASSERT_TRUE(spec->parsed) << spec->diags.str();
  const auto& r = spec->grammar.rules;
  EXPECT_TRUE(r[0].pattern.kids.empty());
  EXPECT_EQ(r[0].cost.code, "immCost(node)");
  EXPECT_TRUE(r[1].pattern.kids.empty());
  EXPECT_EQ(r[1].cost.code, "f(c)");
  ASSERT_EQ(r[2].pattern.kids.size(), 1u);
  EXPECT_EQ(r[2].pattern.kids[0].kids.size(), 1u);
}

TEST(Parser, ParenthesesAfterALeafThatLookLikeOperandsAreOperands) {
  auto spec = parse("%term NEG\n%%\nreg: NEG (reg);\nreg: NEG (x:reg) (2);\n");
  ASSERT_TRUE(spec->parsed) << spec->diags.str();
  ASSERT_EQ(spec->grammar.rules[0].pattern.kids.size(), 1u);
  EXPECT_EQ(spec->grammar.rules[0].cost.value, 0);
  ASSERT_EQ(spec->grammar.rules[1].pattern.kids.size(), 1u);
  EXPECT_EQ(spec->grammar.rules[1].cost.value, 2);
}

TEST(Parser, ActionsAreCapturedWithoutTheirBraces) {
  auto spec = parse(
      "%term ADDI\n%%\n"
      "reg: ADDI(x:reg, y:reg) (1) { return emit(\"add {}\", x, y); /* } */ }\n"
      "reg: ADDI(reg, reg) = 7 { return nullptr; };\n"
      "stmt: reg;\n");
  ASSERT_TRUE(spec->parsed) << spec->diags.str();
  const auto& r = spec->grammar.rules;
  ASSERT_EQ(r.size(), 3u);
  ASSERT_TRUE(r[0].action);
  EXPECT_EQ(*r[0].action, " return emit(\"add {}\", x, y); /* } */ ");
  EXPECT_EQ(r[0].actionLoc.line, 3u);
  EXPECT_EQ(r[0].actionLoc.col, 29u);
  ASSERT_TRUE(r[1].action);
  EXPECT_EQ(*r[1].action, " return nullptr; ");
  EXPECT_EQ(r[1].number, 7);
  EXPECT_FALSE(r[2].action);
}

TEST(Parser, TypeAndNodeDeclarations) {
  auto spec = parse(
      "%node <const ir::Node*>\n"
      "%type <std::map<int, std::vector<Tree*>>> reg addr;\n"
      "%type <int> con\n"
      "%%\nreg: con;\n");
  ASSERT_TRUE(spec->parsed) << spec->diags.str();
  const Grammar& g = spec->grammar;
  EXPECT_EQ(g.nodeType, "const ir::Node*");
  EXPECT_EQ(g.nodeTypeLoc.col, 8u);
  ASSERT_EQ(g.types.size(), 2u);
  EXPECT_EQ(g.types[0].type, "std::map<int, std::vector<Tree*>>");
  EXPECT_EQ(g.types[0].names, (std::vector<std::string>{"reg", "addr"}));
  EXPECT_EQ(g.types[0].locs[1].col, 47u);
  EXPECT_EQ(g.types[1].type, "int");
  EXPECT_EQ(g.types[1].names, (std::vector<std::string>{"con"}));
}

TEST(Parser, RulesSectionMayBeEmptyAndSecondMarkOptional) {
  auto spec = parse("%term A\n%%\n");
  EXPECT_TRUE(spec->parsed) << spec->diags.str();
  EXPECT_TRUE(spec->grammar.rules.empty());
  auto withEpilogue = parse("%%\nx: y;\n%%");
  EXPECT_TRUE(withEpilogue->parsed);
  EXPECT_EQ(withEpilogue->grammar.epilogue, "");
}

}  // namespace
}  // namespace burgspec
