#include "src/tune/mpi/message.hpp"

#include <cstring>

namespace cudaburg::tune::mpi {

std::string frame(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) {
    uint64_t n = p.size();
    out.append(reinterpret_cast<const char*>(&n), sizeof n);
    out += p;
  }
  return out;
}

std::optional<std::vector<std::string>> unframe(const std::string& bytes) {
  std::vector<std::string> parts;
  size_t at = 0;
  while (at < bytes.size()) {
    uint64_t n = 0;
    if (bytes.size() - at < sizeof n) return std::nullopt;
    std::memcpy(&n, bytes.data() + at, sizeof n);
    at += sizeof n;
    if (n > bytes.size() - at) return std::nullopt;
    parts.push_back(bytes.substr(at, n));
    at += n;
  }
  return parts;
}

const char* buildId() { return CUDABURG_BUILD_ID; }

}  // namespace cudaburg::tune::mpi
