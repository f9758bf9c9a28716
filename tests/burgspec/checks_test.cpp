#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "tests/burgspec/spec_fixture.hpp"

namespace burgspec {
namespace {

using test::check;

std::vector<std::string> nonterminalNames(const Grammar& g) {
  std::vector<std::string> names;
  for (const auto& nt : g.nonterminals) names.push_back(nt.name);
  return names;
}

TEST(Checks, StartDefaultsToTheFirstRule) {
  auto spec = check("%term A\n%%\nb: c;\nc: A;\n");
  ASSERT_TRUE(spec->checked) << spec->diags.str();
  EXPECT_EQ(spec->grammar.start, "b");
  EXPECT_EQ(spec->grammar.startLoc.line, 3u);
}

TEST(Checks, NonterminalsStartFirstThenFirstAppearance) {
  auto spec = check("%term A B\n%start s\n%%\nc: a;\na: A;\nb: B;\ns: b;\ns: c;\n");
  ASSERT_TRUE(spec->checked) << spec->diags.str();
  EXPECT_EQ(nonterminalNames(spec->grammar), (std::vector<std::string>{"s", "c", "a", "b"}));
  EXPECT_EQ(spec->grammar.nonterminals[1].loc.line, 4u);  // at c's rule
  EXPECT_EQ(spec->grammar.nonterminals[0].loc.line, 7u);  // s's first rule
}

TEST(Checks, TypesAreAttachedToNonterminals) {
  auto spec = check("%term A\n%type <Value*> reg\n%%\nstmt: reg;\nreg: A { return nullptr; }\n");
  ASSERT_TRUE(spec->checked) << spec->diags.str();
  EXPECT_EQ(spec->grammar.findNonterminal("reg")->resultType, "Value*");
  EXPECT_EQ(spec->grammar.findNonterminal("stmt")->resultType, "");
}

TEST(Checks, OperatorsAreClassifiedAndTheirAritiesInferred) {
  auto spec = check("%term ADD NEG K\n%%\nr: ADD(r, NEG(K));\nr: K;\n");
  ASSERT_TRUE(spec->checked) << spec->diags.str();
  const Pattern& p = spec->grammar.rules[0].pattern;
  EXPECT_TRUE(p.isTerminal);
  EXPECT_FALSE(p.kids[0].isTerminal);
  EXPECT_TRUE(p.kids[1].isTerminal);
  EXPECT_TRUE(p.kids[1].kids[0].isTerminal);
  EXPECT_EQ(spec->grammar.findTerminal("ADD")->arity, 2);
  EXPECT_EQ(spec->grammar.findTerminal("NEG")->arity, 1);
  EXPECT_EQ(spec->grammar.findTerminal("K")->arity, 0);
}

TEST(Checks, UnnumberedRulesAndOperatorsFollowTheLargestWrittenNumber) {
  auto spec = check("%term A B=7 C\n%%\nx: A;\nx: B = 4;\nx: C = 2;\nx: y;\ny: A;\n");
  ASSERT_TRUE(spec->checked) << spec->diags.str();
  const auto& r = spec->grammar.rules;
  EXPECT_EQ(r[0].number, 5);
  EXPECT_EQ(r[1].number, 4);
  EXPECT_EQ(r[2].number, 2);
  EXPECT_EQ(r[3].number, 6);
  EXPECT_EQ(r[4].number, 7);
  const auto& t = spec->grammar.terminals;
  EXPECT_EQ(t[0].number, 8);
  EXPECT_EQ(t[1].number, 7);
  EXPECT_EQ(t[2].number, 9);
}

TEST(Checks, UnnumberedEverythingCountsFromOne) {
  auto spec = check("%term A B\n%%\nx: A;\nx: B;\n");
  ASSERT_TRUE(spec->checked) << spec->diags.str();
  EXPECT_EQ(spec->grammar.rules[0].number, 1);
  EXPECT_EQ(spec->grammar.rules[1].number, 2);
  EXPECT_EQ(spec->grammar.terminals[0].number, 1);
  EXPECT_EQ(spec->grammar.terminals[1].number, 2);
}

TEST(Checks, UndefinedNonterminalInAPattern) {
  auto spec = check("%term A\n%%\nx: A;\nx: y;\n");
  EXPECT_FALSE(spec->checked);
  EXPECT_EQ(spec->diags.str(),
            "t.burg:4:4: error: undefined nonterminal 'y': no rule derives it\n"
            "x: y;\n"
            "   ^\n");
}

TEST(Checks, UndeclaredOperatorWithOperands) {
  auto spec = check("%%\nx: F(x);\nx: y;\ny: x;\n");
  EXPECT_NE(spec->messages().find("2:4: error: undeclared operator 'F'; declare it with %term\n"), std::string::npos)
      << spec->messages();
}

TEST(Checks, NonterminalWithOperands) {
  auto spec = check("%term A\n%%\nx: A;\ny: x(A);\n");
  EXPECT_NE(spec->messages().find("4:4: error: nonterminal 'x' cannot have operands\n"), std::string::npos)
      << spec->messages();
}

TEST(Checks, UndefinedStartAndTypeNames) {
  EXPECT_EQ(check("%term A\n%start s\n%%\nx: A;\n")->messages(),
            "2:8: error: undefined start nonterminal 's': no rule derives it\n");
  EXPECT_EQ(check("%term A\n%start A\n%%\nx: A;\n")->messages(),
            "2:8: error: start symbol 'A' is an operator, not a nonterminal\n");
  EXPECT_EQ(check("%term A\n%type <int> y A x\n%%\nx: A { return 1; }\n")->messages(),
            "2:13: error: %type names undefined nonterminal 'y'\n"
            "2:15: error: %type names operator 'A'; only nonterminals have types\n");
  EXPECT_EQ(check("%term A\n%type <int> x\n%type <long> x\n%%\nx: A { return 1; }\n")->messages(),
            "3:14: error: the type of 'x' is declared twice\n"
            "2:13: note: first declared here\n");
}

TEST(Checks, OperatorAsLeftSide) {
  auto spec = check("%term A\n%%\nx: A;\nA: x;\n");
  EXPECT_EQ(spec->messages(),
            "4:1: error: 'A' is an operator (%term) and cannot be the left side of a rule\n"
            "1:7: note: 'A' declared here\n");
}

TEST(Checks, OperatorWithTwoArities) {
  auto spec = check("%term ADD K\n%%\nx: ADD(x, x);\nx: K;\nx: ADD(x);\n");
  EXPECT_FALSE(spec->checked);
  EXPECT_EQ(spec->diags.str(),
            "t.burg:5:4: error: operator 'ADD' used with 1 operand here but with 2 operands before\n"
            "x: ADD(x);\n"
            "   ^\n"
            "t.burg:3:4: note: first used here\n"
            "x: ADD(x, x);\n"
            "   ^\n");
}

TEST(Checks, DuplicateRuleNumbers) {
  auto spec = check("%term A B\n%%\nx: A = 3;\nx: B = 3;\n");
  EXPECT_EQ(spec->messages(),
            "4:8: error: duplicate rule number 3\n"
            "3:8: note: rule 3 is numbered here\n");
}

TEST(Checks, DuplicateTermNamesAndNumbers) {
  auto spec = check("%term A=1 B=2 A=3 C=2\n%%\nx: A;\nx: B;\nx: C;\n");
  EXPECT_EQ(spec->messages(),
            "1:15: error: duplicate %term 'A'\n"
            "1:7: note: first declared here\n"
            "1:19: error: operator number 2 of 'C' is already used by 'B'\n"
            "1:11: note: 'B' declared here\n");
}

TEST(Checks, DuplicateBindingInOnePattern) {
  auto spec = check("%term ADD K\n%%\nx: ADD(a:x, a:x);\nx: K;\n");
  EXPECT_EQ(spec->messages(),
            "3:13: error: binding 'a' is used twice in one pattern\n"
            "3:8: note: first bound here\n");
}

// Cycles of chain rules are accepted whatever their costs, as lburg accepts lcc's machine
// descriptions (`addr: reg` at 0 and `reg: addr` at 1): costs are never negative, so the
// closure at a node stops.
TEST(Checks, ChainCycleThroughARuleOfCostZeroIsAccepted) {
  auto spec = check("%term A\n%%\ns: a;\na: b;\nb: c;\nc: a;\nc: A;\n");
  EXPECT_TRUE(spec->checked) << spec->messages();
  EXPECT_EQ(spec->messages(), "");
}

TEST(Checks, ChainSelfLoopIsAccepted) {
  auto spec = check("%term A\n%%\na: A;\na: a;\n");
  EXPECT_TRUE(spec->checked) << spec->messages();
  EXPECT_EQ(spec->messages(), "");
}

TEST(Checks, ChainCycleOfPositiveOrDynamicCostsIsAccepted) {
  auto spec = check("%term A\n%%\ns: a;\na: b (1);\nb: a (f(node));\nb: A;\nc: d (2);\nd: c (3);\nd: A;\n");
  EXPECT_TRUE(spec->checked) << spec->messages();
  EXPECT_EQ(spec->diags.errorCount(), 0);
}

// A hundred thousand nonterminals, each derived from the next by an operator, the rule of the
// last one written last: the checks take time linear in the grammar, whatever the order.
TEST(Checks, LongChainWrittenLeafLastIsCheckedInLinearTime) {
  const int n = 100000;
  std::string text = "%term C A\n%%\n";
  for (int i = n - 1; i > 0; --i) text += "n" + std::to_string(i) + ": A(n" + std::to_string(i - 1) + ");\n";
  text += "n0: C;\n";
  auto begin = std::chrono::steady_clock::now();
  auto spec = check(text);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  EXPECT_TRUE(spec->checked) << spec->messages().substr(0, 500);
  EXPECT_EQ(spec->grammar.nonterminals.size(), static_cast<size_t>(n));
  EXPECT_LT(seconds, 10.0);
}

TEST(Checks, NonterminalThatDerivesNoFiniteTree) {
  auto spec = check("%term ADD K\n%%\ns: K;\ns: ADD(s, loop);\nloop: ADD(loop, s);\n");
  EXPECT_FALSE(spec->checked);
  EXPECT_EQ(spec->messages(),
            "5:1: error: nonterminal 'loop' derives no finite tree: each of its rules needs a nonterminal that "
            "derives none\n");
}

TEST(Checks, UnreachableNonterminalIsAWarning) {
  auto spec = check("%term A B\n%%\ns: A;\nlost: B;\n");
  EXPECT_TRUE(spec->checked);
  EXPECT_EQ(spec->messages(), "4:1: warning: nonterminal 'lost' is unreachable from the start nonterminal 's'\n");
}

TEST(Checks, UnusedOperatorIsAWarning) {
  auto spec = check("%term A B=4\n%%\ns: A;\n");
  EXPECT_TRUE(spec->checked);
  EXPECT_EQ(spec->messages(), "1:9: warning: operator 'B' is never used\n");
  EXPECT_EQ(spec->grammar.findTerminal("B")->arity, -1);
}

TEST(Checks, TypedRuleWithoutActionIsAWarningUnlessItPassesAValueOn) {
  auto spec = check(
      "%term A B\n%type <int> s t\n%type <long> u\n%%\n"
      "s: A { return 1; }\n"
      "s: t;\n"  // same type: passes t's value on
      "t: B;\n"  // no action: default value
      "s: u;\n"  // other type: no way to convert
      "u: A { return 2; }\n");
  EXPECT_TRUE(spec->checked);
  EXPECT_EQ(spec->messages(),
            "7:1: warning: rule for 't' has no action; its value will be a default int{}\n"
            "8:1: warning: rule for 's' has no action; its value will be a default int{}\n");
}

TEST(Checks, ActionsOfUntypedNonterminalsAreFine) {
  auto spec = check("%term A\n%%\ns: A { emit(); }\n");
  EXPECT_TRUE(spec->checked);
  EXPECT_TRUE(spec->diags.all().empty()) << spec->messages();
}

TEST(Checks, GrammarWithoutRules) {
  auto spec = check("%term A\n%%\n");
  EXPECT_FALSE(spec->checked);
  EXPECT_EQ(spec->diags.str(), "t.burg: error: the grammar has no rules\n");
}

TEST(Checks, ManyErrorsAreReportedTogether) {
  auto spec = check("%term A B=1 C=1\n%%\nx: A = 1;\nx: B = 1;\nx: D(z);\n");
  EXPECT_GE(spec->diags.errorCount(), 3) << spec->messages();
}

}  // namespace
}  // namespace burgspec
