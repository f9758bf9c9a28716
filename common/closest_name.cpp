#include "common/closest_name.hpp"

#include <algorithm>

namespace common {

namespace {

// Optimal string alignment distance: Levenshtein's, with a swap of neighbours as one edit.
size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::string closestName(const std::string& word, const std::vector<std::string>& names) {
  std::string best;
  size_t bestDistance = 3;
  for (const auto& name : names) {
    size_t distance = editDistance(word, name);
    if (distance < bestDistance && 2 * distance < word.size()) {
      best = name;
      bestDistance = distance;
    }
  }
  return best;
}

std::string didYouMean(const std::string& word, const std::vector<std::string>& names) {
  std::string closest = closestName(word, names);
  return closest.empty() ? "" : "; did you mean '" + closest + "'?";
}

}  // namespace common
