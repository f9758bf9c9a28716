#pragma once
// The value ranges a search walks, written on the command line:
//   a..b    the powers of two from a to b         (64..256  -> 64 128 256)
//   a..b:s  from a to b in steps of s             (32..96:32 -> 32 64 96)
//   a,b,c   exactly these values                  (48,96,192)
//   a       one value
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cudaburg {

struct ParamRange {
  std::vector<int64_t> values;  // ascending, no duplicates, all positive

  bool contains(int64_t v) const;
  int64_t min() const { return values.front(); }
  int64_t max() const { return values.back(); }
  std::string str() const;  // "64,128,256"
};

// Ranges are refused past these: the count keeps memory bounded, the value keeps the model's
// products of tiles and unrolls within 64 bits.
constexpr int64_t kMaxParamValues = 1000000;
constexpr int64_t kMaxParamValue = int64_t{1} << 20;

// Parses `text`; on a mistake returns nullopt and a plain sentence in `error` that names `flag`.
std::optional<ParamRange> parseParamRange(const std::string& text, const std::string& flag, std::string& error);

}  // namespace cudaburg
