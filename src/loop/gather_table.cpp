#include "src/loop/gather_table.hpp"

#include <algorithm>
#include <map>

namespace cudaburg {

namespace {

// `a` split into the part of the variables in `side` and the rest (constant included).
void splitBySide(const Affine& a, const std::vector<std::string>& side, Affine& sidePart, Affine& rest) {
  sidePart = Affine();
  rest = Affine(a.constant);
  for (const auto& [name, coef] : a.terms) {
    Affine& part = std::find(side.begin(), side.end(), name) != side.end() ? sidePart : rest;
    part = part + Affine::var(name, coef);
  }
}

}  // namespace

int GatherTable::tapBits() const {
  int bits = 1;
  while ((size_t{1} << bits) <= taps.size()) ++bits;
  return bits;
}

int32_t GatherTable::packed(int64_t value) const {
  auto i = static_cast<size_t>(value);
  return static_cast<int32_t>(static_cast<uint32_t>(delta[i]) << tapBits() | static_cast<uint32_t>(tap[i]));
}

uint64_t GatherTable::rowMask(const std::vector<int64_t>& rowValues) const {
  for (size_t d : rowOnly)
    if (rowValues[d] < 0 || rowValues[d] >= extents[d]) return 0;
  uint64_t mask = 0;
  for (size_t t = 0; t < taps.size(); ++t) {
    bool in = true;
    for (size_t i = 0; i < mixed.size() && in; ++i) {
      int64_t v = rowValues[mixed[i]] + taps[t][i];
      in = v >= 0 && v < extents[mixed[i]];
    }
    if (in) mask |= uint64_t{1} << t;
  }
  return mask;
}

std::string gatherTableOf(const Node& stage, const Array& source, size_t dim, GatherTable& out) {
  if (dim >= stage.gather.size()) return "the gather has no dimension " + std::to_string(dim);
  const GatherDim& g = stage.gather[dim];
  if (g.collapsed.empty())
    return "the gather's dimension along " + g.index + " is no collapsed loop: its offsets need no table";
  if (stage.gatherSubscripts.size() != source.extents.size())
    return "the gather reads " + source.name + " with " + std::to_string(stage.gatherSubscripts.size()) +
           " subscripts, not " + std::to_string(source.extents.size());
  std::vector<std::string> side{g.index};
  int64_t total = 1;
  for (const CollapsedLoop& c : g.collapsed) {
    side.push_back(c.index);
    total *= c.trips;
  }
  // Every value the dimension's index takes: the collapsed loop's, and a partial last strip's beyond.
  int64_t size = total + stage.buffer.extents[dim] - 1;
  if (size > kMaxTableEntries)
    return "the table of " + g.index + " would hold " + std::to_string(size) + " entries, more than " +
           std::to_string(kMaxTableEntries) + " (32 KiB of constant memory)";
  GatherTable t;
  t.dim = dim;
  t.extents = source.extents;
  std::vector<Affine> sideSubscripts(source.extents.size());
  for (size_t d = 0; d < source.extents.size(); ++d) {
    Affine rest;
    splitBySide(stage.gatherSubscripts[d], side, sideSubscripts[d], rest);
    t.rowSubscripts.push_back(rest);
    if (!rest.isConstant()) (sideSubscripts[d].isConstant() ? t.rowOnly : t.mixed).push_back(d);
  }
  int64_t stride = 1;
  for (size_t d = source.extents.size(); d-- > 0;) {
    t.rowOffset = t.rowOffset + t.rowSubscripts[d] * stride;
    stride *= source.extents[d];
  }
  std::map<std::vector<int64_t>, size_t> tapOf;
  std::vector<bool> outside(static_cast<size_t>(size));
  t.delta.resize(static_cast<size_t>(size));
  for (int64_t v = 0; v < size; ++v) {
    std::map<std::string, int64_t> env{{g.index, v}};
    std::vector<int64_t> digits = derivedValues(g.collapsed, v);
    for (size_t j = 0; j < digits.size(); ++j) env[g.collapsed[j].index] = digits[j];
    int64_t delta = 0;
    bool in = true;
    std::vector<int64_t> parts;
    stride = 1;
    for (size_t d = source.extents.size(); d-- > 0;) {
      int64_t part = sideSubscripts[d].eval(env);
      delta += part * stride;
      stride *= source.extents[d];
      bool isMixed = std::find(t.mixed.begin(), t.mixed.end(), d) != t.mixed.end();
      if (isMixed) parts.insert(parts.begin(), part);
      // A subscript of the table side alone is inside or not whatever the row.
      else if (t.rowSubscripts[d].isConstant())
        in = in && part + t.rowSubscripts[d].constant >= 0 && part + t.rowSubscripts[d].constant < source.extents[d];
    }
    auto i = static_cast<size_t>(v);
    outside[i] = !in;
    t.delta[i] = in ? delta : 0;
    if (!in) continue;
    auto [it, added] = tapOf.emplace(parts, t.taps.size());
    if (added) t.taps.push_back(parts);
    t.tap.push_back(it->second);
  }
  if (t.taps.size() > kMaxTableTaps)
    return "the gather's elements fall into " + std::to_string(t.taps.size()) + " taps, more than the " +
           std::to_string(kMaxTableTaps) + " a row's mask holds";
  // The entries outside take the tap no mask has.
  std::vector<size_t> taps;
  size_t next = 0;
  for (size_t i = 0; i < outside.size(); ++i) taps.push_back(outside[i] ? t.taps.size() : t.tap[next++]);
  t.tap = std::move(taps);
  int64_t limit = int64_t{1} << (31 - t.tapBits());
  for (int64_t d : t.delta)
    if (d < -limit || d >= limit)
      return "an offset of the table of " + g.index + " (" + std::to_string(d) + ") does not fit in " +
             std::to_string(32 - t.tapBits()) + " bits beside its tap";
  out = std::move(t);
  return "";
}

}  // namespace cudaburg
