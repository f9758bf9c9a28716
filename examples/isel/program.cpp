#include "examples/isel/program.hpp"

namespace isel {

std::string Program::emitTo(const std::string& op, const std::string& operands) {
  std::string rd = "r" + std::to_string(++registers_);
  emit(op, rd + ", " + operands);
  return rd;
}

void Program::emit(const std::string& op, const std::string& operands) {
  cost_ += op == "mul" || op == "madd" ? 3 : 1;
  std::string line = "    " + op;
  line.resize(std::max<size_t>(line.size() + 1, 10), ' ');
  lines_.push_back(line + operands);
}

std::string Program::loadConstant(long value) {
  // addi sign-extends its 12 bits, so the upper part absorbs the borrow.
  long low = ((value & 0xfff) ^ 0x800) - 0x800;
  long high = (value - low) >> 12;
  std::string rd = emitTo("lui", std::to_string(high));
  emit("addi", rd + ", " + rd + ", " + std::to_string(low));
  return rd;
}

int Program::slotOffset(const std::string& name) {
  auto [it, added] = slots_.emplace(name, static_cast<int>(slots_.size()) * 4);
  return it->second;
}

std::string Program::slot(const Node* var) { return std::to_string(slotOffset(var->name)) + "(fp)"; }

}  // namespace isel
