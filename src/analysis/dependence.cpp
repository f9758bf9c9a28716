#include "src/analysis/dependence.hpp"

#include <algorithm>
#include <sstream>

#include "src/analysis/linear_system.hpp"
#include "src/loop/tree_walk.hpp"

namespace cudaburg {

char directionChar(Direction d) {
  switch (d) {
    case Direction::Less:
      return '<';
    case Direction::Equal:
      return '=';
    case Direction::Greater:
      return '>';
    case Direction::Any:
      return '*';
  }
  return '*';
}

const char* dependenceKindName(DependenceKind k) {
  switch (k) {
    case DependenceKind::Flow:
      return "flow";
    case DependenceKind::Anti:
      return "anti";
    case DependenceKind::Output:
      return "output";
    case DependenceKind::Reduction:
      return "reduction";
  }
  return "flow";
}

const Node* Dependence::carrier() const {
  for (size_t i = 0; i < directions.size(); ++i)
    if (directions[i] != Direction::Equal) return loops[i];
  return nullptr;
}

bool Dependence::sameIterationOutside(const Node* loop) const {
  for (size_t i = 0; i < loops.size(); ++i) {
    if (loops[i] == loop) return true;
    if (directions[i] != Direction::Equal) return false;
  }
  return false;
}

std::string Dependence::directionString() const {
  std::string s = "(";
  for (size_t i = 0; i < directions.size(); ++i) s += (i ? ", " : "") + std::string(1, directionChar(directions[i]));
  return s + ")";
}

namespace {

enum class Role { Read, Write, Update };  // Update: the target of `+=`, read and written

// One array access of a statement. A Stage's accesses range over its box: pseudo-indices
// "#0", "#1", ... run over the buffer's extents.
struct AccessSite {
  std::string array;
  std::vector<Affine> subscripts;
  Role role = Role::Read;
  std::vector<int64_t> box;
  bool exact = true;  // false: the subscripts use indices the test does not model (a gather's)
};

bool writes(Role r) { return r != Role::Read; }
bool reads(Role r) { return r != Role::Write; }

std::string boxIndex(size_t d) { return "#" + std::to_string(d); }

void collectReads(const Expr& e, std::vector<AccessSite>& out) {
  if (e.kind == Expr::Kind::Load) out.push_back({e.load.array, e.load.subscripts, Role::Read, {}});
  for (const ExprPtr& arg : e.args) collectReads(*arg, out);
}

std::vector<AccessSite> accessesOf(const Node& stmt) {
  std::vector<AccessSite> out;
  if (stmt.kind == NodeKind::Assign) {
    out.push_back({stmt.target.array, stmt.target.subscripts, stmt.accumulate ? Role::Update : Role::Write, {}});
    collectReads(*stmt.value, out);
  } else if (stmt.kind == NodeKind::Stage) {
    AccessSite write{stmt.buffer.name, {}, Role::Write, stmt.buffer.extents};
    AccessSite read{stmt.source, {}, Role::Read, stmt.buffer.extents};
    read.subscripts.resize(stmt.buffer.extents.size());
    for (size_t d = 0; d < stmt.buffer.extents.size(); ++d) {
      write.subscripts.push_back(Affine::var(boxIndex(d)));
      auto s = static_cast<size_t>(layoutSource(stmt, d));  // buffer dimension d holds source dimension s
      read.subscripts[s] = stmt.origin[s] + Affine::var(boxIndex(d));
    }
    if (!stmt.gather.empty()) read = {stmt.source, stmt.gatherSubscripts, Role::Read, {}, false};
    out.push_back(std::move(write));
    out.push_back(std::move(read));
  }
  return out;
}

void collectStatements(const Node& root, std::vector<Statement>& out) {
  walkTree(root, [&](const Node& node, const std::vector<const Node*>& loops) {
    if (node.kind == NodeKind::Assign || node.kind == NodeKind::Stage) out.push_back({&node, loops, int(out.size())});
    return Walk::Into;
  });
}

// The iteration space of one statement instance inside a LinearSystem: a variable for each of
// its loops (or for the trip number of a loop with a step) and for each box dimension.
struct Instance {
  std::map<std::string, LinearExpr> env;  // index name -> its value over the variables
  std::vector<LinearExpr> loopIndex;      // the index value of each enclosing loop
};

class PairTest {
 public:
  PairTest(const Statement& s1, const AccessSite& a1, const Statement& s2, const AccessSite& a2) {
    while (common_ < s1.loops.size() && common_ < s2.loops.size() && s1.loops[common_] == s2.loops[common_]) ++common_;
    // Numbers too large to combine without overflow: the pair is taken to depend in every
    // direction (transformations that need it not to are refused), which is always safe.
    exact_ = a1.exact && a2.exact && moderate(s1, a1) && moderate(s2, a2);
    if (!exact_) return;
    size_t vars = variablesOf(s1) + a1.box.size() + variablesOf(s2) + a2.box.size();
    system_ = LinearSystem(vars + 1);  // the last variable is kept free for distances
    next_ = 0;
    Instance i1 = place(s1, a1);
    Instance i2 = place(s2, a2);
    for (size_t d = 0; d < a1.subscripts.size() && d < a2.subscripts.size(); ++d)
      system_.addZero(linear(a1.subscripts[d], i1) - linear(a2.subscripts[d], i2));
    first_ = std::move(i1);
    second_ = std::move(i2);
  }

