#include "src/loop/loop_tree.hpp"

#include <algorithm>

#include <limits>
#include <sstream>
#include <stdexcept>

namespace cudaburg {

const char* scalarTypeName(ScalarType t) {
  switch (t) {
    case ScalarType::Float:
      return "float";
    case ScalarType::Double:
      return "double";
    case ScalarType::Half:
      return "half";
    case ScalarType::Int:
      return "int";
    case ScalarType::BFloat16:
      return "bfloat16";
    case ScalarType::TF32:
      return "tf32";
  }
  return "float";
}

const char* cudaTypeName(ScalarType t) {
  switch (t) {
    case ScalarType::Half:
      return "__half";
    case ScalarType::BFloat16:
      return "__nv_bfloat16";
    case ScalarType::TF32:
      return "float";
    default:
      return scalarTypeName(t);
  }
}

int scalarTypeBytes(ScalarType t) {
  switch (t) {
    case ScalarType::Double:
      return 8;
    case ScalarType::Half:
    case ScalarType::BFloat16:
      return 2;
    default:
      return 4;
  }
}

Affine Affine::var(const std::string& name, int64_t coef) {
  Affine a;
  if (coef != 0) a.terms[name] = coef;
  return a;
}

int64_t Affine::coef(const std::string& name) const {
  auto it = terms.find(name);
  return it == terms.end() ? 0 : it->second;
}

Affine Affine::substitute(const std::string& name, const Affine& by) const {
  int64_t c = coef(name);
  if (c == 0) return *this;
  Affine rest = *this;
  rest.terms.erase(name);
  return rest + by * c;
}

int64_t Affine::eval(const std::map<std::string, int64_t>& env) const {
  int64_t v = constant;
  for (const auto& [name, c] : terms) {
    auto it = env.find(name);
    if (it != env.end()) v += c * it->second;
  }
  return v;
}

// Text that reads back to the same Affine: INT64_MIN, whose magnitude is no literal, is written
// as -9223372036854775807 less one more ("-9223372036854775807*i - i", "-9223372036854775807 - 1").
std::string Affine::str() const {
  std::ostringstream out;
  bool first = true;
  auto term = [&](int64_t c, const std::string& name) {
    bool least = c == std::numeric_limits<int64_t>::min();
    int64_t mag = least ? std::numeric_limits<int64_t>::max() : c < 0 ? -c : c;
    if (first)
      out << (c < 0 ? "-" : "");
    else
      out << (c < 0 ? " - " : " + ");
    if (name.empty())
      out << mag;
    else
      out << (mag != 1 ? std::to_string(mag) + "*" : "") << name;
    if (least) out << " - " << (name.empty() ? "1" : name);
    first = false;
  };
  for (const auto& [name, c] : terms) term(c, name);
  if (first || constant != 0) term(constant, "");
  return out.str();
}

Affine operator+(const Affine& a, const Affine& b) {
  Affine r = a;
  r.constant += b.constant;
  for (const auto& [name, c] : b.terms) {
    int64_t v = (r.terms[name] += c);
    if (v == 0) r.terms.erase(name);
  }
  return r;
}

Affine operator-(const Affine& a, const Affine& b) { return a + b * -1; }

Affine operator*(const Affine& a, int64_t k) {
  Affine r;
  if (k == 0) return r;
  r.constant = a.constant * k;
  for (const auto& [name, c] : a.terms) r.terms[name] = c * k;
  return r;
}

int64_t Array::elements() const {
  int64_t n = 1;
  for (int64_t e : extents) n *= e;
  return n;
}

std::string Access::str() const {
  std::string s = array;
  for (const auto& sub : subscripts) s += "[" + sub.str() + "]";
  return s;
}

ExprPtr Expr::constant(double v) {
  auto e = std::make_shared<Expr>();
  e->kind = Kind::Constant;
  e->value = v;
  return e;
}

ExprPtr Expr::indexValue(Affine a) {
  auto e = std::make_shared<Expr>();
  e->kind = Kind::Index;
  e->index = std::move(a);
  return e;
}

ExprPtr Expr::read(Access a) {
  auto e = std::make_shared<Expr>();
  e->kind = Kind::Load;
  e->load = std::move(a);
  return e;
}

ExprPtr Expr::binary(char op, ExprPtr l, ExprPtr r) {
  auto e = std::make_shared<Expr>();
  e->kind = Kind::Binary;
  e->op = op;
  e->args = {std::move(l), std::move(r)};
  return e;
}

ExprPtr Expr::call(std::string callee, ExprPtr l, ExprPtr r) {
  return call(std::move(callee), std::vector<ExprPtr>{std::move(l), std::move(r)});
}

ExprPtr Expr::call(std::string callee, std::vector<ExprPtr> args) {
  auto e = std::make_shared<Expr>();
  e->kind = Kind::Call;
  e->callee = std::move(callee);
  e->args = std::move(args);
  return e;
}

std::string Expr::str() const {
  switch (kind) {
    case Kind::Constant: {
      std::ostringstream out;
      out << value;
      return out.str();
    }
    case Kind::Index:
      return index.str();
    case Kind::Load:
      return load.str();
    case Kind::Binary:
      return "(" + args[0]->str() + " " + op + " " + args[1]->str() + ")";
    case Kind::Call: {
      std::string s = callee + "(";
      for (size_t a = 0; a < args.size(); ++a) s += (a ? ", " : "") + args[a]->str();
      return s + ")";
    }
  }
  return "?";
}

const char* loopKindName(LoopKind k) {
  switch (k) {
    case LoopKind::Parallel:
      return "parallel";
    case LoopKind::Reduce:
      return "reduce";
    case LoopKind::Serial:
      return "serial";
  }
  return "serial";
}

const char* mappingName(Mapping m) {
  switch (m) {
    case Mapping::None:
      return "none";
    case Mapping::GridX:
      return "grid.x";
    case Mapping::GridY:
      return "grid.y";
    case Mapping::GridZ:
      return "grid.z";
    case Mapping::BlockX:
      return "block.x";
    case Mapping::BlockY:
      return "block.y";
    case Mapping::BlockZ:
      return "block.z";
    case Mapping::ThreadSerial:
      return "serial";
    case Mapping::Unrolled:
      return "unroll";
    case Mapping::Vector:
      return "vector";
    case Mapping::Pipelined:
      return "pipelined";
    case Mapping::AsyncPipelined:
      return "async";
    case Mapping::Mma:
      return "mma";
  }
  return "none";
}

bool isPipelined(Mapping m) { return m == Mapping::Pipelined || m == Mapping::AsyncPipelined; }

bool isGridMapping(Mapping m) { return m == Mapping::GridX || m == Mapping::GridY || m == Mapping::GridZ; }
bool isBlockMapping(Mapping m) { return m == Mapping::BlockX || m == Mapping::BlockY || m == Mapping::BlockZ; }

int64_t digitStride(const std::vector<CollapsedLoop>& loops, size_t j) {
  int64_t stride = 1;
  for (size_t i = j + 1; i < loops.size(); ++i) stride *= loops[i].trips;
  return stride;
}

int64_t collapsedTrips(const std::vector<CollapsedLoop>& loops) {
  return loops.empty() ? 0 : digitStride(loops, 0) * loops[0].trips;
}

std::vector<int64_t> derivedValues(const std::vector<CollapsedLoop>& loops, int64_t value) {
  std::vector<int64_t> out(loops.size());
  for (size_t j = loops.size(); j-- > 0;) {
    int64_t digit = j == 0 ? value : value % loops[j].trips;
    value /= loops[j].trips;
    out[j] = loops[j].lower + loops[j].step * digit;
  }
  return out;
}

bool usesLoop(const Affine& a, const Node& loop) {
  if (a.uses(loop.index)) return true;
  for (const auto& c : loop.collapsed)
    if (a.uses(c.index)) return true;
  return false;
}

NodePtr makeFor(std::string index, Affine lower, std::vector<Affine> upper, int64_t step, LoopKind kind, NodePtr body,
                Mapping mapping, SourceLoc loc) {
  if (step <= 0) throw std::invalid_argument("loop step must be positive");
  if (upper.empty()) throw std::invalid_argument("loop needs an upper bound");
  auto n = std::make_shared<Node>();
  n->kind = NodeKind::For;
  n->index = std::move(index);
  n->lower = std::move(lower);
  n->upper = std::move(upper);
  n->step = step;
  n->loopKind = kind;
  n->mapping = mapping;
  n->kids = {std::move(body)};
  n->loc = loc;
  return n;
}

NodePtr makeAssign(Access target, ExprPtr value, bool accumulate, SourceLoc loc) {
  auto n = std::make_shared<Node>();
  n->kind = NodeKind::Assign;
  n->target = std::move(target);
  n->value = std::move(value);
  n->accumulate = accumulate;
  n->loc = loc;
  return n;
}

NodePtr makeAlloc(Array buffer, NodePtr body) {
  auto n = std::make_shared<Node>();
  n->kind = NodeKind::Alloc;
  n->buffer = std::move(buffer);
  n->kids = {std::move(body)};
  return n;
}

NodePtr makeStage(Array buffer, std::string source, std::vector<Affine> origin, std::vector<int> layout) {
  if (origin.size() != buffer.extents.size()) throw std::invalid_argument("stage origin and buffer differ in rank");
  if (!layout.empty()) {
    if (layout.size() != origin.size()) throw std::invalid_argument("stage layout and buffer differ in rank");
    std::vector<bool> seen(layout.size(), false);
    for (int d : layout) {
      if (d < 0 || d >= static_cast<int>(layout.size()) || seen[static_cast<size_t>(d)])
        throw std::invalid_argument("stage layout is not a permutation");
      seen[static_cast<size_t>(d)] = true;
    }
  }
  auto n = std::make_shared<Node>();
  n->kind = NodeKind::Stage;
  n->buffer = std::move(buffer);
  n->source = std::move(source);
  n->origin = std::move(origin);
  n->layout = std::move(layout);
  return n;
}

int layoutSource(const Node& stage, size_t d) {
  return stage.layout.empty() ? static_cast<int>(d) : stage.layout.at(d);
}

NodePtr makeBarrier() {
  auto n = std::make_shared<Node>();
  n->kind = NodeKind::Barrier;
  return n;
}

NodePtr makeSeq(const std::vector<NodePtr>& stmts) {
  if (stmts.empty()) throw std::invalid_argument("empty statement sequence");
  NodePtr rest = stmts.back();
  for (size_t i = stmts.size() - 1; i-- > 0;) {
    auto n = std::make_shared<Node>();
    n->kind = NodeKind::Seq;
    n->kids = {stmts[i], rest};
    rest = n;
  }
  return rest;
}

std::vector<NodePtr> flattenSeq(const NodePtr& node) {
  std::vector<NodePtr> out;
  NodePtr cur = node;
  while (cur->kind == NodeKind::Seq) {
    auto first = flattenSeq(cur->kids[0]);
    out.insert(out.end(), first.begin(), first.end());
    cur = cur->kids[1];
  }
  out.push_back(cur);
  return out;
}

NodePtr withKids(const NodePtr& node, std::vector<NodePtr> kids) {
  auto n = std::make_shared<Node>(*node);
  n->kids = std::move(kids);
  return n;
}

const Array* Kernel::findParam(const std::string& name) const {
  for (const auto& a : params)
    if (a.name == name) return &a;
  return nullptr;
}

int64_t Kernel::size(const std::string& name) const {
  for (const auto& [n, v] : sizes)
    if (n == name) return v;
  return -1;
}

std::string warpLanesProblem(int64_t rows, int64_t cols, int64_t threadsY, int64_t threadsX) {
  auto powerOfTwo = [](int64_t n) { return n > 0 && (n & (n - 1)) == 0; };
  if (!powerOfTwo(rows) || !powerOfTwo(cols) || rows > 32 || cols > 32 || rows * cols != 32)
    return "a warp's 32 threads cannot be arranged as " + std::to_string(rows) + " rows by " + std::to_string(cols) +
           " columns (powers of two whose product is 32)";
  if (threadsY > 0 && threadsX > 0 && (threadsY % rows || threadsX % cols))
    return "warps of " + std::to_string(rows) + " by " + std::to_string(cols) + " threads do not tile a block of " +
           std::to_string(threadsY) + " by " + std::to_string(threadsX) + " threads (block.y by block.x)";
  return "";
}

bool constantBounds(const Node& loop, int64_t& lower, int64_t& upper) {
  if (loop.kind != NodeKind::For || !loop.lower.isConstant() || loop.upper.empty()) return false;
  lower = loop.lower.constant;
  upper = INT64_MAX;
  for (const Affine& u : loop.upper) {
    if (!u.isConstant()) return false;
    upper = std::min(upper, u.constant);
  }
  return true;
}

Kernel Kernel::withBody(NodePtr newBody) const {
  Kernel k = *this;
  k.body = std::move(newBody);
  return k;
}

}  // namespace cudaburg
