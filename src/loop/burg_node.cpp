#include "src/loop/burg_node.hpp"

namespace cudaburg {

const char* burgOpName(int op) {
  switch (op) {
    case FOR_PAR:
      return "FOR_PAR";
    case FOR_RED:
      return "FOR_RED";
    case FOR_SEQ:
      return "FOR_SEQ";
    case SEQ:
      return "SEQ";
    case ASSIGN:
      return "ASSIGN";
    case ACCUM:
      return "ACCUM";
    case ALLOC:
      return "ALLOC";
    case STAGE:
      return "STAGE";
    case BARRIER:
      return "BARRIER";
  }
  return "?";
}

}  // namespace cudaburg

int burg_op(const cudaburg::Node* node) {
  using namespace cudaburg;
  switch (node->kind) {
    case NodeKind::For:
      switch (node->loopKind) {
        case LoopKind::Parallel:
          return FOR_PAR;
        case LoopKind::Reduce:
          return FOR_RED;
        case LoopKind::Serial:
          return FOR_SEQ;
      }
      return FOR_SEQ;
    case NodeKind::Seq:
      return SEQ;
    case NodeKind::Assign:
      return node->accumulate ? ACCUM : ASSIGN;
    case NodeKind::Alloc:
      return ALLOC;
    case NodeKind::Stage:
      return STAGE;
    case NodeKind::Barrier:
      return BARRIER;
  }
  return 0;
}

int burg_arity(const cudaburg::Node* node) { return static_cast<int>(node->kids.size()); }

const cudaburg::Node* burg_kid(const cudaburg::Node* node, int i) {
  if (i < 0 || i >= static_cast<int>(node->kids.size())) return nullptr;
  return node->kids[i].get();
}