  size_t commonLoops() const { return common_; }

  // Every direction vector over the shared loops for which the two accesses meet. There may be
  // 3^loops of them (an element every iteration writes); past kMaxExactVectors, the levels more
  // than one below the carrying loop are summarised as Any. What the legality questions read is
  // still exact: the carrier, the levels outside it, and the one inside it (interchange).
  std::vector<std::vector<Direction>> directionVectors() const {
    if (!exact_) return {std::vector<Direction>(common_, Direction::Any)};
    std::vector<std::vector<Direction>> out;
    if (!system_.mayBeFeasible()) return out;
    std::vector<Direction> prefix;
    if (refine(system_, prefix, out, false)) return out;
    out.clear();
    refine(system_, prefix, out, true);
    return out;
  }

  // The distance (second - first) on shared loop `level` under direction vector `dirs`.
  std::optional<int64_t> distance(const std::vector<Direction>& dirs, size_t level) const {
    if (!exact_) return std::nullopt;
    LinearSystem s = system_;
    for (size_t l = 0; l < dirs.size(); ++l)
      if (dirs[l] != Direction::Any) constrain(s, l, dirs[l]);
    size_t d = s.variables() - 1;
    LinearExpr e = first_.loopIndex[level] - second_.loopIndex[level];
    e.coefs[d] = 1;  // d = second - first
    s.addZero(e);
    auto r = s.range(d);
    if (r && r->first && r->second && *r->first == *r->second) return *r->first;
    return std::nullopt;
  }

 private:
  // Constants (bounds, offsets, extents) within 2^44 and coefficients and steps within 2^16, so
  // that the sums and products of the test stay far from 64-bit overflow.
  static constexpr int64_t kModerateConstant = int64_t(1) << 44, kModerate = int64_t(1) << 16;
  static bool moderate(const Affine& a) {
    if (a.constant > kModerateConstant || a.constant < -kModerateConstant) return false;
    for (const auto& [name, c] : a.terms)
      if (c > kModerate || c < -kModerate) return false;
    return true;
  }
  static bool moderate(const Statement& s, const AccessSite& a) {
    for (const Node* loop : s.loops) {
      if (!moderate(loop->lower) || loop->step > kModerate || loop->step < -kModerate) return false;
      for (size_t j = 0; j < loop->collapsed.size(); ++j) {
        const CollapsedLoop& c = loop->collapsed[j];
        if (digitStride(loop->collapsed, j) > kModerate || c.step > kModerate || c.trips > kModerateConstant ||
            c.lower > kModerateConstant || c.lower < -kModerateConstant)
          return false;
      }
      for (const Affine& u : loop->upper)
        if (!moderate(u)) return false;
    }
    for (const Affine& sub : a.subscripts)
      if (!moderate(sub)) return false;
    for (int64_t extent : a.box)
      if (extent > kModerateConstant || extent < -kModerateConstant) return false;
    return true;
  }

  LinearExpr linear(const Affine& a, const Instance& inst) const {
    LinearExpr e(system_.variables());
    e.constant = a.constant;
    for (const auto& [name, c] : a.terms) {
      auto it = inst.env.find(name);
      if (it == inst.env.end()) continue;  // not an index of this instance: treated as 0
      for (size_t v = 0; v < e.coefs.size(); ++v) e.coefs[v] += c * it->second.coefs[v];
      e.constant += c * it->second.constant;
    }
    return e;
  }

  // A variable for each loop, and for each digit of a collapsed loop.
  static size_t variablesOf(const Statement& s) {
    size_t n = 0;
    for (const Node* loop : s.loops) n += 1 + loop->collapsed.size();
    return n;
  }

