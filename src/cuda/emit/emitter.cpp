#include "src/cuda/emit/emitter.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "src/cuda/emit/cuda_names.hpp"
#include "src/cuda/emit/emit_back_to_back.hpp"
#include "src/cuda/emit/emit_winograd.hpp"
#include "src/cuda/emit/kernel_writer.hpp"
#include "src/cuda/emit/wgmma_descriptor.hpp"
#include "src/idioms/back_to_back/back_to_back_pair.hpp"
#include "src/loop/math_functions.hpp"
#include "src/loop/pipeline.hpp"
#include "src/loop/swizzle.hpp"
#include "src/target/gpu_target.hpp"

namespace cudaburg::emit_internal {
namespace {

const char* kAxis[3] = {"x", "y", "z"};

// `lower + step * var` as text.
std::string offsetText(const Affine& lower, int64_t step, const std::string& var) {
  bool compound = var.find(' ') != std::string::npos;
  std::string scaled = step == 1 ? var : std::to_string(step) + " * " + (compound ? "(" + var + ")" : var);
  if (lower.isConstant() && lower.constant == 0) return scaled;
  return affineText(lower) + " + " + (compound && step == 1 ? "(" + var + ")" : scaled);
}

ExprPtr substituteExpr(const ExprPtr& e, const std::string& name, const Affine& by) {
  auto copy = std::make_shared<Expr>(*e);
  switch (e->kind) {
    case Expr::Kind::Constant:
      return e;
    case Expr::Kind::Index:
      copy->index = e->index.substitute(name, by);
      break;
    case Expr::Kind::Load:
      for (auto& s : copy->load.subscripts) s = s.substitute(name, by);
      break;
    case Expr::Kind::Binary:
    case Expr::Kind::Call:
      for (auto& a : copy->args) a = substituteExpr(a, name, by);
      break;
  }
  return copy;
}

}  // namespace

Access substituteAccess(Access a, const std::string& name, const Affine& by) {
  for (auto& s : a.subscripts) s = s.substitute(name, by);
  return a;
}

void collectLoads(const Expr& e, std::vector<Access>& out) {
  if (e.kind == Expr::Kind::Load) out.push_back(e.load);
  for (const auto& a : e.args) collectLoads(*a, out);
}

std::string iterationText(const Node& loop) {
  std::string count = affineText(Affine::var(loop.index) - loop.lower);
  if (loop.step == 1) return count;
  return (loop.lower == Affine(0) ? count : "(" + count + ")") + " / " + std::to_string(loop.step);
}

// The shortest literal that reads back as `v` in type `t`.
std::string literal(double v, ScalarType t) {
  // An int element takes an integer literal, where the value has one (a larger one, or an
  // infinity, is written as a double and converted in the kernel, as C++ would).
  constexpr double kTwo63 = 9223372036854775808.0;
  if (t == ScalarType::Int && v >= -kTwo63 && v < kTwo63) return std::to_string(static_cast<long long>(v));
  bool single = t != ScalarType::Double && t != ScalarType::Int;
  if (!std::isfinite(v)) {  // by their bits: CUDA has no literal for them
    const char* bits = std::isnan(v) ? (single ? "0x7fffffff" : "0x7ff8000000000000LL")
                       : v > 0       ? (single ? "0x7f800000" : "0x7ff0000000000000LL")
                                     : (single ? "0xff800000" : "0xfff0000000000000LL");
    return std::string(single ? "__int_as_float(" : "__longlong_as_double(") + bits + ")";
  }
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    double back = std::strtod(buf, nullptr);
    if (single ? static_cast<float>(back) == static_cast<float>(v) : back == v) break;
  }
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return single ? s + "f" : s;
}

// An affine expression as text, its positive terms first: "i2 - i0" rather than "-i0 + i2".
std::string affineText(const Affine& a) {
  std::string s;
  for (int pass = 0; pass < 2; ++pass)
    for (const auto& [name, coef] : a.terms) {
      if ((coef > 0) != (pass == 0)) continue;
      int64_t mag = coef < 0 ? -coef : coef;
      s += s.empty() ? (coef < 0 ? "-" : "") : (coef < 0 ? " - " : " + ");
      s += (mag != 1 ? std::to_string(mag) + "*" : "") + name;
    }
  if (s.empty()) return std::to_string(a.constant);
  if (a.constant != 0)
    s += (a.constant < 0 ? " - " : " + ") + std::to_string(a.constant < 0 ? -a.constant : a.constant);
  return s;
}

const Array* KernelWriter::findArray(const std::string& name, const Scope& scope) {
  auto it = scope.arrays.find(name);
  if (it == scope.arrays.end()) {
    refuse("unknown array `" + name + "`");
    return nullptr;
  }
  return &it->second;
}

Affine KernelWriter::flatOffset(const Access& a, const Array& array) {
  Affine offset;
  int64_t stride = 1;
  for (size_t d = a.subscripts.size(); d-- > 0;) {
    offset = offset + a.subscripts[d] * stride;
    stride *= array.extents[d];
  }
  return offset;
}

