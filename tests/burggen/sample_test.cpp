// An iburg grammar written for iburg (C tree type, iburg's macros, an integer state slot)
// generates a matcher that compiles and labels as iburg would.
#include <gtest/gtest.h>

#include "tests/burggen/sample_matcher.hpp"

// After the matcher, whose prologue declares the `tree` it builds.
#include "tests/burggen/sample_assignment.hpp"

namespace {

TEST(IburgSample, LabelsTheClassicAssignment) {
  // a = (int)*(char*)b + 4, as ASGNI(ADDRLP, ADDI(CVCI(INDIRC(ADDRLP)), CNSTI))
  SampleAssignment t;
  auto &four = t.four, &widen = t.widen, &sum = t.sum, &assign = t.assign;

  burmMatcher m;
  ASSERT_TRUE(m.label(&assign));
  EXPECT_NE(assign.state_label, 0);  // the state went into iburg's integer slot
  EXPECT_EQ(m.cost(&assign, burmMatcher::stmt_NT), 3);
  EXPECT_EQ(m.ruleNumber(&assign, burmMatcher::stmt_NT), 1);
  EXPECT_EQ(m.cost(&widen, burmMatcher::reg_NT), 1);
  EXPECT_EQ(m.ruleNumber(&widen, burmMatcher::reg_NT), 5);
  // At the sum, reg: ADDI(reg, rc) and reg: addr (through addr: ADDI(reg, con)) both cost 2.
  // In iburg's order the operator's rules are tried last to first: addr: ADDI(reg, con) comes
  // first and its chain rule reg: addr holds, as in the cover iburg prints for this tree.
  EXPECT_EQ(m.cost(&sum, burmMatcher::reg_NT), 2);
  EXPECT_EQ(m.cost(&sum, burmMatcher::addr_NT), 1);
  EXPECT_EQ(m.ruleNumber(&sum, burmMatcher::reg_NT), 6);
  EXPECT_EQ(m.cost(&four, burmMatcher::rc_NT), 0);
  EXPECT_EQ(m.ruleNumber(&four, burmMatcher::rc_NT), 10);
  EXPECT_EQ(m.cover(&assign),
            "stmt: ASGNI(addr, reg)  [#0 ASGNI, cost 3]\n"
            "  addr: ADDRLP  [#1 ADDRLP, cost 0]\n"
            "  reg: addr  [#2 ADDI, cost 2]\n"
            "    addr: ADDI(reg, con)  [#2 ADDI, cost 1]\n"
            "      reg: CVCI(INDIRC(addr))  [#3 CVCI, cost 1]\n"
            "        addr: ADDRLP  [#5 ADDRLP, cost 0]\n"
            "      con: CNSTI  [#6 CNSTI, cost 0]\n");
  EXPECT_NO_THROW(m.reduce(&assign));
}

TEST(IburgSample, OperatorNamesComeFromTerm) {
  EXPECT_STREQ(burmMatcher::opName(ADDI), "ADDI");
  EXPECT_STREQ(burmMatcher::opName(99), "?");
  EXPECT_EQ(burmMatcher::arity(ASGNI), 2);
  EXPECT_EQ(burmMatcher::arity(CVCI), 1);
  EXPECT_EQ(burmMatcher::arity(CNSTI), 0);
  EXPECT_EQ(burm_INDIRC, INDIRC);
}

}  // namespace
