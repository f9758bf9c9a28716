#include "bench/label/handwritten_matcher.hpp"

namespace bench {

// Keeps cost c for nonterminal nt at state p when cheaper; then runs that nonterminal's closure.
#define RECORD(p, nt, c, r)  \
  if ((c) < (p)->cost[nt]) { \
    (p)->cost[nt] = (c);     \
    (p)->rule[nt] = (r);
#define END_RECORD }

HandwrittenMatcher::State* HandwrittenMatcher::allocate() {
  if (used_ == kChunk) {
    ++chunk_;
    used_ = 0;
  }
  if (chunk_ == chunks_.size()) chunks_.emplace_back(new State[kChunk]);
  return &chunks_[chunk_][used_++];
}

bool HandwrittenMatcher::label(Node* root) {
  chunk_ = 0;
  used_ = 0;
  return labelNode(root)->cost[stmt_NT] < kInfinity;
}

void HandwrittenMatcher::closureReg(State* p, int c) {
  RECORD(p, stmt_NT, c, 3) END_RECORD RECORD(p, rc_NT, c, 30) END_RECORD
}

void HandwrittenMatcher::closureAddr(State* p, int c) {
  RECORD(p, reg_NT, c + 1, 19) closureReg(p, c + 1);
  END_RECORD
}

void HandwrittenMatcher::closureImm(State* p, int c) {
  RECORD(p, reg_NT, c + 1, 18) closureReg(p, c + 1);
  END_RECORD
  RECORD(p, rc_NT, c, 31) END_RECORD
}

HandwrittenMatcher::State* HandwrittenMatcher::labelNode(Node* n) {
  State* l = n->kids[0] ? labelNode(n->kids[0]) : nullptr;
  State* r = n->kids[1] ? labelNode(n->kids[1]) : nullptr;
  State* p = allocate();
  p->op = n->op;
  p->kids[0] = l;
  p->kids[1] = r;
  for (int i = 1; i <= kNonterminals; ++i) {
    p->cost[i] = kInfinity;
    p->rule[i] = 0;
  }
  n->state = p;
  int c;
  switch (n->op) {
    case ASGN:
      c = l->cost[addr_NT] + r->cost[reg_NT] + 1;
      RECORD(p, stmt_NT, c, 1) END_RECORD if (r->op == ADD && r->kids[0]->op == LOAD) {
        c = l->cost[addr_NT] + r->kids[0]->kids[0]->cost[addr_NT] + r->kids[1]->cost[reg_NT] + 1;
        RECORD(p, stmt_NT, c, 2) END_RECORD
      }
      if (r->op == LOAD) {
        c = l->cost[addr_NT] + r->cost[mem_NT] + 2;
        RECORD(p, stmt_NT, c, 33) END_RECORD
      }
      break;
    case ADD:
      c = l->cost[reg_NT] + r->cost[rc_NT] + 1;
      RECORD(p, reg_NT, c, 4) closureReg(p, c);
      END_RECORD
      if (r->op == LOAD) {
        c = l->cost[reg_NT] + r->kids[0]->cost[addr_NT] + 2;
        RECORD(p, reg_NT, c, 13) closureReg(p, c);
        END_RECORD
      }
      c = l->cost[reg_NT] + r->cost[imm_NT];
      RECORD(p, addr_NT, c, 23) closureAddr(p, c);
      END_RECORD
      c = l->cost[addr_NT] + r->cost[imm_NT];
      RECORD(p, addr_NT, c, 24) closureAddr(p, c);
      END_RECORD
      c = l->cost[imm_NT] + r->cost[imm_NT];
      RECORD(p, imm_NT, c, 27) closureImm(p, c);
      END_RECORD
      break;
    case SUB:
      c = l->cost[reg_NT] + r->cost[rc_NT] + 1;
      RECORD(p, reg_NT, c, 5) closureReg(p, c);
      END_RECORD
      if (r->op == LOAD) {
        c = l->cost[reg_NT] + r->kids[0]->cost[addr_NT] + 2;
        RECORD(p, reg_NT, c, 14) closureReg(p, c);
        END_RECORD
      }
      c = l->cost[imm_NT] + r->cost[reg_NT] + 1;
      RECORD(p, reg_NT, c, 17) closureReg(p, c);
      END_RECORD
      break;
    case MUL:
      c = l->cost[reg_NT] + r->cost[rc_NT] + 3;
      RECORD(p, reg_NT, c, 6) closureReg(p, c);
      END_RECORD
      if (r->op == LOAD) {
        c = l->cost[reg_NT] + r->kids[0]->cost[addr_NT] + 4;
        RECORD(p, reg_NT, c, 15) closureReg(p, c);
        END_RECORD
      }
      c = l->cost[imm_NT] + r->cost[imm_NT];
      RECORD(p, imm_NT, c, 28) closureImm(p, c);
      END_RECORD
      break;
    case AND:
      c = l->cost[reg_NT] + r->cost[rc_NT] + 1;
      RECORD(p, reg_NT, c, 7) closureReg(p, c);
      END_RECORD
      break;
    case OR:
      c = l->cost[reg_NT] + r->cost[rc_NT] + 1;
      RECORD(p, reg_NT, c, 8) closureReg(p, c);
      END_RECORD
      if (r->op == NEG) {
        c = l->cost[reg_NT] + r->kids[0]->cost[reg_NT] + 2;
        RECORD(p, reg_NT, c, 21) closureReg(p, c);
        END_RECORD
      }
      break;
    case SHL:
      c = l->cost[reg_NT] + r->cost[imm_NT] + 1;
      RECORD(p, reg_NT, c, 9) closureReg(p, c);
      END_RECORD
      c = l->cost[reg_NT] + r->cost[reg_NT] + 2;
      RECORD(p, reg_NT, c, 10) closureReg(p, c);
      END_RECORD
      break;
    case LOAD:
      c = l->cost[addr_NT] + 1;
      RECORD(p, reg_NT, c, 12) closureReg(p, c);
      END_RECORD
      c = l->cost[addr_NT];
      RECORD(p, mem_NT, c, 32) END_RECORD break;
    case NEG:
      c = l->cost[reg_NT] + 1;
      RECORD(p, reg_NT, c, 11) closureReg(p, c);
      END_RECORD
      if (l->op == NEG) {
        c = l->kids[0]->cost[reg_NT];
        RECORD(p, reg_NT, c, 16) closureReg(p, c);
        END_RECORD
      }
      c = l->cost[imm_NT];
      RECORD(p, imm_NT, c, 29) closureImm(p, c);
      END_RECORD
      break;
    case CNST:
      RECORD(p, imm_NT, 0, 26) closureImm(p, 0);
      END_RECORD
      break;
    case ADDR:
      RECORD(p, addr_NT, 0, 22) closureAddr(p, 0);
      END_RECORD
      break;
    case REG:
      RECORD(p, reg_NT, 0, 20) closureReg(p, 0);
      END_RECORD
      RECORD(p, addr_NT, 0, 25) closureAddr(p, 0);
      END_RECORD
      break;
  }
  return p;
}

}  // namespace bench
