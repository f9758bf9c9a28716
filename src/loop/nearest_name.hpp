#pragma once
// "Did you mean ...?": the known name nearest to a mistyped one, for errors that name the mistake
// (a command, an option, a loop mark, a size).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudaburg {

// The number of one-character insertions, deletions, substitutions and swaps of two neighbours
// that turn `a` into `b` (optimal string alignment distance).
size_t editDistance(std::string_view a, std::string_view b);

// The candidate nearest to `word` when it is near enough to be a typing mistake of it (one edit
// in a short word, two in a longer one); the first of equally near ones.
std::optional<std::string> nearestName(std::string_view word, const std::vector<std::string>& candidates);

// "; did you mean 'show'?" after an error's sentence, or "" when no candidate is near.
std::string didYouMean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace cudaburg
