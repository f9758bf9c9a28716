// Recursive-descent parser of BURG specs. The grammar it accepts:
//
//   spec        := declaration* '%%' rule* ('%%' epilogue)?
//   declaration := '%{' text '%}' | '%term' (name ('=' int)?)* ';'?  | '%start' name ';'?
//                | '%type' '<' type '>' name+ ';'?  | '%node' '<' type '>' ';'?
//                | '%label' '<' type '>' name+ ';'?  | '%param' '<' type '>' name+ ';'?
//                | '%params' name params ';'?
//   rule        := name ':' pattern ('=' int)? guard? params? ('(' cost ')')? ('{' action '}' ';'? | ';')
//   guard       := 'if' '(' expression ')'
//   params      := '[' item (',' item)* ']'
//   item        := name 'in' domain | name          (a name alone includes that %params list)
//   cost        := int | expression | '=' expression
//   pattern     := (name ':')? name ('(' pattern (',' pattern)* ')')?
#include "burgspec/parser.hpp"

#include <cctype>
#include <climits>
#include <string>
#include <unordered_set>
#include <vector>

#include "burgspec/lexer.hpp"

namespace burgspec {

namespace {

// Deeper patterns than this are refused, so that hostile input cannot exhaust the stack.
constexpr int kMaxPatternDepth = 200;

std::string_view trim(std::string_view text, size_t& leading) {
  leading = 0;
  while (leading < text.size() && std::isspace(static_cast<unsigned char>(text[leading]))) ++leading;
  text.remove_prefix(leading);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

bool allDigits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text)
    if (c < '0' || c > '9') return false;
  return true;
}

// Parses decimal digits into a value no larger than `max`; false on overflow.
bool parseDecimal(std::string_view digits, int64_t max, int64_t& value) {
  value = 0;
  for (char c : digits) {
    int digit = c - '0';
    if (value > (max - digit) / 10) return false;
    value = value * 10 + digit;
  }
  return true;
}

std::string describe(const Token& token) {
  switch (token.kind) {
    case TokenKind::Identifier:
      return "identifier '" + std::string(token.text) + "'";
    case TokenKind::Integer:
    case TokenKind::Directive:
      return "'" + std::string(token.text) + "'";
    default:
      return tokenKindName(token.kind);
  }
}

class Parser {
 public:
  Parser(const common::SourceFile& file, common::Diagnostics& diags, Grammar& grammar)
      : file_(file), diags_(diags), grammar_(grammar), lexer_(file) {
    tok_ = lexer_.next();
  }

  void parseSpec() {
    parseDeclarations();
    if (!at(TokenKind::PercentPercent)) return;
    advance();
    parseRules();
    if (at(TokenKind::PercentPercent)) grammar_.epilogue = lexer_.rest();
    resolveLeafCosts();
  }

 private:
  bool at(TokenKind kind) const { return tok_.kind == kind; }
  void advance() {
    prevEnd_ = tok_.endOffset();
    tok_ = lexer_.next();
  }
  // Moves on after the lexer captured raw text that followed the current token.
  void advanceAfterCapture() {
    prevEnd_ = lexer_.offset();
    tok_ = lexer_.next();
  }
  Token peek() const {
    Lexer ahead = lexer_;
    return ahead.next();
  }
  bool startsLine(const Token& token) const {
    return token.offset == 0 || file_.locate(prevEnd_).line < token.loc.line;
  }
  bool atRuleStart() const { return at(TokenKind::Identifier) && startsLine(tok_) && peek().kind == TokenKind::Colon; }

  // Reports that `what` should stand at the current token (or the lexer's own complaint).
  void errorExpected(const std::string& what) {
    if (at(TokenKind::Error))
      diags_.error(tok_.loc, tok_.error);
    else
      diags_.error(tok_.loc, "expected " + what + ", found " + describe(tok_));
  }

  // Reads a positive decimal number that fits in an int.
  bool parseNumber(int& value, const std::string& what) {
    if (!at(TokenKind::Integer)) {
      errorExpected(what);
      return false;
    }
    int64_t parsed;
    if (!parseDecimal(tok_.text, INT_MAX, parsed)) {
      diags_.error(tok_.loc, what + " " + std::string(tok_.text) + " is too large");
      return false;
    }
    if (parsed == 0) {
      diags_.error(tok_.loc, what + " must be positive");
      return false;
    }
    value = static_cast<int>(parsed);
    advance();
    return true;
  }