std::string KernelWriter::accessText(const Access& a, const Scope& scope) {
  const Array* array = findArray(a.array, scope);
  if (!array) return "?";
  if (a.subscripts.size() != array->extents.size()) {
    refuse("`" + a.str() + "` has " + std::to_string(a.subscripts.size()) + " subscripts; `" + a.array + "` has " +
           std::to_string(array->extents.size()) + " dimensions");
    return "?";
  }
  for (const auto& sub : a.subscripts)
    for (const auto& [name, coef] : sub.terms)
      if (!scope.ranges.has(name)) refuse("`" + a.str() + "` uses `" + name + "` outside its loop");
  if (array->space == MemorySpace::Global) return a.array + "[" + affineText(flatOffset(a, *array)) + "]";
  std::string text = a.array;
  if (auto slot = scope.slots.find(a.array); slot != scope.slots.end()) text += "[" + slot->second + "]";
  if (array->interleave) {  // the row's element `c` where the interleaved order stores it
    std::string c = affineText(a.subscripts.back());
    if (c.find(' ') != std::string::npos) c = "(" + c + ")";
    int64_t n = array->interleave;
    std::string pieces = std::to_string(array->extents.back() / n * 4);
    for (size_t d = 0; d + 1 < a.subscripts.size(); ++d) text += "[" + affineText(a.subscripts[d]) + "]";
    int shift = 0;
    while ((int64_t{1} << shift) < n) ++shift;
    if ((int64_t{1} << shift) == n)  // c >= 0: masks and shifts, which the compiler folds further
      return text + "[((" + c + " & " + std::to_string(n - 1) + ") >> 2) * " + pieces + " + ((" + c + " >> " +
             std::to_string(shift) + ") << 2) + (" + c + " & 3)]";
    return text + "[" + c + " % " + std::to_string(n) + " / 4 * " + pieces + " + " + c + " / " + std::to_string(n) +
           " * 4 + " + c + " % 4]";
  }
  if (array->slab > 0 && a.subscripts.size() == 2) {  // [column / slab][row][column % slab], swizzled
    const Affine& row = a.subscripts[0];
    const Affine& col = a.subscripts[1];
    int shift = 0;
    while ((int64_t{1} << shift) < array->slab) ++shift;
    std::string slab, within;
    if (col.isConstant()) {
      slab = std::to_string(col.constant >> shift);
      within = std::to_string(col.constant & (array->slab - 1));
    } else {
      std::string c = "(" + affineText(col) + ")";  // at least 0: shifts and masks divide
      slab = c + " >> " + std::to_string(shift);
      within = c + " & " + std::to_string(array->slab - 1);
    }
    std::string swizzled = swizzledColumn(row, within, *array, scope);
    return text + "[" + slab + "][" + affineText(row) + "][" + (swizzled.empty() ? within : swizzled) + "]";
  }
  if (array->swizzled && a.subscripts.size() >= 2) {
    std::string column =
        swizzledColumn(a.subscripts[a.subscripts.size() - 2], affineText(a.subscripts.back()), *array, scope);
    if (!column.empty()) {
      for (size_t d = 0; d + 1 < a.subscripts.size(); ++d) text += "[" + affineText(a.subscripts[d]) + "]";
      return text + "[" + column + "]";
    }
  }
  for (Affine sub : a.subscripts) {
    if (array->space == MemorySpace::Register) {
      for (const auto& [name, as] : scope.unrolledAs) sub = sub.substitute(name, as);
      for (const auto& [name, coef] : sub.terms)
        if (!scope.compileTimeIndices.count(name))
          refuse("register buffer `" + a.array + "` indexed by `" + name +
                 "`, which is not a compile-time constant (in `" + a.str() + "`)");
    }
    text += "[" + affineText(sub) + "]";
  }
  return text;
}

// Where a swizzled buffer's row `row` (a slab's row, in slabs) stores its element `column` (C text;
// src/loop/swizzle.hpp): the column with its 16-byte chunk XORed with the row's mask. The mask reads the row's low 3
// bits only, so terms that move the row by multiples of 8 drop out (a warp's or a tile's first row), and what is left
// is mostly the lane's place, which the compiler computes once. "" where the emitted element type gives the rows no
// swizzle (they are then stored as they are).
std::string KernelWriter::swizzledColumn(const Affine& row, const std::string& column, const Array& array,
                                         const Scope& scope) {
  int bytes = scalarTypeBytes(typeOf(array));
  Swizzle swizzle;
  int64_t rowElements = array.slab > 0 ? array.slab : array.extents.back();
  if (16 % bytes != 0 || !swizzleFor(rowElements * bytes, swizzle).empty()) return "";
  Affine low(((row.constant % 8) + 8) % 8);
  for (const auto& [name, coef] : row.terms)
    if (scope.ranges.multipleOf(Affine::var(name, coef)) % 8 != 0) low.terms[name] = ((coef % 8) + 8) % 8;
  int chunkShift = 0;
  for (int e = 16 / bytes; e > 1; e /= 2) ++chunkShift;
  std::string col = column;
  if (col.find(' ') != std::string::npos) col = "(" + col + ")";
  if (low.isConstant()) {
    int64_t mask = swizzle.mask(low.constant) << chunkShift;
    return mask == 0 ? col : col + " ^ " + std::to_string(mask);
  }
  std::string r = affineText(low);
  if (r.find(' ') != std::string::npos) r = "(" + r + ")";
  std::string mask = swizzle.shift ? "(" + r + " >> " + std::to_string(swizzle.shift) + ")" : r;
  return col + " ^ ((" + mask + " & " + std::to_string(swizzle.maskBits) + ") << " + std::to_string(chunkShift) + ")";
}

// The conditions under which `a` lies outside `array`, for those that the ranges do not rule out.
std::vector<std::string> KernelWriter::outsideConditions(const Access& a, const Array& array, const Scope& scope) {
  std::vector<std::string> conds;
  for (size_t d = 0; d < a.subscripts.size() && d < array.extents.size(); ++d) {
    const Affine& s = a.subscripts[d];
    auto span = scope.ranges.bounds(s);
    if (!span || span->first < 0) conds.push_back(affineText(s) + " >= 0");
    if (!span || span->second >= array.extents[d])
      conds.push_back(affineText(s) + " < " + std::to_string(array.extents[d]));
  }
  return conds;
}

