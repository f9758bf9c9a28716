#include "src/cuda/compile/cubin_text.hpp"

#include <cstring>

namespace cudaburg {

namespace {

// A little-endian unsigned integer of `bytes` bytes at `at`, or nullopt past the end.
std::optional<uint64_t> readAt(const std::vector<char>& data, uint64_t at, int bytes) {
  if (at > data.size() || data.size() - at < static_cast<uint64_t>(bytes)) return std::nullopt;
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(data[at + i]);
  return v;
}

}  // namespace

std::optional<int64_t> kernelTextBytes(const std::vector<char>& cubin, const std::string& entry) {
  // ELF64 header: magic, class 2 (64-bit), data 1 (little-endian); section headers at e_shoff
  // (0x28), e_shentsize / e_shnum / e_shstrndx at 0x3A / 0x3C / 0x3E.
  if (cubin.size() < 0x40 ||
      std::memcmp(cubin.data(),
                  "\x7f"
                  "ELF",
                  4) != 0 ||
      cubin[4] != 2 || cubin[5] != 1)
    return std::nullopt;
  auto shoff = readAt(cubin, 0x28, 8), entsize = readAt(cubin, 0x3A, 2), count = readAt(cubin, 0x3C, 2),
       names = readAt(cubin, 0x3E, 2);
  if (!shoff || !entsize || !count || !names || *entsize < 0x40 || *names >= *count) return std::nullopt;
  // A section header: sh_name at 0, sh_offset at 0x18, sh_size at 0x20.
  auto field = [&](uint64_t section, uint64_t offset, int bytes) {
    return readAt(cubin, *shoff + section * *entsize + offset, bytes);
  };
  auto namesAt = field(*names, 0x18, 8);
  if (!namesAt) return std::nullopt;
  const std::string wanted = ".text." + entry;
  for (uint64_t s = 0; s < *count; ++s) {
    auto name = field(s, 0, 4), size = field(s, 0x20, 8);
    if (!name || !size) return std::nullopt;
    uint64_t at = *namesAt + *name;
    if (at >= cubin.size() || cubin.size() - at <= wanted.size()) continue;
    if (std::memcmp(cubin.data() + at, wanted.c_str(), wanted.size() + 1) == 0) return static_cast<int64_t>(*size);
  }
  return std::nullopt;
}

}  // namespace cudaburg
