#include "src/loop/printer.hpp"

#include <charconv>
#include <cmath>

namespace cudaburg {

namespace {

// Binding strength of an expression, for deciding parentheses.
int precedence(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::Binary:
      return e.op == '+' || e.op == '-' ? 1 : 2;
    case Expr::Kind::Index: {
      // A lone index ("i") binds like a name; "2*i" or "i + 1" like a sum.
      const Affine& a = e.index;
      bool lone = a.terms.size() == 1 && a.constant == 0 && a.terms.begin()->second == 1;
      return lone || (a.isConstant() && a.constant >= 0) ? 3 : 1;
    }
    case Expr::Kind::Constant:
      return e.value < 0 ? 2 : 3;
    default:
      return 3;
  }
}

std::string operand(const Expr& e, bool parens) { return parens ? "(" + printExpr(e) + ")" : printExpr(e); }

std::string printUpper(const std::vector<Affine>& upper, size_t from = 0) {
  if (from + 1 == upper.size()) return upper[from].str();
  return "min(" + upper[from].str() + ", " + printUpper(upper, from + 1) + ")";
}

// A Stage's (or its buffer's) layout: nothing for the natural order, " transposed" for a 2-D
// swap, else " layout(2, 0, 1)"; " interleaved 8" for interleaved rows.
std::string layoutText(const std::vector<int>& layout, int64_t interleave) {
  if (interleave) return " interleaved " + std::to_string(interleave);
  if (layout.empty()) return "";
  if (layout == std::vector<int>{1, 0}) return " transposed";
  std::string s;
  for (int d : layout) s += (s.empty() ? "" : ", ") + std::to_string(d);
  return " layout(" + s + ")";
}

std::string arrayDecl(const Array& a) {
  std::string s = std::string(a.input ? "const " : "") + scalarTypeName(a.type) + " " + a.name;
  for (int64_t e : a.extents) s += "[" + std::to_string(e) + "]";
  if (a.zeroPadded) s += " padded";
  return s;
}

const char* spaceName(MemorySpace s) {
  switch (s) {
    case MemorySpace::Global:
      return "global";
    case MemorySpace::Shared:
      return "shared";
    case MemorySpace::Register:
      return "register";
  }
  return "global";
}

// The loops a collapsed loop replaced: "collapses n = 0..31, oh = 0..55, ow = 0..55".
std::string collapsedText(const std::vector<CollapsedLoop>& loops) {
  std::string s;
  for (const auto& c : loops) {
    s += std::string(s.empty() ? "collapses " : ", ") + c.index + " = " + std::to_string(c.lower) + ".." +
         std::to_string(c.lower + (c.trips - 1) * c.step);
    if (c.step != 1) s += " step " + std::to_string(c.step);
  }
  return s;
}

bool isLocal(const Node& node) { return node.kind == NodeKind::Alloc && isLocalScalar(node.buffer); }

void print(const Node& node, int indent, std::string& out);

// A local scalar as declared: `float acc = 0;` (its first statement, where that sets it), then
// the rest of its scope at the same depth.
void printLocal(const Node& alloc, int indent, std::string& out) {
  std::vector<NodePtr> scope = flattenSeq(alloc.body());
  const Node& first = *scope.front();
  bool init = first.kind == NodeKind::Assign && !first.accumulate && first.target.array == alloc.buffer.name;
  out += std::string(indent, ' ') + scalarTypeName(alloc.buffer.type) + " " + alloc.buffer.name;
  out += init ? " = " + printExpr(*first.value) + ";\n" : ";\n";
  for (size_t s = init ? 1 : 0; s < scope.size(); ++s) print(*scope[s], indent, out);
}

void print(const Node& node, int indent, std::string& out) {
  std::string pad(indent, ' ');
  switch (node.kind) {
    case NodeKind::Seq:
      for (const NodePtr& kid : node.kids) print(*kid, indent, out);
      return;
    case NodeKind::For: {
      out += pad;
      if (node.loopKind != LoopKind::Serial) out += std::string(loopKindName(node.loopKind)) + " ";
      out += "for (" + node.index + " = " + node.lower.str() + "; " + node.index + " < " + printUpper(node.upper) +
             "; " + node.index + (node.step == 1 ? "++" : " += " + std::to_string(node.step)) + ")";
      bool block = node.body()->kind == NodeKind::Seq || isLocal(*node.body());
      if (block) out += " {";
      std::string notes;
      if (node.mapping != Mapping::None) notes = mappingName(node.mapping);
      if (!node.collapsed.empty()) notes += (notes.empty() ? "" : "; ") + collapsedText(node.collapsed);
      if (!notes.empty()) out += "  // " + notes;
      out += "\n";
      print(*node.body(), indent + 2, out);
      if (block) out += pad + "}\n";
      return;
    }
    case NodeKind::Assign:
      out += pad + node.target.str() + (node.accumulate ? " += " : " = ") + printExpr(*node.value) + ";";
      if (node.atomic) out += "  // atomic";
      out += "\n";
      return;
    case NodeKind::Alloc:
      if (isLocal(node)) return printLocal(node, indent, out);
      out += pad + "alloc " + spaceName(node.buffer.space) + " " + arrayDecl(node.buffer) +
             layoutText(node.layout, node.buffer.interleave) + " {\n";
      print(*node.body(), indent + 2, out);
      out += pad + "}\n";
      return;
    case NodeKind::Stage: {
      if (!node.gather.empty()) {
        std::string over;
        for (size_t d = 0; d < node.gather.size(); ++d)
          over += (d ? ", " : "") + node.gather[d].index + " = " + node.origin[d].str() + " + 0.." +
                  std::to_string(node.buffer.extents[d] - 1);
        if (node.tableDim >= 0)
          over += ", the offsets of " + node.gather[static_cast<size_t>(node.tableDim)].index + " from a table";
        out += pad + "gather " + node.buffer.name + " from " + Access{node.source, node.gatherSubscripts}.str() +
               " over " + over + ";\n";
        return;
      }
      Access from{node.source, node.origin};
      out += pad + "stage " + node.buffer.name + " from " + from.str() +
             layoutText(node.layout, node.buffer.interleave) + ";\n";
      return;
    }
    case NodeKind::Barrier:
      out += pad + "barrier;\n";
      return;
  }
}

}  // namespace