std::string joinConditions(const std::vector<std::string>& conds) {
  std::string s;
  for (const auto& c : conds) s += (s.empty() ? "" : " && ") + c;
  return s;
}

std::string KernelWriter::loadText(const Access& a, ScalarType want, const Scope& scope) {
  auto overridden = scope.loadOverrides.find(a.str());
  if (overridden != scope.loadOverrides.end()) return overridden->second;
  const Array* array = findArray(a.array, scope);
  if (!array) return "?";
  std::string text =
      readsOperandRegisters(a, scope) ? operandRegister(a, scope, scope.operandCopy) : accessText(a, scope);
  ScalarType have = typeOf(*array);
  if (have == ScalarType::Half)
    text = "__half2float(" + text + ")";
  else if (have == ScalarType::BFloat16)
    text = "__bfloat162float(" + text + ")";
  else if (have == ScalarType::TF32)
    text = "tf32_round(" + text + ")", uses_.useTf32Round();
  if (arithmeticType(have) != want) text = "static_cast<" + cudaType(want) + ">(" + text + ")";
  if (array->zeroPadded) {
    auto conds = outsideConditions(a, *array, scope);
    if (!conds.empty()) text = "(" + joinConditions(conds) + " ? " + text + " : " + literal(0, want) + ")";
  }
  return text;
}

std::string KernelWriter::exprText(const Expr& e, ScalarType type, const Scope& scope, bool top) {
  switch (e.kind) {
    case Expr::Kind::Constant:
      return literal(e.value, type);
    case Expr::Kind::Index:
      for (const auto& [name, coef] : e.index.terms)
        if (!scope.ranges.has(name)) refuse("`" + e.index.str() + "` uses `" + name + "` outside its loop");
      if (type == ScalarType::Int) return e.index.isConstant() ? affineText(e.index) : "(" + affineText(e.index) + ")";
      return "static_cast<" + cudaType(type) + ">(" + affineText(e.index) + ")";
    case Expr::Kind::Load:
      return loadText(e.load, type, scope);
    case Expr::Kind::Binary: {
      std::string s = exprText(*e.args[0], type, scope) + " " + e.op + " " + exprText(*e.args[1], type, scope);
      return top ? s : "(" + s + ")";
    }
    case Expr::Kind::Call: {
      // Statements compute in float or double (half and bfloat16 ones in float); int ones call
      // only min and max, which CUDA has for integers.
      const MathFunction* f = findMathFunction(e.callee);
      if (!f) return refuse("unknown function `" + e.callee + "`"), "?";
      std::string fn = type == ScalarType::Double ? f->cudaDouble : type == ScalarType::Int ? f->name : f->cudaFloat;
      std::string args;
      for (size_t a = 0; a < e.args.size(); ++a) args += (a ? ", " : "") + exprText(*e.args[a], type, scope, true);
      return fn + "(" + args + ")";
    }
  }
  return "?";
}

std::string KernelWriter::fromFloat(ScalarType t, const std::string& value) {
  if (t == ScalarType::Half) return "__float2half(" + value + ")";
  if (t == ScalarType::BFloat16) return "__float2bfloat16(" + value + ")";
  return value;
}

std::string KernelWriter::storeText(const Node& assign, const std::string& target, ScalarType targetType,
                                    const std::string& value) {
  if (targetType == ScalarType::Half || targetType == ScalarType::BFloat16) {
    std::string toFloat = targetType == ScalarType::Half ? "__half2float(" : "__bfloat162float(";
    if (assign.atomic) return "atomicAdd(&" + target + ", " + fromFloat(targetType, value) + ");";
    if (assign.accumulate) return target + " = " + fromFloat(targetType, toFloat + target + ") + " + value) + ";";
    return target + " = " + fromFloat(targetType, value) + ";";
  }
  if (assign.atomic) return "atomicAdd(&" + target + ", " + value + ");";
  return target + (assign.accumulate ? " += " : " = ") + value + ";";
}

void KernelWriter::emitAssign(const Node& node, const Scope& scope) {
  if (kernel_.warpTiles())
    return refuse("`" + node.target.str() +
                  " = ...` lies in no tensor-core tile, but every lane of a warp would run it");
  if (scope.readingAhead) return emitOperandLoads(node, scope);
  const Array* array = findArray(node.target.array, scope);
  if (!array) return;
  std::string value = exprText(*node.value, computeType(typeOf(*array)), scope, true);
  emitStore(node, node.target, *array, value, scope);
}

void KernelWriter::emitStore(const Node& assign, const Access& target, const Array& array, const std::string& value,
                             const Scope& scope) {
  if (!assign.atomic || kernel_.workspaceSplit.empty())
    return line(storeText(assign, accessText(target, scope), typeOf(array), value));
  Node lane = assign;
  lane.target = target;
  emitSplitSum(lane, array, value, scope);
}

void KernelWriter::emit(const Node& node, const Scope& scope) {
  if (!refusal_.empty()) return;
  switch (node.kind) {
    case NodeKind::Seq:
      for (const auto& kid : node.kids) emit(*kid, scope);
      return;
    case NodeKind::Assign:
      return emitAssign(node, scope);
    case NodeKind::Barrier:
      return line("__syncthreads();");
    case NodeKind::Stage:
      return emitStage(node, scope);
    case NodeKind::Alloc:
      return emitAlloc(node, scope);
    case NodeKind::For:
      return emitLoop(node, scope);
  }
}

