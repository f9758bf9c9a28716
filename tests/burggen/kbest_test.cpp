// The k-best matchers generated from kbest_chains.burg and kbest_params.burg (burggen --kbest):
// their K best derivations against a brute-force enumeration of all derivations, at several K.
#include <gtest/gtest.h>

#include <sstream>

#include "tests/burggen/kbest_chains_matcher.hpp"
#include "tests/burggen/kbest_params_matcher.hpp"
#include "tests/burggen/kbest_reference.hpp"

namespace {

using kbest_reference::Derivation;
using kbest_reference::kInf;
using Leaves = std::vector<std::pair<TestNode*, int>>;

// ---- kbest_chains.burg ----

using Chains = chains::ChainsMatcher;
enum ChainOp { ADD = 1, MUL = 2, CONST = 3, VAR = 4, NEG = 5 };
struct NoValue {};
using ChainRule = kbest_reference::Rule<NoValue>;
using ChainKids = std::vector<const Derivation<NoValue>*>;

ChainRule constant(int index, const char* text, int lhs, int op, long cost,
                   std::vector<std::pair<int, int>> kids = {}) {
  ChainRule r;
  r.index = index;
  r.text = text;
  r.lhs = lhs;
  // kids: (kid index, nonterminal) of a pattern one level deep
  r.match = [op, kids](TestNode* n, Leaves& leaves) {
    if (n->op != op) return false;
    for (auto [i, nt] : kids) leaves.push_back({n->kids[i], nt});
    return true;
  };
  r.cost = [cost](TestNode*, int, const ChainKids&, NoValue&) { return cost; };
  return r;
}

ChainRule chain(int index, const char* text, int lhs, int rhs, long cost) {
  ChainRule r = constant(index, text, lhs, 0, cost);
  r.rhs = rhs;
  return r;
}

kbest_reference::Enumerator<NoValue> chainsReference() {
  const int stmt = Chains::stmt_NT, reg = Chains::reg_NT, addr = Chains::addr_NT, imm = Chains::imm_NT;
  std::vector<ChainRule> rules{
      chain(1, "stmt: reg", stmt, reg, 0),
      chain(2, "stmt: addr", stmt, addr, 1),
      constant(3, "reg: VAR", reg, VAR, 1),
      constant(4, "reg: c:CONST", reg, CONST, 1),
      constant(5, "reg: CONST", reg, CONST, 2),
      chain(6, "reg: imm", reg, imm, 1),
      constant(7, "imm: c:CONST", imm, CONST, 0),
      constant(8, "reg: ADD(reg, reg)", reg, ADD, 1, {{0, reg}, {1, reg}}),
      constant(9, "reg: ADD(reg, imm)", reg, ADD, 1, {{0, reg}, {1, imm}}),
      constant(10, "reg: MUL(reg, reg)", reg, MUL, 3, {{0, reg}, {1, reg}}),
      constant(11, "reg: NEG(reg)", reg, NEG, 1, {{0, reg}}),
      constant(12, "reg: NEG(NEG(reg))", reg, NEG, 0),
      chain(13, "addr: reg", addr, reg, 2),
      chain(14, "reg: addr", reg, addr, 1),
      constant(15, "addr: ADD(addr, imm)", addr, ADD, 0, {{0, addr}, {1, imm}}),
  };
  // The constraints written as INF in the spec.
  rules[3].cost = [](TestNode* n, int, const ChainKids&, NoValue&) { return n->value < 16 ? 1L : kInf; };
  rules[6].cost = [](TestNode* n, int, const ChainKids&, NoValue&) { return n->value < 100 ? 0L : kInf; };
  rules[11].match = [reg](TestNode* n, Leaves& leaves) {
    if (n->op != NEG || n->kids[0]->op != NEG) return false;
    leaves.push_back({n->kids[0]->kids[0], reg});
    return true;
  };
  return kbest_reference::Enumerator<NoValue>(rules);
}

// Every node of a tree, preorder.
void nodesOf(TestNode* n, std::vector<TestNode*>& out) {
  out.push_back(n);
  for (TestNode* k : n->kids) nodesOf(k, out);
}

// The matcher's kept derivations of every node and nonterminal equal the reference's first K.
template <typename Matcher, typename Reference>
void expectKBestMatchesReference(TestNode* root, const Reference& reference, int k) {
  Matcher m(nullptr, k);
  m.label(root);
  std::vector<TestNode*> nodes;
  nodesOf(root, nodes);
  for (TestNode* node : nodes)
    for (int nt = 1; nt <= Matcher::kNonterminals; ++nt) {
      auto all = reference.all(node, nt);
      SCOPED_TRACE(std::string("K=") + std::to_string(k) + " node op " + std::to_string(node->op) + " value " +
                   std::to_string(node->value) + " nt " + Matcher::nonterminalName(nt));
      ASSERT_EQ(m.count(node, nt), std::min<int>(k, static_cast<int>(all.size())));
      for (int rank = 0; rank < m.count(node, nt); ++rank) {
        EXPECT_EQ(m.cost(node, nt, rank), all[rank]->cost) << "rank " << rank;
        EXPECT_EQ(m.coverText(node, nt, rank), all[rank]->text) << "rank " << rank;
      }
      EXPECT_EQ(m.cost(node, nt, m.count(node, nt)), Matcher::INF);
    }
}

TEST(KBestChains, SmallTreesAgreeWithBruteForceAtEveryK) {
  auto reference = chainsReference();
  TestTree t;
  std::vector<TestNode*> roots{
      t.node(CONST, 5),
      t.node(CONST, 50),
      t.node(CONST, 500),
      t.node(ADD, 0, {t.node(VAR, 1), t.node(CONST, 7)}),
      t.node(NEG, 0, {t.node(NEG, 0, {t.node(ADD, 0, {t.node(VAR, 1), t.node(CONST, 3)})})}),
      t.node(MUL, 0, {t.node(ADD, 0, {t.node(CONST, 2), t.node(CONST, 40)}), t.node(NEG, 0, {t.node(VAR, 2)})}),
  };
  for (TestNode* root : roots)
    for (int k : {1, 2, 3, 7, 40, 2000}) expectKBestMatchesReference<Chains>(root, reference, k);
}

TEST(KBestChains, ChainCycleDerivationsVisitANonterminalOnce) {
  TestTree t;
  TestNode* v = t.node(VAR, 1);
  Chains m(nullptr, 100);
  ASSERT_TRUE(m.label(v));
  // reg: VAR (1); through addr: reg (3); and back, reg: addr over addr: reg is a cycle: not kept.
  ASSERT_EQ(m.count(v, Chains::reg_NT), 1);
  ASSERT_EQ(m.count(v, Chains::addr_NT), 1);
  EXPECT_EQ(m.cost(v, Chains::addr_NT, 0), 3);
  // stmt: reg (1) and stmt: addr (4).
  ASSERT_EQ(m.count(v, Chains::stmt_NT), 2);
  EXPECT_EQ(m.coverText(v, 1), "stmt: addr\n  addr: reg\n    reg: VAR\n");
}

TEST(KBestChains, TiesFollowRuleThenKidRanks) {
  TestTree t;
  TestNode* c = t.node(CONST, 5);
  Chains m(nullptr, 10);
  ASSERT_TRUE(m.label(c));
  // reg at cost 1: reg: c:CONST (rule 4) before reg: imm (rule 6); then reg: CONST (2).
  EXPECT_EQ(m.rule(c, Chains::reg_NT, 0), 4);
  EXPECT_EQ(m.rule(c, Chains::reg_NT, 1), 6);
  EXPECT_EQ(m.rule(c, Chains::reg_NT, 2), 5);
  EXPECT_EQ(m.cost(c, Chains::reg_NT, 2), 2);
  // stmt: reg costs 0 over reg: the chain is taken in reg's order.
  EXPECT_EQ(m.coverText(c, 0), "stmt: reg\n  reg: c:CONST\n");
  EXPECT_EQ(m.coverText(c, 1), "stmt: reg\n  reg: imm\n    imm: c:CONST\n");
}

TEST(KBestChains, EnumeratorYieldsCoversInCostOrderAndStops) {
  TestTree t;
  TestNode* root = t.node(ADD, 0, {t.node(VAR, 1), t.node(CONST, 7)});
  Chains m(nullptr, 5);
  ASSERT_TRUE(m.label(root));
  auto covers = m.covers(root);
  std::vector<Chains::Cost> costs;
  int expectedRank = 0;
  while (auto cover = covers.next()) {
    EXPECT_EQ(cover->rank, expectedRank++);
    EXPECT_EQ(cover->cost, m.cost(root, Chains::kStart, cover->rank));
    costs.push_back(cover->cost);
  }
  EXPECT_EQ(costs.size(), 5u);
  EXPECT_TRUE(std::is_sorted(costs.begin(), costs.end()));
  EXPECT_FALSE(covers.next().has_value());
  EXPECT_THROW(m.coverText(root, 5), chains::ChainsNoCover);
}

TEST(KBestChains, DotHighlightsTheCoverAsked) {
  TestTree t;
  TestNode* c = t.node(CONST, 5);
  TestNode* root = t.node(NEG, 0, {c});
  Chains m(nullptr, 3);
  ASSERT_TRUE(m.label(root));
  std::ostringstream best, second;
  m.printDot(best, root);
  m.printDot(second, root, Chains::kStart, 1);
  EXPECT_EQ(best.str().rfind("digraph labeled_tree {", 0), 0u);
  // The best cover goes through reg: c:CONST at the leaf, 3 derivations of reg kept there.
  EXPECT_NE(best.str().find("<td bgcolor=\"#ffd966\"><b>1 (3 kept)</b></td>"
                            "<td bgcolor=\"#ffd966\"><b>reg: c:CONST = 4</b></td>"),
            std::string::npos)
      << best.str();
  // The second through reg: imm, at the same cost.
  EXPECT_NE(second.str().find("<b>reg: imm = 6</b>"), std::string::npos) << second.str();
  EXPECT_EQ(second.str().find("<b>reg: c:CONST = 4</b>"), std::string::npos) << second.str();
}

TEST(KBestChains, TraceListsEveryDerivationKept) {
  TestTree t;
  TestNode* c = t.node(CONST, 500);
  Chains m(nullptr, 2);
  std::ostringstream trace;
  m.trace = &trace;
  ASSERT_TRUE(m.label(c));
  EXPECT_EQ(trace.str(),
            "#0 CONST: reg: CONST = 5  cost 2  (reg rank 0)\n"
            "#0 CONST: stmt: reg = 1  cost 2  (stmt rank 0)\n"
            "#0 CONST: addr: reg = 13  cost 4  (addr rank 0)\n"
            "#0 CONST: stmt: addr = 2  cost 5  (stmt rank 1)\n");
}

TEST(KBestChains, NoDerivationMeansNoLabel) {
  TestTree t;
  TestNode* big = t.node(CONST, 500);
  Chains m;
  ASSERT_TRUE(m.label(big));
  EXPECT_EQ(m.count(big, Chains::imm_NT), 0);
  EXPECT_EQ(m.cost(big, Chains::imm_NT), Chains::INF);
  EXPECT_EQ(m.rule(big, Chains::imm_NT, 0), 0);
  EXPECT_EQ(Chains::kBest, 4);                 // as burggen --kbest 4 wrote it
  EXPECT_EQ(m.count(big, Chains::reg_NT), 1);  // K 4 by default; reg: CONST only
}

// ---- kbest_params.burg ----

using Params = params::ParamsMatcher;
enum LoopOp { LOOP = 1, BODY = 2, PAIR = 3 };
using ParamRule = kbest_reference::Rule<Tiling>;
using ParamKids = std::vector<const Derivation<Tiling>*>;

kbest_reference::Enumerator<Tiling> paramsReference() {
  const int top = Params::top_NT, nest = Params::nest_NT, plain = Params::plain_NT, body = Params::body_NT;
  auto oneLevel = [](int op, int kidNt) {
    return [op, kidNt](TestNode* n, Leaves& leaves) {
      if (n->op != op) return false;
      if (kidNt) leaves.push_back({n->kids[0], kidNt});
      return true;
    };
  };
  std::vector<ParamRule> rules(9);
  rules[8].index = 9;
  rules[8].text = "body: e:BODY";
  rules[8].lhs = body;
  rules[8].match = oneLevel(BODY, 0);
  rules[8].bindings = [](TestNode*) { return 2; };
  rules[8].bindingText = [](TestNode*, int b) { return "mode=#" + std::to_string(b); };
  rules[8].cost = [](TestNode* n, int b, const ParamKids&, Tiling&) { return n->value == 0 && b == 0 ? 5L : kInf; };
  rules[6].index = 2;
  rules[6].text = "top: p:plain";
  rules[6].lhs = top;
  rules[6].rhs = plain;
  rules[6].bindings = [](TestNode*) { return 2; };
  rules[6].bindingText = [](TestNode*, int b) { return std::string(b == 0 ? "scale=3" : "scale=1"); };
  rules[6].cost = [](TestNode*, int b, const ParamKids&, Tiling&) { return b == 0 ? 30L : 10L; };
  rules[7].index = 3;
  rules[7].text = "nest: PAIR(a:nest, b:nest)";
  rules[7].lhs = nest;
  rules[7].total = true;
  rules[7].match = [nest](TestNode* n, Leaves& leaves) {
    if (n->op != PAIR) return false;
    leaves.push_back({n->kids[0], nest});
    leaves.push_back({n->kids[1], nest});
    return true;
  };
  rules[7].cost = [](TestNode*, int, const ParamKids& kids, Tiling& v) {
    const Tiling &a = kids[0]->value, &b = kids[1]->value;
    v = Tiling{a.work + b.work, a.tile, 0};
    return (a.work * b.tile) % 11 + b.depth;
  };
  rules[5].index = 1;
  rules[5].text = "top: n:nest";
  rules[5].lhs = top;
  rules[5].rhs = nest;
  rules[5].total = true;
  rules[5].cost = [](TestNode*, int, const ParamKids& kids, Tiling&) {
    const Tiling& n = kids[0]->value;
    return 100 * n.depth + n.work % 7 + n.tile;
  };
  rules[0].index = 4;
  rules[0].text = "body: b:BODY";
  rules[0].lhs = body;
  rules[0].match = oneLevel(BODY, 0);
  rules[0].cost = [](TestNode* n, int, const ParamKids&, Tiling& v) {
    v.work = n->value;
    return 0L;
  };
  // nest: LOOP(x:body) [tile in tilesOf(node), unroll in {1, 2}]
  rules[1].index = 5;
  rules[1].text = "nest: LOOP(x:body)";
  rules[1].lhs = nest;
  rules[1].match = oneLevel(LOOP, body);
  rules[1].bindings = [](TestNode* n) { return static_cast<int>(tilesOf(n).size()) * 2; };
  rules[1].bindingText = [](TestNode* n, int b) {
    return "tile=" + std::to_string(tilesOf(n)[b / 2]) + ", unroll=" + std::to_string(1 + b % 2);
  };
  rules[1].cost = [](TestNode* n, int b, const ParamKids& kids, Tiling& v) {
    long tile = tilesOf(n)[b / 2], unroll = 1 + b % 2;
    if (n->value % (tile * unroll) != 0) return kInf;
    v = Tiling{kids[0]->value.work * n->value, static_cast<int>(tile), 1};
    return 16 / tile + unroll;
  };
  // nest: LOOP(x:nest) [tile in tilesOf(node)] (= ...)
  rules[2].index = 6;
  rules[2].text = "nest: LOOP(x:nest)";
  rules[2].lhs = nest;
  rules[2].match = oneLevel(LOOP, nest);
  rules[2].bindings = [](TestNode* n) { return static_cast<int>(tilesOf(n).size()); };
  rules[2].bindingText = [](TestNode* n, int b) { return "tile=" + std::to_string(tilesOf(n)[b]); };
  rules[2].total = true;
  rules[2].cost = [](TestNode* n, int b, const ParamKids& kids, Tiling& v) {
    const Tiling& x = kids[0]->value;
    long tile = tilesOf(n)[b];
    v = Tiling{x.work * n->value, static_cast<int>(tile), x.depth + 1};
    return v.work / (tile * x.tile) + 3 * v.depth;
  };
  rules[3].index = 7;
  rules[3].text = "plain: LOOP(x:body)";
  rules[3].lhs = plain;
  rules[3].match = oneLevel(LOOP, body);
  rules[3].cost = [](TestNode* n, int, const ParamKids& kids, Tiling& v) {
    v = Tiling{kids[0]->value.work * n->value, 1, 0};
    return n->value;
  };
  rules[4].index = 8;
  rules[4].text = "nest: p:plain";
  rules[4].lhs = nest;
  rules[4].rhs = plain;
  rules[4].cost = [](TestNode*, int, const ParamKids& kids, Tiling& v) {
    v = kids[0]->value;  // passed on
    return 1L;
  };
  return kbest_reference::Enumerator<Tiling>(rules);
}

TEST(KBestParams, EveryBindingEnumeratedAndConstrainedByInfinity) {
  TestTree t;
  TestNode* loop = t.node(LOOP, 12, {t.node(BODY, 3)});
  Params m(nullptr, 100);
  ASSERT_TRUE(m.label(loop));
  // tiles 1, 2, 4 divide 12 (8 does not); unroll 2 with tile 4 does not divide 12: 5 bindings,
  // and the plain loop through the chain rule.
  ASSERT_EQ(m.count(loop, Params::nest_NT), 6);
  EXPECT_EQ(m.coverText(loop, Params::nest_NT, 0), "nest: LOOP(x:body) [tile=4, unroll=1]\n  body: b:BODY\n");
  EXPECT_EQ(m.cost(loop, Params::nest_NT, 0), 5);
  EXPECT_EQ(m.cost(loop, Params::nest_NT, 1), 9);  // 16 / 2 + 1
  EXPECT_EQ(m.bindingText(loop, Params::nest_NT, 1), "tile=2, unroll=1");
  EXPECT_EQ(m.cost(loop, Params::nest_NT, 2), 10);
  EXPECT_EQ(m.bindingText(loop, Params::nest_NT, 2), "tile=2, unroll=2");
  for (int rank = 0; rank < 6; ++rank) EXPECT_NE(m.bindingText(loop, Params::nest_NT, rank), "tile=4, unroll=2");
}

TEST(KBestParams, LabelValuesPropagateAndTotalsReplaceTheKidsCosts) {
  TestTree t;
  TestNode* inner = t.node(LOOP, 4, {t.node(BODY, 5)});
  TestNode* outer = t.node(LOOP, 2, {inner});
  Params m(nullptr, 200);
  ASSERT_TRUE(m.label(outer));
  EXPECT_EQ(m.value_body(inner->kids[0], 0).work, 5);
  // The plain inner loop: its value passes through nest: p:plain.
  for (int rank = 0; rank < m.count(inner, Params::nest_NT); ++rank) {
    const Tiling& v = m.value(inner, Params::nest_NT, rank);
    EXPECT_EQ(v.work, 20);
    if (m.rule(inner, Params::nest_NT, rank) == 5) {
      EXPECT_EQ(v.depth, 0);
    }
  }
  // The outer loop over a tiled nest: the total is the model's, 40 / (2 * 4) + 3 * 2, without
  // the inner loop's own 16 / 4 + 1.
  bool found = false;
  for (int rank = 0; rank < m.count(outer, Params::nest_NT); ++rank) {
    if (m.coverText(outer, Params::nest_NT, rank) !=
        "nest: LOOP(x:nest) [tile=2]\n  nest: LOOP(x:body) [tile=4, unroll=1]\n"
        "    body: b:BODY\n")
      continue;
    found = true;
    EXPECT_EQ(m.cost(outer, Params::nest_NT, rank), 11);
    EXPECT_EQ(m.value(outer, Params::nest_NT, rank).depth, 2);
  }
  EXPECT_TRUE(found);
  EXPECT_THROW(m.value_nest(outer, 1000), std::out_of_range);
  // An empty body: a parameter without operator<< is printed as its index in the domain.
  TestNode* empty = t.node(BODY, 0);
  ASSERT_TRUE(m.label(t.node(LOOP, 2, {empty})));
  ASSERT_EQ(m.count(empty, Params::body_NT), 2);
  EXPECT_EQ(m.coverText(empty, Params::body_NT, 1), "body: e:BODY [mode=#0]\n");
  EXPECT_EQ(m.cost(empty, Params::body_NT, 1), 5);
}

TEST(KBestParams, NestsAgreeWithBruteForceWhenKHoldsThemAll) {
  auto reference = paramsReference();
  TestTree t;
  std::vector<TestNode*> roots{
      t.node(LOOP, 8, {t.node(BODY, 3)}),
      t.node(LOOP, 2, {t.node(LOOP, 4, {t.node(BODY, 5)})}),
      t.node(LOOP, 6, {t.node(LOOP, 4, {t.node(LOOP, 8, {t.node(BODY, 1)})})}),
      t.node(PAIR, 0, {t.node(LOOP, 4, {t.node(BODY, 3)}), t.node(LOOP, 2, {t.node(LOOP, 6, {t.node(BODY, 2)})})}),
      t.node(LOOP, 4, {t.node(LOOP, 2, {t.node(BODY, 0)})}),
  };
  for (TestNode* root : roots) expectKBestMatchesReference<Params>(root, reference, 1000);
}

TEST(KBestParams, ActionsSeeParametersAndLabelValues) {
  TestTree t;
  TestNode* inner = t.node(LOOP, 4, {t.node(BODY, 5)});
  TestNode* outer = t.node(LOOP, 2, {inner});
  Params m(nullptr, 200);
  ASSERT_TRUE(m.label(outer));
  for (int rank = 0; rank < m.count(outer, Params::nest_NT); ++rank) {
    std::string reduced = m.reduce_nest(outer, rank);
    std::string cover = m.coverText(outer, Params::nest_NT, rank);
    ASSERT_EQ(m.rule(outer, Params::nest_NT, rank), 3);  // no plain loop around a loop
    // "tile<T>(...) over <kid's tile>" where the cover says tile=<T> and the kid's binding
    const Tiling& v = m.value(outer, Params::nest_NT, rank);
    std::string expected = "tile" + std::to_string(v.tile) + "(";
    EXPECT_EQ(reduced.rfind(expected, 0), 0u) << reduced << "\n" << cover;
    EXPECT_NE(cover.find("[tile=" + std::to_string(v.tile) + "]"), std::string::npos) << cover;
  }
  EXPECT_EQ(m.reduce(outer), m.reduce(outer, 0));
  int plain = -1;
  for (int rank = 0; rank < m.count(inner, Params::nest_NT); ++rank)
    if (m.rule(inner, Params::nest_NT, rank) == 5) plain = rank;
  ASSERT_GE(plain, 0);
  EXPECT_EQ(m.reduce_nest(inner, plain), "plain loop(body5) work 20");
  EXPECT_EQ(m.reduce_nest(inner, 0), "tile4x1(body5)");
}

}  // namespace
