#include "src/loop/dot.hpp"

#include "src/loop/burg_node.hpp"
#include "src/loop/printer.hpp"

namespace cudaburg {

namespace {

// Escapes text for a double-quoted DOT string.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out + "\"";
}

std::string label(const Node& node) {
  std::string text = burgOpName(burg_op(&node));
  switch (node.kind) {
    case NodeKind::For: {
      std::string upper = node.upper[0].str();
      for (size_t i = 1; i < node.upper.size(); ++i) upper = "min(" + upper + ", " + node.upper[i].str() + ")";
      text += "\n" + node.index + " = " + node.lower.str() + " .. " + upper;
      if (node.step != 1) text += " step " + std::to_string(node.step);
      if (node.mapping != Mapping::None) text += "\n[" + std::string(mappingName(node.mapping)) + "]";
      break;
    }
    case NodeKind::Assign:
      text += "\n" + node.target.str() + (node.accumulate ? " += " : " = ") + printExpr(*node.value);
      if (node.atomic) text += "\n[atomic]";
      break;
    case NodeKind::Alloc: {
      text += "\n" + node.buffer.name;
      for (int64_t e : node.buffer.extents) text += "[" + std::to_string(e) + "]";
      text += node.buffer.space == MemorySpace::Shared ? " shared" : " register";
      break;
    }
    case NodeKind::Stage:
      text += "\n" + node.buffer.name + " <- " + Access{node.source, node.origin}.str();
      break;
    default:
      break;
  }
  return text;
}

const char* fill(const Node& node) {
  if (node.kind == NodeKind::For) {
    if (isGridMapping(node.mapping)) return "lightblue";
    if (isBlockMapping(node.mapping)) return "palegreen";
    if (node.loopKind == LoopKind::Reduce) return "khaki";
    return "white";
  }
  if (node.kind == NodeKind::Assign) return "lightyellow";
  if (node.kind == NodeKind::Seq) return "gray95";
  return "mistyrose";
}

int emit(const Node& node, int& next, std::string& out) {
  int id = next++;
  out += "  n" + std::to_string(id) + " [label=" + quoted(label(node)) + ", fillcolor=" + fill(node) + "];\n";
  for (size_t i = 0; i < node.kids.size(); ++i) {
    int kid = emit(*node.kids[i], next, out);
    out += "  n" + std::to_string(id) + " -> n" + std::to_string(kid);
    if (node.kids.size() > 1) out += " [label=" + std::to_string(i) + "]";
    out += ";\n";
  }
  return id;
}

}  // namespace

std::string kernelToDot(const Kernel& kernel) {
  std::string out = "digraph " + quoted(kernel.name) + " {\n";
  out += "  node [shape=box, style=filled, fontname=\"monospace\"];\n";
  int next = 0;
  if (kernel.body) emit(*kernel.body, next, out);
  return out + "}\n";
}

}  // namespace cudaburg