void KernelWriter::emitLoop(const Node& loop, const Scope& scope) {
  if (isBlockMapping(loop.mapping)) return emitBlockLoop(loop, scope);
  if (loop.mapping == Mapping::Mma) return emitMmaElements(loop, scope);
  if (loop.mapping == Mapping::Unrolled && kernel_.warpTiles() && emitMmaWarpTile(loop, scope)) return;
  if (loop.mapping == Mapping::Unrolled && isPrefetched(loop.index) && !scope.readingAhead)
    return emitPrefetchedLoop(loop, scope, position_.takeStripTail());
  if (loop.mapping == Mapping::Unrolled) return emitUnrolledLoop(loop, scope, "");
  if (loop.mapping == Mapping::Vector) return emitVectorLoop(loop, scope);
  if (loop.mapping == Mapping::Pipelined) return emitPipelinedLoop(loop, scope);
  if (loop.mapping == Mapping::AsyncPipelined) return emitAsyncPipelinedLoop(loop, scope);
  emitSerialLoop(loop, scope);
}

bool KernelWriter::openGuard(const Node& loop, const Affine& lastIndex, const Scope& scope) {
  std::vector<std::string> conds;
  for (const Affine& upper : loop.upper)
    if (!scope.ranges.provesLess(lastIndex, upper)) conds.push_back(loop.index + " < " + affineText(upper));
  if (conds.empty()) return false;
  open("if (" + joinConditions(conds) + ") {");
  return true;
}

void KernelWriter::emitBlockLoop(const Node& loop, const Scope& scope) {
  if (writesSplitSums(loop)) return emitWorkspaceCombine(loop, scope);
  int axis = loop.mapping == Mapping::BlockX ? 0 : loop.mapping == Mapping::BlockY ? 1 : 2;
  auto trips = scope.ranges.maxTripCount(loop);
  Scope inner = scope;
  inner.ranges.bindLoop(loop, scope.ranges.loopIndexRange(loop, trips.value_or(0)));
  // In warp tiles (rule 7 of loop_tree.hpp) an iteration is a warp: 32 threads along x.
  std::string unit = kernel_.warpTiles() ? "warp_" : "thread_";
  int64_t units = plan_.block[axis] / (kernel_.warpTiles() && axis == 0 ? threadsPerTile() : 1);
  // The producer warpgroup, the last along y, is elsewhere; a ping-pong group has its own rows.
  if (position_.consumers() && axis == 1) units = plan_.consumerRows();
  std::string note = kernel_.warpGroupTiles() ? ", a warpgroup an iteration"
                     : kernel_.warpTiles()    ? ", a warp an iteration"
                                              : "";
  open("{  // " + loop.index + ": block." + kAxis[axis] + note);
  size_t mark = text_.mark();
  line("const " + index_ + " " + loop.index + " = " +
       offsetText(loop.lower, loop.step, coordinate(unit + kAxis[axis])) + ";");
  std::vector<size_t> derived = declareDerived(loop);
  bool guarded = openGuard(loop, loop.lower + Affine((units - 1) * loop.step), scope);
  position_.inBlockLoop([&] { emit(*loop.body(), inner); });
  if (guarded) close();
  close();
  dropDerived(loop, derived);
  dropIfUnused(mark, loop.index);
}

std::vector<std::string> KernelWriter::derivedDeclarations(const std::string& index,
                                                           const std::vector<CollapsedLoop>& collapsed) {
  std::vector<std::string> out;
  for (size_t j = 0; j < collapsed.size(); ++j) {
    const CollapsedLoop& c = collapsed[j];
    int64_t stride = digitStride(collapsed, j);
    std::string digit = index;
    if (stride != 1) digit += " / " + std::to_string(stride);
    if (j > 0) digit += " % " + std::to_string(c.trips);
    out.push_back("const " + index_ + " " + c.index + " = " + offsetText(Affine(c.lower), c.step, digit) + ";");
  }
  return out;
}

std::vector<size_t> KernelWriter::declareDerived(const Node& loop) {
  std::vector<size_t> marks;
  for (const std::string& declaration : derivedDeclarations(loop.index, loop.collapsed)) {
    marks.push_back(text_.mark());
    line(declaration);
  }
  return marks;
}

void KernelWriter::dropDerived(const Node& loop, const std::vector<size_t>& marks) {
  for (size_t j = marks.size(); j-- > 0;) dropIfUnused(marks[j], loop.collapsed[j].index);
}

void KernelWriter::emitSerialLoop(const Node& loop, const Scope& scope) {
  auto trips = scope.ranges.maxTripCount(loop);
  if (!trips) return refuse("loop `" + loop.index + "` has no bounded trip count");
  // A strip loop of staged buffers: the gathers it fills keep counters across its strips.
  PipelineParts parts = pipelineParts(loop);
  if (parts.ok()) declareGatherCounters(loop, parts.stages, scope);
  emitIterations(loop, scope, *trips, [&](const Scope& inner, Iterations part) {
    std::vector<size_t> derived = declareDerived(loop);
    emit(part == Iterations::Whole ? *dropImpliedBounds(loop.body(), loop) : *loop.body(), inner);
    dropDerived(loop, derived);
  });
  if (parts.ok()) dropGatherCounters(parts.stages);
}

std::string KernelWriter::loopConditions(const Node& loop, const Scope& scope) {
  // An upper bound that another one never exceeds says nothing more.
  std::vector<std::string> conds;
  for (size_t i = 0; i < loop.upper.size(); ++i) {
    bool implied = false;
    for (size_t j = 0; j < loop.upper.size() && !implied; ++j) {
      auto span = scope.ranges.boundsOfDifference(loop.upper[j], loop.upper[i]);
      implied = j != i && span && (span->second < 0 || (span->second == 0 && j < i));
    }
    if (!implied) conds.push_back(loop.index + " < " + affineText(loop.upper[i]));
  }
  return joinConditions(conds);
}