  void skipOptionalSemicolon() {
    if (at(TokenKind::Semicolon)) advance();
  }

  // ---- Declarations ----

  bool atDeclarationBoundary() const {
    return at(TokenKind::Directive) || at(TokenKind::PrologueBegin) || at(TokenKind::PercentPercent) ||
           at(TokenKind::End);
  }

  void parseDeclarations() {
    while (!at(TokenKind::End) && !at(TokenKind::PercentPercent)) {
      size_t before = tok_.offset;
      if (!parseDeclaration()) {
        if (tok_.offset == before) advance();
        while (!atDeclarationBoundary()) advance();
      }
    }
    if (at(TokenKind::End) && !prologueRanToEnd_) diags_.error(tok_.loc, "expected '%%' before the rules");
  }

  bool parseDeclaration() {
    if (at(TokenKind::PrologueBegin)) return parsePrologue(grammar_.prologue);
    if (!at(TokenKind::Directive)) {
      errorExpected("a declaration (%term, %start, %type, %node, %label, %param, %params, %{ ... %}) or '%%'");
      return false;
    }
    std::string_view name = tok_.text;
    if (name == "%term") return parseTermDeclaration();
    if (name == "%start") return parseStartDeclaration();
    if (name == "%type") return parseTypeDeclaration(grammar_.types, "%type");
    if (name == "%label") return parseTypeDeclaration(grammar_.labels, "%label");
    if (name == "%param") return parseTypeDeclaration(grammar_.params, "%param");
    if (name == "%params") return parseParamListDeclaration();
    if (name == "%node") return parseNodeDeclaration();
    diags_.error(tok_.loc, "unknown directive '" + std::string(name) + "'");
    advance();
    return false;
  }

  bool parsePrologue(std::string& into) {
    common::SourceLoc loc = tok_.loc;
    RawCapture code = lexer_.capturePrologue();
    if (!code.closed) {
      diags_.error(loc, "unterminated '%{' block: missing '%}'");
      prologueRanToEnd_ = true;
      advanceAfterCapture();
      return false;
    }
    if (!into.empty() && into.back() != '\n') into += '\n';
    into += code.text;
    advanceAfterCapture();
    return true;
  }

  bool parseTermDeclaration() {
    advance();
    while (at(TokenKind::Identifier)) {
      Terminal terminal;
      terminal.name = tok_.text;
      terminal.loc = tok_.loc;
      advance();
      if (at(TokenKind::Equals)) {
        advance();
        if (!parseNumber(terminal.number, "operator number")) return false;
        terminal.numbered = true;
      }
      grammar_.terminals.push_back(std::move(terminal));
    }
    skipOptionalSemicolon();
    if (!atDeclarationBoundary()) {
      errorExpected("an operator name");
      return false;
    }
    return true;
  }

  bool parseStartDeclaration() {
    common::SourceLoc directive = tok_.loc;
    advance();
    if (!at(TokenKind::Identifier)) {
      errorExpected("the start nonterminal after %start");
      return false;
    }
    if (!grammar_.start.empty()) {
      diags_.error(directive, "duplicate %start declaration");
      diags_.note(grammar_.startLoc, "the start nonterminal was declared here");
    } else {
      grammar_.start = tok_.text;
      grammar_.startLoc = tok_.loc;
    }
    advance();
    skipOptionalSemicolon();
    return true;
  }

  // `%type`, `%label` and `%param`: a C++ type, then the names it applies to.
  bool parseTypeDeclaration(std::vector<TypeDecl>& into, const std::string& directive) {
    advance();
    TypeDecl decl;
    common::SourceLoc typeLoc;
    if (!parseCppType(decl.type, typeLoc)) return false;
    while (at(TokenKind::Identifier)) {
      decl.names.emplace_back(tok_.text);
      decl.locs.push_back(tok_.loc);
      advance();
    }
    if (decl.names.empty()) {
      errorExpected(std::string(directive == "%param" ? "the parameters" : "the nonterminals") + " that " + directive +
                    " <" + decl.type + "> applies to");
      return false;
    }
    skipOptionalSemicolon();
    into.push_back(std::move(decl));
    return true;
  }

