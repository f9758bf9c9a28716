// STATE_LABEL as a pointer (see state_label_test.hpp).
#include "tests/bad-input/pointer_label_matcher.hpp"
#include "tests/bad-input/state_label_test.hpp"

TEST(StateLabel, PointerSlot) {
  state_label_test::labelTheClassicAssignment<pointer_tree, pointer_label::burmMatcher>();
}