void KernelWriter::emitUnrolledLoop(const Node& loop, const Scope& scope, const std::string& note,
                                    const std::function<void(Scope&)>& beforeBody) {
  auto trips = scope.ranges.maxTripCount(loop);
  if (!trips) return refuse("unrolled loop `" + loop.index + "` has no constant trip count");
  Scope inner = scope;
  inner.ranges.bindLoop(loop, scope.ranges.loopIndexRange(loop, *trips));
  Affine last = loop.lower + Affine((*trips - 1) * loop.step);
  if (!note.empty()) line("// " + note);
  line("#pragma unroll");
  size_t mark = std::string::npos;
  if (loop.lower.isConstant()) {
    inner.compileTimeIndices.insert(loop.index);
    std::string step = loop.step == 1 ? "++" + loop.index : loop.index + " += " + std::to_string(loop.step);
    open("for (" + index_ + " " + loop.index + " = " + affineText(loop.lower) + "; " + loop.index + " < " +
         std::to_string(loop.lower.constant + *trips * loop.step) + "; " + step + ") {");
  } else {
    std::string counter = loop.index + "_u";
    inner.ranges.bind(counter, IndexRange{0, std::max<int64_t>(0, *trips - 1), 1});
    inner.compileTimeIndices.insert(counter);
    Affine lower = loop.lower;
    for (const auto& [name, as] : scope.unrolledAs) lower = lower.substitute(name, as);
    inner.unrolledAs[loop.index] = lower + Affine::var(counter, loop.step);
    open("for (" + index_ + " " + counter + " = 0; " + counter + " < " + std::to_string(*trips) + "; ++" + counter +
         ") {");
    mark = text_.mark();
    line("const " + index_ + " " + loop.index + " = " + offsetText(loop.lower, loop.step, counter) + ";");
  }
  std::vector<size_t> derived = declareDerived(loop);
  if (beforeBody) beforeBody(inner);
  bool guarded = openGuard(loop, last, scope);
  emit(*loop.body(), inner);
  if (guarded) close();
  close();
  dropDerived(loop, derived);
  if (mark != std::string::npos) dropIfUnused(mark, loop.index);
}

bool KernelWriter::wideAccessOk(const Access& a, const std::string& index, const Affine& lower, int width,
                                const Scope& scope) {
  auto it = scope.arrays.find(a.array);
  if (it == scope.arrays.end() || a.subscripts.empty()) return false;
  const Array& array = it->second;
  ScalarType t = typeOf(array);
  bool typeOk = (t == ScalarType::Float && (width == 2 || width == 4)) || (t == ScalarType::Double && width == 2);
  if (!typeOk || array.space == MemorySpace::Register || array.zeroPadded) return false;
  if (a.subscripts.size() != array.extents.size()) return false;
  for (size_t d = 0; d + 1 < a.subscripts.size(); ++d)
    if (a.subscripts[d].uses(index)) return false;
  if (a.subscripts.back().coef(index) != 1) return false;
  Affine first = flatOffset(substituteAccess(a, index, lower), array);
  for (const auto& [name, as] : scope.unrolledAs) first = first.substitute(name, as);
  int64_t multiple = scope.ranges.multipleOf(first);
  return multiple % width == 0;
}

// A loop of 2 or 4 contiguous elements: each statement done lane by lane, with its contiguous,
// aligned loads and stores as one float2/float4 (double2) access.
void KernelWriter::emitVectorLoop(const Node& loop, const Scope& scope) {
  auto trips = scope.ranges.maxTripCount(loop);
  if (!trips) return refuse("vector loop `" + loop.index + "` has no constant trip count");
  if (!loop.collapsed.empty())
    return emitUnrolledLoop(loop, scope, "vector loop `" + loop.index + "` done as scalars: its index is collapsed");
  int width = static_cast<int>(*trips);
  Affine last = loop.lower + Affine(*trips - 1);
  bool tail = false;
  for (const Affine& upper : loop.upper) tail = tail || !scope.ranges.provesLess(last, upper);
  auto stmts = flattenSeq(loop.body());
  bool straight = true;
  for (const auto& s : stmts) straight = straight && s->kind == NodeKind::Assign;
  std::string why = loop.step != 1               ? "its step is not 1"
                    : (width != 2 && width != 4) ? "it has " + std::to_string(width) + " lanes, not 2 or 4"
                    : tail                       ? "its last lanes may fall outside the bounds"
                    : !straight                  ? "its body is not straight-line assignments"
                                                 : "";
  if (!why.empty()) return emitUnrolledLoop(loop, scope, "vector loop `" + loop.index + "` done as scalars: " + why);
  if (scope.readingAhead) return emitVectorReadAhead(loop, stmts, width, scope);

  open("{  // " + loop.index + ": vector of " + std::to_string(width));
  for (const auto& stmt : stmts) {
    Scope lanes = scope;
    std::vector<Access> loads;
    collectLoads(*stmt->value, loads);
    std::set<std::string> seen;
    for (const Access& a : loads) {
      if (!a.subscripts.empty() && !a.subscripts.back().uses(loop.index)) continue;
      if (readsOperandRegisters(a, scope)) continue;  // read ahead into registers
      if (!seen.insert(a.str()).second || !wideAccessOk(a, loop.index, loop.lower, width, scope)) continue;
      const Array& array = scope.arrays.at(a.array);
      std::string vtype = std::string(cudaType(typeOf(array))) + std::to_string(width);
      std::string name = text_.temporary(a.array);
      line("const " + vtype + " " + name + " = *reinterpret_cast<const " + vtype + "*>(&" +
           accessText(substituteAccess(a, loop.index, loop.lower), scope) + ");");
      for (int v = 0; v < width; ++v)
        lanes.loadOverrides[substituteAccess(a, loop.index, loop.lower + Affine(v)).str()] = name + "." + "xyzw"[v];
    }
    const Array* target = findArray(stmt->target.array, scope);
    if (!target) return;
    ScalarType targetType = typeOf(*target);
    std::vector<std::string> values;
    for (int v = 0; v < width; ++v)
      values.push_back(exprText(*substituteExpr(stmt->value, loop.index, loop.lower + Affine(v)),
                                computeType(targetType), lanes, true));
    bool wideStore = !stmt->atomic && stmt->target.subscripts.back().uses(loop.index) &&
                     wideAccessOk(stmt->target, loop.index, loop.lower, width, scope);
    if (!wideStore) {
      for (int v = 0; v < width; ++v)
        emitStore(*stmt, substituteAccess(stmt->target, loop.index, loop.lower + Affine(v)), *target, values[v], lanes);
      continue;
    }
    std::string vtype = std::string(cudaType(targetType)) + std::to_string(width);
    std::string where = "*reinterpret_cast<" + vtype + "*>(&" +
                        accessText(substituteAccess(stmt->target, loop.index, loop.lower), scope) + ")";
    if (stmt->accumulate) {
      std::string name = text_.temporary(stmt->target.array);
      line(vtype + " " + name + " = " + where + ";");
      for (int v = 0; v < width; ++v) line(name + "." + "xyzw"[v] + " += " + values[v] + ";");
      line(where + " = " + name + ";");
    } else {
      std::string args;
      for (int v = 0; v < width; ++v) args += (v ? ", " : "") + values[v];
      line(where + " = make_" + vtype + "(" + args + ");");
    }
  }
  close();
}

