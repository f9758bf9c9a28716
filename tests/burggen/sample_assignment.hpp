#pragma once
// The classic subject tree of iburg's sample grammar (tests/burggen/sample.burg):
// a = (int)*(char*)b + 4, as ASGNI(ADDRLP, ADDI(CVCI(INDIRC(ADDRLP)), CNSTI)). Include it after a
// matcher generated from sample.burg, whose prologue declares `tree` and the operators.
struct SampleAssignment {
  static tree leaf(int op) { return tree{op, {nullptr, nullptr}, 0, 0}; }

  tree a = leaf(ADDRLP), b = leaf(ADDRLP), four = leaf(CNSTI);
  tree load = leaf(INDIRC), widen = leaf(CVCI), sum = leaf(ADDI), assign = leaf(ASGNI);

  SampleAssignment() {
    load.kids[0] = &b;
    widen.kids[0] = &load;
    sum.kids[0] = &widen;
    sum.kids[1] = &four;
    assign.kids[0] = &a;
    assign.kids[1] = &sum;
  }
  SampleAssignment(const SampleAssignment&) = delete;  // the kids point into this object
  SampleAssignment& operator=(const SampleAssignment&) = delete;
};