  // `%params name [p in domain, ...]`: a parameter list rules include by name.
  bool parseParamListDeclaration() {
    advance();
    if (!at(TokenKind::Identifier)) {
      errorExpected("the name of the parameter list after %params");
      return false;
    }
    ParamList list;
    list.name = tok_.text;
    list.loc = tok_.loc;
    advance();
    if (!at(TokenKind::LeftBracket)) {
      errorExpected("'[' and the parameters of list '" + list.name + "'");
      return false;
    }
    if (!parseParams(list.params)) return false;
    skipOptionalSemicolon();
    if (const ParamList* previous = grammar_.findParamList(list.name)) {
      diags_.error(list.loc, "parameter list '" + list.name + "' is declared twice");
      diags_.note(previous->loc, "first declared here");
      return true;
    }
    grammar_.paramLists.push_back(std::move(list));
    return true;
  }

  bool parseNodeDeclaration() {
    common::SourceLoc directive = tok_.loc;
    advance();
    std::string type;
    common::SourceLoc typeLoc;
    if (!parseCppType(type, typeLoc)) return false;
    if (!grammar_.nodeType.empty()) {
      diags_.error(directive, "duplicate %node declaration");
      diags_.note(grammar_.nodeTypeLoc, "the node type was declared here");
    } else {
      grammar_.nodeType = type;
      grammar_.nodeTypeLoc = typeLoc;
    }
    skipOptionalSemicolon();
    return true;
  }

  // A C++ type in angle brackets: `<std::map<int, Tree*>>`.
  bool parseCppType(std::string& type, common::SourceLoc& loc) {
    if (!at(TokenKind::LeftAngle)) {
      errorExpected("a C++ type in angle brackets");
      return false;
    }
    common::SourceLoc open = tok_.loc;
    Lexer atOpening = lexer_;
    RawCapture text = lexer_.captureBalanced('<', '>');
    if (!text.closed) {
      unterminated(atOpening, open, "unterminated type: missing '>'");
      return false;
    }
    size_t leading;
    type = trim(text.text, leading);
    loc = file_.locate(text.textOffset + leading);
    advanceAfterCapture();
    if (type.empty()) {
      diags_.error(open, "empty type");
      return false;
    }
    return true;
  }

  // ---- Rules ----

  void parseRules() {
    while (!at(TokenKind::End) && !at(TokenKind::PercentPercent)) {
      size_t before = tok_.offset;
      if (!parseRule()) {
        skipToNextRule();
        if (tok_.offset == before && !at(TokenKind::End)) advance();
      }
    }
  }

  // After an error inside a rule: resume after its ';' or action, or at a line that starts
  // a new rule.
  void skipToNextRule() {
    while (!at(TokenKind::End) && !at(TokenKind::PercentPercent)) {
      if (at(TokenKind::Semicolon)) {
        advance();
        return;
      }
      if (at(TokenKind::LeftBrace)) {
        lexer_.captureBalanced('{', '}');
        advanceAfterCapture();
        skipOptionalSemicolon();
        return;
      }
      if (at(TokenKind::LeftParen)) {
        lexer_.captureBalanced('(', ')');
        advanceAfterCapture();
        continue;
      }
      if (at(TokenKind::LeftBracket)) {
        lexer_.captureBalanced('[', ']');
        advanceAfterCapture();
        continue;
      }
      if (at(TokenKind::PrologueBegin)) {
        lexer_.capturePrologue();
        advanceAfterCapture();
        continue;
      }
      if (atRuleStart()) return;
      advance();
    }
  }

