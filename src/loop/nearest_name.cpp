#include "src/loop/nearest_name.hpp"

#include <algorithm>

namespace cudaburg {

size_t editDistance(std::string_view a, std::string_view b) {
  // d[i][j]: the distance between a's first i and b's first j characters, three rows kept.
  std::vector<size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t substitute = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitute});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        current[j] = std::min(current[j], before[j - 2] + 1);
    }
    before.swap(previous);
    previous.swap(current);
  }
  return previous[b.size()];
}

std::optional<std::string> nearestName(std::string_view word, const std::vector<std::string>& candidates) {
  size_t allowed = word.size() >= 5 ? 2 : 1;
  std::optional<std::string> nearest;
  size_t best = allowed + 1;
  for (const std::string& c : candidates) {
    size_t d = editDistance(word, c);
    if (d < best && d < std::max(word.size(), c.size())) {
      best = d;
      nearest = c;
    }
  }
  return nearest;
}

std::string didYouMean(std::string_view word, const std::vector<std::string>& candidates) {
  auto nearest = nearestName(word, candidates);
  return nearest ? "; did you mean '" + *nearest + "'?" : "";
}

}  // namespace cudaburg