void KernelWriter::emitAlloc(const Node& node, const Scope& scope) {
  const Array& buffer = node.buffer;
  Scope inner = scope;
  inner.arrays[buffer.name] = buffer;
  bool clash = text_.declaredHere(buffer.name);
  if (clash) open("{");
  text_.declare(buffer.name);
  if (buffer.space == MemorySpace::Register && kernel_.warpTiles()) {
    declareFragments(buffer);
  } else if (buffer.space == MemorySpace::Register) {
    std::string dims;
    for (int64_t e : buffer.extents) dims += "[" + std::to_string(e) + "]";
    line(cudaType(typeOf(buffer)) + " " + buffer.name + dims + ";  // registers of one thread");
  } else {
    declareShared(node, 1);
  }
  emit(*node.body(), inner);
  if (clash) close();
}

void KernelWriter::declareShared(const Node& alloc, int copies) {
  const Array& buffer = alloc.buffer;
  if (shared_.hoisted(buffer.name)) return;  // declared before the copies of a peeled block
  std::vector<int64_t> extents = declaredExtents(alloc, copies, elementType_);
  std::string type = cudaType(typeOf(buffer));
  std::string dims, innerDims;
  for (size_t d = 0; d < extents.size(); ++d) {
    dims += "[" + std::to_string(extents[d]) + "]";
    if (d > 0) innerDims += "[" + std::to_string(extents[d]) + "]";
  }
  // wgmma reads its operands in atoms of the 128-byte swizzle, which start on 1024-byte boundaries.
  const int64_t align = kernel_.warpGroupTiles() ? kWgmmaAtomBytes : 16;
  if (!plan_.dynamicShared) {
    line("__shared__ __align__(" + std::to_string(align) + ") " + type + " " + buffer.name + dims + ";");
  } else {
    if (shared_.next() % align != 0)
      return refuse("shared buffer `" + buffer.name + "` would start at byte " + std::to_string(shared_.next()) +
                    ", not on a " + std::to_string(align) + "-byte boundary as wgmma reads it");
    std::string pointer = innerDims.empty() ? type + "* " + buffer.name : type + " (*" + buffer.name + ")" + innerDims;
    std::string cast = innerDims.empty() ? type + "*" : type + " (*)" + innerDims;
    const int64_t at = shared_.take(declaredBytes(alloc, copies, elementType_));
    line(pointer + " = reinterpret_cast<" + cast + ">(shared_memory + " + std::to_string(at) + ");");
  }
}

std::vector<std::string> KernelWriter::barrierDeclarations(int64_t buffers) {
  const std::string b = std::to_string(buffers);
  const bool split = !kernel_.wgmmaSplitBuffer().empty();
  std::vector<std::pair<std::string, int64_t>> arrays = {{"wgmma_full", buffers}, {"wgmma_empty", buffers}};
  if (split) arrays.push_back({"wgmma_ready", buffers});
  if (plan_.tileGroups > 1) arrays.push_back({"tile_order", plan_.tileGroups});  // ping-pong's turns
  std::vector<std::string> out;
  if (!plan_.dynamicShared) {
    std::string names;
    for (const auto& [name, count] : arrays)
      names += (names.empty() ? "" : ", ") + name + "[" + std::to_string(count) + "]";
    return {"__shared__ __align__(8) unsigned long long " + names + ";"};
  }
  for (const auto& [name, count] : arrays)
    out.push_back("unsigned long long* " + name + " = reinterpret_cast<unsigned long long*>(shared_memory + " +
                  std::to_string(shared_.take(8 * count)) + ");");
  return out;
}

