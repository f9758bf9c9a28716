#pragma once
// "Did you mean": the known name closest to a mistyped one, for messages about command lines.
#include <string>
#include <vector>

namespace common {

// The name among `names` fewest edits (insertions, deletions, substitutions, swaps of two
// neighbours) away from `word`, when it is close enough to be what was meant: at most 2 edits,
// and fewer than half of the word's length. Empty when none is.
std::string closestName(const std::string& word, const std::vector<std::string>& names);

// "; did you mean 'show'?" to end an error's sentence, or "" when no name is close.
std::string didYouMean(const std::string& word, const std::vector<std::string>& names);

}  // namespace common
