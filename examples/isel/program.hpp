#pragma once
// The target: a small load/store register machine in the style of RISC-V. Registers r1, r2, ...
// (as many as needed; register allocation is another pass), `zero` always 0, `fp` the frame
// pointer. Immediates and offsets are 12-bit signed. Program collects the instructions the
// matcher's actions emit; it is the matcher's context (`ctx` in isel.burg).
#include <map>
#include <string>
#include <vector>

#include "examples/isel/tree.hpp"

namespace isel {

inline bool fitsImmediate(long v) { return v >= -2048 && v <= 2047; }
inline bool isPowerOfTwo(long v) { return v > 0 && (v & (v - 1)) == 0; }
inline int log2Of(long v) {
  int n = 0;
  while (v > 1) v >>= 1, ++n;
  return n;
}

class Program {
 public:
  // Emits `op rd, operands` into a fresh register rd and returns rd.
  std::string emitTo(const std::string& op, const std::string& operands);
  // Emits an instruction with no result.
  void emit(const std::string& op, const std::string& operands);
  // Loads a constant too wide for an immediate: lui then addi.
  std::string loadConstant(long value);
  // The frame slot of a variable as an offset(fp) operand; slots are given in order of use.
  std::string slot(const Node* var);
  int slotOffset(const std::string& name);
  // Marks the start of a statement in the listing.
  void comment(const std::string& text) { lines_.push_back("# " + text); }

  const std::vector<std::string>& lines() const { return lines_; }
  // The cost of what was emitted, in the grammar's units: an instruction counts 1, a multiply
  // or a multiply-add 3.
  long cost() const { return cost_; }

 private:
  std::vector<std::string> lines_;
  std::map<std::string, int> slots_;
  int registers_ = 0;
  long cost_ = 0;
};

}  // namespace isel