void KernelWriter::emitGridLoops(size_t i, const Scope& scope) {
  if (i == plan_.gridLoops.size()) return emitPhases(scope);
  const LaunchPlan::GridLoop& g = plan_.gridLoops[i];
  const Node& loop = *g.loop;
  std::string a = kAxis[g.axis];
  if (!plan_.naive) {
    line("const " + index_ + " " + loop.index + " = " + offsetText(loop.lower, loop.step, coordinate("block_" + a)) +
         ";  // grid." + a);
    std::vector<size_t> derived = declareDerived(loop);
    emitGridLoops(i + 1, scope);
    return dropDerived(loop, derived);
  }
  std::string iteration;
  int64_t lastIteration = 0;
  if (g.trips > 0) {  // folded onto z with other loops
    iteration = coordinate("block_z");
    if (g.divisor > 1) iteration += " / " + std::to_string(g.divisor);
    if (g.divisor * g.trips < plan_.grid[2]) iteration += " % " + std::to_string(g.trips);
    lastIteration = g.trips - 1;
  } else {
    iteration =
        coordinate("block_" + a) + " * " + std::to_string(plan_.block[g.axis]) + " + " + coordinate("thread_" + a);
    lastIteration = plan_.grid[g.axis] * plan_.block[g.axis] - 1;
  }
  line("const " + index_ + " " + loop.index + " = " + offsetText(loop.lower, loop.step, iteration) + ";");
  std::vector<size_t> derived = declareDerived(loop);
  bool guarded = openGuard(loop, loop.lower + Affine(lastIteration * loop.step), scope);
  emitGridLoops(i + 1, scope);
  if (guarded) close();
  dropDerived(loop, derived);
}

std::string KernelWriter::header() {
  std::ostringstream h;
  h << "// " << (options_.entry.empty() ? kernel_.name : options_.entry) << ": generated by cudaburg from kernel `"
    << kernel_.name << "`";
  // The file's name alone: the text (and so the cache key) does not depend on where it lies.
  if (!kernel_.sourceName.empty()) h << " of " << kernel_.sourceName.substr(kernel_.sourceName.find_last_of('/') + 1);
  h << "\n";
  if (!kernel_.sizes.empty()) {
    h << "// Sizes:";
    for (const auto& [name, value] : kernel_.sizes) h << " " << name << " = " << value << ";";
    h << "\n";
  }
  if (!options_.recipe.empty()) {
    h << "// Recipe:\n";
    std::istringstream lines(options_.recipe);
    for (std::string l; std::getline(lines, l);) h << "//   " << l << "\n";
  } else {
    h << "// Recipe: none"
      << (plan_.naive ? " (naive mapping: one thread an iteration of the outer parallel loops)" : "") << "\n";
  }
  const std::array<int64_t, 3> grid = plan_.launched();
  h << "// Launch: grid (" << grid[0] << ", " << grid[1] << ", " << grid[2] << "), block (" << plan_.block[0] << ", "
    << plan_.block[1] << ", " << plan_.block[2] << ") = " << plan_.threads() << " threads; shared memory "
    << plan_.sharedBytes << " bytes";
  if (plan_.sharedBytes > 0) h << (plan_.dynamicShared ? " (dynamic)" : " (static)");
  if (plan_.persistentBlocks > 0)
    h << "; persistent: each block takes the " << plan_.grid[1] << " x " << plan_.grid[0] << " tiles in turn";
  if (plan_.clusterBlocks > 0)
    h << "; clusters of " << plan_.clusterBlocks << " blocks along x, taking neighbouring tiles along grid."
      << (plan_.clusterAxis == 0 ? "x" : "y");
  h << "\n";
  if (std::vector<std::string> zeroed = split_.zeroedBeforeLaunch(kernel_.zeroFirst); !zeroed.empty()) {
    h << "// Before the launch, set to zero:";
    for (const auto& z : zeroed) h << " " << z;
    h << "\n";
  }
  if (!split_.workspaces().empty()) {
    h << "// Workspace, zeroed once before the first launch (every launch leaves it so):";
    for (const KernelWorkspace& w : split_.workspaces()) h << " " << w.name << "[" << w.elements << "]";
    h << "\n";
  }
  h << uses_.typeHelpers();
  h << mmaHelpers() << gathers_.tables();
  h << uses_.asyncCopyHelpers();
  return h.str();
}

bool isIdentifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

