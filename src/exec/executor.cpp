#include "src/exec/executor.hpp"

#include <array>
#include <climits>
#include <cmath>
#include <limits>
#include <map>
#include <memory>

#include "src/exec/back_to_back_exec.hpp"
#include "src/exec/winograd_exec.hpp"
#include "src/loop/gather_table.hpp"
#include "src/loop/math_functions.hpp"
#include "src/loop/scalar_types.hpp"

namespace cudaburg {

namespace {

// The tree is first compiled to a form with index names resolved to slots and array names to
// table entries, so that the inner loops of a run do no string look-ups.

struct CAffine {
  int64_t constant = 0;
  std::vector<std::pair<int, int64_t>> terms;  // slot, coefficient
  int64_t eval(const std::vector<int64_t>& env) const {
    int64_t v = constant;
    for (const auto& [slot, c] : terms) v += c * env[slot];
    return v;
  }
};

struct CAccess {
  int array = -1;
  std::vector<CAffine> subscripts;
};

struct CExpr {
  Expr::Kind kind = Expr::Kind::Constant;
  double value = 0;
  CAffine index;
  CAccess load;
  char op = '+';
  const MathFunction* function = nullptr;  // Call
  std::unique_ptr<CExpr> lhs, rhs;         // rhs: null for a function of one argument
};

struct CNode {
  NodeKind kind = NodeKind::Seq;
  // For
  int slot = -1;
  CAffine lower;
  std::vector<CAffine> upper;
  int64_t step = 1;
  int blockDim = -1;                     // 0, 1, 2 for a block.x, .y, .z loop
  std::vector<CollapsedLoop> collapsed;  // a collapsed loop: what it derives
  std::vector<int> derivedSlots;         // the slots of the derived indices
  // Assign
  CAccess target;
  bool accumulate = false;
  ScalarType type = ScalarType::Float;  // the target's element type: the arithmetic's type
  std::unique_ptr<CExpr> value;
  // Alloc, Stage
  int buffer = -1;
  int source = -1;
  std::vector<CAffine> origin;
  std::vector<int> layout;  // Stage: buffer dimension d holds source dimension layout[d]
  // A gather: per buffer dimension the slot of its loop index, what that loop collapses and the
  // slots of what it derives; the source element it reads.
  std::vector<int> gatherSlots;
  std::vector<std::vector<CollapsedLoop>> gatherCollapsed;
  std::vector<std::vector<int>> gatherDerivedSlots;
  CAccess gatherRead;
  // A gather through a table (Node::tableDim): read as the GPU reads it, the row's part of the
  // offset and its mask of taps beside each entry.
  std::shared_ptr<const GatherTable> table;
  std::vector<CAffine> tableRowSubscripts;
  CAffine tableRowOffset;
  std::vector<CNode> kids;
};

using ThreadKey = std::array<int64_t, 3>;

struct ArrayState {
  Array decl;
  std::vector<int64_t> strides;
  std::vector<double>* global = nullptr;               // Global: the caller's buffer
  std::vector<double> shared;                          // Shared: the live allocation
  std::map<ThreadKey, std::vector<double>> perThread;  // Register: one copy a thread
  bool live = false;                                   // buffers: inside their Alloc
};

// The result of an operation of a statement into an array of type `t`: half, bfloat16 and tf32
// statements compute in float.
double roundTo(ScalarType t, double v) { return storedValue(arithmeticType(t), v); }

class Machine {
 public:
  Machine(const Kernel& kernel, Buffers& buffers) {
    for (const auto& a : kernel.params) {
      auto it = buffers.data.find(a.name);
      if (it == buffers.data.end()) throw ExecutionError("no buffer for parameter " + a.name);
      if (static_cast<int64_t>(it->second.size()) != a.elements())
        throw ExecutionError("buffer " + a.name + " has " + std::to_string(it->second.size()) + " elements, not " +
                             std::to_string(a.elements()));
      int id = declare(a);
      arrays_[id].global = &it->second;
    }
    for (const auto& name : kernel.zeroFirst) {
      auto it = buffers.data.find(name);
      if (it == buffers.data.end()) throw ExecutionError("zeroFirst names " + name + ", not a parameter");
      std::fill(it->second.begin(), it->second.end(), 0.0);
    }
    root_ = compile(*kernel.body);
    env_.assign(slots_.size(), 0);
    threads_.fill(LLONG_MIN);
  }

  void run() { exec(root_); }

 private:
  int declare(const Array& a) {
    auto it = arrayIds_.find(a.name);
    if (it != arrayIds_.end()) {
      if (arrays_[it->second].decl.extents != a.extents)
        throw ExecutionError("two buffers named " + a.name + " with different extents");
      return it->second;
    }
    ArrayState s;
    s.decl = a;
    s.strides.assign(a.extents.size(), 1);
    for (size_t d = a.extents.size(); d-- > 1;) s.strides[d - 1] = s.strides[d] * a.extents[d];
    arrays_.push_back(std::move(s));
    arrayIds_[a.name] = static_cast<int>(arrays_.size() - 1);
    return static_cast<int>(arrays_.size() - 1);
  }

