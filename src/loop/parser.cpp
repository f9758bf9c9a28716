// A hand-written recursive-descent parser for the .loop language. It folds sizes as it reads
// them, so that every subscript and bound becomes an Affine over loop indices only.
#include "src/loop/parser.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <set>

#include "common/closest_name.hpp"
#include "src/analysis/mark_check.hpp"
#include "src/loop/bounds_check.hpp"
#include "src/loop/checked_arith.hpp"
#include "src/loop/lexer.hpp"
#include "src/loop/math_functions.hpp"
#include "src/loop/scalar_types.hpp"

namespace cudaburg {

namespace {

using common::SourceLoc;

// Deeper nesting than this (of expressions or statements) is refused rather than risking the stack.
constexpr int kMaxDepth = 200;
// After this many errors the rest of the file is not worth reading.
constexpr int kMaxErrors = 50;
// Value expressions deeper than this (`a + b + ...` counts one level a term) are refused: every
// later pass walks them recursively.
constexpr int kMaxExprDepth = 200;
// More statements than this are refused: the checks of marks compare statements pairwise.
constexpr int kMaxStatements = 256;
// Loops nested deeper than this are refused: the dependence test's work grows steeply with the
// loops two statements share (and no GPU kernel needs more).
constexpr size_t kMaxLoopDepth = 16;

class Parser {
 public:
  Parser(const common::SourceFile& file, common::Diagnostics& diags, const std::map<std::string, int64_t>& overrides)
      : file_(file),
        diags_(diags),
        lexer_(std::string_view(file.text().c_str(), file.text().size())),
        overrides_(overrides) {
    advance();
  }

  std::optional<Kernel> parse();

 private:
  // --- tokens
  void advance() {
    for (;;) {
      tok_ = lexer_.next();
      if (tok_.kind == Tok::Invalid) {
        error(tok_, "invalid character '" + printable(tok_.text) + "'");
        continue;
      }
      if (tok_.kind == Tok::UnterminatedComment) {
        error(tok_, "unterminated comment");
        continue;
      }
      return;
    }
  }
  static std::string printable(std::string_view text) {
    std::string out;
    for (unsigned char c : text) {
      if (c >= 32 && c < 127) {
        out += char(c);
      } else {
        static const char* hex = "0123456789abcdef";
        out += "\\x";
        out += hex[c >> 4];
        out += hex[c & 15];
      }
    }
    return out;
  }
  SourceLoc loc(const Token& t) const { return file_.locate(t.offset); }
  bool at(Tok k) const { return tok_.kind == k; }
  // The token after the current one, without moving.
  Token peek() const {
    LoopLexer ahead = lexer_;
    return ahead.next();
  }
  bool accept(Tok k) {
    if (!at(k)) return false;
    advance();
    return true;
  }
  bool expect(Tok k, const char* context) {
    if (accept(k)) return true;
    error(tok_, std::string("expected ") + tokenName(k) + " " + context + ", found " + describe(tok_));
    return false;
  }
  std::string describe(const Token& t) const {
    if (t.kind == Tok::End) return "end of file";
    return "'" + printable(t.text) + "'";
  }
  void error(const Token& t, std::string message) { error(loc(t), std::move(message)); }
  void error(SourceLoc at, std::string message) {
    if (stopped_) return;  // what follows a limit is not read, so not reported either
    if (diags_.errorCount() < kMaxErrors)
      diags_.error(at, std::move(message));
    else if (diags_.errorCount() == kMaxErrors)
      diags_.error(at, "too many errors; stopping here");
  }
  bool tooManyErrors() const { return stopped_ || diags_.errorCount() > kMaxErrors; }
  // Skips to just after one of `stops` (or to a '}' or the end, which it leaves in place).
  void recover(std::initializer_list<Tok> stops) {
    while (!at(Tok::End) && !at(Tok::RBrace)) {
      for (Tok s : stops) {
        if (at(s)) {
          advance();
          return;
        }
      }
      advance();
    }
  }

  // Skips one statement without reading it: a block, a loop with its body, or up to ';'.
  void skipStatement() {
    for (;;) {  // a loop's body is skipped by the next round, not by recursion
      if (at(Tok::LBrace)) {
        int braces = 0;
        do {
          if (at(Tok::LBrace)) ++braces;
          if (at(Tok::RBrace)) --braces;
          advance();
        } while (braces > 0 && !at(Tok::End));
        return;
      }
      if (!at(Tok::Parallel) && !at(Tok::Reduce) && !at(Tok::For)) break;
      while (!at(Tok::End) && !at(Tok::LParen) && !at(Tok::LBrace) && !at(Tok::RBrace)) advance();
      int parens = 0;
      while (!at(Tok::End) && !at(Tok::LBrace) && !at(Tok::RBrace)) {
        if (at(Tok::LParen)) ++parens;
        bool close = at(Tok::RParen) && --parens <= 0;
        advance();
        if (close) break;
      }
    }
    if (!at(Tok::RBrace)) recover({Tok::Semicolon});
  }

