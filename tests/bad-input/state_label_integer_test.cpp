// STATE_LABEL as an integer (see state_label_test.hpp).
#include "tests/bad-input/integer_label_matcher.hpp"
#include "tests/bad-input/state_label_test.hpp"

TEST(StateLabel, IntegerSlot) { state_label_test::labelTheClassicAssignment<tree, integer_label::burmMatcher>(); }