EmitResult KernelWriter::write() {
  EmitResult result;
  CudaKernel out;
  out.entry = options_.entry.empty() ? kernel_.name : options_.entry;
  if (!isIdentifier(out.entry)) {
    result.reason = "the kernel's name `" + out.entry + "` is not a C identifier";
    return result;
  }
  Scope scope;
  scope.ranges = plan_.gridRanges;
  std::string params;
  for (const Array& p : kernel_.params) {
    if (index_ == "int" && p.elements() > 2147483647LL) {  // indexTypeFor() proves this cannot be
      result.reason = "array `" + p.name + "` has more elements than 32-bit indices reach";
      return result;
    }
    scope.arrays[p.name] = p;
    params += std::string(params.empty() ? "" : ", ") + (p.input ? "const " : "") + cudaType(typeOf(p)) +
              "* __restrict__ " + p.name;
    out.params.push_back(p.name);
  }
  emitGridLoops(0, scope);
  for (const KernelWorkspace& w : split_.workspaces()) params += ", " + cudaType(w.type) + "* __restrict__ " + w.name;
  for (const TensorMapParam& m :
       uses_.tensorMaps())  // by value, in the kernel's parameter space, as the TMA reads them
    params += ", const __grid_constant__ " + std::string(kTensorMapType) + " " + m.name;
  if (kernel_.laneRows > 0) {
    if (plan_.block[2] > 1)
      refuse("warps arranged over block.y and block.x leave no room for block.z");
    else
      refuse(warpLanesProblem(kernel_.laneRows, kernel_.laneCols, plan_.block[1], plan_.block[0]));
  }
  std::string bounds = std::to_string(plan_.threads());
  if (kernel_.residentBlocks > 0) {
    if (plan_.threads() * kernel_.residentBlocks > kMaxThreadsPerSm)
      refuse(std::to_string(kernel_.residentBlocks) + " blocks of " + std::to_string(plan_.threads()) +
             " threads are more than the " + std::to_string(kMaxThreadsPerSm) + " a multiprocessor holds");
    bounds += ", " + std::to_string(kernel_.residentBlocks);
    out.limitsRegisters = true;
  } else if (plan_.consumerRegisters > 0) {
    bounds += ", 1";  // the compiler heeds setmaxnreg only with the block's registers bounded
  }
  if (plan_.tileGroups > 1 && text_.str().find("__syncthreads()") != std::string::npos)
    refuse(
        "ping-pong groups multiply different tiles at once: a barrier of the whole block within a tile would "
        "wait for both");
  if (!refusal_.empty()) {
    result.reason = refusal_;
    return result;
  }
  std::ostringstream src;
  // A cluster's blocks launch side by side along x; none may leave while the others may still
  // arrive on its barriers.
  const std::string cluster =
      plan_.clusterBlocks > 0 ? "__cluster_dims__(" + std::to_string(plan_.clusterBlocks) + ", 1, 1) " : "";
  src << header() << "\n"
      << "extern \"C\" __global__ void " << cluster << "__launch_bounds__(" << bounds << ")\n"
      << out.entry << "(" << params << ") {\n"
      << prologue_.text(text_, beforeTiles_)
      << (plan_.clusterBlocks > 0 ? "  cluster_sync();  // the cluster's blocks leave together\n" : "") << "}\n";
  out.source = src.str();
  const std::array<int64_t, 3> grid = plan_.launched();
  for (int a = 0; a < 3; ++a) {
    out.grid[a] = static_cast<unsigned>(grid[a]);
    out.block[a] = static_cast<unsigned>(plan_.block[a]);
  }
  out.sharedBytes = static_cast<size_t>(plan_.sharedBytes);
  out.dynamicSharedBytes = plan_.dynamicShared ? out.sharedBytes : 0;
  out.needsSharedMemoryAttribute = plan_.dynamicShared;
  out.requiredArch = uses_.requiredArch();
  out.recipe = options_.recipe;
  out.zeroFirst = split_.zeroedBeforeLaunch(kernel_.zeroFirst);
  out.workspaces = split_.workspaces();
  out.tensorMaps = uses_.tensorMaps();
  out.elementType = elementType_.value_or(ScalarType::Float);
  for (const Array& p : kernel_.params) {
    if (!elementType_ && (p.type == ScalarType::Half || p.type == ScalarType::Double)) out.elementType = p.type;
    out.paramTypes.push_back(typeOf(p));
  }
  result.kernel = std::move(out);
  return result;
}

}  // namespace cudaburg::emit_internal

namespace cudaburg {

namespace {

EmitResult emitNamed(const Kernel& kernel, const EmitOptions& options) {
  if (kernel.winograd()) return emit_internal::emitWinograd(kernel, options);
  if (kernel.backToBack()) return emit_internal::emitBackToBack(kernel, options);
  LaunchPlanResult planned = planLaunch(kernel, options.elementType);
  if (!planned.plan) return EmitResult{std::nullopt, planned.reason};
  emit_internal::KernelWriter writer(kernel, *planned.plan, options);
  return writer.write();
}

}  // namespace

// The kernel is written with its names as CUDA may hold them (cuda_names.hpp); what the runner
// matches against the nest (its arrays, their tensor maps' arrays) keeps the nest's names.
EmitResult emitKernel(const Kernel& kernel, const EmitOptions& options) {
  EmitOptions named = options;
  if (!named.entry.empty()) named.entry = cudaName(named.entry);
  EmitResult result = emitNamed(withCudaNames(kernel), named);
  if (!result.ok()) return result;
  std::map<std::string, std::string> nestName;
  for (const Array& a : kernel.params) nestName[cudaName(a.name)] = a.name;
  auto restore = [&](std::string& name) {
    if (auto it = nestName.find(name); it != nestName.end()) name = it->second;
  };
  for (std::string& p : result.kernel->params) restore(p);
  for (std::string& z : result.kernel->zeroFirst) restore(z);
  for (TensorMapParam& m : result.kernel->tensorMaps) restore(m.array);
  // The header says which kernel of the .loop file this is, by the name the file gives it.
  std::string& source = result.kernel->source;
  std::string mentioned = "from kernel `" + cudaName(kernel.name) + "`";
  if (size_t at = source.find(mentioned); at != std::string::npos && cudaName(kernel.name) != kernel.name)
    source.replace(at, mentioned.size(), "from kernel `" + kernel.name + "`");
  return result;
}

EmitResult emitReference(const Kernel& kernel) {
  EmitOptions options;
  options.entry = kernel.name + "_reference";
  options.elementType = ScalarType::Double;
  Kernel nest = kernel;
  if (nest.winograd() || nest.backToBack()) nest.tile = SimtTile{};  // the exact nest, as written
  // Two products back to back, as a thread a row: a row of the second reads the same row of the first.
  std::string single;
  if (auto pair = recognizeBackToBack(nest, single)) nest = backToBackRowNest(nest, *pair);
  return emitKernel(nest, options);
}

}  // namespace cudaburg
