#include "src/search/param_range.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

namespace cudaburg {

namespace {

// A whole, positive decimal number (and nothing else).
bool parsePositive(const std::string& text, int64_t& value) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size() && value > 0;
}

}  // namespace

bool ParamRange::contains(int64_t v) const { return std::binary_search(values.begin(), values.end(), v); }

std::string ParamRange::str() const {
  std::string s;
  for (int64_t v : values) s += (s.empty() ? "" : ",") + std::to_string(v);
  return s;
}

std::optional<ParamRange> parseParamRange(const std::string& text, const std::string& flag, std::string& error) {
  auto fail = [&](const std::string& why) {
    error = flag + ": " + why + " in '" + text + "' (write a..b for powers of two, a..b:s for steps, or a,b,c)";
    return std::nullopt;
  };
  auto tooLarge = [&](int64_t v) {
    error = flag + ": " + std::to_string(v) + " in '" + text + "' is above " + std::to_string(kMaxParamValue) +
            ", the largest value a search parameter may take";
    return std::nullopt;
  };
  ParamRange range;
  size_t dots = text.find("..");
  if (dots != std::string::npos) {
    std::string lo = text.substr(0, dots), rest = text.substr(dots + 2), step;
    size_t colon = rest.find(':');
    std::string hi = rest.substr(0, colon);
    if (colon != std::string::npos) step = rest.substr(colon + 1);
    int64_t a = 0, b = 0, s = 0;
    if (!parsePositive(lo, a)) return fail("the lower bound is not a positive whole number");
    if (!parsePositive(hi, b)) return fail("the upper bound is not a positive whole number");
    if (a > b) return fail("the lower bound is above the upper bound");
    if (colon != std::string::npos) {
      if (!parsePositive(step, s)) return fail("the step is not a positive whole number");
      // Counted before anything is enumerated: a huge range is refused at once, not after filling memory.
      int64_t count = (b - a) / s + 1;
      if (count > kMaxParamValues) {
        error = flag + ": '" + text + "' would enumerate " + std::to_string(count) +
                " values; a range may hold at most " + std::to_string(kMaxParamValues);
        return std::nullopt;
      }
    }
    if (b > kMaxParamValue) return tooLarge(b);
    if (colon != std::string::npos) {
      for (int64_t v = a; v <= b; v += s) range.values.push_back(v);
    } else {
      for (int64_t p = 1; p <= b; p *= 2) {
        if (p >= a) range.values.push_back(p);
        if (p > b / 2) break;  // the next power would pass b (or wrap)
      }
      if (range.values.empty()) return fail("no power of two lies in the range");
    }
  } else {
    size_t start = 0;
    while (true) {
      size_t comma = text.find(',', start);
      std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      int64_t v = 0;
      if (!parsePositive(item, v))
        return fail(item.empty() ? "an empty value" : "'" + item + "' is not a positive whole number");
      range.values.push_back(v);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    std::sort(range.values.begin(), range.values.end());
    range.values.erase(std::unique(range.values.begin(), range.values.end()), range.values.end());
  }
  if (range.max() > kMaxParamValue) return tooLarge(range.max());
  return range;
}

}  // namespace cudaburg
