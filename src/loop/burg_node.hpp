#pragma once
// The view of a loop tree that burggen's matchers read. A generated matcher for trees of
// `const cudaburg::Node*` calls burg_op and burg_kid, and keeps its per-node states in a table of
// its own (nodes are immutable and shared between trees); a .burg file names the operators with
// the same numbers:
//
//   %term FOR_PAR=1 FOR_RED=2 FOR_SEQ=3 SEQ=4 ASSIGN=5 ACCUM=6 ALLOC=7 STAGE=8 BARRIER=9
//
// Kids, by operator:
//   FOR_PAR, FOR_RED, FOR_SEQ  1: the loop's body     (For, by its LoopKind)
//   SEQ                        2: first, rest         (bodies of several statements nest right)
//   ASSIGN, ACCUM              0                      (`=` and `+=`)
//   ALLOC                      1: the buffer's scope
//   STAGE, BARRIER             0
#include "src/loop/loop_tree.hpp"

namespace cudaburg {

enum BurgOp : int {
  FOR_PAR = 1,
  FOR_RED = 2,
  FOR_SEQ = 3,
  SEQ = 4,
  ASSIGN = 5,
  ACCUM = 6,
  ALLOC = 7,
  STAGE = 8,
  BARRIER = 9,
};
constexpr int kBurgOpCount = 9;  // operator numbers run 1..kBurgOpCount
const char* burgOpName(int op);  // "FOR_PAR", ... ; "?" for another number

}  // namespace cudaburg

// In the global namespace, where generated matchers look for them.
int burg_op(const cudaburg::Node* node);
int burg_arity(const cudaburg::Node* node);
// The i-th kid (0-based); null when there is no such kid.
const cudaburg::Node* burg_kid(const cudaburg::Node* node, int i);
