#pragma once
// Label-value references in a rule's C++ code: `$$` (the derivation's own label value) and
// `$b` (the label value of the kid bound to `b`). Found outside string and character literals
// and comments, so that "$$" in a string stays text.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace burgspec {

struct ValueRef {
  size_t offset;     // of the '$' in the code
  size_t length;     // of the whole reference
  std::string name;  // the binding; empty for `$$`
  bool valid;        // false for a '$' followed by neither '$' nor a name
};

std::vector<ValueRef> findValueRefs(std::string_view code);

// `code` with each valid reference replaced by `self` (for `$$`) or `kidPrefix + name`.
std::string replaceValueRefs(std::string_view code, const std::string& self, const std::string& kidPrefix);

// Whether the first thing `code` does is to assign `$$` from an expression that does not read it,
// before anything else is evaluated: the whole code, or the left operand of a comma, in any
// parentheses (`($$ = f($k), g($$))`). Then the value `$$` held before is never read.
bool assignsSelfFirst(std::string_view code);

}  // namespace burgspec
