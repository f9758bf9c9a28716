#pragma once
// iburg's STATE_LABEL in both styles: an integer wide enough for a pointer (iburg's sample) and
// a pointer (iburg's and lcc's `void*`). The same grammar, generated in each style (one a test
// file, as each brings its own tree type), compiles and labels the same tree alike; the state
// lands in the node's own slot. Include after the matcher's header.
#include <gtest/gtest.h>

namespace state_label_test {

// a = (int)*(char*)b + 4, as ASGNI(ADDRLP, ADDI(CVCI(INDIRC(ADDRLP)), CNSTI)), in either tree type.
template <class Tree, class Matcher>
void labelTheClassicAssignment() {
  Tree a{ADDRLP, {nullptr, nullptr}, 0, {}}, b = a, four{CNSTI, {nullptr, nullptr}, 4, {}};
  Tree load{INDIRC, {&b, nullptr}, 0, {}}, widen{CVCI, {&load, nullptr}, 0, {}};
  Tree sum{ADDI, {&widen, &four}, 0, {}}, assign{ASGNI, {&a, &sum}, 0, {}};
  Matcher m;
  ASSERT_TRUE(m.label(&assign));
  EXPECT_TRUE(assign.state_label);  // set through STATE_LABEL
  EXPECT_TRUE(four.state_label);
  EXPECT_EQ(m.cost(&assign, Matcher::stmt_NT), 3);
  EXPECT_EQ(m.ruleNumber(&assign, Matcher::stmt_NT), 1);
  EXPECT_EQ(m.ruleNumber(&widen, Matcher::reg_NT), 5);
}

}  // namespace state_label_test
