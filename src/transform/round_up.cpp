// roundUp: a tile's register work runs over the whole tile, past the edge of the iteration space.
//
// A loop `for (i = i_o2; i < min(i_o2 + 8, M); i++)` whose body only reads shared and register
// buffers and writes register buffers keeps only `i_o2 + 8`: its iterations past M (phantom
// iterations) run too. That changes nothing a kernel computes when
//  - every buffer access in the body stays inside the buffer for every iteration of the whole
//    strips (checked by bounding each subscript over the loops around it, each index replaced by
//    `lower + step * t` for t below its loop's constant trip count: relations such as
//    `i - i_o` in [0, 64) survive, which bounds loop by loop would lose);
//  - every register buffer the body writes is indexed, dimension by dimension, by one loop's place
//    in its strip (`i - i_o2` under `for (i = i_o2; ...)`), in every access of the kernel, through
//    loops of the same bounds, and the rounded loop is one of those loops, or the block loop whose
//    threads own the buffer: a phantom iteration then writes only elements that no iteration
//    inside the bounds reads or writes (a thread's tile elements past the edge), and nothing that
//    reaches memory reads them (a store to memory keeps its guard: its loop writes no register
//    buffer alone).
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "src/transform/loop_facts.hpp"
#include "src/transform/transforms.hpp"
#include "src/transform/tree_edit.hpp"

namespace cudaburg {

namespace {

struct Span {
  __int128 min = 0, max = 0;
};

// The least and greatest value of `a` over the loops around it (outermost first), or nothing when
// one of its indices is bound by no loop, or by a loop of unknown range.
std::optional<Span> boundsOver(Affine a, const std::vector<const Node*>& loops) {
  std::map<std::string, Span> vars;
  for (size_t p = loops.size(); p-- > 0;) {
    const Node& l = *loops[p];
    if (!a.uses(l.index)) continue;
    if (auto trips = constantTripCount(l)) {
      // The index is lower + step * t: what the lower bound's indices are stays related.
      std::string t = "#" + std::to_string(p);
      a = a.substitute(l.index, l.lower + Affine::var(t, l.step));
      vars[t] = Span{0, std::max<int64_t>(0, *trips - 1)};
    } else {
      int64_t first = 0, upper = 0;
      if (!constantBounds(l, first, upper)) return std::nullopt;
      vars[l.index] = Span{first, std::max(first, upper - 1)};
    }
  }
  Span s{a.constant, a.constant};
  for (const auto& [name, coef] : a.terms) {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    __int128 x = coef * it->second.min, y = coef * it->second.max;
    s.min += std::min(x, y);
    s.max += std::max(x, y);
  }
  return s;
}

void loadsOf(const Expr& e, std::vector<Access>& out) {
  if (e.kind == Expr::Kind::Load) out.push_back(e.load);
  for (const auto& a : e.args) loadsOf(*a, out);
}

std::string uppersText(const Node& loop) {
  std::string s;
  for (const Affine& u : loop.upper) s += u.str() + ";";
  return s;
}

// How a register buffer is indexed: dimension d by `index[d] - base[d]`, where index[d]'s loop
// runs from base[d] through a chain of strip loops (`chain[d]`: j from j_o3, j_o3 from j_o2, base
// j_o2) whose edges agree, in every access; `consistent` false when not. An element then stands
// for one value of index[d], and lies past the edge exactly when that value does.
struct RegisterIndexing {
  bool consistent = true;
  std::vector<std::string> index;
  std::vector<Affine> base;
  std::vector<std::set<std::string>> chain;
  std::map<std::string, std::string> uppers;  // loop index -> its upper bounds, as seen around accesses
};

class RoundUp {
 public:
  explicit RoundUp(const Kernel& kernel) {
    for (const Array& p : kernel.params) spaces_[p.name] = &p;
    std::vector<const Node*> loops;
    collectRegisters(*kernel.body, loops);
  }

  NodePtr rewrite(const NodePtr& node, std::vector<const Node*>& loops) {
    if (node->kids.empty()) return node;
    if (node->kind == NodeKind::Alloc) spaces_[node->buffer.name] = &node->buffer;
    if (node->kind == NodeKind::For) loops.push_back(node.get());
    std::vector<NodePtr> kids;
    bool changed = false;
    for (const auto& kid : node->kids) {
      kids.push_back(rewrite(kid, loops));
      changed |= kids.back() != kid;
    }
    if (node->kind == NodeKind::For) loops.pop_back();
    NodePtr out = changed ? withKids(node, std::move(kids)) : node;
    if (node->kind != NodeKind::For) return out;
    std::vector<Affine> strip = stripBounds(*node);
    if (strip.empty() || strip.size() == node->upper.size() || !phantomsHarmless(*node, loops)) return out;
    auto rounded = std::make_shared<Node>(*out);
    rounded->upper = strip;
    ++rounded_;
    return rounded;
  }