std::string printNumber(double value) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return ec == std::errc() ? std::string(buffer, end) : "0";
}

std::string printExpr(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::Constant:
      return printNumber(e.value);
    case Expr::Kind::Index:
      return e.index.str();
    case Expr::Kind::Load:
      return e.load.str();
    case Expr::Kind::Call: {
      std::string s = e.callee + "(";
      for (size_t a = 0; a < e.args.size(); ++a) s += (a ? ", " : "") + printExpr(*e.args[a]);
      return s + ")";
    }
    case Expr::Kind::Binary: {
      const Expr& l = *e.args[0];
      const Expr& r = *e.args[1];
      // 0 - x reads back from -x, unless x is a number (-3 reads back as the constant -3).
      if (e.op == '-' && l.kind == Expr::Kind::Constant && l.value == 0 && !std::signbit(l.value) &&
          r.kind != Expr::Kind::Constant)
        return "-" + operand(r, precedence(r) < 3);
      int p = precedence(e);
      return operand(l, precedence(l) < p) + " " + e.op + " " + operand(r, precedence(r) <= p);
    }
  }
  return "?";
}

std::string printNode(const Node& node, int indent) {
  std::string out;
  print(node, indent, out);
  return out;
}

std::string printKernel(const Kernel& kernel) {
  std::string out;
  if (!kernel.sizes.empty()) {
    out += "size ";
    for (size_t i = 0; i < kernel.sizes.size(); ++i)
      out += (i ? ", " : "") + kernel.sizes[i].first + " = " + std::to_string(kernel.sizes[i].second);
    out += ";\n\n";
  }
  if (!kernel.zeroFirst.empty()) {
    out += "// zeroed before the kernel runs:";
    for (const std::string& name : kernel.zeroFirst) out += " " + name;
    out += "\n";
  }
  if (!kernel.workspaceSplit.empty())
    out += "// the parts of " + kernel.workspaceSplit + " meet in a workspace; the last to finish adds them up\n";
  if (kernel.laneRows > 0)
    out += "// a warp's threads: " + std::to_string(kernel.laneRows) + " rows of block.y by " +
           std::to_string(kernel.laneCols) + " columns of block.x\n";
  if (kernel.rasterRows > 0)
    out += "// blocks numbered " + std::to_string(kernel.rasterRows) + " rows of grid.y at a time (rastered)\n";
  if (kernel.persistentBlocks > 0)
    out += "// " + std::to_string(kernel.persistentBlocks) + " persistent blocks take the grid's tiles in turn" +
           (kernel.pingPong ? ", two groups of the warpgroups that multiply alternate tiles (ping-pong)" : "") + "\n";
  if (kernel.clusterBlocks > 0)
    out += "// clusters of " + std::to_string(kernel.clusterBlocks) + " blocks along grid." +
           (kernel.clusterAxis == 0 ? "x" : "y") + " share the stages that are the same for both (multicast)\n";
  if (!kernel.peeled.empty()) {
    out += "// edges run apart (peeled):";
    for (const std::string& name : kernel.peeled) out += " " + name;
    out += "\n";
  }
  if (kernel.residentBlocks > 0)
    out += "// at least " + std::to_string(kernel.residentBlocks) + " blocks resident on a multiprocessor\n";
  if (!kernel.prefetched.empty()) {
    out += "// shared operands read an iteration ahead (prefetched):";
    for (const std::string& name : kernel.prefetched) out += " " + name;
    out += "\n";
  }
  out += "kernel " + kernel.name + "(";
  for (size_t i = 0; i < kernel.params.size(); ++i) out += (i ? ", " : "") + arrayDecl(kernel.params[i]);
  out += ") {\n";
  if (kernel.body) print(*kernel.body, 2, out);
  out += "}\n";
  return out;
}

}  // namespace cudaburg