  int slot(const std::string& name) {
    auto [it, inserted] = slots_.emplace(name, static_cast<int>(slots_.size()));
    return it->second;
  }

  CAffine compile(const Affine& a) {
    CAffine c;
    c.constant = a.constant;
    for (const auto& [name, coef] : a.terms) c.terms.emplace_back(slot(name), coef);
    return c;
  }

  int arrayId(const std::string& name) {
    auto it = arrayIds_.find(name);
    if (it == arrayIds_.end()) throw ExecutionError("access to undeclared array " + name);
    return it->second;
  }

  CAccess compile(const Access& a) {
    CAccess c;
    c.array = arrayId(a.array);
    if (a.subscripts.size() != arrays_[c.array].decl.extents.size())
      throw ExecutionError("access " + a.str() + " has the wrong number of subscripts");
    for (const auto& s : a.subscripts) c.subscripts.push_back(compile(s));
    return c;
  }

  std::unique_ptr<CExpr> compile(const Expr& e) {
    auto c = std::make_unique<CExpr>();
    c->kind = e.kind;
    switch (e.kind) {
      case Expr::Kind::Constant:
        c->value = e.value;
        break;
      case Expr::Kind::Index:
        c->index = compile(e.index);
        break;
      case Expr::Kind::Load:
        c->load = compile(e.load);
        break;
      case Expr::Kind::Binary:
        c->op = e.op;
        c->lhs = compile(*e.args.at(0));
        c->rhs = compile(*e.args.at(1));
        break;
      case Expr::Kind::Call:
        c->function = findMathFunction(e.callee);
        if (!c->function || static_cast<int>(e.args.size()) != c->function->arity)
          throw ExecutionError("unknown function " + e.callee + " of " + std::to_string(e.args.size()) + " arguments");
        c->lhs = compile(*e.args.at(0));
        if (e.args.size() > 1) c->rhs = compile(*e.args.at(1));
        break;
    }
    return c;
  }

  CNode compile(const Node& n) {
    CNode c;
    c.kind = n.kind;
    switch (n.kind) {
      case NodeKind::For:
        c.slot = slot(n.index);
        c.lower = compile(n.lower);
        for (const auto& u : n.upper) c.upper.push_back(compile(u));
        c.step = n.step;
        if (n.mapping == Mapping::BlockX) c.blockDim = 0;
        if (n.mapping == Mapping::BlockY) c.blockDim = 1;
        if (n.mapping == Mapping::BlockZ) c.blockDim = 2;
        c.collapsed = n.collapsed;
        for (const auto& d : n.collapsed) c.derivedSlots.push_back(slot(d.index));
        break;
      case NodeKind::Assign:
        c.target = compile(n.target);
        c.accumulate = n.accumulate;
        c.type = arrays_[c.target.array].decl.type;
        c.value = compile(*n.value);
        break;
      case NodeKind::Alloc:
        c.buffer = declare(n.buffer);
        break;
      case NodeKind::Stage:
        c.buffer = arrayId(n.buffer.name);
        c.source = arrayId(n.source);
        for (const auto& o : n.origin) c.origin.push_back(compile(o));
        for (size_t d = 0; d < n.origin.size(); ++d) c.layout.push_back(layoutSource(n, d));
        for (const auto& g : n.gather) {
          c.gatherSlots.push_back(slot(g.index));
          c.gatherCollapsed.push_back(g.collapsed);
          c.gatherDerivedSlots.emplace_back();
          for (const auto& d : g.collapsed) c.gatherDerivedSlots.back().push_back(slot(d.index));
        }
        if (!n.gather.empty()) c.gatherRead = compile(Access{n.source, n.gatherSubscripts});
        if (n.tableDim >= 0) compileTable(n, c);
        break;
      default:
        break;
    }
    for (const auto& kid : n.kids) c.kids.push_back(compile(*kid));
    return c;
  }

  void compileTable(const Node& n, CNode& c) {
    auto table = std::make_shared<GatherTable>();
    std::string why = gatherTableOf(n, arrays_[c.source].decl, static_cast<size_t>(n.tableDim), *table);
    if (!why.empty()) throw ExecutionError("gather into " + n.buffer.name + ": " + why);
    for (const Affine& sub : table->rowSubscripts) c.tableRowSubscripts.push_back(compile(sub));
    c.tableRowOffset = compile(table->rowOffset);
    c.table = std::move(table);
  }

