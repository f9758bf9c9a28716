// Prefetched loops (rule 9 of loop_tree.hpp): an unrolled loop whose iterations read shared
// buffers keeps what one iteration reads in registers, two copies, and fills the next
// iteration's copy before its own work uses the other, so that the shared loads of one
// iteration are in flight while the multiply-adds of the one before issue. Under a pipelined
// strip loop the last iteration's operands are in registers before the strip's barrier, so the
// barrier and the next strip's first loads come before the last iteration's work, which hides
// them. The part of the CUDA emitter's writer (kernel_writer.hpp) that writes such loops.
#include <algorithm>

#include "src/cuda/emit/kernel_writer.hpp"

namespace cudaburg::emit_internal {

bool KernelWriter::isPrefetched(const std::string& index) const {
  return std::find(kernel_.prefetched.begin(), kernel_.prefetched.end(), index) != kernel_.prefetched.end();
}

std::shared_ptr<OperandRegisters> KernelWriter::openOperandRegisters(const Node& loop) {
  auto regs = std::make_shared<OperandRegisters>();
  regs->loop = loop.index;
  regs->counter = loop.lower.isConstant() ? loop.index : loop.index + "_u";  // as emitUnrolledLoop names it
  regs->first = loop.lower;
  for (const CollapsedLoop& c : loop.collapsed) regs->derived.push_back(c.index);
  regs->declareAt = text_.mark();
  regs->indent = text_.indent();
  return regs;
}

void KernelWriter::declareOperandRegisters(const OperandRegisters& regs) {
  std::string text;
  for (const auto& [name, b] : regs.buffers)
    text += std::string(2 * regs.indent, ' ') + b.type + " " + name + "_reg[2][" + std::to_string(b.places) +
            "];  // " + name + " as loop " + regs.loop + " reads it, an iteration ahead\n";
  for (const std::string& f : regs.fragments) text += std::string(2 * regs.indent, ' ') + f + "\n";
  text_.insert(regs.declareAt, text);
}

bool KernelWriter::readsOperandRegisters(const Access& a, const Scope& scope) const {
  if (!scope.operands) return false;
  auto it = scope.arrays.find(a.array);
  return it != scope.arrays.end() && it->second.space == MemorySpace::Shared;
}

// The place of `a`'s element in its buffer, with the loop's index at its first value (the same
// for every iteration), split into what is known at compile time (the register's place) and what
// is not, which must be the same for every element the iteration reads of that buffer.
std::string KernelWriter::operandRegister(const Access& a, const Scope& scope, const std::string& copy) {
  OperandRegisters& regs = *scope.operands;
  const Array& buffer = scope.arrays.at(a.array);
  for (const Affine& sub : a.subscripts)
    for (const std::string& d : regs.derived)
      if (sub.uses(d)) {
        refuse("`" + a.str() + "` reads index `" + d + "`, which loop " + regs.loop + " derives: not read ahead");
        return "?";
      }
  Affine place = flatOffset(a, buffer).substitute(regs.loop, regs.first);
  for (const auto& [name, as] : scope.unrolledAs) place = place.substitute(name, as);
  Affine known(place.constant), unknown;
  for (const auto& [name, coef] : place.terms) {
    if (name == regs.counter) continue;
    (scope.compileTimeIndices.count(name) ? known : unknown).terms[name] = coef;
  }
  auto span = scope.ranges.bounds(known);
  if (!span || span->first < 0) {
    refuse("`" + a.str() + "` has no bounded place among the registers that read it ahead");
    return "?";
  }
  OperandRegisters::Buffer& b = regs.buffers[a.array];
  std::string base = affineText(unknown);
  if (b.type.empty()) {
    b.type = cudaType(typeOf(buffer));
    b.base = base;
  } else if (b.base != base) {
    refuse("loop " + regs.loop + " reads `" + a.array + "` at places that differ by more than its unrolled loops (" +
           b.base + " and " + base + "): not read ahead");
    return "?";
  }
  b.places = std::max(b.places, span->second + 1);
  return a.array + "_reg[" + copy + "][" + affineText(known) + "]";
}

void KernelWriter::emitOperandLoads(const Node& assign, const Scope& scope) {
  std::vector<Access> loads;
  collectLoads(*assign.value, loads);
  std::set<std::string> loaded;
  for (const Access& a : loads) {
    if (!readsOperandRegisters(a, scope)) continue;
    std::string reg = operandRegister(a, scope, scope.operandCopy);
    if (!loaded.insert(reg).second) continue;
    line(reg + " = " + accessText(aheadOf(a, scope), scope) + ";");
  }
}

Access KernelWriter::aheadOf(const Access& a, const Scope& scope) {
  Access from = a;
  for (const auto& [name, by] : scope.readAhead)
    for (Affine& s : from.subscripts) s = s.substitute(name, by);
  return from;
}

void KernelWriter::emitVectorReadAhead(const Node& loop, const std::vector<NodePtr>& stmts, int width,
                                       const Scope& scope) {
  open("{  // " + loop.index + ": vector of " + std::to_string(width) + ", read ahead");
  std::set<std::string> loaded;
  for (const auto& stmt : stmts) {
    std::vector<Access> loads;
    collectLoads(*stmt->value, loads);
    for (const Access& a : loads) {
      if (!readsOperandRegisters(a, scope)) continue;
      std::vector<std::string> regs;
      for (int v = 0; v < width; ++v)
        regs.push_back(
            operandRegister(substituteAccess(a, loop.index, loop.lower + Affine(v)), scope, scope.operandCopy));
      if (!loaded.insert(regs[0]).second) continue;
      Access first = aheadOf(substituteAccess(a, loop.index, loop.lower), scope);
      bool wide =
          a.subscripts.back().uses(loop.index) && wideAccessOk(aheadOf(a, scope), loop.index, loop.lower, width, scope);
      if (!wide) {  // lane by lane, or once where the lanes read one element
        bool lanes = false;
        for (const Affine& sub : a.subscripts) lanes = lanes || sub.uses(loop.index);
        for (int v = 0; v < (lanes ? width : 1); ++v)
          line(regs[v] + " = " +
               accessText(aheadOf(substituteAccess(a, loop.index, loop.lower + Affine(v)), scope), scope) + ";");
        continue;
      }
      std::string vtype = cudaType(typeOf(scope.arrays.at(a.array))) + std::to_string(width);
      std::string name = text_.temporary(a.array);
      line("const " + vtype + " " + name + " = *reinterpret_cast<const " + vtype + "*>(&" + accessText(first, scope) +
           ");");
      for (int v = 0; v < width; ++v) line(regs[v] + " = " + name + "." + "xyzw"[v] + ";");
    }
  }
  close();
}

void KernelWriter::emitReadAhead(const Node& loop, const Scope& scope, const std::shared_ptr<OperandRegisters>& regs,
                                 const std::string& copy, const std::vector<std::pair<std::string, Affine>>& shift) {
  Scope ahead = scope;
  ahead.operands = regs;
  ahead.operandCopy = copy;
  ahead.readingAhead = true;
  ahead.readAhead = shift;
  emit(*loop.body(), ahead);
}

void KernelWriter::emitPrefetchedLoop(const Node& loop, const Scope& scope, const StripTail* tail) {
  auto trips = scope.ranges.maxTripCount(loop);
  if (!trips) return refuse("unrolled loop `" + loop.index + "` has no constant trip count");
  std::shared_ptr<OperandRegisters> regs = tail ? tail->operands : openOperandRegisters(loop);
  if (!tail) {
    line("// " + loop.index + ": each iteration reads the next one's shared operands into registers first");
    emitReadAhead(loop, scope, regs, "0", {{loop.index, loop.lower}});
  }
  std::string iteration = loop.lower.isConstant() ? iterationText(loop) : regs->counter;
  if (iteration.find(' ') != std::string::npos) iteration = "(" + iteration + ")";
  emitUnrolledLoop(loop, scope, "", [&](Scope& inner) {
    bool more = *trips > 1;
    if (more) {
      open("if (" + iteration + " < " + std::to_string(*trips - 1) + ") {");
      emitReadAhead(loop, inner, regs, "(" + iteration + " + 1) & 1",
                    {{loop.index, Affine::var(loop.index) + Affine(loop.step)}});
    }
    if (tail) {
      if (more) otherwise("the last iteration: the strip's barrier, then the next strip's first operands");
      tail->handOver();
      if (tail->hasNext) {
        if (!tail->nextConds.empty()) open("if (" + joinConditions(tail->nextConds) + ") {");
        Scope next = inner;
        for (const auto& [buffer, slot] : tail->nextSlots) next.slots[buffer] = slot;
        emitReadAhead(
            loop, next, regs, "0",
            {{tail->strip, tail->nextStrip}, {loop.index, loop.lower.substitute(tail->strip, tail->nextStrip)}});
        if (!tail->nextConds.empty()) close();
      }
    }
    if (more) close();
    inner.operands = regs;
    inner.operandCopy = iteration + " & 1";
  });
  if (!tail) declareOperandRegisters(*regs);
}

}  // namespace cudaburg::emit_internal
