// Rule parameters, label values and total costs: %param, %label, `[p in domain]`, `(= expr)`,
// `$$` and `$b`, as parsed and checked.
#include <gtest/gtest.h>

#include "burgspec/value_refs.hpp"
#include "tests/burgspec/spec_fixture.hpp"

namespace burgspec {
namespace {

using test::check;
using test::parse;

const char* kLoops = R"(%term FOR_RED=2 ACCUM=6
%param <int> depth
%param <cudaburg::Buffering> buf;
%label <Shape> red
%%
red: FOR_RED(ACCUM) = 7 [depth in ctx->stageDepths(node), buf in std::vector<B>{B::Single, B::Double}]
    (($$ = ctx->staged(node, depth), ctx->estimate($$))) { return make(depth, buf); }
red: FOR_RED(r:red) [depth in f(g(1, 2), "],", ']', {3, 4})] (= $r.cost + h(node, depth));
)";

TEST(Params, DeclarationsAndRuleParameters) {
  auto spec = check(kLoops);
  ASSERT_TRUE(spec->checked) << spec->diags.str();
  const Grammar& g = spec->grammar;
  EXPECT_EQ(g.paramType("depth"), "int");
  EXPECT_EQ(g.paramType("buf"), "cudaburg::Buffering");
  EXPECT_EQ(g.paramType("other"), "");
  EXPECT_EQ(g.findNonterminal("red")->labelType, "Shape");
  EXPECT_TRUE(g.usesDerivations());
  const Rule& first = g.rules[0];
  EXPECT_EQ(first.number, 7);
  ASSERT_EQ(first.params.size(), 2u);
  EXPECT_EQ(first.params[0].name, "depth");
  EXPECT_EQ(first.params[0].domain, "ctx->stageDepths(node)");
  EXPECT_EQ(first.params[0].loc.line, 6u);
  EXPECT_EQ(first.params[0].loc.col, 26u);
  EXPECT_EQ(first.params[1].domain, "std::vector<B>{B::Single, B::Double}");
  EXPECT_TRUE(first.cost.dynamic);
  EXPECT_FALSE(first.cost.total);
  EXPECT_EQ(first.cost.code, "($$ = ctx->staged(node, depth), ctx->estimate($$))");
  // A domain ends at a ',' or ']' outside brackets, literals and comments.
  const Rule& second = g.rules[1];
  ASSERT_EQ(second.params.size(), 1u);
  EXPECT_EQ(second.params[0].domain, "f(g(1, 2), \"],\", ']', {3, 4})");
  EXPECT_TRUE(second.cost.total);
  EXPECT_TRUE(second.cost.dynamic);
  EXPECT_EQ(second.cost.code, "$r.cost + h(node, depth)");
  EXPECT_EQ(second.cost.loc.col, 65u);
}

TEST(Params, AComparisonIsNoTotal) {
  auto spec = parse("%term A\n%%\nx: A ((== 1) ? 1 : 2);\ny: A (= 3);\n");
  ASSERT_TRUE(spec->parsed) << spec->diags.str();
  EXPECT_FALSE(spec->grammar.rules[0].cost.total);
  EXPECT_TRUE(spec->grammar.rules[1].cost.total);
  EXPECT_EQ(spec->grammar.rules[1].cost.code, "3");
}

TEST(Params, SyntaxErrorsPointAtTheSpot) {
  EXPECT_EQ(parse("%term A\n%%\nx: A [d of f()] (1);\n")->diags.str(),
            "t.burg:3:9: error: expected 'in' after parameter 'd', found identifier 'of'\n"
            "x: A [d of f()] (1);\n"
            "        ^\n");
  EXPECT_EQ(parse("%term A\n%%\nx: A [d in ] (1);\n")->diags.str(),
            "t.burg:3:9: error: empty domain: write a C++ expression whose elements the parameter takes after "
            "'in'\n"
            "x: A [d in ] (1);\n"
            "        ^\n");
  EXPECT_EQ(parse("%term A\n%%\nx: A [d in f(], e in g()] (1);\n")->messages(),
            "3:14: error: unbalanced ']' in the domain of 'd'\n");
  EXPECT_EQ(parse("%term A\n%%\nx: A [d in f(\n")->messages(),
            "3:6: error: unterminated parameter list: missing ']'\n");
  EXPECT_EQ(parse("%term A\n%%\nx: A [d in f()) ] (1);\n")->messages(),
            "3:15: error: unbalanced ')' in the domain of 'd'\n");
  EXPECT_EQ(parse("%term A\n%%\nx: A [3 in f()];\n")->messages(), "3:7: error: expected a parameter name, found '3'\n");
  EXPECT_EQ(parse("%term A\n%%\nx: A (=  );\n")->messages(),
            "3:6: error: empty total cost: write a C++ expression after '='\n");
  EXPECT_EQ(parse("%param <int>\n%%\n")->messages(),
            "2:1: error: expected the parameters that %param <int> applies to, found '%%'\n");
}

TEST(Params, RecoveryResumesAfterABadParameterList) {
  auto spec = parse("%term A\n%%\nx: A [d of [1, 2]] (1);\ny: A;\n");
  EXPECT_EQ(spec->messages(), "3:9: error: expected 'in' after parameter 'd', found identifier 'of'\n");
  ASSERT_EQ(spec->grammar.rules.size(), 1u);
  EXPECT_EQ(spec->grammar.rules[0].lhs, "y");
}

TEST(Params, UndeclaredDuplicateAndClashingParameters) {
  auto spec = check(
      "%term A B\n%param <int> d e\n%param <long> d\n%%\n"
      "x: A [u in f()] (1);\n"
      "x: B(v:x) [d in f(), d in g()] (1);\n"
      "x: B(e:x) [e in f()];\n"
      "x: A [node in f()];\n");
  EXPECT_FALSE(spec->checked);
  EXPECT_EQ(spec->messages(),
            "3:15: error: parameter 'd' is declared twice\n"
            "2:14: note: first declared here\n"
            "5:7: error: undeclared parameter 'u'; declare its type with %param <T> u\n"
            "6:22: error: parameter 'd' is listed twice in one rule\n"
            "6:12: note: first listed here\n"
            "7:12: error: parameter 'e' has the name of a binding of the pattern\n"
            "7:6: note: bound here\n"
            "8:7: error: undeclared parameter 'node'; declare its type with %param <T> node\n"
            "8:7: error: the parameter 'node' hides the node that costs and actions are given; choose another name\n");
  EXPECT_EQ(check("%term A\n%param <int> d\n%%\nx: A [d in f(), u in g()] (1);\n")->diags.str(),
            "t.burg:4:17: error: undeclared parameter 'u'; declare its type with %param <T> u\n"
            "x: A [d in f(), u in g()] (1);\n"
            "                ^\n");
}

TEST(Params, LabelDeclarationsAreChecked) {
  auto spec = check("%term A\n%label <int> x A y\n%label <long> x\n%%\nx: A;\n");
  EXPECT_EQ(spec->messages(),
            "2:16: error: %label names operator 'A'; only nonterminals have label types\n"
            "2:18: error: %label names undefined nonterminal 'y'\n"
            "3:15: error: the label type of 'x' is declared twice\n"
            "2:14: note: first declared here\n");
}

TEST(Params, ValueReferencesNeedLabels) {
  auto spec = check(
      "%term A B\n%label <int> x\n%%\n"
      "x: B(k:x) (($$ = $k + 1, 0));\n"
      "y: B(k:x) ($$);\n"
      "y: B(k:y) ($k + $q);\n"
      "x: B(k:A) ($k) { return $ 1; }\n"
      "x: A (\"$$\" /* $$ */ == 0);\n");
  EXPECT_FALSE(spec->checked);
  EXPECT_EQ(spec->messages(),
            "5:12: error: '$$' is the label value of 'y', which has none; declare it with %label <T> y\n"
            "6:12: error: '$k': nonterminal 'y' has no label value; declare it with %label <T> y\n"
            "6:17: error: '$q' names no binding of the pattern\n"
            "7:12: error: '$k': 'k' is bound to operator 'A', which has no label value; write k for its node\n"
            "7:25: error: expected '$$' or '$' and a binding after '$'\n"
            "5:1: warning: nonterminal 'y' is unreachable from the start nonterminal 'x'\n");
  EXPECT_EQ(check("%term A B\n%label <int> x\n%%\nx: B(k:x) ($$ +\n  $z);\nx: A;\n")->diags.str(),
            "t.burg:5:3: error: '$z' names no binding of the pattern\n"
            "  $z);\n"
            "  ^\n");
}

TEST(ValueRefs, FoundOutsideLiteralsAndComments) {
  auto refs = findValueRefs("$$ + $kid /* $no */ + \"$no\" + '$' + R\"x($no)x\" + a$b // $no");
  ASSERT_EQ(refs.size(), 3u);
  EXPECT_EQ(refs[0].name, "");
  EXPECT_EQ(refs[0].offset, 0u);
  EXPECT_EQ(refs[1].name, "kid");
  EXPECT_EQ(refs[2].name, "b");
  EXPECT_EQ(replaceValueRefs("($$ = $x.work, $$.cost)", "self", "kid_"), "(self = kid_x.work, self.cost)");
}

TEST(ValueRefs, AnAssignmentOfSelfFirst) {
  for (const char* code : {"$$ = f($k)", "($$ = f($k, \"$$\"), g($$))", " ( ( $$ = a ? b : c), $$.cost)",
                           "(($$ = x[1]), $$)", "$$=g(h(1, 2), $k), 0"})
    EXPECT_TRUE(assignsSelfFirst(code)) << code;
  // Reads the value first, or not first at all, or the assignment's order against the rest unsequenced.
  for (const char* code : {"$$ == x", "($$ = f($$), 0)", "($$ += 1, 0)", "x ? ($$ = y, 0) : 1", "($$ = x) + g($$)",
                           "(($$ = x)", "0", "", "(long)($$ = x)", "f($$ = x)", "$$ = f<a, b>($$), 0"})
    EXPECT_FALSE(assignsSelfFirst(code)) << code;
}

}  // namespace
}  // namespace burgspec