  int rounded() const { return rounded_; }

 private:
  // The upper bounds a constant distance above the lower bound: what a rounded loop keeps.
  static std::vector<Affine> stripBounds(const Node& loop) {
    std::vector<Affine> keep;
    if (isGridMapping(loop.mapping) || isPipelined(loop.mapping)) return keep;
    for (const Affine& u : loop.upper)
      if ((u - loop.lower).isConstant() && (u - loop.lower).constant > 0) keep.push_back(u);
    return keep;
  }

  void collectRegisters(const Node& n, std::vector<const Node*>& loops) {
    if (n.kind == NodeKind::For) loops.push_back(&n);
    if (n.kind == NodeKind::Alloc && n.buffer.space == MemorySpace::Register) {
      RegisterIndexing& r = registers_[n.buffer.name];
      r.index.assign(n.buffer.extents.size(), "");
      r.base.assign(n.buffer.extents.size(), Affine());
      r.chain.assign(n.buffer.extents.size(), {});
    }
    if (n.kind == NodeKind::Assign) {
      std::vector<Access> accesses{n.target};
      loadsOf(*n.value, accesses);
      for (const Access& a : accesses) noteRegisterAccess(a, loops);
    }
    for (const auto& kid : n.kids) collectRegisters(*kid, loops);
    if (n.kind == NodeKind::For) loops.pop_back();
  }

  void noteRegisterAccess(const Access& a, const std::vector<const Node*>& loops) {
    auto it = registers_.find(a.array);
    if (it == registers_.end()) return;
    RegisterIndexing& r = it->second;
    if (a.subscripts.size() != r.index.size()) {
      r.consistent = false;
      return;
    }
    for (const Node* l : loops) {
      auto [seen, fresh] = r.uppers.emplace(l->index, uppersText(*l));
      if (!fresh && seen->second != uppersText(*l)) r.consistent = false;
    }
    for (size_t d = 0; d < a.subscripts.size(); ++d) {
      std::string index;
      Affine base;
      std::set<std::string> chain;
      if (!stripChain(a.subscripts[d], loops, index, base, chain)) {
        r.consistent = false;
        continue;
      }
      if (r.index[d].empty()) {
        r.index[d] = index;
        r.base[d] = base;
        r.chain[d] = chain;
      } else if (r.index[d] != index || r.base[d] != base || r.chain[d] != chain) {
        r.consistent = false;
      }
    }
  }

  // Whether `sub` is `x - base` for the innermost loop x it uses, where x's loop starts at base
  // or at the index of a loop that does (and so on up: strip loops inside a thread's tile) and
  // the loops of this chain share their edges: the upper bounds that use neither the chain's
  // indices nor base's (`M` in `i < min(i_o2 + 8, M)`).
  static bool stripChain(const Affine& sub, const std::vector<const Node*>& loops, std::string& index, Affine& base,
                         std::set<std::string>& chain) {
    auto loopOf = [&](const Affine& lower) -> const Node* {
      if (lower.terms.size() != 1 || lower.constant != 0 || lower.terms.begin()->second != 1) return nullptr;
      for (const Node* l : loops)
        if (l->index == lower.terms.begin()->first) return l;
      return nullptr;
    };
    const Node* x = nullptr;
    for (size_t p = loops.size(); p-- > 0 && !x;)
      if (sub.coef(loops[p]->index) == 1) x = loops[p];
    if (!x) return false;
    index = x->index;
    base = Affine::var(x->index) - sub;
    if (spreadRun(*x, base, loops, chain)) return true;
    std::vector<const Node*> links;
    for (const Node* l = x; l && links.size() <= loops.size(); l = loopOf(l->lower)) {
      links.push_back(l);
      chain.insert(l->index);
      if (l->lower == base) break;
    }
    if (links.back()->lower != base) return false;
    auto edges = [&](const Node& l) {
      std::string s;
      for (const Affine& u : l.upper) {
        bool edge = !(u - l.lower).isConstant();
        for (const auto& [name, coef] : u.terms) edge = edge && !chain.count(name) && !base.uses(name);
        if (edge) s += u.str() + ";";
      }
      return s;
    };
    for (const Node* l : links)
      if (edges(*l) != edges(*x)) return false;
    return true;
  }

