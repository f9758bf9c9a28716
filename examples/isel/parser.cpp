#include "examples/isel/parser.hpp"

#include <cctype>

namespace isel {

namespace {

class Parser {
 public:
  Parser(const common::SourceFile& file, common::Diagnostics& diags, Trees& trees)
      : text_(file.text()), file_(file), diags_(diags), trees_(trees) {}

  bool program(std::vector<Statement>& out) {
    while (skipSpace(), pos_ < text_.size()) {
      size_t begin = pos_;
      Node* tree = statement();
      if (!tree) return false;
      out.push_back({text_.substr(begin, pos_ - begin), tree});
    }
    return true;
  }

 private:
  void skipSpace() {
    while (pos_ < text_.size()) {
      if (std::isspace(static_cast<unsigned char>(text_[pos_]))) {
        ++pos_;
      } else if (text_.compare(pos_, 2, "//") == 0) {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }
  bool accept(char c) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  Node* fail(const std::string& message) {
    diags_.error(file_.locate(pos_), message);
    return nullptr;
  }
  bool expect(char c) {
    if (accept(c)) return true;
    fail(std::string("expected '") + c + "'");
    return false;
  }
  std::string name() {
    skipSpace();
    size_t begin = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
    return text_.substr(begin, pos_ - begin);
  }
  Node* variable() {
    std::string n = name();
    if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0]))) return fail("expected a variable name");
    Node* v = trees_.make(VAR);
    v->name = n;
    return v;
  }

  Node* statement() {
    Node* address = accept('[') ? memory() : variable();
    if (!address || !expect('=')) return nullptr;
    Node* value = expr();
    if (!value || !expect(';')) return nullptr;
    return trees_.make(ASSIGN, address, value);
  }
  Node* memory() {  // after '['
    Node* address = expr();
    return address && expect(']') ? address : nullptr;
  }
  Node* expr() {
    Node* left = term();
    while (left) {
      if (accept('+'))
        left = binary(ADD, left, term());
      else if (accept('-'))
        left = binary(SUB, left, term());
      else
        break;
    }
    return left;
  }
  Node* term() {
    Node* left = factor();
    while (left && accept('*')) left = binary(MUL, left, factor());
    return left;
  }
  Node* binary(Op op, Node* left, Node* right) { return right ? trees_.make(op, left, right) : nullptr; }
  Node* factor() {
    skipSpace();
    if (accept('(')) {
      Node* inner = expr();
      return inner && expect(')') ? inner : nullptr;
    }
    if (accept('[')) {
      Node* address = memory();
      return address ? trees_.make(LOAD, address) : nullptr;
    }
    if (accept('&')) return variable();
    if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      long value = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        if (value > (2147483647L - (text_[pos_] - '0')) / 10) return fail("integer too large (at most 2147483647)");
        value = value * 10 + (text_[pos_++] - '0');
      }
      Node* c = trees_.make(CONST);
      c->value = value;
      return c;
    }
    if (pos_ < text_.size() && (std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      Node* v = variable();
      return trees_.make(LOAD, v);
    }
    return fail("expected an expression");
  }

  const std::string& text_;
  const common::SourceFile& file_;
  common::Diagnostics& diags_;
  Trees& trees_;
  size_t pos_ = 0;
};

}  // namespace

bool parseProgram(const common::SourceFile& file, common::Diagnostics& diags, Trees& trees,
                  std::vector<Statement>& out) {
  Parser parser(file, diags, trees);
  return parser.program(out) && !diags.hasErrors();
}

}  // namespace isel