  // The element of a gather through a table at the indices set now: source[row + delta(value)]
  // where the row's mask has the tap of the table's value, else zero.
  double tableRead(const CNode& n) {
    const GatherTable& t = *n.table;
    int64_t value = env_[n.gatherSlots[t.dim]];
    if (value < 0 || value >= t.size())
      throw ExecutionError("gather into " + arrays_[n.buffer].decl.name + ": index " + std::to_string(value) +
                           " lies outside its table of " + std::to_string(t.size()));
    std::vector<int64_t> row;
    for (const CAffine& sub : n.tableRowSubscripts) row.push_back(sub.eval(env_));
    if (!t.inside(t.rowMask(row), value)) return 0.0;
    ArrayState& src = arrays_[n.source];
    int64_t flat = n.tableRowOffset.eval(env_) + t.delta[static_cast<size_t>(value)];
    if (flat < 0 || flat >= src.decl.elements())
      throw ExecutionError("gather into " + arrays_[n.buffer].decl.name + ": a table's offset " + std::to_string(flat) +
                           " lies outside " + src.decl.name);
    return storage(src, n.gatherRead)[flat];
  }

  std::string describe(const CAccess& a) const {
    std::string s = arrays_[a.array].decl.name;
    for (const auto& sub : a.subscripts) s += "[" + std::to_string(sub.eval(env_)) + "]";
    return s;
  }

  // The element an access refers to, or nullptr when it lies outside the array.
  double* locate(const CAccess& a) {
    ArrayState& s = arrays_[a.array];
    int64_t flat = 0;
    for (size_t d = 0; d < a.subscripts.size(); ++d) {
      int64_t i = a.subscripts[d].eval(env_);
      if (i < 0 || i >= s.decl.extents[d]) return nullptr;
      flat += i * s.strides[d];
    }
    return storage(s, a) + flat;
  }

  double* storage(ArrayState& s, const CAccess& a) {
    switch (s.decl.space) {
      case MemorySpace::Global:
        return s.global->data();
      case MemorySpace::Shared:
        if (!s.live) throw ExecutionError("access " + describe(a) + " outside the Alloc of " + s.decl.name);
        return s.shared.data();
      case MemorySpace::Register: {
        if (!s.live) throw ExecutionError("access " + describe(a) + " outside the Alloc of " + s.decl.name);
        auto& copy = s.perThread[threads_];
        if (copy.empty()) copy.assign(static_cast<size_t>(s.decl.elements()), std::numeric_limits<double>::quiet_NaN());
        return copy.data();
      }
    }
    return nullptr;
  }

  double load(const CAccess& a) {
    if (double* p = locate(a)) return readValue(arrays_[a.array].decl.type, *p);
    if (arrays_[a.array].decl.zeroPadded) return 0;
    throw ExecutionError("read of " + describe(a) + " out of bounds");
  }

  double eval(const CExpr& e, ScalarType t) {
    switch (e.kind) {
      case Expr::Kind::Constant:
        return roundTo(t, e.value);
      case Expr::Kind::Index:
        return static_cast<double>(e.index.eval(env_));
      case Expr::Kind::Load:
        return load(e.load);
      case Expr::Kind::Call: {
        // The exact value of the function at the rounded arguments, rounded as an operation is.
        double l = eval(*e.lhs, t), r = e.rhs ? eval(*e.rhs, t) : 0;
        return roundTo(t, applyMathFunction(*e.function, l, r));
      }
      case Expr::Kind::Binary: {
        double l = eval(*e.lhs, t), r = eval(*e.rhs, t);
        switch (e.op) {
          case '+':
            return roundTo(t, l + r);
          case '-':
            return roundTo(t, l - r);
          case '*':
            return roundTo(t, l * r);
          case '/':
            if (t == ScalarType::Int && r == 0) throw ExecutionError("integer division by zero");
            return roundTo(t, l / r);
        }
        throw ExecutionError(std::string("unknown operator ") + e.op);
      }
    }
    return 0;
  }

