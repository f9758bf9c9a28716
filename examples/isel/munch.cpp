#include "examples/isel/munch.hpp"

#include "examples/isel/parser.hpp"
#include "examples/isel/program.hpp"

namespace isel {

namespace {

bool isImmediate(const Node* n) { return n->op == CONST && fitsImmediate(n->value); }

// The patterns, biggest first at each operator; each emits what isel.burg's rule of the same
// shape emits, kids first and left to right.
class Muncher {
 public:
  explicit Muncher(Program& program) : p_(program) {}

  void statement(Node* n) {  // ASSIGN(addr, reg)
    std::string address = addr(n->kids[0]);
    std::string value = reg(n->kids[1]);
    p_.emit("sw", value + ", " + address);
  }

 private:
  std::string addr(Node* n) {
    if (n->op == VAR) return p_.slot(n);
    if (n->op == ADD && isImmediate(n->kids[1])) {
      std::string base = reg(n->kids[0]);
      return std::to_string(n->kids[1]->value) + "(" + base + ")";
    }
    return "0(" + reg(n) + ")";
  }

  std::string reg(Node* n) {
    Node* left = n->kids[0];
    Node* right = n->kids[1];
    switch (n->op) {
      case ADD:
        if (left->op == MUL) {  // two operators: the biggest pattern
          std::string a = reg(left->kids[0]), b = reg(left->kids[1]), c = reg(right);
          return p_.emitTo("madd", a + ", " + b + ", " + c);
        }
        if (isImmediate(right)) return p_.emitTo("addi", reg(left) + ", " + std::to_string(right->value));
        if (isImmediate(left)) return p_.emitTo("addi", reg(right) + ", " + std::to_string(left->value));
        return binary("add", left, right);
      case SUB:
        if (right->op == CONST && fitsImmediate(-right->value))
          return p_.emitTo("addi", reg(left) + ", " + std::to_string(-right->value));
        return binary("sub", left, right);
      case MUL:
        if (right->op == CONST && isPowerOfTwo(right->value))
          return p_.emitTo("slli", reg(left) + ", " + std::to_string(log2Of(right->value)));
        if (left->op == CONST && isPowerOfTwo(left->value))
          return p_.emitTo("slli", reg(right) + ", " + std::to_string(log2Of(left->value)));
        return binary("mul", left, right);
      case LOAD:
        return p_.emitTo("lw", addr(left));
      case CONST:
        if (n->value == 0) return "zero";
        if (fitsImmediate(n->value)) return p_.emitTo("li", std::to_string(n->value));
        return p_.loadConstant(n->value);
      case VAR:
        return p_.emitTo("addi", "fp, " + std::to_string(p_.slotOffset(n->name)));
      case ASSIGN:
        break;
    }
    return "?";
  }

  std::string binary(const char* op, Node* left, Node* right) {
    std::string a = reg(left), b = reg(right);
    return p_.emitTo(op, a + ", " + b);
  }

  Program& p_;
};

}  // namespace

bool selectByMaximalMunch(const common::SourceFile& file, common::Diagnostics& diags, Selection& out) {
  Trees trees;
  std::vector<Statement> statements;
  if (!parseProgram(file, diags, trees, statements)) return false;
  Program program;
  Muncher muncher(program);
  for (const Statement& s : statements) {
    program.comment(s.text);
    long before = program.cost();
    muncher.statement(s.tree);
    out.statements.push_back({s.text, "", "", program.cost() - before});
  }
  out.listing = program.lines();
  return true;
}

}  // namespace isel
