#pragma once
// The machine code of one kernel in a CUBIN (an ELF file): the size of its `.text.<entry>`
// section, which says how many SASS instructions the kernel is (16 bytes each from sm_70 on). Two
// kernels that compute the same thing can differ in it where the compiler unrolled, scheduled or
// addressed differently, which nothing before compilation shows.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cudaburg {

// The bytes of `entry`'s code in `cubin`; nullopt when the file is no 64-bit little-endian ELF or
// has no such section.
std::optional<int64_t> kernelTextBytes(const std::vector<char>& cubin, const std::string& entry);

constexpr int64_t kSassInstructionBytes = 16;

}  // namespace cudaburg