  // Whether x is the element loop of a spread tile (register_tile.cpp) and `x - base` its place
  // in the thread's tile: x starts at base plus a run loop's index r (`i = i_o2 + 16*i_o3 + e`,
  // place `i - i_o2 - 15*i_o3`), r from 0 in steps no shorter than x's run, so that each place
  // stands for one value of x. The chain is x and r; x alone has edges.
  static bool spreadRun(const Node& x, const Affine& base, const std::vector<const Node*>& loops,
                        std::set<std::string>& chain) {
    Affine runs = x.lower - base;
    if (runs.constant != 0 || runs.terms.size() != 1 || runs.terms.begin()->second != 1) return false;
    const std::string& r = runs.terms.begin()->first;
    auto run = std::find_if(loops.begin(), loops.end(), [&](const Node* l) { return l->index == r; });
    auto elements = constantTripCount(x);
    if (run == loops.end() || (*run)->lower != Affine(0) || !elements || (*run)->step < *elements * x.step)
      return false;
    chain = {x.index, r};
    return true;
  }

  const Array* arrayNamed(const std::string& name) const {
    auto it = spaces_.find(name);
    return it == spaces_.end() ? nullptr : it->second;
  }

  bool inside(const Access& a, const Array& array, const std::vector<const Node*>& loops) const {
    if (a.subscripts.size() != array.extents.size()) return false;
    for (size_t d = 0; d < a.subscripts.size(); ++d) {
      auto span = boundsOver(a.subscripts[d], loops);
      if (!span || span->min < 0 || span->max >= array.extents[d]) return false;
    }
    return true;
  }

  // Whether the iterations of `loop` past its other bounds change nothing (see the top).
  bool phantomsHarmless(const Node& loop, std::vector<const Node*>& loops) {
    loops.push_back(&loop);
    bool ok = bodyHarmless(*loop.body(), loop, loops);
    loops.pop_back();
    return ok;
  }

  bool bodyHarmless(const Node& n, const Node& rounded, std::vector<const Node*>& loops) {
    switch (n.kind) {
      case NodeKind::Stage:
      case NodeKind::Barrier:
        return false;
      case NodeKind::Alloc:
        if (n.buffer.space != MemorySpace::Register) return false;
        spaces_[n.buffer.name] = &n.buffer;
        return bodyHarmless(*n.body(), rounded, loops);
      case NodeKind::Seq:
        for (const auto& kid : n.kids)
          if (!bodyHarmless(*kid, rounded, loops)) return false;
        return true;
      case NodeKind::For: {
        loops.push_back(&n);
        bool ok = bodyHarmless(*n.body(), rounded, loops);
        loops.pop_back();
        return ok;
      }
      case NodeKind::Assign: {
        const Array* target = arrayNamed(n.target.array);
        if (!target || target->space != MemorySpace::Register || n.atomic || !inside(n.target, *target, loops))
          return false;
        auto r = registers_.find(n.target.array);
        if (r == registers_.end() || !r->second.consistent) return false;
        bool tied = false;
        for (size_t d = 0; d < r->second.index.size(); ++d)
          tied |= r->second.chain[d].count(rounded.index) ||
                  (isBlockMapping(rounded.mapping) && r->second.base[d].uses(rounded.index));
        if (!tied) return false;
        std::vector<Access> loads;
        loadsOf(*n.value, loads);
        for (const Access& a : loads) {
          const Array* array = arrayNamed(a.array);
          if (!array || array->space == MemorySpace::Global || !inside(a, *array, loops)) return false;
        }
        return true;
      }
    }
    return false;
  }

  std::map<std::string, const Array*> spaces_;  // arrays and buffers by name
  std::map<std::string, RegisterIndexing> registers_;
  int rounded_ = 0;
};

}  // namespace

TransformResult roundUp(const Kernel& kernel) {
  RoundUp r(kernel);
  std::vector<const Node*> loops;
  NodePtr body = r.rewrite(kernel.body, loops);
  if (r.rounded() == 0)
    return TransformResult::refuse("no loop works on registers alone up to an edge: nothing to round up");
  return accept(kernel, body);
}

}  // namespace cudaburg