  // The indices a collapsed loop derives, exactly: a digit variable each, 0 <= d_j < t_j,
  // tied to the loop's index by index = sum of d_j * (t_{j+1} * ...).
  void placeDerived(const Node& loop, const LinearExpr& index, Instance& inst) {
    LinearExpr sum(system_.variables());
    for (size_t j = 0; j < loop.collapsed.size(); ++j) {
      const CollapsedLoop& c = loop.collapsed[j];
      LinearExpr digit(system_.variables());
      digit.coefs[next_++] = 1;
      system_.addAtLeastZero(digit);
      LinearExpr below(system_.variables()), value(system_.variables());
      below.coefs[next_ - 1] = -1;
      below.constant = c.trips - 1;
      system_.addAtLeastZero(below);
      value.coefs[next_ - 1] = c.step;
      value.constant = c.lower;
      inst.env[c.index] = value;
      sum.coefs[next_ - 1] = digitStride(loop.collapsed, j);
    }
    if (!loop.collapsed.empty()) system_.addZero(index - sum);
  }

  Instance place(const Statement& s, const AccessSite& a) {
    Instance inst;
    for (const Node* loop : s.loops) {
      LinearExpr lower = linear(loop->lower, inst);
      LinearExpr var(system_.variables());
      var.coefs[next_++] = 1;
      LinearExpr index = lower;
      if (loop->step == 1) {
        index = var;
        system_.addAtLeastZero(index - lower);
      } else {
        for (size_t v = 0; v < index.coefs.size(); ++v) index.coefs[v] += loop->step * var.coefs[v];
        system_.addAtLeastZero(var);
      }
      for (const Affine& u : loop->upper) {
        LinearExpr bound = linear(u, inst) - index;
        bound.constant -= 1;
        system_.addAtLeastZero(bound);
      }
      inst.env[loop->index] = index;
      inst.loopIndex.push_back(index);
      placeDerived(*loop, index, inst);
    }
    for (size_t d = 0; d < a.box.size(); ++d) {
      LinearExpr var(system_.variables());
      var.coefs[next_++] = 1;
      system_.addAtLeastZero(var);
      LinearExpr bound = var;
      for (int64_t& c : bound.coefs) c = -c;
      bound.constant = a.box[d] - 1;
      system_.addAtLeastZero(bound);
      inst.env[boxIndex(d)] = var;
    }
    return inst;
  }

  void constrain(LinearSystem& s, size_t level, Direction dir) const {
    const LinearExpr& first = first_.loopIndex[level];
    const LinearExpr& second = second_.loopIndex[level];
    if (dir == Direction::Equal) {
      s.addZero(second - first);
      return;
    }
    LinearExpr gap = dir == Direction::Less ? second - first : first - second;  // gap >= 1
    gap.constant -= 1;
    s.addAtLeastZero(gap);
  }

  // Extends `prefix` level by level with the directions the system allows. Exact, it gives up
  // (returns false) past kMaxExactVectors; summarising, it ends a vector with Any from the
  // second level below its carrier on.
  bool refine(const LinearSystem& s, std::vector<Direction>& prefix, std::vector<std::vector<Direction>>& out,
              bool summarise) const {
    size_t level = prefix.size();
    if (summarise && level < common_) {
      auto carrier = std::find_if(prefix.begin(), prefix.end(), [](Direction d) { return d != Direction::Equal; });
      if (carrier != prefix.end() && level > size_t(carrier - prefix.begin()) + 1) {
        std::vector<Direction> v = prefix;
        v.resize(common_, Direction::Any);
        out.push_back(std::move(v));
        return true;
      }
    }
    if (level == common_) {
      out.push_back(prefix);
      return summarise || out.size() <= kMaxExactVectors;
    }
    for (Direction dir : {Direction::Less, Direction::Equal, Direction::Greater}) {
      LinearSystem next = s;
      constrain(next, level, dir);
      if (!next.mayBeFeasible()) continue;
      prefix.push_back(dir);
      bool within = refine(next, prefix, out, summarise);
      prefix.pop_back();
      if (!within) return false;
    }
    return true;
  }

  static constexpr size_t kMaxExactVectors = 64;