  // --- declarations
  void parseSizeDecl();
  std::optional<Array> parseParam();
  std::optional<ScalarType> parseType();
  bool atType() const {
    return at(Tok::Float) || at(Tok::Double) || at(Tok::Half) || at(Tok::Int) || at(Tok::BFloat16) || at(Tok::Tf32);
  }

  // --- integer expressions (sizes, extents, bounds, subscripts)
  std::optional<Affine> parseAffine(bool allowIndices, int depth = 0);
  std::optional<Affine> parseAffineTerm(bool allowIndices, int depth);
  std::optional<Affine> parseAffineUnary(bool allowIndices, int depth);
  std::optional<int64_t> parseConstant();
  std::optional<std::vector<Affine>> parseUpper(int depth = 0);

  // --- statements
  NodePtr parseBlock(int depth);
  NodePtr parseStatement(int depth);
  NodePtr parseLoop(int depth);
  NodePtr parseAssign();
  // A local scalar's declaration: the local, and its initialisation (null without one).
  struct LocalDecl {
    Array local;
    NodePtr init;
  };
  std::optional<LocalDecl> parseLocal();
  bool countStatement() {
    if (++statements_ <= kMaxStatements) return true;
    error(tok_, "more than " + std::to_string(kMaxStatements) + " statements; a kernel may have at most that many");
    stopped_ = true;  // nothing after this is read
    return false;
  }
  // Reports a read (or `+=`) of a local scalar that no `=` has set before it.
  void checkLocalSet(const Token& name) {
    auto it = locals_.find(std::string(name.text));
    if (it != locals_.end() && !it->second.set)
      error(name, "local '" + it->first + "' is used before it is set (give it a value with '=' first" +
                      std::string(it->second.loopDepth < indices_.size() ? ", outside the loops below its declaration)"
                                                                         : ")"));
    if (it != locals_.end()) it->second.set = true;  // reported once
  }
  std::optional<Access> parseAccess(bool forWrite);

  // --- value expressions
  ExprPtr parseExpr(int depth);
  ExprPtr parseExprTerm(int depth);
  ExprPtr parseExprUnary(int depth);
  ExprPtr parseExprPrimary(int depth);
  ExprPtr parseCall(int depth);

  bool isIndex(const std::string& name) const {
    return std::find(indices_.begin(), indices_.end(), name) != indices_.end();
  }
  bool nameTaken(const std::string& name) const {
    return sizeValues_.count(name) || arrays_.count(name) || isIndex(name);
  }
  // `left op right` does not fit in 64 bits (or divides INT64_MIN by -1).
  void overflow(const Token& op, const Affine& left, const Affine& right) {
    auto operand = [](const Affine& a) { return a.isConstant() && a.constant >= 0 ? a.str() : "(" + a.str() + ")"; };
    error(op, operand(left) + " " + std::string(op.text) + " " + operand(right) + " overflows a 64-bit integer");
  }
  bool tooDeep(int depth) {
    if (depth <= kMaxDepth) return false;
    error(tok_, "nesting is too deep (more than " + std::to_string(kMaxDepth) + " levels)");
    stopped_ = true;
    return true;
  }

  // The value of a constant expression of an int assignment as the emitted code computes it (in
  // int, division truncating); nullopt where it reads an array or an index, or is not whole.
  static std::optional<int64_t> intConstant(const Expr& e) {
    if (e.kind == Expr::Kind::Constant) {
      if (e.value != std::floor(e.value) || std::fabs(e.value) > 9e15) return std::nullopt;
      return static_cast<int64_t>(e.value);
    }
    if (e.kind != Expr::Kind::Binary) return std::nullopt;
    auto l = intConstant(*e.args[0]), r = intConstant(*e.args[1]);
    if (!l || !r || (e.op == '/' && *r == 0)) return std::nullopt;
    switch (e.op) {
      case '+':
        return *l + *r;
      case '-':
        return *l - *r;
      case '*':
        return *l * *r;
      default:
        return *l / *r;
    }
  }
  static bool fitsInt(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }
  // In an assignment to an int array the emitted code computes constants in int: a constant
  // operation that divides by zero or leaves int's range is an error here, not undefined
  // behaviour there. Operands were checked when they were made (each through combine).
  bool checkIntOperation(const Token& at, const Expr& node) {
    if (intTarget_.empty() || node.kind != Expr::Kind::Binary) return true;
    auto l = intConstant(*node.args[0]), r = intConstant(*node.args[1]);
    if (!l || !r) return true;
    auto shown = [](int64_t v) { return v < 0 ? "(" + std::to_string(v) + ")" : std::to_string(v); };
    std::string text = shown(*l) + " " + node.op + " " + shown(*r);
    if (node.op == '/' && *r == 0) {
      error(at, text + " divides by zero (in int, the type of '" + intTarget_ + "')");
      return false;
    }
    if (!fitsInt(*l) || !fitsInt(*r) || !fitsInt(*intConstant(node))) {
      error(at, text + " overflows a 32-bit int (the type of '" + intTarget_ + "')");
      return false;
    }
    return true;
  }