  bool parseRule() {
    if (at(TokenKind::Directive) || at(TokenKind::PrologueBegin)) {
      diags_.error(tok_.loc, "declarations must come before the first '%%'");
      return false;
    }
    Rule rule;
    if (!at(TokenKind::Identifier)) {
      errorExpected("a rule ('nonterminal: pattern')");
      return false;
    }
    rule.lhs = tok_.text;
    rule.loc = tok_.loc;
    advance();
    if (!at(TokenKind::Colon)) {
      errorExpected("':' after '" + rule.lhs + "'");
      return false;
    }
    advance();
    spacedOperands_ = false;
    if (!parsePattern(rule.pattern, 0)) return false;
    bool maybeCost = spacedOperands_ && rule.pattern.kids.size() == 1 && rule.pattern.kids[0].kids.empty() &&
                     rule.pattern.kids[0].binding.empty();
    if (maybeCost && !at(TokenKind::Equals) && !at(TokenKind::LeftParen))
      leafCostCandidates_.push_back(grammar_.rules.size());
    if (at(TokenKind::Equals)) {
      advance();
      rule.numberLoc = tok_.loc;
      if (!parseNumber(rule.number, "rule number")) return false;
      rule.numbered = true;
    }
    if (at(TokenKind::Identifier) && tok_.text == "if" && !parseGuard(rule)) return false;
    if (at(TokenKind::LeftBracket) && !parseParams(rule.params)) return false;
    if (at(TokenKind::LeftParen) && !parseCost(rule.cost)) return false;
    if (at(TokenKind::LeftBrace)) {
      if (!parseAction(rule)) return false;
      skipOptionalSemicolon();
      grammar_.rules.push_back(std::move(rule));
      return true;
    }
    if (at(TokenKind::Error)) {
      errorExpected("';'");
      return false;
    }
    if (!at(TokenKind::Semicolon)) {
      bool nextRuleFollows = atRuleStart();
      diags_.error(file_.locate(prevEnd_), "expected ';' at end of rule, found " + describe(tok_));
      grammar_.rules.push_back(std::move(rule));
      if (!nextRuleFollows) skipToNextRule();
      return true;
    }
    advance();
    grammar_.rules.push_back(std::move(rule));
    return true;
  }

  bool parsePattern(Pattern& pattern, int depth) {
    if (depth > kMaxPatternDepth) {
      diags_.error(tok_.loc, "pattern nested too deeply (more than " + std::to_string(kMaxPatternDepth) + " levels)");
      return false;
    }
    if (!at(TokenKind::Identifier)) {
      errorExpected("a pattern");
      return false;
    }
    pattern.symbol = tok_.text;
    pattern.loc = tok_.loc;
    advance();
    if (at(TokenKind::Colon)) {
      pattern.binding = std::move(pattern.symbol);
      advance();
      if (!at(TokenKind::Identifier)) {
        errorExpected("a symbol after '" + pattern.binding + ":'");
        return false;
      }
      pattern.symbol = tok_.text;
      advance();
    }
    // At the top level, '(' after a leaf may open its cost instead of its operands: it opens
    // operands when it touches the symbol, `ADDI(`, or when the symbol is a declared operator
    // and what the parentheses enclose has the shape of operands (see operandListAhead).
    if (!at(TokenKind::LeftParen)) return true;
    bool touches = tok_.offset == prevEnd_;
    if (depth == 0 && !touches && !(isDeclaredOperator(pattern.symbol) && operandListAhead())) return true;
    if (depth == 0 && !touches) spacedOperands_ = true;
    advance();
    for (;;) {
      Pattern kid;
      if (!parsePattern(kid, depth + 1)) return false;
      pattern.kids.push_back(std::move(kid));
      if (at(TokenKind::Comma)) {
        advance();
        continue;
      }
      if (at(TokenKind::RightParen)) {
        advance();
        return true;
      }
      errorExpected("',' or ')' after an operand of '" + pattern.symbol + "'");
      return false;
    }
  }

  bool isDeclaredOperator(std::string_view name) const { return grammar_.findTerminal(std::string(name)) != nullptr; }

