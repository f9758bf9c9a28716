#pragma once
// Lists as recipe text writes them: comma-separated, no spaces ("i,j,k", "64,256,16").
#include <cstdint>
#include <string>
#include <vector>

namespace cudaburg {

inline std::string joinList(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : ",") + i;
  return s;
}

inline std::string joinList(const std::vector<int64_t>& items) {
  std::string s;
  for (auto i : items) s += (s.empty() ? "" : ",") + std::to_string(i);
  return s;
}

}  // namespace cudaburg