  // A binary or call node of depth 1 + its deepest operand, refused past kMaxExprDepth.
  ExprPtr combine(const Token& at, ExprPtr node) {
    if (!checkIntOperation(at, *node)) return nullptr;
    int depth = 0;
    for (const ExprPtr& arg : node->args) {
      auto it = exprDepth_.find(arg.get());
      depth = std::max(depth, it == exprDepth_.end() ? 1 : it->second);
    }
    if (++depth > kMaxExprDepth) {
      error(at, "expression is too deep (more than " + std::to_string(kMaxExprDepth) +
                    " levels of operators); split it into several statements");
      stopped_ = true;
      return nullptr;
    }
    exprDepth_[node.get()] = depth;
    return node;
  }

  const common::SourceFile& file_;
  common::Diagnostics& diags_;
  LoopLexer lexer_;
  Token tok_;
  const std::map<std::string, int64_t>& overrides_;

  std::vector<std::pair<std::string, int64_t>> sizes_;
  std::map<std::string, int64_t> sizeValues_;
  std::map<std::string, Array> arrays_;
  std::vector<Array> params_;
  std::vector<std::string> indices_;  // loop indices in scope, outermost first
  // The local scalars in scope (also in arrays_, as scalar register buffers): the loops around
  // each one's declaration, and whether an `=` at that depth has set it yet.
  struct LocalState {
    size_t loopDepth = 0;
    bool set = false;
  };
  std::map<std::string, LocalState> locals_;
  ScalarType statementType_ = ScalarType::Float;  // the type the statement being read computes in
  std::map<const Expr*, int> exprDepth_;          // of the operators built so far
  int statements_ = 0;                            // loops and assignments read so far
  bool stopped_ = false;                          // a limit was hit: the rest of the file is not read
  std::string intTarget_;                         // the int array whose value is being read, if any
};

std::optional<Kernel> Parser::parse() {
  while (at(Tok::Size) && !tooManyErrors()) parseSizeDecl();
  std::vector<std::string> sizeNames;
  for (const auto& [name, value] : sizes_) sizeNames.push_back(name);
  for (const auto& [name, value] : overrides_) {
    if (sizeValues_.count(name)) continue;
    std::string known;
    for (const std::string& n : sizeNames) known += (known.empty() ? "" : ", ") + n;
    std::string suggestion = common::didYouMean(name, sizeNames);
    error(SourceLoc{}, "-D " + name + "=" + std::to_string(value) + " names no size of this file" +
                           (suggestion.empty() ? (sizeNames.empty() ? "; it declares none" : "; its sizes are " + known)
                                               : suggestion));
  }

  Kernel kernel;
  kernel.sourceName = file_.name();
  if (!at(Tok::KernelKw)) {
    error(tok_, "expected 'size' or 'kernel', found " + describe(tok_));
    while (!at(Tok::End) && !at(Tok::KernelKw)) advance();
    if (at(Tok::End)) return std::nullopt;
  }
  advance();
  if (at(Tok::Ident)) {
    kernel.name = std::string(tok_.text);
    advance();
  } else {
    error(tok_, "expected the kernel's name, found " + describe(tok_));
  }
  if (expect(Tok::LParen, "before the kernel's parameters")) {
    if (!at(Tok::RParen)) {
      do {
        if (auto p = parseParam()) {
          if (nameTaken(p->name)) {
            error(p->loc, "'" + p->name + "' is already declared");
          } else {
            arrays_[p->name] = *p;
            params_.push_back(*p);
          }
        }
      } while (accept(Tok::Comma) && !tooManyErrors());
    }
    expect(Tok::RParen, "after the kernel's parameters");
  }
  if (params_.empty() && !diags_.hasErrors()) error(tok_, "a kernel needs at least one array parameter");
  if (!at(Tok::LBrace)) {
    error(tok_, "expected '{' to begin the kernel's body, found " + describe(tok_));
    return std::nullopt;
  }
  NodePtr body = parseBlock(0);
  if (!at(Tok::End) && !tooManyErrors()) error(tok_, "expected end of file after the kernel, found " + describe(tok_));
  if (diags_.hasErrors() || !body) return std::nullopt;

  kernel.sizes = sizes_;
  kernel.params = params_;
  kernel.body = body;
  if (!checkSubscriptBounds(kernel, diags_)) return std::nullopt;
  if (!checkLoopMarks(kernel, diags_)) return std::nullopt;
  return kernel;
}

void Parser::parseSizeDecl() {
  advance();  // 'size'
  do {
    if (!at(Tok::Ident)) {
      error(tok_, "expected a size's name, found " + describe(tok_));
      recover({Tok::Semicolon});
      return;
    }
    Token nameTok = tok_;
    std::string name(tok_.text);
    advance();
    if (!expect(Tok::Assign, "after the size's name")) {
      recover({Tok::Semicolon});
      return;
    }
    std::optional<Affine> value = parseAffine(false);
    if (!value) {
      // Declared all the same (its value is moot: the file has an error), so that its uses are
      // no errors of their own.
      if (!nameTaken(name)) {
        auto it = overrides_.find(name);
        sizes_.emplace_back(name, it != overrides_.end() ? it->second : 1);
        sizeValues_[name] = sizes_.back().second;
      }
      recover({Tok::Semicolon});
      return;
    }
    if (nameTaken(name)) {
      error(nameTok, "size '" + name + "' is already declared");
      continue;
    }
    int64_t v = value->constant;
    if (auto it = overrides_.find(name); it != overrides_.end()) v = it->second;
    sizes_.emplace_back(name, v);
    sizeValues_[name] = v;
  } while (accept(Tok::Comma));
  if (!expect(Tok::Semicolon, "after the size declarations")) recover({Tok::Semicolon});
}

std::optional<ScalarType> Parser::parseType() {
  ScalarType t;
  switch (tok_.kind) {
    case Tok::Float:
      t = ScalarType::Float;
      break;
    case Tok::Double:
      t = ScalarType::Double;
      break;
    case Tok::Half:
      t = ScalarType::Half;
      break;
    case Tok::Int:
      t = ScalarType::Int;
      break;
    case Tok::BFloat16:
      t = ScalarType::BFloat16;
      break;
    case Tok::Tf32:
      t = ScalarType::TF32;
      break;
    default:
      error(tok_, "expected an element type (float, double, half, bfloat16, tf32 or int), found " + describe(tok_));
      return std::nullopt;
  }
  advance();
  return t;
}

std::optional<Array> Parser::parseParam() {
  Array a;
  a.input = accept(Tok::Const);
  std::optional<ScalarType> type = parseType();
  if (!type) {
    recover({});
    return std::nullopt;
  }
  a.type = *type;
  if (!at(Tok::Ident)) {
    error(tok_, "expected the array's name, found " + describe(tok_));
    return std::nullopt;
  }
  a.name = std::string(tok_.text);
  a.loc = loc(tok_);
  advance();
  if (!at(Tok::LBracket)) {
    error(tok_, "expected '[' and the extents of array '" + a.name + "', found " + describe(tok_));
    return std::nullopt;
  }
  while (at(Tok::LBracket)) {
    Token open = tok_;
    advance();
    std::optional<Affine> extent = parseAffine(false);
    if (!extent) {
      // Reported: skip the rest of this extent and keep the array (with extent 1), so that
      // the next parameters and the uses of this one are still read without more errors.
      while (!at(Tok::RBracket) && !at(Tok::RParen) && !at(Tok::LBrace) && !at(Tok::End)) advance();
      accept(Tok::RBracket);
      a.extents.push_back(1);
      continue;
    }
    if (extent->constant <= 0)
      error(open, "extent of '" + a.name + "' is " + std::to_string(extent->constant) + "; it must be positive");
    a.extents.push_back(extent->constant);
    if (!expect(Tok::RBracket, "after an extent")) return std::nullopt;
  }
  std::optional<int64_t> bytes = scalarTypeBytes(a.type);
  for (int64_t e : a.extents) bytes = bytes && e > 0 ? checkedMul(*bytes, e) : bytes;
  if (!bytes)
    error(a.loc, "the size of '" + a.name + "' in bytes (its extents times " + std::to_string(scalarTypeBytes(a.type)) +
                     ") overflows a 64-bit integer");
  a.zeroPadded = accept(Tok::Padded);
  if (a.zeroPadded && !a.input) error(a.loc, "only const arrays may be 'padded' (reads outside give 0)");
  return a;
}

// Integer expressions. Sizes fold to constants; with `allowIndices`, loop indices in scope stay
// symbolic and the result must be affine in them.
std::optional<Affine> Parser::parseAffine(bool allowIndices, int depth) {
  if (tooDeep(depth)) return std::nullopt;
  std::optional<Affine> left = parseAffineTerm(allowIndices, depth);
  while (left && (at(Tok::Plus) || at(Tok::Minus))) {
    Token op = tok_;
    advance();
    std::optional<Affine> right = parseAffineTerm(allowIndices, depth);
    if (!right) return std::nullopt;
    std::optional<Affine> sum = checkedSum(*left, *right, op.kind == Tok::Plus ? 1 : -1);
    if (!sum) {
      overflow(op, *left, *right);
      return std::nullopt;
    }
    left = sum;
  }
  return left;
}

std::optional<Affine> Parser::parseAffineTerm(bool allowIndices, int depth) {
  std::optional<Affine> left = parseAffineUnary(allowIndices, depth);
  while (left && (at(Tok::Star) || at(Tok::Slash) || at(Tok::Percent))) {
    Token op = tok_;
    advance();
    std::optional<Affine> right = parseAffineUnary(allowIndices, depth);
    if (!right) return std::nullopt;
    if (op.kind == Tok::Star) {
      if (!left->isConstant() && !right->isConstant()) {
        error(op, "product of two loop indices is not affine");
        return std::nullopt;
      }
      std::optional<Affine> product =
          left->isConstant() ? checkedScale(*right, left->constant) : checkedScale(*left, right->constant);
      if (!product) {
        overflow(op, *left, *right);
        return std::nullopt;
      }
      left = product;
      continue;
    }
    if (!left->isConstant() || !right->isConstant()) {
      error(op, std::string("'") + printable(op.text) + "' of a loop index is not affine");
      return std::nullopt;
    }
    if (right->constant == 0) {
      error(op, "division by zero");
      return std::nullopt;
    }
    std::optional<int64_t> result = op.kind == Tok::Slash ? checkedDiv(left->constant, right->constant)
                                                          : checkedRem(left->constant, right->constant);
    if (!result) {
      overflow(op, *left, *right);
      return std::nullopt;
    }
    left = Affine(*result);
  }
  return left;
}

std::optional<Affine> Parser::parseAffineUnary(bool allowIndices, int depth) {
  if (tooDeep(depth)) return std::nullopt;
  if (at(Tok::Minus)) {
    Token minus = tok_;
    advance();
    std::optional<Affine> a = parseAffineUnary(allowIndices, depth + 1);
    if (!a) return std::nullopt;
    std::optional<Affine> negated = checkedScale(*a, -1);
    if (!negated) error(minus, "-(" + a->str() + ") overflows a 64-bit integer");
    return negated;
  }
  if (at(Tok::Integer)) {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(tok_.text.data(), tok_.text.data() + tok_.text.size(), v);
    if (ec != std::errc()) {
      error(tok_, "integer '" + std::string(tok_.text) + "' is too large");
      advance();
      return std::nullopt;
    }
    advance();
    return Affine(v);
  }
  if (at(Tok::Ident)) {
    std::string name(tok_.text);
    if (auto it = sizeValues_.find(name); it != sizeValues_.end()) {
      advance();
      return Affine(it->second);
    }
    if (allowIndices && isIndex(name)) {
      advance();
      return Affine::var(name);
    }
    if (arrays_.count(name))
      error(tok_, "array '" + name + "' cannot be used in a bound or subscript");
    else
      error(tok_,
            "'" + name + "' is not " + (allowIndices ? "a size or a loop index in scope" : "a size declared before"));
    advance();
    return std::nullopt;
  }
  if (accept(Tok::LParen)) {
    std::optional<Affine> a = parseAffine(allowIndices, depth + 1);
    if (!a) return std::nullopt;
    if (!expect(Tok::RParen, "to close '('")) return std::nullopt;
    return a;
  }
  if (at(Tok::Function)) {
    error(tok_, std::string(tok_.text) + "() is a math function of values; sizes, bounds and subscripts are integers");
    advance();
    return std::nullopt;
  }
  if (at(Tok::Min) || at(Tok::Max)) {
    error(tok_, std::string(tok_.text) + "() is allowed only as a loop's upper bound");
    advance();
    return std::nullopt;
  }
  error(tok_, "expected an integer expression, found " + describe(tok_));
  return std::nullopt;
}

// An upper bound: an affine expression or min() of upper bounds, flattened into a list.
std::optional<std::vector<Affine>> Parser::parseUpper(int depth) {
  if (tooDeep(depth)) return std::nullopt;
  if (!accept(Tok::Min)) {
    std::optional<Affine> a = parseAffine(true, depth);
    if (!a) return std::nullopt;
    return std::vector<Affine>{*a};
  }
  if (!expect(Tok::LParen, "after 'min'")) return std::nullopt;
  std::optional<std::vector<Affine>> first = parseUpper(depth + 1);
  if (!first) return std::nullopt;
  if (!expect(Tok::Comma, "between min()'s arguments")) return std::nullopt;
  std::optional<std::vector<Affine>> second = parseUpper(depth + 1);
  if (!second) return std::nullopt;
  if (!expect(Tok::RParen, "to close min(")) return std::nullopt;
  first->insert(first->end(), second->begin(), second->end());
  return first;
}

NodePtr Parser::parseBlock(int depth) {
  Token open = tok_;
  advance();  // '{'
  std::vector<NodePtr> stmts;
  // The block's locals, each with the first statement of its scope (which runs to the block's end).
  std::vector<std::pair<size_t, Array>> locals;
  bool failed = false;
  while (!at(Tok::RBrace) && !at(Tok::End) && !tooManyErrors()) {
    if (atType()) {
      std::optional<LocalDecl> decl = parseLocal();
      if (!decl) {
        failed = true;
        continue;
      }
      locals.emplace_back(stmts.size(), decl->local);
      if (decl->init) stmts.push_back(decl->init);
      continue;
    }
    NodePtr s = parseStatement(depth + 1);
    if (s)
      stmts.push_back(s);
    else
      failed = true;
  }
  // Each local's scope becomes the Alloc of a scalar register buffer around the statements it
  // covers: each iteration of the loops around it has its own.
  for (auto it = locals.rbegin(); it != locals.rend(); ++it) {
    const auto& [first, local] = *it;
    arrays_.erase(local.name);
    locals_.erase(local.name);
    if (failed) continue;
    if (first == stmts.size()) {
      error(local.loc, "local '" + local.name + "' is declared but never used");
      failed = true;
      continue;
    }
    NodePtr scope = makeAlloc(
        local, makeSeq(std::vector<NodePtr>(stmts.begin() + static_cast<std::ptrdiff_t>(first), stmts.end())));
    stmts.resize(first);
    stmts.push_back(scope);
  }
  if (!accept(Tok::RBrace)) {
    if (!tooManyErrors())
      error(tok_, "expected '}' to close the block opened at line " + std::to_string(loc(open).line));
    return nullptr;
  }
  if (failed) return nullptr;
  if (stmts.empty()) {
    error(open, "empty block: a body needs at least one statement");
    return nullptr;
  }
  return makeSeq(stmts);
}

NodePtr Parser::parseStatement(int depth) {
  if (tooDeep(depth)) {
    recover({Tok::Semicolon});
    return nullptr;
  }
  if (!at(Tok::LBrace) && !countStatement()) return nullptr;
  if (at(Tok::LBrace)) return parseBlock(depth);
  if (atType()) {
    error(tok_, "a local scalar is declared inside a block '{ ... }', where its scope is the rest of the block");
    recover({Tok::Semicolon});
    return nullptr;
  }
  if (at(Tok::Parallel) || at(Tok::Reduce) || at(Tok::For)) return parseLoop(depth);
  // A misspelled loop mark ('paralel for'): one error, and the whole loop is skipped unread.
  if (at(Tok::Ident) && !arrays_.count(std::string(tok_.text)) && peek().kind == Tok::For) {
    std::string suggestion = common::didYouMean(std::string(tok_.text), {"parallel", "reduce"});
    error(tok_, "unknown loop mark '" + std::string(tok_.text) + "'" +
                    (suggestion.empty() ? "; a loop is marked 'parallel' or 'reduce', or not at all" : suggestion));
    advance();
    skipStatement();
    return nullptr;
  }
  if (at(Tok::Ident)) {
    NodePtr s = parseAssign();
    if (!s) recover({Tok::Semicolon});
    return s;
  }
  error(tok_, "expected a statement (a loop, an assignment or '{'), found " + describe(tok_));
  if (at(Tok::End)) return nullptr;
  advance();
  recover({Tok::Semicolon});
  return nullptr;
}

NodePtr Parser::parseLoop(int depth) {
  Token start = tok_;
  if (indices_.size() == kMaxLoopDepth) {
    error(tok_, "loops are nested more than " + std::to_string(kMaxLoopDepth) + " deep; a kernel may nest at most " +
                    std::to_string(kMaxLoopDepth));
    stopped_ = true;
    return nullptr;
  }
  LoopKind kind = LoopKind::Serial;
  if (accept(Tok::Parallel))
    kind = LoopKind::Parallel;
  else if (accept(Tok::Reduce))
    kind = LoopKind::Reduce;
  // A broken header is skipped with the loop's body, so that later statements are still read.
  bool headerOpen = false;
  auto skipHeader = [&]() {
    int parens = headerOpen ? 1 : 0;
    while (!at(Tok::End) && !at(Tok::LBrace) && !at(Tok::RBrace)) {
      if (at(Tok::LParen)) ++parens;
      if (at(Tok::RParen) && --parens <= 0) {
        advance();
        break;
      }
      advance();
    }
    skipStatement();
    return NodePtr();
  };
  if (!expect(Tok::For, "after the loop's mark")) return skipHeader();
  if (!expect(Tok::LParen, "after 'for'")) return skipHeader();
  headerOpen = true;
  if (!at(Tok::Ident)) {
    error(tok_, "expected the loop's index, found " + describe(tok_));
    return skipHeader();
  }
  Token indexTok = tok_;
  std::string index(tok_.text);
  advance();
  if (nameTaken(index)) {
    error(indexTok, "'" + index + "' is already declared; a loop index needs a fresh name");
    return skipHeader();
  }
  if (!expect(Tok::Assign, "after the loop's index")) return skipHeader();
  std::optional<Affine> lower = parseAffine(true);
  if (!lower) return skipHeader();
  if (!expect(Tok::Semicolon, "after the lower bound")) return skipHeader();
  auto expectIndex = [&](const char* where) {
    if (at(Tok::Ident) && tok_.text == index) {
      advance();
      return true;
    }
    error(tok_, "expected the loop's index '" + index + "' " + where + ", found " + describe(tok_));
    return false;
  };
  if (!expectIndex("in the condition")) return skipHeader();
  if (!expect(Tok::Less, "in the loop's condition (loops run while index < bound)")) return skipHeader();
  std::optional<std::vector<Affine>> upper = parseUpper();
  if (!upper) return skipHeader();
  if (!expect(Tok::Semicolon, "after the upper bound")) return skipHeader();
  if (!expectIndex("in the increment")) return skipHeader();
  int64_t step = 1;
  if (!accept(Tok::PlusPlus)) {
    Token stepTok = tok_;
    if (!expect(Tok::PlusAssign, "or '++' in the increment")) return skipHeader();
    std::optional<Affine> s = parseAffine(false);
    if (!s) return skipHeader();
    if (s->constant <= 0) {
      error(stepTok, "loop step must be positive, not " + std::to_string(s->constant));
      return skipHeader();
    }
    step = s->constant;
  }
  if (!expect(Tok::RParen, "after the loop's header")) return skipHeader();
  for (const Affine& u : *upper) {
    if (u.uses(index)) error(indexTok, "the upper bound of '" + index + "' uses the index itself");
  }
  indices_.push_back(index);
  NodePtr body = parseStatement(depth + 1);
  indices_.pop_back();
  if (!body) return nullptr;
  return makeFor(index, *lower, *upper, step, kind, body, Mapping::None, loc(start));
}

std::optional<Access> Parser::parseAccess(bool forWrite) {
  Token nameTok = tok_;
  std::string name(tok_.text);
  advance();
  auto it = arrays_.find(name);
  if (it == arrays_.end()) {
    if (sizeValues_.count(name) || isIndex(name))
      error(nameTok, "'" + name + "' is not an array");
    else
      error(nameTok, "unknown array '" + name + "'");
    return std::nullopt;
  }
  const Array& array = it->second;
  if (forWrite && array.input) {
    error(nameTok, "cannot write to '" + name + "': it is declared const");
    return std::nullopt;
  }
  Access access;
  access.array = name;
  while (accept(Tok::LBracket)) {
    std::optional<Affine> sub = parseAffine(true);
    if (!sub) return std::nullopt;
    access.subscripts.push_back(*sub);
    if (!expect(Tok::RBracket, "after a subscript")) return std::nullopt;
  }
  if (access.subscripts.size() != array.extents.size()) {
    error(nameTok, "'" + name + "' has " + std::to_string(array.extents.size()) + " dimension" +
                       (array.extents.size() == 1 ? "" : "s") + " but is given " +
                       std::to_string(access.subscripts.size()) + " subscript" +
                       (access.subscripts.size() == 1 ? "" : "s"));
    return std::nullopt;
  }
  return access;
}

NodePtr Parser::parseAssign() {
  SourceLoc at = loc(tok_);
  if (!arrays_.count(std::string(tok_.text))) {
    // Say what went wrong at the name, then let parseAccess's recovery skip the statement.
    if (sizeValues_.count(std::string(tok_.text)) || isIndex(std::string(tok_.text))) {
      error(tok_, "cannot assign to '" + std::string(tok_.text) + "': only array elements can be assigned");
    } else {
      error(tok_, "unknown array '" + std::string(tok_.text) + "'");
    }
    return nullptr;
  }
  Token nameTok = tok_;
  std::optional<Access> target = parseAccess(true);
  if (!target) return nullptr;
  bool accumulate = false;
  if (accept(Tok::PlusAssign)) {
    accumulate = true;
    checkLocalSet(nameTok);
  } else if (!accept(Tok::Assign)) {
    error(tok_, "expected '=' or '+=' after " + target->str() + ", found " + describe(tok_));
    return nullptr;
  }
  Token valueTok = tok_;
  intTarget_ = arrays_.at(target->array).type == ScalarType::Int ? target->array : "";
  statementType_ = arithmeticType(arrays_.at(target->array).type);
  ExprPtr value = parseExpr(0);
  std::string intTarget = std::move(intTarget_);
  intTarget_.clear();
  if (!value) return nullptr;
  if (auto v = intConstant(*value); !intTarget.empty() && v && !fitsInt(*v)) {
    error(valueTok, std::to_string(*v) + " does not fit a 32-bit int (the type of '" + intTarget + "')");
    return nullptr;
  }
  if (!expect(Tok::Semicolon, "after the assignment")) return nullptr;
  // An `=` at the local's own depth sets it for what follows; one in a loop below may not run.
  auto local = locals_.find(target->array);
  if (!accumulate && local != locals_.end() && local->second.loopDepth == indices_.size()) local->second.set = true;
  return makeAssign(*target, value, accumulate, at);
}

// `TYPE name;` or `TYPE name = EXPR;`: a local scalar, in scope to the end of its block.
std::optional<Parser::LocalDecl> Parser::parseLocal() {
  if (!countStatement()) return std::nullopt;
  SourceLoc start = loc(tok_);
  Token typeTok = tok_;
  std::optional<ScalarType> type = parseType();
  if (!type) return std::nullopt;
  if (!at(Tok::Ident)) {
    error(tok_, "expected the local's name after its type, found " + describe(tok_));
    recover({Tok::Semicolon});
    return std::nullopt;
  }
  Token nameTok = tok_;
  std::string name(tok_.text);
  advance();
  bool ok = true;
  if (*type == ScalarType::TF32) {
    error(typeTok, "a local cannot be tf32 (tf32 describes how an array's elements are read); declare it float");
    ok = false;
  }
  if (locals_.count(name)) {
    error(nameTok, "local '" + name + "' is already declared in this scope");
    ok = false;
  } else if (arrays_.count(name)) {
    error(nameTok, "local '" + name + "' would shadow the array '" + name + "'; give it another name");
    ok = false;
  } else if (nameTaken(name)) {
    error(nameTok, "'" + name + "' is already declared; a local needs a fresh name");
    ok = false;
  }
  if (!ok) {
    recover({Tok::Semicolon});
    return std::nullopt;
  }
  LocalDecl decl;
  decl.local.name = name;
  decl.local.type = *type;
  decl.local.space = MemorySpace::Register;
  decl.local.loc = loc(nameTok);
  arrays_[name] = decl.local;  // in scope in its own initialiser, where reading it is an error
  locals_[name] = LocalState{indices_.size(), false};
  if (accept(Tok::Assign)) {
    statementType_ = arithmeticType(*type);
    ExprPtr value = parseExpr(0);
    if (!value || !expect(Tok::Semicolon, "after the local's declaration")) {
      arrays_.erase(name);
      locals_.erase(name);
      recover({Tok::Semicolon});
      return std::nullopt;
    }
    decl.init = makeAssign(Access{name, {}}, value, false, start);
    locals_[name].set = true;
  } else if (!expect(Tok::Semicolon, "or '=' after the local's name")) {
    arrays_.erase(name);
    locals_.erase(name);
    recover({Tok::Semicolon});
    return std::nullopt;
  }
  return decl;
}

ExprPtr Parser::parseExpr(int depth) {
  if (tooDeep(depth)) return nullptr;
  ExprPtr left = parseExprTerm(depth);
  while (left && (at(Tok::Plus) || at(Tok::Minus))) {
    Token op = tok_;
    advance();
    ExprPtr right = parseExprTerm(depth);
    if (!right) return nullptr;
    left = combine(op, Expr::binary(op.text[0], left, right));
  }
  return left;
}

ExprPtr Parser::parseExprTerm(int depth) {
  ExprPtr left = parseExprUnary(depth);
  while (left && (at(Tok::Star) || at(Tok::Slash))) {
    Token op = tok_;
    advance();
    ExprPtr right = parseExprUnary(depth);
    if (!right) return nullptr;
    left = combine(op, Expr::binary(op.text[0], left, right));
  }
  if (left && at(Tok::Percent)) {
    error(tok_, "'%' is allowed in sizes and subscripts only");
    return nullptr;
  }
  return left;
}

ExprPtr Parser::parseExprUnary(int depth) {
  if (tooDeep(depth)) return nullptr;
  if (at(Tok::Minus)) {
    Token minus = tok_;
    advance();
    // A negated literal is a negative constant; anything else is 0 - x.
    if (at(Tok::Integer) || at(Tok::Real)) {
      ExprPtr c = parseExprPrimary(depth);
      return c ? Expr::constant(-c->value) : nullptr;
    }
    ExprPtr operand = parseExprUnary(depth + 1);
    return operand ? combine(minus, Expr::binary('-', Expr::constant(0), operand)) : nullptr;
  }
  return parseExprPrimary(depth);
}

ExprPtr Parser::parseExprPrimary(int depth) {
  if (at(Tok::Integer) || at(Tok::Real)) {
    double v = 0;
    std::string_view digits = tok_.text;
    if (!digits.empty() && (digits.back() == 'f' || digits.back() == 'F')) digits.remove_suffix(1);  // C's float suffix
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc()) {
      error(tok_, "number '" + std::string(tok_.text) + "' is out of range");
      advance();
      return nullptr;
    }
    advance();
    return Expr::constant(v);
  }
  if (at(Tok::Ident)) {
    std::string name(tok_.text);
    if (arrays_.count(name)) {
      checkLocalSet(tok_);
      std::optional<Access> a = parseAccess(false);
      return a ? Expr::read(*a) : nullptr;
    }
    if (auto it = sizeValues_.find(name); it != sizeValues_.end()) {
      advance();
      return Expr::constant(double(it->second));
    }
    if (isIndex(name)) {
      advance();
      return Expr::indexValue(Affine::var(name));
    }
    error(tok_, "unknown name '" + name + "': not an array, a size or a loop index in scope");
    advance();
    return nullptr;
  }
  if (at(Tok::Min) || at(Tok::Max) || at(Tok::Function)) return parseCall(depth);
  if (accept(Tok::LParen)) {
    ExprPtr e = parseExpr(depth + 1);
    if (!e || !expect(Tok::RParen, "to close '('")) return nullptr;
    return e;
  }
  error(tok_,
        "expected a value (a number, an array element, a local, an index or a math function), found " + describe(tok_));
  return nullptr;
}

// `f(a)` or `f(a, b)`: a math function, its arguments counted against its arity.
ExprPtr Parser::parseCall(int depth) {
  Token callTok = tok_;
  std::string callee(tok_.text);
  const MathFunction* f = findMathFunction(callee);
  advance();
  if (!expect(Tok::LParen, ("after '" + callee + "'").c_str())) return nullptr;
  std::vector<ExprPtr> args;
  do {
    ExprPtr a = parseExpr(depth + 1);
    if (!a) return nullptr;
    args.push_back(a);
  } while (accept(Tok::Comma));
  if (!expect(Tok::RParen, ("to close " + callee + "(").c_str())) return nullptr;
  if (static_cast<int>(args.size()) != f->arity) {
    error(callTok, callee + "() takes " + std::to_string(f->arity) + " argument" + (f->arity == 1 ? "" : "s") +
                       ", not " + std::to_string(args.size()));
    return nullptr;
  }
  if (statementType_ == ScalarType::Int && f->arity == 1) {
    error(callTok, callee + "() computes on floating-point values, but this statement computes in int");
    return nullptr;
  }
  return combine(callTok, Expr::call(callee, std::move(args)));
}

}  // namespace

std::optional<Kernel> parseLoopFile(const common::SourceFile& file, common::Diagnostics& diags,
                                    const std::map<std::string, int64_t>& overrides) {
  Parser parser(file, diags, overrides);
  return parser.parse();
}

}  // namespace cudaburg