  // Whether the parenthesized text after the current '(' has the shape of operand patterns:
  // symbols, bindings, commas and nested parentheses only, each '(' after a declared operator.
  // Reads ahead without consuming.
  bool operandListAhead() const {
    enum class State { NeedSymbol, NeedBoundSymbol, AfterName, AfterSymbol, AfterKids };
    Lexer ahead = lexer_;
    State state = State::NeedSymbol;
    int depth = 1;
    std::string_view symbol;
    for (;;) {
      Token token = ahead.next();
      if (token.kind == TokenKind::Identifier) symbol = token.text;
      if (state == State::NeedSymbol || state == State::NeedBoundSymbol) {
        if (token.kind != TokenKind::Identifier) return false;
        state = state == State::NeedSymbol ? State::AfterName : State::AfterSymbol;
      } else if (token.kind == TokenKind::Colon && state == State::AfterName) {
        state = State::NeedBoundSymbol;
      } else if (token.kind == TokenKind::LeftParen && state != State::AfterKids) {
        if (!isDeclaredOperator(symbol)) return false;
        if (++depth > kMaxPatternDepth) return true;  // parsePattern reports it
        state = State::NeedSymbol;
      } else if (token.kind == TokenKind::Comma) {
        state = State::NeedSymbol;
      } else if (token.kind == TokenKind::RightParen) {
        if (--depth == 0) return true;
        state = State::AfterKids;
      } else {
        return false;
      }
    }
  }

  // After a raw capture ran to the end of the input: reports it at the opening bracket and
  // resumes lexing just after that bracket, so that the rest of the input is still checked.
  void unterminated(const Lexer& atOpening, common::SourceLoc open, const std::string& message) {
    diags_.error(open, message);
    lexer_ = atOpening;
    advance();
  }

  // `if (expr)`: the rule's guard, C++ balanced on parentheses.
  bool parseGuard(Rule& rule) {
    common::SourceLoc keyword = tok_.loc;
    advance();
    if (!at(TokenKind::LeftParen)) {
      errorExpected("'(' and a condition after 'if'");
      return false;
    }
    common::SourceLoc open = tok_.loc;
    Lexer atOpening = lexer_;
    RawCapture text = lexer_.captureBalanced('(', ')');
    if (!text.closed) {
      unterminated(atOpening, open, "unterminated guard: missing ')'");
      return false;
    }
    advanceAfterCapture();
    size_t leading;
    std::string_view code = trim(text.text, leading);
    if (code.empty()) {
      diags_.error(keyword, "empty guard: write the C++ condition under which the rule applies");
      return false;
    }
    rule.guard = code;
    rule.guardLoc = file_.locate(text.textOffset + leading);
    return true;
  }

  // The parameters of %params list `name`, named at `loc`, appended to `params`.
  bool includeParamList(const std::string& name, common::SourceLoc loc, std::vector<RuleParam>& params) {
    const ParamList* list = grammar_.findParamList(name);
    if (!list) {
      if (!grammar_.paramType(name).empty())
        diags_.error(loc, "parameter '" + name + "' needs a domain: write '" + name + " in ...'");
      else
        diags_.error(loc, "undeclared parameter list '" + name + "'; declare it with %params " + name +
                              " [...] before the rules");
      return false;
    }
    for (RuleParam param : list->params) {
      param.list = name;
      param.listLoc = loc;
      params.push_back(std::move(param));
    }
    return true;
  }

  // `[name in domain, ...]`: each domain is C++ up to a `,` or `]` outside brackets; a name
  // alone includes a %params list.
  bool parseParams(std::vector<RuleParam>& params) {
    common::SourceLoc open = tok_.loc;
    advance();
    for (;;) {
      RuleParam param;
      if (!at(TokenKind::Identifier)) {
        errorExpected("a parameter name");
        return false;
      }
      param.name = tok_.text;
      param.loc = tok_.loc;
      advance();
      if (at(TokenKind::Comma) || at(TokenKind::RightBracket)) {
        if (!includeParamList(param.name, param.loc, params)) return false;
        bool last = at(TokenKind::RightBracket);
        advance();
        if (last) return true;
        continue;
      }
      if (!at(TokenKind::Identifier) || tok_.text != "in") {
        errorExpected("'in' after parameter '" + param.name + "'");
        return false;
      }
      common::SourceLoc in = tok_.loc;
      RawCapture text = lexer_.captureListItem();
      size_t leading;
      std::string_view domain = trim(text.text, leading);
      param.domain = domain;
      param.domainLoc = file_.locate(text.textOffset + leading);
      advanceAfterCapture();
      if (!text.closed) {
        if (at(TokenKind::End))
          diags_.error(open, "unterminated parameter list: missing ']'");
        else
          diags_.error(tok_.loc, "unbalanced '" + std::string(tok_.text) + "' in the domain of '" + param.name + "'");
        return false;
      }
      if (domain.empty()) {
        diags_.error(in, "empty domain: write a C++ expression whose elements the parameter takes after 'in'");
        return false;
      }
      params.push_back(std::move(param));
      bool last = at(TokenKind::RightBracket);
      advance();
      if (last) return true;
    }
  }

