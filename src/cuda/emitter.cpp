#include "src/cuda/emitter.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <set>
#include <sstream>

#include "src/cuda/emit_launch.hpp"
#include "src/cuda/emit_ranges.hpp"
#include "src/loop/pipeline.hpp"

namespace cudaburg {
namespace {

const char* kAxis[3] = {"x", "y", "z"};

// The shortest literal that reads back as `v` in type `t`.
std::string literal(double v, ScalarType t) {
  if (t == ScalarType::Int) return std::to_string(static_cast<long long>(v));
  bool single = t != ScalarType::Double;
  if (!std::isfinite(v)) {  // by their bits: CUDA has no literal for them
    const char* bits = std::isnan(v) ? (single ? "0x7fffffff" : "0x7ff8000000000000LL")
                       : v > 0      ? (single ? "0x7f800000" : "0x7ff0000000000000LL")
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
  if (a.constant != 0) s += (a.constant < 0 ? " - " : " + ") + std::to_string(a.constant < 0 ? -a.constant : a.constant);
  return s;
}

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
    case Expr::Kind::Constant: return e;
    case Expr::Kind::Index: copy->index = e->index.substitute(name, by); break;
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

Access substituteAccess(Access a, const std::string& name, const Affine& by) {
  for (auto& s : a.subscripts) s = s.substitute(name, by);
  return a;
}

void collectLoads(const Expr& e, std::vector<Access>& out) {
  if (e.kind == Expr::Kind::Load) out.push_back(e.load);
  for (const auto& a : e.args) collectLoads(*a, out);
}

// What is known at a point of the kernel being written.
struct Scope {
  IndexRanges ranges;
  std::map<std::string, Array> arrays;
  // Unrolled loops: an index with a run-time first value stands for `lower + step * counter`;
  // after full unrolling the counters (and indices of loops with constant bounds) are constants.
  std::map<std::string, Affine> unrolledAs;
  std::set<std::string> compileTimeIndices;
  // Loads already done as wide accesses: access text -> the lane that holds it.
  std::map<std::string, std::string> loadOverrides;
  // Double-buffered shared buffers: name -> the expression that picks the half in use.
  std::map<std::string, std::string> slots;
};

// How a Stage's items go from the source into the buffer (see planStageCopy).
struct StageCopy {
  int64_t items = 0;                // elements, or vectors of a source row's elements
  std::string coords;               // declares the item's place in the box from `stage_e`
  std::string type;                 // an item's type: "float", "float4", ...
  std::string value;                // the item read from the source, zero outside it
  std::vector<std::string> stores;  // where an item goes, `$` standing for it
  std::string comment;
  // The same copy for asynchronous copies: the item's first source element, the condition that
  // it lies inside the source ("" when always), and each piece of the buffer it fills (the whole
  // item, or an element a piece where the layout permutes the box) with the piece's bytes.
  std::string from, inside;
  std::vector<std::string> pieces;
  int pieceBytes = 0;
  bool sameType = true;  // copied as bytes: no conversion on the way
};

class KernelWriter {
 public:
  KernelWriter(const Kernel& kernel, const LaunchPlan& plan, const EmitOptions& options)
      : kernel_(kernel), plan_(plan), options_(options), elementType_(options.elementType) {}

  EmitResult write();

 private:
  // Output.
  void line(const std::string& text) {
    if (!text.empty()) body_ += std::string(2 * indent_, ' ') + text;
    body_ += '\n';
  }
  // Drops the declaration line written at `mark` when nothing written after it uses `name`
  // (an index whose loop body reads only its unrolled counter, say): no unused variables.
  void dropIfUnused(size_t mark, const std::string& name) {
    size_t end = body_.find('\n', mark);
    if (end == std::string::npos) return;
    std::regex use("\\b" + name + "\\b");
    if (!std::regex_search(body_.begin() + static_cast<std::ptrdiff_t>(end), body_.end(), use))
      body_.erase(mark, end + 1 - mark);
  }
  void open(const std::string& text) {
    line(text);
    ++indent_;
    declared_.emplace_back();
  }
  void close() {
    --indent_;
    declared_.pop_back();
    line("}");
  }
  void refuse(const std::string& why) {
    if (refusal_.empty()) refusal_ = why;
  }

  ScalarType typeOf(const Array& a) const { return emittedType(a, elementType_); }
  std::string cudaType(ScalarType t) {
    if (t == ScalarType::Half) usesHalf_ = true;
    return cudaTypeName(t);
  }
  static ScalarType computeType(ScalarType t) { return t == ScalarType::Half ? ScalarType::Float : t; }

  // Statements.
  void emit(const Node& node, const Scope& scope);
  void emitGridLoops(size_t i, const Scope& scope);
  void emitLoop(const Node& loop, const Scope& scope);
  void emitBlockLoop(const Node& loop, const Scope& scope);
  void emitSerialLoop(const Node& loop, const Scope& scope);
  void emitUnrolledLoop(const Node& loop, const Scope& scope, const std::string& note);
  void emitVectorLoop(const Node& loop, const Scope& scope);
  void emitPipelinedLoop(const Node& loop, const Scope& scope);
  // A serial loop's header parts: its continuation condition and its increment.
  std::string loopConditions(const Node& loop, const Scope& scope);
  static std::string loopStep(const Node& loop) {
    return loop.step == 1 ? "++" + loop.index : loop.index + " += " + std::to_string(loop.step);
  }
  void emitAlloc(const Node& node, const Scope& scope);
  void declareShared(const Node& alloc, int copies);
  StageCopy planStageCopy(const Node& node, const Scope& scope);
  void emitStage(const Node& node, const Scope& scope);
  void emitStageRegisters(const StageCopy& c, const std::string& regs, bool load);
  void emitAsyncPipelinedLoop(const Node& loop, const Scope& scope);
  // The asynchronous copies of the items a thread takes of a stage.
  void emitAsyncCopies(const StageCopy& c, const std::string& source);
  int stageWidth(const Node& node, const Array& source, const std::vector<int64_t>& box, const Scope& scope);
  void emitAssign(const Node& node, const Scope& scope);
  // Opens `if (guards) {` when some upper bound of `loop` is not proven for `lastIndex`; says if it did.
  bool openGuard(const Node& loop, const Affine& lastIndex, const Scope& scope);

  // Expressions.
  std::string accessText(const Access& a, const Scope& scope);
  std::vector<std::string> outsideConditions(const Access& a, const Array& array, const Scope& scope);
  std::string loadText(const Access& a, ScalarType want, const Scope& scope);
  std::string exprText(const Expr& e, ScalarType type, const Scope& scope, bool top = false);
  std::string storeText(const Node& assign, const std::string& target, ScalarType targetType,
                        const std::string& value);
  const Array* findArray(const std::string& name, const Scope& scope);
  Affine flatOffset(const Access& a, const Array& array);
  bool wideAccessOk(const Access& a, const std::string& index, const Affine& lower, int width, const Scope& scope);

  std::string header();
  std::string prologue();
  // The name of a thread or block coordinate, which the prologue then declares.
  std::string coordinate(const std::string& name) {
    usedCoordinates_.insert(name);
    return name;
  }

  const Kernel& kernel_;
  const LaunchPlan& plan_;
  const EmitOptions& options_;
  std::optional<ScalarType> elementType_;
  std::string body_;
  int indent_ = 1;
  std::vector<std::set<std::string>> declared_{{}};
  std::string refusal_;
  bool usesHalf_ = false;
  bool usesAsyncCopies_ = false;
  int64_t dynamicOffset_ = 0;
  int temps_ = 0;
  std::set<std::string> usedCoordinates_;
};

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
    refuse("`" + a.str() + "` has " + std::to_string(a.subscripts.size()) + " subscripts; `" + a.array +
           "` has " + std::to_string(array->extents.size()) + " dimensions");
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
  std::string text = accessText(a, scope);
  ScalarType have = typeOf(*array);
  if (have == ScalarType::Half) text = "__half2float(" + text + ")";
  else if (have != want) text = "static_cast<" + cudaType(want) + ">(" + text + ")";
  if (array->zeroPadded) {
    auto conds = outsideConditions(a, *array, scope);
    if (!conds.empty()) text = "(" + joinConditions(conds) + " ? " + text + " : " + literal(0, want) + ")";
  }
  return text;
}

std::string KernelWriter::exprText(const Expr& e, ScalarType type, const Scope& scope, bool top) {
  switch (e.kind) {
    case Expr::Kind::Constant: return literal(e.value, type);
    case Expr::Kind::Index:
      for (const auto& [name, coef] : e.index.terms)
        if (!scope.ranges.has(name)) refuse("`" + e.index.str() + "` uses `" + name + "` outside its loop");
      if (type == ScalarType::Int) return e.index.isConstant() ? affineText(e.index) : "(" + affineText(e.index) + ")";
      return "static_cast<" + cudaType(type) + ">(" + affineText(e.index) + ")";
    case Expr::Kind::Load: return loadText(e.load, type, scope);
    case Expr::Kind::Binary: {
      std::string s = exprText(*e.args[0], type, scope) + " " + e.op + " " + exprText(*e.args[1], type, scope);
      return top ? s : "(" + s + ")";
    }
    case Expr::Kind::Call: {
      std::string fn = e.callee;
      if (type == ScalarType::Float) fn = e.callee == "min" ? "fminf" : "fmaxf";
      else if (type == ScalarType::Double) fn = e.callee == "min" ? "fmin" : "fmax";
      return fn + "(" + exprText(*e.args[0], type, scope, true) + ", " + exprText(*e.args[1], type, scope, true) + ")";
    }
  }
  return "?";
}

std::string KernelWriter::storeText(const Node& assign, const std::string& target, ScalarType targetType,
                                    const std::string& value) {
  if (targetType == ScalarType::Half) {
    if (assign.atomic) return "atomicAdd(&" + target + ", __float2half(" + value + "));";
    if (assign.accumulate) return target + " = __float2half(__half2float(" + target + ") + " + value + ");";
    return target + " = __float2half(" + value + ");";
  }
  if (assign.atomic) return "atomicAdd(&" + target + ", " + value + ");";
  return target + (assign.accumulate ? " += " : " = ") + value + ";";
}

void KernelWriter::emitAssign(const Node& node, const Scope& scope) {
  const Array* array = findArray(node.target.array, scope);
  if (!array) return;
  ScalarType targetType = typeOf(*array);
  std::string value = exprText(*node.value, computeType(targetType), scope, true);
  line(storeText(node, accessText(node.target, scope), targetType, value));
}

void KernelWriter::emit(const Node& node, const Scope& scope) {
  if (!refusal_.empty()) return;
  switch (node.kind) {
    case NodeKind::Seq:
      for (const auto& kid : node.kids) emit(*kid, scope);
      return;
    case NodeKind::Assign: return emitAssign(node, scope);
    case NodeKind::Barrier: return line("__syncthreads();");
    case NodeKind::Stage: return emitStage(node, scope);
    case NodeKind::Alloc: return emitAlloc(node, scope);
    case NodeKind::For: return emitLoop(node, scope);
  }
}

void KernelWriter::emitLoop(const Node& loop, const Scope& scope) {
  if (isBlockMapping(loop.mapping)) return emitBlockLoop(loop, scope);
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
  int axis = loop.mapping == Mapping::BlockX ? 0 : loop.mapping == Mapping::BlockY ? 1 : 2;
  auto trips = scope.ranges.maxTripCount(loop);
  Scope inner = scope;
  inner.ranges.bind(loop.index, scope.ranges.loopIndexRange(loop, trips.value_or(0)));
  open("{  // " + loop.index + ": block." + kAxis[axis]);
  size_t mark = body_.size();
  line("const int " + loop.index + " = " + offsetText(loop.lower, loop.step, coordinate(std::string("thread_") + kAxis[axis])) + ";");
  bool guarded = openGuard(loop, loop.lower + Affine((plan_.block[axis] - 1) * loop.step), scope);
  emit(*loop.body(), inner);
  if (guarded) close();
  close();
  dropIfUnused(mark, loop.index);
}

void KernelWriter::emitSerialLoop(const Node& loop, const Scope& scope) {
  auto trips = scope.ranges.maxTripCount(loop);
  if (!trips) return refuse("loop `" + loop.index + "` has no bounded trip count");
  Scope inner = scope;
  inner.ranges.bind(loop.index, scope.ranges.loopIndexRange(loop, *trips));
  open("for (int " + loop.index + " = " + affineText(loop.lower) + "; " + loopConditions(loop, scope) + "; " +
       loopStep(loop) + ") {");
  emit(*loop.body(), inner);
  close();
}

std::string KernelWriter::loopConditions(const Node& loop, const Scope& scope) {
  // An upper bound that another one never exceeds says nothing more.
  std::vector<std::string> conds;
  for (size_t i = 0; i < loop.upper.size(); ++i) {
    bool implied = false;
    for (size_t j = 0; j < loop.upper.size() && !implied; ++j) {
      auto span = scope.ranges.bounds(loop.upper[j] - loop.upper[i]);
      implied = j != i && span && (span->second < 0 || (span->second == 0 && j < i));
    }
    if (!implied) conds.push_back(loop.index + " < " + affineText(loop.upper[i]));
  }
  return joinConditions(conds);
}

void KernelWriter::emitUnrolledLoop(const Node& loop, const Scope& scope, const std::string& note) {
  auto trips = scope.ranges.maxTripCount(loop);
  if (!trips) return refuse("unrolled loop `" + loop.index + "` has no constant trip count");
  Scope inner = scope;
  inner.ranges.bind(loop.index, scope.ranges.loopIndexRange(loop, *trips));
  Affine last = loop.lower + Affine((*trips - 1) * loop.step);
  if (!note.empty()) line("// " + note);
  line("#pragma unroll");
  size_t mark = std::string::npos;
  if (loop.lower.isConstant()) {
    inner.compileTimeIndices.insert(loop.index);
    std::string step = loop.step == 1 ? "++" + loop.index : loop.index + " += " + std::to_string(loop.step);
    open("for (int " + loop.index + " = " + affineText(loop.lower) + "; " + loop.index + " < " +
         std::to_string(loop.lower.constant + *trips * loop.step) + "; " + step + ") {");
  } else {
    std::string counter = loop.index + "_u";
    inner.ranges.bind(counter, IndexRange{0, std::max<int64_t>(0, *trips - 1), 1});
    inner.compileTimeIndices.insert(counter);
    Affine lower = loop.lower;
    for (const auto& [name, as] : scope.unrolledAs) lower = lower.substitute(name, as);
    inner.unrolledAs[loop.index] = lower + Affine::var(counter, loop.step);
    open("for (int " + counter + " = 0; " + counter + " < " + std::to_string(*trips) + "; ++" + counter + ") {");
    mark = body_.size();
    line("const int " + loop.index + " = " + offsetText(loop.lower, loop.step, counter) + ";");
  }
  bool guarded = openGuard(loop, last, scope);
  emit(*loop.body(), inner);
  if (guarded) close();
  close();
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
  int width = static_cast<int>(*trips);
  Affine last = loop.lower + Affine(*trips - 1);
  bool tail = false;
  for (const Affine& upper : loop.upper) tail = tail || !scope.ranges.provesLess(last, upper);
  auto stmts = flattenSeq(loop.body());
  bool straight = true;
  for (const auto& s : stmts) straight = straight && s->kind == NodeKind::Assign;
  std::string why = loop.step != 1 ? "its step is not 1"
                    : (width != 2 && width != 4) ? "it has " + std::to_string(width) + " lanes, not 2 or 4"
                    : tail ? "its last lanes may fall outside the bounds"
                    : !straight ? "its body is not straight-line assignments" : "";
  if (!why.empty())
    return emitUnrolledLoop(loop, scope, "vector loop `" + loop.index + "` done as scalars: " + why);

  open("{  // " + loop.index + ": vector of " + std::to_string(width));
  for (const auto& stmt : stmts) {
    Scope lanes = scope;
    std::vector<Access> loads;
    collectLoads(*stmt->value, loads);
    std::set<std::string> seen;
    for (const Access& a : loads) {
      if (!a.subscripts.empty() && !a.subscripts.back().uses(loop.index)) continue;
      if (!seen.insert(a.str()).second || !wideAccessOk(a, loop.index, loop.lower, width, scope)) continue;
      const Array& array = scope.arrays.at(a.array);
      std::string vtype = std::string(cudaType(typeOf(array))) + std::to_string(width);
      std::string name = a.array + "_v" + std::to_string(temps_++);
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
      for (int v = 0; v < width; ++v) {
        Access lane = substituteAccess(stmt->target, loop.index, loop.lower + Affine(v));
        line(storeText(*stmt, accessText(lane, lanes), targetType, values[v]));
      }
      continue;
    }
    std::string vtype = std::string(cudaType(targetType)) + std::to_string(width);
    std::string where = "*reinterpret_cast<" + vtype + "*>(&" +
                        accessText(substituteAccess(stmt->target, loop.index, loop.lower), scope) + ")";
    if (stmt->accumulate) {
      std::string name = stmt->target.array + "_v" + std::to_string(temps_++);
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
  bool clash = declared_.back().count(buffer.name) != 0;
  if (clash) open("{");
  declared_.back().insert(buffer.name);
  if (buffer.space == MemorySpace::Register) {
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
  std::vector<int64_t> extents = declaredExtents(alloc, copies, elementType_);
  std::string type = cudaType(typeOf(buffer));
  std::string dims, innerDims;
  for (size_t d = 0; d < extents.size(); ++d) {
    dims += "[" + std::to_string(extents[d]) + "]";
    if (d > 0) innerDims += "[" + std::to_string(extents[d]) + "]";
  }
  if (!plan_.dynamicShared) {
    line("__shared__ __align__(16) " + type + " " + buffer.name + dims + ";");
  } else {
    std::string pointer = innerDims.empty() ? type + "* " + buffer.name : type + " (*" + buffer.name + ")" + innerDims;
    std::string cast = innerDims.empty() ? type + "*" : type + " (*)" + innerDims;
    line(pointer + " = reinterpret_cast<" + cast + ">(shared_memory + " + std::to_string(dynamicOffset_) + ");");
    dynamicOffset_ += declaredBytes(alloc, copies, elementType_);
  }
}

// The width (4, 2 or 1 elements) a Stage copies at a time: rows of both arrays that hold whole
// vectors, aligned, of the same type. A vector then lies wholly inside or wholly outside the
// source, so the bounds of its first element decide for all of it. `box` is the box's extents in
// the source's order: the buffer's for the natural layout, whose rows are the box's rows; a
// permuted buffer is written an element at a time, so only the source's rows count.
int KernelWriter::stageWidth(const Node& node, const Array& source, const std::vector<int64_t>& box,
                             const Scope& scope) {
  const Array& buffer = node.buffer;
  ScalarType t = typeOf(buffer);
  if (t != typeOf(source) || source.space == MemorySpace::Register || box.empty()) return 1;
  for (int width : {4, 2}) {
    if ((t == ScalarType::Double && width == 4) || (t != ScalarType::Float && t != ScalarType::Double)) continue;
    if (box.back() % width != 0 || source.extents.back() % width != 0) continue;
    Scope probe = scope;
    Access first{source.name, {}};
    for (size_t d = 0; d < box.size(); ++d) {
      std::string var = "stage_" + std::to_string(d);
      bool last = d + 1 == box.size();
      probe.ranges.bind(var, IndexRange{0, box[d] - (last ? width : 1), last ? width : 1});
      first.subscripts.push_back(node.origin[d] + Affine::var(var));
    }
    if (probe.ranges.multipleOf(flatOffset(first, source)) % width == 0) return width;
  }
  return 1;
}

// A Stage is a cooperative copy: the block's threads take the box's items (elements, or vectors
// of a source row's elements) in turn, in the source's order (consecutive threads read
// consecutive elements of a row, coalesced), zero outside the source, and store each at its
// place in the buffer: the whole vector where the buffer keeps the source's order, lane by lane
// where its layout permutes the box (e.g. transposed).
StageCopy KernelWriter::planStageCopy(const Node& node, const Scope& scope) {
  StageCopy c;
  const Array& buffer = node.buffer;
  const Array* source = findArray(node.source, scope);
  if (!source) return c;
  size_t rank = buffer.extents.size();
  if (source->extents.size() != rank || (!node.layout.empty() && node.layout.size() != rank)) {
    refuse("Stage from `" + node.source + "` into `" + buffer.name + "`: the ranks differ");
    return c;
  }
  bool permuted = isPermuted(node.layout);
  std::vector<int64_t> box(rank, 0);  // the box's extents in the source's order
  for (size_t d = 0; d < rank; ++d) {
    auto s = permuted ? static_cast<size_t>(node.layout[d]) : d;
    if (s >= rank || box[s] != 0) {
      refuse("Stage into `" + buffer.name + "`: its layout is not a permutation");
      return c;
    }
    box[s] = buffer.extents[d];
  }
  int width = stageWidth(node, *source, box, scope);
  Scope inner = scope;
  Access from{node.source, {}};
  int64_t innerSize = c.items = buffer.elements() / width;
  for (size_t d = 0; d < rank; ++d) {
    std::string var = "stage_" + std::to_string(d);
    bool last = d + 1 == rank;
    int64_t extent = box[d] / (last ? width : 1);
    innerSize /= extent;
    std::string value = "stage_e";
    if (innerSize != 1) value += " / " + std::to_string(innerSize);
    if (d > 0) value = (innerSize != 1 ? "(" + value + ")" : value) + " % " + std::to_string(extent);
    if (last && width > 1) value = std::to_string(width) + " * (" + value + ")";
    c.coords += (d ? ", " : "const int ") + var + " = " + value;
    inner.ranges.bind(var, IndexRange{0, box[d] - (last ? width : 1), last ? width : 1});
    from.subscripts.push_back(node.origin[d] + Affine::var(var));
  }
  c.coords += ";";
  // The buffer element that lane `lane` of an item goes to.
  auto to = [&](int lane) {
    Access a{buffer.name, {}};
    for (size_t d = 0; d < rank; ++d) {
      auto s = permuted ? static_cast<size_t>(node.layout[d]) : d;
      a.subscripts.push_back(Affine::var("stage_" + std::to_string(s)) + Affine(s + 1 == rank ? lane : 0));
    }
    return a;
  };
  ScalarType bufferType = typeOf(buffer), sourceType = typeOf(*source);
  std::string zero;
  if (width > 1) {
    c.type = cudaType(bufferType) + std::to_string(width);
    c.value = "*reinterpret_cast<const " + c.type + "*>(&" + accessText(from, inner) + ")";
    zero = "make_" + c.type + "(";
    for (int v = 0; v < width; ++v) zero += (v ? ", " : "") + literal(0, bufferType);
    zero += ")";
  } else {
    c.type = cudaType(bufferType);
    c.value = bufferType == sourceType ? accessText(from, inner) : loadText(from, computeType(bufferType), inner);
    if (bufferType != sourceType && bufferType == ScalarType::Half) c.value = "__float2half(" + c.value + ")";
    zero = bufferType == ScalarType::Half ? "__float2half(0.0f)" : literal(0, bufferType);
  }
  auto conds = outsideConditions(from, *source, inner);
  if (!conds.empty()) c.value = "(" + joinConditions(conds) + ") ? " + c.value + " : " + zero;
  c.from = accessText(from, inner);
  c.inside = joinConditions(conds);
  c.sameType = bufferType == sourceType;
  int elementBytes = scalarTypeBytes(bufferType);
  c.pieceBytes = permuted ? elementBytes : width * elementBytes;
  for (int v = 0; v < (permuted ? width : 1); ++v) c.pieces.push_back(accessText(to(v), inner));
  if (width == 1) {
    c.stores.push_back(accessText(to(0), inner) + " = $");
  } else if (!permuted) {
    c.stores.push_back("*reinterpret_cast<" + c.type + "*>(&" + accessText(to(0), inner) + ") = $");
  } else {
    for (int v = 0; v < width; ++v) c.stores.push_back(accessText(to(v), inner) + " = $." + "xyzw"[v]);
  }
  std::string origin, layout;
  for (const auto& o : node.origin) origin += "[" + affineText(o) + "]";
  for (int d : node.layout) layout += (layout.empty() ? "" : ", ") + std::to_string(d);
  c.comment = "// Stage " + node.source + origin + " -> " + buffer.name +
              (permuted ? " in layout (" + layout + ")" : "") + ", zero outside " + node.source;
  if (width > 1) c.comment += (permuted ? ", read " : ", ") + std::to_string(width) + " elements at a time";
  return c;
}

// A store of a StageCopy with `item` as the value.
std::string fillStore(const std::string& store, const std::string& item) {
  std::string s = store;
  s.replace(s.find('$'), 1, item);
  return s + ";";
}

void KernelWriter::emitStage(const Node& node, const Scope& scope) {
  StageCopy c = planStageCopy(node, scope);
  if (!refusal_.empty()) return;
  line(c.comment);
  // Threads take the items in turn; with no more items than threads, each takes one at most.
  std::string rank = coordinate("thread_rank");
  if (c.items > plan_.threads())
    open("for (int stage_e = " + rank + "; stage_e < " + std::to_string(c.items) + "; stage_e += " +
         std::to_string(plan_.threads()) + ") {");
  else
    open(c.items == plan_.threads() ? "{" : "if (" + rank + " < " + std::to_string(c.items) + ") {");
  if (c.items <= plan_.threads()) line("const int stage_e = " + rank + ";");
  line(c.coords);
  if (c.stores.size() == 1) {
    line(fillStore(c.stores[0], c.value));
  } else {
    line("const " + c.type + " stage_v = " + c.value + ";");
    for (const auto& s : c.stores) line(fillStore(s, "stage_v"));
  }
  close();
}

// Half of a pipelined copy: each thread's items read into the registers `regs` (load), or
// stored from them into the buffer (store).
void KernelWriter::emitStageRegisters(const StageCopy& c, const std::string& regs, bool load) {
  int64_t threads = plan_.threads();
  line("#pragma unroll");
  open("for (int stage_r = 0; stage_r < " + std::to_string((c.items + threads - 1) / threads) + "; ++stage_r) {");
  line("const int stage_e = " + coordinate("thread_rank") + " + " + std::to_string(threads) + " * stage_r;");
  bool guarded = c.items % threads != 0;
  if (guarded) open("if (stage_e < " + std::to_string(c.items) + ") {");
  line(c.coords);
  if (load) {
    line(regs + "[stage_r] = " + c.value + ";");
  } else {
    for (const auto& s : c.stores) line(fillStore(s, regs + "[stage_r]"));
  }
  if (guarded) close();
  close();
}

// A pipelined loop (rule 6 of loop_tree.hpp): each shared buffer is declared twice over; the
// first iteration's stages fill half 0 before the loop; each iteration then reads the next
// iteration's stages into registers, works on its own half, stores the registers into the other
// half, and synchronises once.
void KernelWriter::emitPipelinedLoop(const Node& loop, const Scope& scope) {
  PipelineParts parts = pipelineParts(loop);
  if (!parts.ok()) return refuse(parts.problem);
  auto trips = scope.ranges.maxTripCount(loop);
  if (!trips || *trips < 1) return refuse("pipelined loop `" + loop.index + "` has no bounded trip count");
  Scope inner = scope;
  for (const Node* b : parts.buffers) {
    inner.arrays[b->buffer.name] = b->buffer;
    inner.slots[b->buffer.name] = "stage_slot";
  }
  line("// " + loop.index + " pipelined: while the block works on one half of each buffer, the next stages go");
  line("// through registers into the other half");
  for (const Node* b : parts.buffers) declareShared(*b, 2);

  Scope first = inner;
  first.ranges.bind(loop.index, scope.ranges.loopIndexRange(loop, 1));
  for (const Node* b : parts.buffers) first.slots[b->buffer.name] = "0";
  open("{");
  line("const int " + loop.index + " = " + affineText(loop.lower) + ";");
  for (const Node* s : parts.stages) emitStage(*s, first);
  close();
  line("__syncthreads();");

  // The next iteration's stages: the loop's index one step on, in the iterations that have one.
  Scope next = inner;
  next.ranges.bind(loop.index, scope.ranges.loopIndexRange(loop, std::max<int64_t>(1, *trips - 1)));
  for (const Node* b : parts.buffers) next.slots[b->buffer.name] = "stage_slot ^ 1";
  std::vector<StageCopy> copies;
  Affine nextIndex = Affine::var(loop.index) + Affine(loop.step);
  for (const Node* s : parts.stages) {
    Node shifted = *s;
    for (Affine& o : shifted.origin) o = o.substitute(loop.index, nextIndex);
    copies.push_back(planStageCopy(shifted, next));
  }
  if (!refusal_.empty()) return;
  Scope body = inner;
  body.ranges.bind(loop.index, scope.ranges.loopIndexRange(loop, *trips));
  std::vector<std::string> nextConds;  // this iteration has a next one
  for (const Affine& u : loop.upper)
    if (!body.ranges.provesLess(nextIndex, u)) nextConds.push_back(affineText(nextIndex) + " < " + affineText(u));
  bool more = *trips > 1;

  open("for (int " + loop.index + " = " + affineText(loop.lower) + "; " + loopConditions(loop, scope) + "; " +
       loopStep(loop) + ") {");
  std::string count = affineText(Affine::var(loop.index) - loop.lower);
  if (loop.step != 1) count = (loop.lower == Affine(0) ? count : "(" + count + ")") + " / " + std::to_string(loop.step);
  line("const int stage_slot = (" + count + ") & 1;");
  if (more) {
    for (size_t i = 0; i < copies.size(); ++i)
      line(copies[i].type + " " + parts.stages[i]->buffer.name + "_next[" +
           std::to_string((copies[i].items + plan_.threads() - 1) / plan_.threads()) + "];");
    if (!nextConds.empty()) open("if (" + joinConditions(nextConds) + ") {");
    for (size_t i = 0; i < copies.size(); ++i) emitStageRegisters(copies[i], parts.stages[i]->buffer.name + "_next", true);
    if (!nextConds.empty()) close();
  }
  for (const auto& w : parts.work) emit(*w, body);
  if (more) {
    if (!nextConds.empty()) open("if (" + joinConditions(nextConds) + ") {");
    for (size_t i = 0; i < copies.size(); ++i) emitStageRegisters(copies[i], parts.stages[i]->buffer.name + "_next", false);
    if (!nextConds.empty()) close();
  }
  line("__syncthreads();");
  close();
}

void KernelWriter::emitAsyncCopies(const StageCopy& c, const std::string& source) {
  if (!c.sameType) return refuse("an asynchronous copy cannot convert " + source + "'s elements to the buffer's type");
  int64_t threads = plan_.threads();
  line("#pragma unroll");
  open("for (int stage_r = 0; stage_r < " + std::to_string((c.items + threads - 1) / threads) + "; ++stage_r) {");
  line("const int stage_e = " + coordinate("thread_rank") + " + " + std::to_string(threads) + " * stage_r;");
  bool guarded = c.items % threads != 0;
  if (guarded) open("if (stage_e < " + std::to_string(c.items) + ") {");
  line(c.coords);
  if (!c.inside.empty()) line("const bool stage_in = " + c.inside + ";");
  for (size_t p = 0; p < c.pieces.size(); ++p) {
    std::string from = "&" + c.from + (p ? " + " + std::to_string(p) : "");
    if (!c.inside.empty()) from = "stage_in ? " + from + " : " + source;  // a valid address, not read
    line("async_copy<" + std::to_string(c.pieceBytes) + ">(&" + c.pieces[p] + ", " + from + ", " +
         (c.inside.empty() ? "true" : "stage_in") + ");");
  }
  if (guarded) close();
  close();
}

// An asynchronously pipelined loop (rule 6 of loop_tree.hpp): kAsyncStages copies of each shared
// buffer; the first kAsyncStages - 1 iterations' stages are issued before the loop; each
// iteration waits for its own, synchronises (which also frees the copy the previous iteration
// used), issues the stages kAsyncStages - 1 iterations ahead into that copy, and works.
void KernelWriter::emitAsyncPipelinedLoop(const Node& loop, const Scope& scope) {
  PipelineParts parts = pipelineParts(loop);
  if (!parts.ok()) return refuse(parts.problem);
  auto trips = scope.ranges.maxTripCount(loop);
  if (!trips || *trips < 1) return refuse("pipelined loop `" + loop.index + "` has no bounded trip count");
  usesAsyncCopies_ = true;
  const int64_t ahead = kAsyncStages - 1;
  Scope inner = scope;
  for (const Node* b : parts.buffers) inner.arrays[b->buffer.name] = b->buffer;
  line("// " + loop.index + " pipelined asynchronously: " + std::to_string(kAsyncStages) +
       " copies of each buffer, the stages issued " + std::to_string(ahead) + " iterations ahead");
  for (const Node* b : parts.buffers) declareShared(*b, kAsyncStages);
  // The stages of iteration `index + shift`, into the copy `slot`, where `iterations` of the
  // loop have such a later iteration.
  auto issue = [&](int64_t shift, const std::string& slot, int64_t iterations) {
    Scope at = inner;
    at.ranges.bind(loop.index, scope.ranges.loopIndexRange(loop, iterations));
    for (const Node* b : parts.buffers) at.slots[b->buffer.name] = slot;
    for (const Node* s : parts.stages) {
      Node shifted = *s;
      for (Affine& o : shifted.origin) o = o.substitute(loop.index, Affine::var(loop.index) + Affine(shift * loop.step));
      StageCopy c = planStageCopy(shifted, at);
      if (!refusal_.empty()) return;
      line(c.comment);
      emitAsyncCopies(c, s->source);
    }
  };
  for (int64_t s = 0; s < ahead; ++s) {
    if (s < *trips) {
      open("{");
      line("const int " + loop.index + " = " + affineText(loop.lower) + ";");
      issue(s, std::to_string(s), 1);
      close();
    }
    line("async_commit();");
  }
  Scope body = inner;
  body.ranges.bind(loop.index, scope.ranges.loopIndexRange(loop, *trips));
  for (const Node* b : parts.buffers) body.slots[b->buffer.name] = "stage_slot";
  open("for (int " + loop.index + " = " + affineText(loop.lower) + "; " + loopConditions(loop, scope) + "; " +
       loopStep(loop) + ") {");
  std::string count = affineText(Affine::var(loop.index) - loop.lower);
  if (loop.step != 1) count = (loop.lower == Affine(0) ? count : "(" + count + ")") + " / " + std::to_string(loop.step);
  line("const int stage_slot = (" + count + ") % " + std::to_string(kAsyncStages) + ";");
  line("async_wait<" + std::to_string(ahead - 1) + ">();  // this iteration's stages have landed");
  line("__syncthreads();");
  if (*trips > ahead) {
    Affine later = Affine::var(loop.index) + Affine(ahead * loop.step);
    std::vector<std::string> conds;
    for (const Affine& u : loop.upper)
      if (!body.ranges.provesLess(later, u)) conds.push_back(affineText(later) + " < " + affineText(u));
    if (!conds.empty()) open("if (" + joinConditions(conds) + ") {");
    issue(ahead, "(stage_slot + " + std::to_string(ahead) + ") % " + std::to_string(kAsyncStages), *trips - ahead);
    if (!conds.empty()) close();
  }
  line("async_commit();");
  for (const auto& w : parts.work) emit(*w, body);
  close();
}

void KernelWriter::emitGridLoops(size_t i, const Scope& scope) {
  if (i == plan_.gridLoops.size()) return emit(*plan_.phases, scope);
  const LaunchPlan::GridLoop& g = plan_.gridLoops[i];
  const Node& loop = *g.loop;
  std::string a = kAxis[g.axis];
  if (!plan_.naive) {
    line("const int " + loop.index + " = " + offsetText(loop.lower, loop.step, coordinate("block_" + a)) + ";  // grid." + a);
    return emitGridLoops(i + 1, scope);
  }
  std::string iteration;
  int64_t lastIteration = 0;
  if (g.trips > 0) {  // folded onto z with other loops
    iteration = coordinate("block_z");
    if (g.divisor > 1) iteration += " / " + std::to_string(g.divisor);
    if (g.divisor * g.trips < plan_.grid[2]) iteration += " % " + std::to_string(g.trips);
    lastIteration = g.trips - 1;
  } else {
    iteration = coordinate("block_" + a) + " * " + std::to_string(plan_.block[g.axis]) + " + " + coordinate("thread_" + a);
    lastIteration = plan_.grid[g.axis] * plan_.block[g.axis] - 1;
  }
  line("const int " + loop.index + " = " + offsetText(loop.lower, loop.step, iteration) + ";");
  bool guarded = openGuard(loop, loop.lower + Affine(lastIteration * loop.step), scope);
  emitGridLoops(i + 1, scope);
  if (guarded) close();
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
    h << "// Recipe: none" << (plan_.naive ? " (naive mapping: one thread an iteration of the outer parallel loops)" : "")
      << "\n";
  }
  h << "// Launch: grid (" << plan_.grid[0] << ", " << plan_.grid[1] << ", " << plan_.grid[2] << "), block ("
    << plan_.block[0] << ", " << plan_.block[1] << ", " << plan_.block[2] << ") = " << plan_.threads()
    << " threads; shared memory " << plan_.sharedBytes << " bytes";
  if (plan_.sharedBytes > 0) h << (plan_.dynamicShared ? " (dynamic)" : " (static)");
  h << "\n";
  if (!kernel_.zeroFirst.empty()) {
    h << "// Before the launch, set to zero:";
    for (const auto& z : kernel_.zeroFirst) h << " " << z;
    h << "\n";
  }
  if (usesHalf_) h << "#include <cuda_fp16.h>\n";
  if (usesAsyncCopies_)
    h << "\n// Asynchronous copies into shared memory (sm_80 and later); outside the source, zeros.\n"
         "template <int Bytes>\n"
         "__device__ __forceinline__ void async_copy(void* shared, const void* global, bool inside) {\n"
         "  const unsigned to = static_cast<unsigned>(__cvta_generic_to_shared(shared));\n"
         "  if (Bytes == 16)\n"
         "    asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16, %2;\\n\" :: \"r\"(to), \"l\"(global), \"r\"(inside ? 16 : 0));\n"
         "  else\n"
         "    asm volatile(\"cp.async.ca.shared.global [%0], [%1], %2, %3;\\n\" :: \"r\"(to), \"l\"(global), \"n\"(Bytes),\n"
         "                 \"r\"(inside ? Bytes : 0));\n"
         "}\n"
         "__device__ __forceinline__ void async_commit() { asm volatile(\"cp.async.commit_group;\\n\" ::); }\n"
         "template <int Pending>\n"
         "__device__ __forceinline__ void async_wait() { asm volatile(\"cp.async.wait_group %0;\\n\" :: \"n\"(Pending)); }\n";
  return h.str();
}

// Declarations of the thread and block coordinates the body uses.
std::string KernelWriter::prologue() {
  std::string out;
  // Only the coordinates the body still uses (declarations of unused indices were dropped).
  for (auto it = usedCoordinates_.begin(); it != usedCoordinates_.end();)
    it = std::regex_search(body_, std::regex("\\b" + *it + "\\b")) ? std::next(it) : usedCoordinates_.erase(it);
  if (usedCoordinates_.count("thread_rank"))
    for (const char* a : kAxis) usedCoordinates_.insert(std::string("thread_") + a);
  for (int a = 0; a < 3; ++a) {
    std::string t = std::string("thread_") + kAxis[a];
    if (usedCoordinates_.count(t))
      out += "  const int " + t + " = " + (plan_.block[a] > 1 ? std::string("threadIdx.") + kAxis[a] : "0") + ";\n";
  }
  for (int a = 0; a < 3; ++a) {
    std::string b = std::string("block_") + kAxis[a];
    if (usedCoordinates_.count(b))
      out += "  const int " + b + " = " + (plan_.grid[a] > 1 ? std::string("blockIdx.") + kAxis[a] : "0") + ";\n";
  }
  if (usedCoordinates_.count("thread_rank"))
    out += "  const int thread_rank = thread_x + " + std::to_string(plan_.block[0]) + " * (thread_y + " +
           std::to_string(plan_.block[1]) + " * thread_z);\n";
  if (plan_.dynamicShared) out += "  extern __shared__ __align__(16) unsigned char shared_memory[];\n";
  return out;
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
    result.refusal = "the kernel's name `" + out.entry + "` is not a C identifier";
    return result;
  }
  Scope scope;
  scope.ranges = plan_.gridRanges;
  std::string params;
  for (const Array& p : kernel_.params) {
    if (p.elements() > 2147483647LL) {
      result.refusal = "array `" + p.name + "` has more elements than 32-bit indices reach";
      return result;
    }
    scope.arrays[p.name] = p;
    params += std::string(params.empty() ? "" : ", ") + (p.input ? "const " : "") + cudaType(typeOf(p)) +
              "* __restrict__ " + p.name;
    out.params.push_back(p.name);
  }
  emitGridLoops(0, scope);
  if (!refusal_.empty()) {
    result.refusal = refusal_;
    return result;
  }
  std::ostringstream src;
  src << header() << "\n"
      << "extern \"C\" __global__ void __launch_bounds__(" << plan_.threads() << ")\n"
      << out.entry << "(" << params << ") {\n"
      << prologue() << body_ << "}\n";
  out.source = src.str();
  for (int a = 0; a < 3; ++a) {
    out.grid[a] = static_cast<unsigned>(plan_.grid[a]);
    out.block[a] = static_cast<unsigned>(plan_.block[a]);
  }
  out.sharedBytes = static_cast<size_t>(plan_.sharedBytes);
  out.dynamicSharedBytes = plan_.dynamicShared ? out.sharedBytes : 0;
  out.needsSharedMemoryAttribute = plan_.dynamicShared;
  out.recipe = options_.recipe;
  out.zeroFirst = kernel_.zeroFirst;
  out.elementType = elementType_.value_or(ScalarType::Float);
  for (const Array& p : kernel_.params)
    if (!elementType_ && (p.type == ScalarType::Half || p.type == ScalarType::Double)) out.elementType = p.type;
  result.kernel = std::move(out);
  return result;
}

}  // namespace

EmitResult emitKernel(const Kernel& kernel, const EmitOptions& options) {
  LaunchPlanResult planned = planLaunch(kernel, options.elementType);
  if (!planned.plan) return EmitResult{std::nullopt, planned.refusal};
  KernelWriter writer(kernel, *planned.plan, options);
  return writer.write();
}

EmitResult emitReference(const Kernel& kernel) {
  EmitOptions options;
  options.entry = kernel.name + "_reference";
  options.elementType = ScalarType::Double;
  return emitKernel(kernel, options);
}

}  // namespace cudaburg
