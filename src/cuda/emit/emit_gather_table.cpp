// Gathers through offset tables (Node::tableDim, src/loop/gather_table.hpp): the part of the CUDA
// emitter's writer (kernel_writer.hpp) that declares a gather's table in constant memory, sets
// each thread's rows before the strip loop, and reads a strip's elements by table look-ups: an
// implicit GEMM's im2col with no division and no bounds arithmetic in the strip loop.
#include "src/cuda/emit/kernel_writer.hpp"

namespace cudaburg::emit_internal {

namespace {

// `value < extent` as one unsigned comparison: also false where the value is negative.
std::string belowAsUnsigned(const std::string& value, int64_t extent, const std::string& indexType) {
  std::string u = indexType == "int" ? "unsigned" : "unsigned long long";
  return "static_cast<" + u + ">(" + value + ") < " + std::to_string(extent) + (indexType == "int" ? "u" : "ull");
}

// The table as a constant array: each entry delta << tapBits | tap, sixteen a line.
std::string tableDeclaration(const std::string& name, const GatherTable& t, const std::string& of,
                             const std::string& buffer) {
  std::string out = "\n// The offsets of " + of + " in the gather into " + buffer + ": each entry the offset << " +
                    std::to_string(t.tapBits()) + " | the tap, " + std::to_string(t.taps.size()) +
                    " taps (a tap past them: outside the source)\n";
  out += "__constant__ int " + name + "[" + std::to_string(t.size()) + "] = {";
  for (int64_t v = 0; v < t.size(); ++v) {
    if (v % 16 == 0) out += "\n   ";
    out += " " + std::to_string(t.packed(v)) + (v + 1 < t.size() ? "," : "");
  }
  return out + "\n};\n";
}

}  // namespace

bool KernelWriter::declareGatherRows(const Node& loop, const Node& stage, const Scope& scope) {
  const Array* source = findArray(stage.source, scope);
  if (!source || typeOf(stage.buffer) != typeOf(*source)) return false;
  GatherRows rows;
  const std::string& name = stage.buffer.name;
  if (std::string why = gatherTableOf(stage, *source, static_cast<size_t>(stage.tableDim), rows.table); !why.empty()) {
    refuse("the table of the gather into `" + name + "`: " + why);
    return false;
  }
  const GatherTable& t = rows.table;
  StageCopy plain = planOverStrips(loop, stage, scope);
  if (!refusal_.empty()) return false;
  bool shared = true;  // a thread's items share their row: the same place along every other dimension
  for (size_t d = 0; d < stage.gather.size(); ++d) shared = shared && (d == t.dim || plain.sameForItems[d]);
  rows.items = shared ? 1 : itemsPerThread(plain);
  rows.width = static_cast<int>(stage.buffer.elements() / plain.items);
  std::string count = shared ? "" : "[" + std::to_string(rows.items) + "]";
  std::string maskType = t.wideMask() ? "unsigned long long" : "unsigned";
  line(index_ + " " + name + "_row" + count + ";  // the part of " + stage.source +
       "'s offset that a strip leaves, for this thread's items of " + name);
  line(maskType + " " + name + "_mask" + count + ";  // and which of the table's taps lie inside " + stage.source);
  open("{");
  line("const " + index_ + " " + loop.index + " = " + affineText(loop.lower) + ";");
  bool guarded = false;
  if (shared) {  // the first item's, whether or not the thread has one
    line("const int stage_e = " + coordinate("thread_rank") + ";");
    line(plain.places + plain.coords);
  } else {
    guarded = openThreadItems(plain);
  }
  std::string item = shared ? "" : "[stage_r]";
  line(name + "_row" + item + " = " + affineText(t.rowOffset) + ";");
  std::vector<std::string> rowInside;
  for (size_t d : t.rowOnly) rowInside.push_back(belowAsUnsigned(affineText(t.rowSubscripts[d]), t.extents[d], index_));
  for (size_t d : t.mixed)
    line("const " + index_ + " row_" + std::to_string(d) + " = " + affineText(t.rowSubscripts[d]) + ";");
  line(maskType + " mask = 0;");
  if (!rowInside.empty()) open("if (" + joinConditions(rowInside) + ") {");
  for (size_t tap = 0; tap < t.taps.size(); ++tap) {
    std::vector<std::string> inside;
    for (size_t i = 0; i < t.mixed.size(); ++i) {
      std::string at = "row_" + std::to_string(t.mixed[i]);
      int64_t part = t.taps[tap][i];
      if (part != 0) at += (part > 0 ? " + " : " - ") + std::to_string(part > 0 ? part : -part);
      inside.push_back(belowAsUnsigned(at, t.extents[t.mixed[i]], index_));
    }
    std::string bit = "mask |= " + std::string(t.wideMask() ? "1ull" : "1u") + " << " + std::to_string(tap) + ";";
    line(inside.empty() ? bit : "if (" + joinConditions(inside) + ") " + bit);
  }
  if (!rowInside.empty()) close();
  line(name + "_mask" + item + " = mask;");
  if (!shared) closeThreadItems(guarded);
  close();
  std::string tableName = name + "_table";
  gathers_.declareTable(tableName, tableDeclaration(tableName, t, stage.gather[t.dim].index, name));
  gathers_.keepRows(name, rows);
  return true;
}

// Each item looks its entry up by the tabled dimension's index; its element is the source at its
// row plus the entry's offset, where the row's mask has the entry's tap, else zero.
void KernelWriter::readThroughTable(StageCopy& c, const Node& node, const Array& source, const GatherRows& rows,
                                    Scope& inner) {
  const GatherTable& t = rows.table;
  const std::string& name = node.buffer.name;
  const GatherDim& g = node.gather[t.dim];
  Affine at = node.origin[t.dim] + Affine::var("stage_" + std::to_string(t.dim));
  auto span = inner.ranges.bounds(at);
  if (!span || span->first < 0 || span->second >= t.size())
    return refuse("the gather into `" + name + "` reads its table of " + g.index + " past its " +
                  std::to_string(t.size()) + " entries");
  inner.ranges.bind(g.index, IndexRange{span->first, span->second, inner.ranges.multipleOf(at)});
  c.coords += " const " + index_ + " " + g.index + " = " + affineText(at) + "; const int " + name + "_entry = " + name +
              "_table[" + g.index + "];";
  int bits = t.tapBits();
  std::string element =
      source.name + "[" + gathers_.rowOf(name, "row") + " + (" + name + "_entry >> " + std::to_string(bits) + ")]";
  std::string inside = "(" + gathers_.rowOf(name, "mask") + " >> (" + name + "_entry & " +
                       std::to_string((1 << bits) - 1) + ")) & " + (t.wideMask() ? "1ull" : "1u");
  readElementAt(c, element, "", {inside}, typeOf(node.buffer), typeOf(source), rows.width);
  c.byItem = c.byItem || rows.items > 1;
}

}  // namespace cudaburg::emit_internal