  bool parseCost(Cost& cost) {
    common::SourceLoc open = tok_.loc;
    Lexer atOpening = lexer_;
    RawCapture text = lexer_.captureBalanced('(', ')');
    if (!text.closed) {
      unterminated(atOpening, open, "unterminated cost: missing ')'");
      return false;
    }
    advanceAfterCapture();
    size_t leading;
    std::string_view code = trim(text.text, leading);
    size_t codeOffset = text.textOffset + leading;
    // `(= expr)`: the derivation's total cost. `==` would open a comparison, not a total.
    if (code.size() >= 1 && code[0] == '=' && (code.size() < 2 || code[1] != '=')) {
      cost.total = true;
      code.remove_prefix(1);
      code = trim(code, leading);
      codeOffset += 1 + leading;
      if (code.empty()) {
        diags_.error(open, "empty total cost: write a C++ expression after '='");
        return false;
      }
    }
    cost.loc = file_.locate(codeOffset);
    cost.offset = codeOffset;
    if (code.empty()) {
      diags_.error(open, "empty cost: write a number or a C++ expression between the parentheses");
      return false;
    }
    if (cost.total) {
      cost.dynamic = true;
      cost.code = code;
      return true;
    }
    if (allDigits(code)) {
      if (!parseDecimal(code, INT64_MAX, cost.value)) {
        diags_.error(cost.loc, "cost " + std::string(code) + " is too large");
        return false;
      }
      return true;
    }
    cost.dynamic = true;
    cost.code = code;
    return true;
  }

  bool parseAction(Rule& rule) {
    rule.actionLoc = tok_.loc;
    Lexer atOpening = lexer_;
    RawCapture text = lexer_.captureBalanced('{', '}');
    if (!text.closed) {
      unterminated(atOpening, rule.actionLoc, "unterminated action: missing '}'");
      return false;
    }
    advanceAfterCapture();
    rule.actionOffset = text.textOffset;
    rule.action = std::move(text.text);
    return true;
  }

  // `reg: CNSTI (INF);` reads as an operand until the whole spec is known; a single name there
  // that is neither an operator nor any rule's left side is the rule's cost, as in iburg.
  void resolveLeafCosts() {
    std::unordered_set<std::string> leftSides;
    if (!leafCostCandidates_.empty())
      for (const Rule& rule : grammar_.rules) leftSides.insert(rule.lhs);
    for (size_t index : leafCostCandidates_) {
      if (index >= grammar_.rules.size()) continue;
      Rule& rule = grammar_.rules[index];
      if (rule.pattern.kids.size() != 1) continue;
      const Pattern& kid = rule.pattern.kids[0];
      if (isDeclaredOperator(kid.symbol) || leftSides.count(kid.symbol)) continue;
      rule.cost.dynamic = true;
      rule.cost.code = kid.symbol;
      rule.cost.loc = kid.loc;
      rule.pattern.kids.clear();
    }
  }

  const common::SourceFile& file_;
  common::Diagnostics& diags_;
  Grammar& grammar_;
  Lexer lexer_;
  Token tok_;
  size_t prevEnd_ = 0;  // offset just past the previous token
  bool prologueRanToEnd_ = false;
  bool spacedOperands_ = false;             // the rule's top '(' did not touch its operator
  std::vector<size_t> leafCostCandidates_;  // rules whose `OP (name)` may be a leaf and its cost
};

}  // namespace

bool parseGrammar(const common::SourceFile& file, common::Diagnostics& diags, Grammar& grammar) {
  int errorsBefore = diags.errorCount();
  Parser parser(file, diags, grammar);
  parser.parseSpec();
  return diags.errorCount() == errorsBefore;
}

}  // namespace burgspec
