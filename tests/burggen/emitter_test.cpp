// The emitter on grammars parsed in memory: what it refuses, and the shape of what it writes.
#include <gtest/gtest.h>

#include "burggen/emitter.hpp"
#include "burgspec/checks.hpp"
#include "burgspec/parser.hpp"

namespace {

struct Emitted {
  bool ok;
  std::string diagnostics;
  burggen::EmittedMatcher matcher;
};

Emitted emit(const std::string& spec, burggen::EmitOptions options = {}) {
  common::SourceFile file("t.burg", spec);
  common::Diagnostics diagnostics(file);
  burgspec::Grammar grammar;
  bool parsed = burgspec::parseGrammar(file, diagnostics, grammar) && burgspec::checkGrammar(grammar, diagnostics);
  EXPECT_TRUE(parsed) << diagnostics.str();
  Emitted out{false, "", {}};
  out.ok = burggen::emitMatcher(grammar, options, diagnostics, out.matcher);
  out.diagnostics = diagnostics.str();
  return out;
}

const char* kSpec =
    "%node <N*>\n%type <int> e\n%term K=4 P=7\n%%\n"
    "e: K = 1 (1) { return 1; }\n"
    "e: P(x:e, y:e) = 2 (x == y ? INF : 2) { return x + y; }\n";

TEST(Emitter, RefusesABindingNamedNode) {
  Emitted e = emit("%node <N*>\n%term K=1 P=2\n%%\ne: P(node:e) = 1 (1);\ne: K = 2;\n");
  EXPECT_FALSE(e.ok);
  EXPECT_NE(e.diagnostics.find("t.burg:4:6: error: the binding 'node' hides"), std::string::npos) << e.diagnostics;
}

TEST(Emitter, RefusesAPrefixThatIsNoIdentifier) {
  burggen::EmitOptions options;
  options.prefix = "a-b";
  Emitted e = emit(kSpec, options);
  EXPECT_FALSE(e.ok);
  EXPECT_NE(e.diagnostics.find("prefix 'a-b' is not a C++ identifier"), std::string::npos);
}

TEST(Emitter, OneFileHoldsEverythingWithoutAHeader) {
  Emitted e = emit(kSpec);
  ASSERT_TRUE(e.ok) << e.diagnostics;
  EXPECT_TRUE(e.matcher.header.empty());
  EXPECT_NE(e.matcher.source.find("class burmMatcher {"), std::string::npos);
  EXPECT_NE(e.matcher.source.find("int burmMatcher::reduce_e(NodePtr node)"), std::string::npos);
  // Operators dispatch through a switch on their numbers, as in iburg.
  EXPECT_NE(e.matcher.source.find("case 7: {  // P"), std::string::npos);
}

TEST(Emitter, HeaderNamespaceAndPrefix) {
  burggen::EmitOptions options;
  options.prefix = "Expr";
  options.nameSpace = "calc";
  options.headerIncludeName = "expr.hpp";
  Emitted e = emit(kSpec, options);
  ASSERT_TRUE(e.ok) << e.diagnostics;
  EXPECT_NE(e.matcher.header.find("#pragma once"), std::string::npos);
  EXPECT_NE(e.matcher.header.find("namespace calc {"), std::string::npos);
  EXPECT_NE(e.matcher.header.find("class ExprMatcher {"), std::string::npos);
  EXPECT_NE(e.matcher.header.find("Expr_P = 7,"), std::string::npos);
  EXPECT_NE(e.matcher.source.find("#include \"expr.hpp\""), std::string::npos);
  EXPECT_EQ(e.matcher.source.find("class ExprMatcher {"), std::string::npos);
  EXPECT_NE(e.matcher.source.find("}  // namespace calc"), std::string::npos);
}

TEST(Emitter, DynamicCostsAndActionsSeeTheirBindings) {
  Emitted e = emit(kSpec);
  ASSERT_TRUE(e.ok) << e.diagnostics;
  const std::string& s = e.matcher.source;
  EXPECT_NE(s.find("burmMatcher::Cost burmMatcher::dynamicCost2(NodePtr node) {\n"
                   "  NodePtr x = kidOf(node, 0);\n  NodePtr y = kidOf(node, 1);\n"),
            std::string::npos);
  EXPECT_NE(s.find("int burmMatcher::action2(NodePtr node, int x, int y)"), std::string::npos);
  // Kids are reduced first, left to right, and their results handed to the action.
  EXPECT_NE(s.find("      int x = reduce_e(kidOf(node, 0));\n      int y = reduce_e(kidOf(node, 1));\n"
                   "      return action2(node, std::move(x), std::move(y));\n"),
            std::string::npos);
}

TEST(Emitter, KBestDomainsCostsAndActions) {
  Emitted e = emit(
      "%node <N*>\n%term K=4 P=7\n%param <int> p\n%label <long> e\n%%\n"
      "e: K = 1 [p in {1, 2}] (($$ = p, \"$$\" == nullptr)) { (void)$$; }\n"
      "e: P(x:e) = 2 (= $x + 1) { (void)$x; }\n");
  ASSERT_TRUE(e.ok) << e.diagnostics;
  const std::string& s = e.matcher.source;
  // A domain is any range, a braced list included.
  EXPECT_NE(s.find("    for (const auto& v : {1, 2}) d.p.emplace_back(v);\n"), std::string::npos);
  // $$ and $x become the label values; "$$" in a string stays.
  EXPECT_NE(s.find("  Cost own = dynamicCost(static_cast<Cost>((burgLabel = p, \"$$\" == nullptr)));\n"),
            std::string::npos);
  EXPECT_NE(s.find("  const long& burgLabel_x = stateOf(kidOf(node, 0))->values_e[ranks[0]];\n"), std::string::npos);
  EXPECT_NE(s.find("void burmMatcher::action1(NodePtr node, const int& p, const long& burgLabel)"), std::string::npos);
  EXPECT_NE(
      s.find("void burmMatcher::action2(NodePtr node, const long& burgLabel, NodePtr x, const long& burgLabel_x)"),
      std::string::npos);
  // The total is the rule's: kids' costs are not added (RuleInfo's `total`).
  EXPECT_NE(s.find("    {2, e_NT, 0, 1, false, true, true, false, \"e: P(x:e)\"},\n"), std::string::npos) << s;
}

TEST(Emitter, KBestChainRulesOnACycleAreMarked) {
  // a and b derive each other by chain rules; c derives from a, but nothing derives a from c.
  Emitted e = emit(
      "%node <N*>\n%term K=4\n%label <long> a b c\n%start c\n%%\n"
      "a: K = 1 (1);\nb: a = 2 (1);\na: b = 3 (1);\nc: a = 4 (1);\n");
  ASSERT_TRUE(e.ok) << e.diagnostics;
  const std::string& s = e.matcher.source;
  EXPECT_NE(s.find("    {2, b_NT, a_NT, 1, true, false, true, true, \"b: a\"},\n"), std::string::npos) << s;
  EXPECT_NE(s.find("    {3, a_NT, b_NT, 1, true, false, true, true, \"a: b\"},\n"), std::string::npos) << s;
  EXPECT_NE(s.find("    {4, c_NT, a_NT, 1, true, false, true, false, \"c: a\"},\n"), std::string::npos) << s;
}

}  // namespace
