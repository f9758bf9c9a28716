#include "src/idioms/back_to_back/back_to_back_pair.hpp"

#include "src/analysis/nest_sequence.hpp"
#include "src/analysis/reference_shape.hpp"
#include "src/loop/tree_walk.hpp"
#include "src/transform/tree_edit.hpp"

namespace cudaburg {

namespace {

// The parallel loops around `nest`'s body, outermost first.
std::vector<const Node*> parallelLoops(const Kernel& nest) {
  std::vector<const Node*> loops;
  for (const Node* n = nest.body.get(); n->kind == NodeKind::For && n->loopKind == LoopKind::Parallel;
       n = n->body().get())
    loops.push_back(n);
  return loops;
}

// The index a subscript is when it is one loop's index alone ("" otherwise).
std::string plainIndex(const Affine& a) {
  if (a.constant != 0 || a.terms.size() != 1 || a.terms.begin()->second != 1) return "";
  return a.terms.begin()->first;
}

bool readsArray(const Node& root, const std::string& array) {
  bool found = false;
  forEachNode(root, [&](const Node& n) { found = found || (n.kind == NodeKind::Assign && reads(n.value, array)); });
  return found;
}

// Reads nest `which` ("first", "second") as a product of row-major operands with its epilogue.
std::optional<BackToBackProduct> productOf(const Kernel& nest, const std::string& which, std::string& why) {
  std::string epilogueWhy;
  auto split = splitNestEpilogue(nest, &epilogueWhy);
  if (!split) {
    why = "the " + which + " nest's statements after its reduction are no epilogue: " + epilogueWhy;
    return std::nullopt;
  }
  auto gemm = recognizeGemm(split->bare);
  const Node* local = findNode(*nest.body, [](const Node& n) { return n.kind == NodeKind::Alloc; });
  if (!gemm && local) {
    why = "the " + which + " nest sums into the local `" + local->buffer.name +
          "`: the b2b step takes products summed into their output array";
    return std::nullopt;
  }
  if (!gemm) {
    why = "the " + which + " nest is no matrix product as written";
    return std::nullopt;
  }
  if (gemm->batch != 1 || gemm->aTransposed || gemm->bTransposed) {
    why = "the " + which + " nest's product is " + (gemm->batch != 1 ? "batched" : "of a transposed operand") +
          ": the b2b step takes two row-major products";
    return std::nullopt;
  }
  if (parallelLoops(nest).size() != 2) {
    why = "the " + which + " nest has " + std::to_string(parallelLoops(nest).size()) +
          " parallel loops: the b2b step takes a product's rows and columns";
    return std::nullopt;
  }
  BackToBackProduct p{*split, gemm->a, gemm->b, gemm->c, gemm->lda, gemm->ldb, gemm->ldc, "", "", ""};
  std::string leftRow;  // the index of the left operand's row
  forEachNode(*split->bare.body, [&](const Node& n) {
    if (n.kind == NodeKind::For && n.loopKind == LoopKind::Reduce && p.reduction.empty()) p.reduction = n.index;
    if (n.kind == NodeKind::Assign && n.accumulate && n.target.subscripts.size() == 2) {
      p.row = plainIndex(n.target.subscripts[0]);
      p.col = plainIndex(n.target.subscripts[1]);
      for (const ExprPtr& factor : n.value->args)
        if (factor->kind == Expr::Kind::Load && factor->load.array == p.a && factor->load.subscripts.size() == 2)
          leftRow = plainIndex(factor->load.subscripts[0]);
    }
  });
  if (p.row.empty() || p.col.empty() || p.reduction.empty() || leftRow != p.row) {
    why = "the " + which + " nest's product does not store " + p.out + "[row][column] at the rows of " + p.a +
          " it reads";
    return std::nullopt;
  }
  return p;
}

}  // namespace

std::optional<BackToBackPair> recognizeBackToBack(const Kernel& kernel, std::string& why) {
  std::vector<Kernel> nests = splitNests(kernel, why);
  if (nests.empty()) return std::nullopt;
  if (nests.size() != 2) {
    why = "the kernel's body is " + std::to_string(nests.size()) + " nests: two products back to back are two";
    return std::nullopt;
  }
  for (const Array& a : kernel.params)
    if (a.type != ScalarType::Float) {
      why = "array `" + a.name + "` holds " + scalarTypeName(a.type) +
            ": the b2b step reads and writes float arrays only";
      return std::nullopt;
    }
  auto first = productOf(nests[0], "first", why);
  auto second = first ? productOf(nests[1], "second", why) : std::nullopt;
  if (!second) return std::nullopt;
  const std::string& h = first->out;
  if (second->a != h) {
    why = "the second product's left operand is " + second->a + ", not " + h + ", which the first writes";
    return std::nullopt;
  }
  if (second->b == h || second->out == h) {
    why = "the second product reads " + h + " other than as its left operand's rows";
    return std::nullopt;
  }
  if (nests[0].findParam(second->out)) {
    why = "the first nest reads or writes " + second->out + ", which the second writes";
    return std::nullopt;
  }
  if (!second->nest.epilogue.statements.empty() && readsArray(*second->nest.epilogueNest.body, h)) {
    why = "the second nest's epilogue reads " + h + ", beyond the rows a block keeps";
    return std::nullopt;
  }
  const Array* hidden = kernel.findParam(h);
  auto g1 = recognizeGemm(first->nest.bare);
  auto g2 = recognizeGemm(second->nest.bare);
  BackToBackPair pair{*first, *second, hidden->extents[0], g1->k, hidden->extents[1], g2->n};
  // The second product's reduction must run over the whole of H's row, its rows over H's rows.
  if (g1->m != pair.rows || g1->n != pair.hidden || g2->m != pair.rows || g2->k != pair.hidden) {
    why = "the second product does not reduce over the whole rows of " + h + " the first writes (" +
          std::to_string(g2->m) + " rows of " + std::to_string(g2->k) + " against " + std::to_string(g1->m) + " of " +
          std::to_string(g1->n) + ")";
    return std::nullopt;
  }
  if (pair.hidden > kMaxBackToBackHidden) {
    why = "the hidden width " + std::to_string(pair.hidden) + " is more than the " +
          std::to_string(kMaxBackToBackHidden) + " a block keeps on chip";
    return std::nullopt;
  }
  why.clear();
  return pair;
}

Kernel backToBackRowNest(const Kernel& kernel, const BackToBackPair& pair) {
  std::vector<NodePtr> nests = flattenSeq(kernel.body);
  // Each nest's column loop run in turn inside the row loop; the second nest's row loop kept, one
  // iteration long at the first's row (r from i to i + 1), so that nothing inside is renamed.
  auto serial = [](const Node& loop, NodePtr body) {
    return makeFor(loop.index, loop.lower, loop.upper, loop.step, LoopKind::Serial, std::move(body));
  };
  auto byRow = [&](const NodePtr& nest, const std::string& row) {
    const Node* outer = nest.get();
    const Node* inner = outer->body().get();
    const Node* rowLoop = outer->index == row ? outer : inner;
    const Node* colLoop = outer->index == row ? inner : outer;
    return std::make_pair(rowLoop, serial(*colLoop, inner->body()));
  };
  auto [firstRow, firstCols] = byRow(nests[0], pair.first.row);
  auto [secondRow, secondCols] = byRow(nests[1], pair.second.row);
  Affine row = Affine::var(firstRow->index);
  NodePtr second = makeFor(secondRow->index, row, {row + Affine(1)}, 1, LoopKind::Serial, secondCols);
  NodePtr body = makeFor(firstRow->index, firstRow->lower, firstRow->upper, firstRow->step, LoopKind::Parallel,
                         makeSeq({firstCols, second}));
  return kernel.withBody(body);
}

}  // namespace cudaburg