  void exec(const CNode& n) {
    switch (n.kind) {
      case NodeKind::Seq:
        exec(n.kids[0]);
        exec(n.kids[1]);
        return;
      case NodeKind::For: {
        int64_t lo = n.lower.eval(env_);
        int64_t hi = LLONG_MAX;
        for (const auto& u : n.upper) hi = std::min(hi, u.eval(env_));
        int64_t saved = n.blockDim >= 0 ? threads_[n.blockDim] : 0;
        for (int64_t i = lo; i < hi; i += n.step) {
          env_[n.slot] = i;
          if (!n.collapsed.empty()) setDerived(n.collapsed, n.derivedSlots, i);
          if (n.blockDim >= 0) threads_[n.blockDim] = i;
          exec(n.kids[0]);
        }
        if (n.blockDim >= 0) threads_[n.blockDim] = saved;
        return;
      }
      case NodeKind::Assign: {
        double v = eval(*n.value, n.type);
        double* p = locate(n.target);
        if (!p) throw ExecutionError("write of " + describe(n.target) + " out of bounds");
        *p = storedValue(n.type, n.accumulate ? roundTo(n.type, *p + v) : v);
        return;
      }
      case NodeKind::Alloc: {
        ArrayState& s = arrays_[n.buffer];
        if (s.live) throw ExecutionError("buffer " + s.decl.name + " allocated twice at once");
        s.live = true;
        if (s.decl.space == MemorySpace::Register)
          s.perThread.clear();
        else
          s.shared.assign(static_cast<size_t>(s.decl.elements()), std::numeric_limits<double>::quiet_NaN());
        exec(n.kids[0]);
        s.live = false;
        return;
      }
      case NodeKind::Stage:
        stageCopy(n);
        return;
      case NodeKind::Barrier:
        return;
    }
  }

  void setDerived(const std::vector<CollapsedLoop>& collapsed, const std::vector<int>& slots, int64_t value) {
    std::vector<int64_t> values = derivedValues(collapsed, value);
    for (size_t j = 0; j < slots.size(); ++j) env_[slots[j]] = values[j];
  }

  // A gather: each buffer element sets its loops' indices (and what they derive) and reads the
  // source there, zero outside it and past the end of a collapsed loop (whose derived indices
  // there may still point inside: wgmma's whole k steps read those elements). The indices are
  // restored afterwards.
  void gatherCopy(const CNode& n, ArrayState& buf) {
    std::vector<int64_t> origin, saved = env_;
    for (const auto& o : n.origin) origin.push_back(o.eval(env_));
    size_t rank = buf.decl.extents.size();
    std::vector<int64_t> at(rank, 0);
    for (int64_t e = 0; e < buf.decl.elements(); ++e) {
      bool past = false;
      for (size_t d = 0; d < rank; ++d) {
        env_[n.gatherSlots[d]] = origin[d] + at[d];
        if (n.gatherCollapsed[d].empty()) continue;
        setDerived(n.gatherCollapsed[d], n.gatherDerivedSlots[d], origin[d] + at[d]);
        past |= origin[d] + at[d] >= collapsedTrips(n.gatherCollapsed[d]);
      }
      if (past) {
        buf.shared[e] = 0.0;
      } else if (n.table) {
        buf.shared[e] = tableRead(n);
      } else {
        const double* p = locate(n.gatherRead);
        buf.shared[e] = p ? *p : 0.0;
      }
      for (size_t d = rank; d-- > 0;) {
        if (++at[d] < buf.decl.extents[d]) break;
        at[d] = 0;
      }
    }
    env_ = saved;
  }

  void stageCopy(const CNode& n) {
    ArrayState& buf = arrays_[n.buffer];
    ArrayState& src = arrays_[n.source];
    if (!buf.live || buf.decl.space != MemorySpace::Shared)
      throw ExecutionError("stage into " + buf.decl.name + ", not a live shared buffer");
    if (!n.gatherSlots.empty()) return gatherCopy(n, buf);
    std::vector<int64_t> origin;
    for (const auto& o : n.origin) origin.push_back(o.eval(env_));
    const std::vector<double>& from = src.decl.space == MemorySpace::Global ? *src.global : src.shared;
    size_t rank = buf.decl.extents.size();
    int64_t total = buf.decl.elements();
    std::vector<int64_t> at(rank, 0);
    for (int64_t e = 0; e < total; ++e) {
      int64_t flat = 0;
      bool inside = true;
      for (size_t d = 0; d < rank; ++d) {  // buffer dimension d runs along source dimension s
        auto s = static_cast<size_t>(n.layout[d]);
        int64_t i = origin[s] + at[d];
        if (i < 0 || i >= src.decl.extents[s])
          inside = false;
        else
          flat += i * src.strides[s];
      }
      buf.shared[e] = inside ? from[flat] : 0.0;
      for (size_t d = rank; d-- > 0;) {
        if (++at[d] < buf.decl.extents[d]) break;
        at[d] = 0;
      }
    }
  }

  std::vector<ArrayState> arrays_;
  std::map<std::string, int> arrayIds_;
  std::map<std::string, int> slots_;
  std::vector<int64_t> env_;
  ThreadKey threads_{};
  CNode root_;
};

}  // namespace

void execute(const Kernel& kernel, Buffers& buffers) {
  if (!kernel.body) throw ExecutionError("kernel " + kernel.name + " has no body");
  if (kernel.winograd()) return executeWinograd(kernel, buffers);
  if (kernel.backToBack()) return executeBackToBack(kernel, buffers);
  Machine machine(kernel, buffers);
  machine.run();
}

}  // namespace cudaburg