  LinearSystem system_{0};
  size_t next_ = 0;
  size_t common_ = 0;
  bool exact_ = true;
  Instance first_, second_;
};

// The first non-'=' direction is '<' (first instance runs first), '>' (second runs first),
// or there is none.
int orientation(const std::vector<Direction>& dirs) {
  for (Direction d : dirs) {
    if (d == Direction::Less) return 1;
    if (d == Direction::Greater) return -1;
  }
  return 0;
}

DependenceKind kindOf(Role source, Role sink, bool sameStatementTargets) {
  if (sameStatementTargets && source == Role::Update && sink == Role::Update) return DependenceKind::Reduction;
  if (writes(source) && reads(sink)) return DependenceKind::Flow;
  if (writes(source)) return DependenceKind::Output;
  return DependenceKind::Anti;
}

// The loops around the Alloc of each buffer (the least, where several Allocs share a name): each
// iteration of them has its own copy of the buffer (a local scalar, a block's shared tile), so no
// dependence on it crosses their iterations.
std::map<std::string, size_t> privateLoopDepths(const Node& root) {
  std::map<std::string, size_t> depths;
  walkTree(root, [&](const Node& node, const std::vector<const Node*>& loops) {
    if (node.kind != NodeKind::Alloc) return Walk::Into;
    auto [it, inserted] = depths.emplace(node.buffer.name, loops.size());
    if (!inserted) it->second = std::min(it->second, loops.size());
    return Walk::Into;
  });
  return depths;
}

// Keeps a direction vector's dependence on a buffer only within one iteration of the loops outside
// its Alloc: false where it crosses them, those loops' '*' narrowed to '='.
bool withinPrivateCopy(std::vector<Direction>& dirs, size_t privateLoops) {
  for (size_t l = 0; l < dirs.size() && l < privateLoops; ++l) {
    if (dirs[l] == Direction::Less || dirs[l] == Direction::Greater) return false;
    dirs[l] = Direction::Equal;
  }
  return true;
}

}  // namespace

DependenceGraph::DependenceGraph(const Kernel& kernel) {
  std::map<std::string, size_t> privateLoops;
  if (kernel.body) privateLoops = privateLoopDepths(*kernel.body);
  if (kernel.body) collectStatements(*kernel.body, statements_);
  for (const Statement& s : statements_) boost::add_vertex(s, graph_);

  std::vector<std::vector<AccessSite>> accesses;
  for (const Statement& s : statements_) accesses.push_back(accessesOf(*s.node));

  for (size_t i = 0; i < statements_.size(); ++i) {
    for (size_t j = i; j < statements_.size(); ++j) {
      for (size_t x = 0; x < accesses[i].size(); ++x) {
        for (size_t y = (i == j ? x : 0); y < accesses[j].size(); ++y) {
          const AccessSite& a = accesses[i][x];
          const AccessSite& b = accesses[j][y];
          if (a.array != b.array || (!writes(a.role) && !writes(b.role))) continue;
          PairTest test(statements_[i], a, statements_[j], b);
          auto buffer = privateLoops.find(a.array);
          for (std::vector<Direction> dirs : test.directionVectors()) {
            if (buffer != privateLoops.end() && !withinPrivateCopy(dirs, buffer->second)) continue;
            int o = orientation(dirs);
            if (o == 0 && i == j) continue;  // one instance of one statement
            bool forward = o > 0 || (o == 0 && statements_[i].order < statements_[j].order);
            if (i == j && x == y && !forward) continue;  // the mirror image of a forward one
            Dependence d;
            d.source = int(forward ? i : j);
            d.sink = int(forward ? j : i);
            const AccessSite& src = forward ? a : b;
            const AccessSite& snk = forward ? b : a;
            d.kind = kindOf(src.role, snk.role, i == j && x == 0 && y == 0);
            d.array = a.array;
            d.loops.assign(statements_[i].loops.begin(), statements_[i].loops.begin() + test.commonLoops());
            for (size_t l = 0; l < dirs.size(); ++l) {
              std::optional<int64_t> dist = test.distance(dirs, l);
              d.distances.push_back(dist && !forward ? std::optional<int64_t>(-*dist) : dist);
            }
            for (Direction dir : dirs)
              d.directions.push_back(forward || dir == Direction::Equal || dir == Direction::Any ? dir
                                     : dir == Direction::Less                                    ? Direction::Greater
                                                                                                 : Direction::Less);
            boost::add_edge(d.source, d.sink, d, graph_);
            dependences_.push_back(std::move(d));
          }
        }
      }
    }
  }
}

std::vector<const Dependence*> DependenceGraph::carriedBy(const Node* loop) const {
  std::vector<const Dependence*> out;
  for (const Dependence& d : dependences_)
    if (d.carrier() == loop) out.push_back(&d);
  return out;
}

bool DependenceGraph::encloses(const Node* loop, int stmt) const {
  const auto& loops = statements_.at(stmt).loops;
  return std::find(loops.begin(), loops.end(), loop) != loops.end();
}

std::string DependenceGraph::describe(const Dependence& d) const {
  std::ostringstream out;
  out << dependenceKindName(d.kind) << ' ' << d.array << ": S" << d.source << " -> S" << d.sink << ' '
      << d.directionString();
  if (!d.distances.empty()) {
    out << " distance (";
    for (size_t i = 0; i < d.distances.size(); ++i) {
      out << (i ? ", " : "");
      if (d.distances[i])
        out << *d.distances[i];
      else
        out << '*';
    }
    out << ')';
  }
  return out.str();
}

std::string DependenceGraph::str() const {
  std::string s;
  for (const Dependence& d : dependences_) s += describe(d) + "\n";
  return s;
}

}  // namespace cudaburg
