// sample.burg generated with --ties first: of rules of equal cost the one written first wins.
#include <gtest/gtest.h>

#include "tests/burggen/sample_first_matcher.hpp"

// After the matcher, whose prologue declares the `tree` it builds.
#include "tests/burggen/sample_assignment.hpp"

namespace {

TEST(IburgSampleTiesFirst, TheRuleWrittenFirstWins) {
  // a = (int)*(char*)b + 4, as in sample_test.cpp
  SampleAssignment t;
  auto &sum = t.sum, &assign = t.assign;

  first_wins::burmMatcher m;
  ASSERT_TRUE(m.label(&assign));
  // reg: ADDI(reg, rc) (rule 3) and reg: addr (rule 6, through addr: ADDI(reg, con)) both cost 2:
  // rule 3 is tried first and the chain rule is not strictly cheaper.
  EXPECT_EQ(m.cost(&sum, first_wins::burmMatcher::reg_NT), 2);
  EXPECT_EQ(m.ruleNumber(&sum, first_wins::burmMatcher::reg_NT), 3);
  EXPECT_EQ(m.cover(&assign),
            "stmt: ASGNI(addr, reg)  [#0 ASGNI, cost 3]\n"
            "  addr: ADDRLP  [#1 ADDRLP, cost 0]\n"
            "  reg: ADDI(reg, rc)  [#2 ADDI, cost 2]\n"
            "    reg: CVCI(INDIRC(addr))  [#3 CVCI, cost 1]\n"
            "      addr: ADDRLP  [#5 ADDRLP, cost 0]\n"
            "    rc: con  [#6 CNSTI, cost 0]\n"
            "      con: CNSTI  [#6 CNSTI, cost 0]\n");
}

}  // namespace
