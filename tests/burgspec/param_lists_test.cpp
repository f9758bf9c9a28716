// Shared parameter lists (`%params name [...]`, included by name in a rule's list) and guards
// (`if (expr)` before a rule's parameters), as parsed and checked.
#include <gtest/gtest.h>

#include "tests/burgspec/spec_fixture.hpp"

namespace burgspec {
namespace {

using test::check;
using test::parse;

TEST(ParamLists, ARuleIncludesAListWhereItNamesIt) {
  auto spec = check(
      "%term A B\n%param <int> bm bn s\n"
      "%params tile [bm in tiles(), bn in tiles()]\n"
      "%params wide [tile, s in {0, 4}]\n%%\n"
      "x: A [s in {1}, tile] (1);\n"
      "x: B(y:x) [wide];\n");
  ASSERT_TRUE(spec->checked) << spec->diags.str();
  const Grammar& g = spec->grammar;
  ASSERT_EQ(g.paramLists.size(), 2u);
  EXPECT_EQ(g.findParamList("wide")->params.size(), 3u);
  const auto& first = g.rules[0].params;
  ASSERT_EQ(first.size(), 3u);
  EXPECT_EQ(first[0].name, "s");
  EXPECT_EQ(first[1].name, "bm");
  EXPECT_EQ(first[1].domain, "tiles()");
  EXPECT_EQ(first[1].list, "tile");
  EXPECT_EQ(first[1].loc.line, 3u);      // the domain stays where the list declares it
  EXPECT_EQ(first[1].listLoc.line, 6u);  // where the rule names the list
  EXPECT_EQ(first[1].listLoc.col, 17u);
  const auto& second = g.rules[1].params;
  ASSERT_EQ(second.size(), 3u);
  EXPECT_EQ(second[0].name, "bm");
  EXPECT_EQ(second[2].name, "s");
  EXPECT_EQ(second[2].domain, "{0, 4}");
}

TEST(ParamLists, AnUndeclaredListIsReportedAtItsName) {
  EXPECT_EQ(parse("%term A\n%param <int> d\n%%\nx: A [d in f(), tile] (1);\n")->diags.str(),
            "t.burg:4:17: error: undeclared parameter list 'tile'; declare it with %params tile [...] before "
            "the rules\n"
            "x: A [d in f(), tile] (1);\n"
            "                ^\n");
  EXPECT_EQ(parse("%term A\n%param <int> d\n%%\nx: A [d] (1);\n")->messages(),
            "4:7: error: parameter 'd' needs a domain: write 'd in ...'\n");
}

TEST(ParamLists, AParameterTwiceThroughAListIsReportedWhereTheRuleNamesIt) {
  auto spec = check("%term A\n%param <int> d e\n%params both [d in f(), e in g()]\n%%\nx: A [e in h(), both];\n");
  EXPECT_FALSE(spec->checked);
  EXPECT_EQ(spec->messages(),
            "5:17: error: parameter 'e' is listed twice in one rule\n"
            "3:25: note: 'e' comes from parameter list 'both'\n"
            "5:7: note: first listed here\n");
}

TEST(ParamLists, AListIsCheckedOnceWhereItIsDeclared) {
  EXPECT_EQ(parse("%term A\n%param <int> d\n%params l [d in f()]\n%params l [d in g()]\n%%\nx: A [l];\n")->messages(),
            "4:9: error: parameter list 'l' is declared twice\n"
            "3:9: note: first declared here\n");
  auto spec = check(
      "%term A B\n%param <int> d\n"
      "%params bad [d in f(), u in g(), d in h()]\n%%\n"
      "x: A [bad];\nx: B(y:x) [bad];\n");
  EXPECT_FALSE(spec->checked);
  EXPECT_EQ(spec->messages(),
            "3:24: error: undeclared parameter 'u'; declare its type with %param <T> u\n"
            "3:34: error: parameter 'd' is listed twice in list 'bad'\n"
            "3:14: note: first listed here\n");
  EXPECT_EQ(parse("%term A\n%params [d in f()]\n%%\nx: A;\n")->messages(),
            "2:9: error: expected the name of the parameter list after %params, found '['\n");
}

TEST(Guards, AGuardIsKeptAndNeedsTheKBestMatcher) {
  auto spec = check(
      "%term A B\n%param <int> d\n%%\nx: A if (ctx->ready(node)) (1);\nx: B(y:x) = 4 if ((a(1)) && b) [d in f()];\n");
  ASSERT_TRUE(spec->checked) << spec->diags.str();
  const Grammar& g = spec->grammar;
  EXPECT_EQ(g.rules[0].guard, "ctx->ready(node)");
  EXPECT_EQ(g.rules[0].guardLoc.line, 4u);
  EXPECT_EQ(g.rules[0].guardLoc.col, 10u);
  EXPECT_EQ(g.rules[1].guard, "(a(1)) && b");
  EXPECT_EQ(g.rules[1].number, 4);
  EXPECT_TRUE(check("%term A\n%%\nx: A if (ok);\n")->grammar.usesDerivations());
  EXPECT_FALSE(check("%term A\n%%\nx: A (1);\n")->grammar.usesDerivations());
}

TEST(Guards, BadGuardsAreReported) {
  EXPECT_EQ(parse("%term A\n%%\nx: A if ok;\n")->messages(),
            "3:9: error: expected '(' and a condition after 'if', found identifier 'ok'\n");
  EXPECT_EQ(parse("%term A\n%%\nx: A if ( );\n")->messages(),
            "3:6: error: empty guard: write the C++ condition under which the rule applies\n");
  EXPECT_EQ(parse("%term A\n%%\nx: A if (f(1);\n")->messages(), "3:9: error: unterminated guard: missing ')'\n");
  EXPECT_EQ(check("%term A\n%label <int> x\n%%\nx: A if ($$ > 0);\n")->messages(),
            "4:10: error: a guard cannot read label values ('$$', '$b'): it is tested before the rule's derivations "
            "are built\n");
}

}  // namespace
}  // namespace burgspec
