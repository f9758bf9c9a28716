#include "burgspec/lburg_parser.hpp"

#include <cctype>
#include <climits>
#include <string_view>

namespace burgspec {

namespace {

bool isIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\r' || c == '\v'; }

// Reads one line of an .md file at a time; positions are byte offsets into the whole text.
class LburgParser {
 public:
  LburgParser(const common::SourceFile& file, common::Diagnostics& diags, Grammar& grammar)
      : file_(file), text_(file.text()), diags_(diags), grammar_(grammar) {}

  void parse() {
    bool inRules = false;
    while (lineStart_ < text_.size()) {
      lineEnd_ = text_.find('\n', lineStart_);
      if (lineEnd_ == std::string::npos) lineEnd_ = text_.size();
      at_ = lineStart_;
      if (startsWith("%%")) {
        if (inRules) {
          grammar_.epilogue = text_.substr(std::min(lineEnd_ + 1, text_.size()));
          return;
        }
        inRules = true;
        at_ += 2;
        expectLineEnd("after '%%'");
      } else if (!inRules && startsWith("%{")) {
        parsePrologue();
        continue;
      } else if (!inRules) {
        parseDeclaration();
      } else {
        parseRule();
      }
      nextLine();
    }
    if (!inRules) error(text_.size(), "expected '%%' before the rules");
  }

 private:
  void nextLine() { lineStart_ = lineEnd_ + 1; }
  bool startsWith(std::string_view word) const { return text_.compare(at_, word.size(), word) == 0; }
  void skipBlanks() {
    while (at_ < lineEnd_ && isBlank(text_[at_])) ++at_;
  }
  bool atLineEnd() {
    skipBlanks();
    return at_ >= lineEnd_;
  }
  void error(size_t offset, const std::string& message) { diags_.error(file_.locate(offset), message); }
  void expectLineEnd(const std::string& where) {
    if (!atLineEnd()) error(at_, "unexpected text " + where);
  }
  std::string identifier() {
    size_t begin = at_;
    while (at_ < lineEnd_ && isIdentChar(text_[at_])) ++at_;
    return text_.substr(begin, at_ - begin);
  }
  bool expectIdentifier(const std::string& what, std::string& name, common::SourceLoc& loc) {
    skipBlanks();
    if (at_ >= lineEnd_ || !isIdentStart(text_[at_])) {
      error(at_, "expected " + what);
      return false;
    }
    loc = file_.locate(at_);
    name = identifier();
    return true;
  }
  bool expectChar(char c, const std::string& what) {
    skipBlanks();
    if (at_ < lineEnd_ && text_[at_] == c) {
      ++at_;
      return true;
    }
    error(at_, "expected " + what);
    return false;
  }

  void parsePrologue() {
    size_t open = lineStart_;
    for (size_t line = lineEnd_ + 1; line < text_.size();) {
      size_t end = text_.find('\n', line);
      if (end == std::string::npos) end = text_.size();
      if (text_.compare(line, 2, "%}") == 0) {
        grammar_.prologue += text_.substr(lineEnd_ + 1, line - (lineEnd_ + 1));
        lineStart_ = end + 1;
        return;
      }
      line = end + 1;
    }
    error(open, "unterminated '%{' block: missing '%}' at the start of a line");
    lineStart_ = text_.size();
  }

  void parseDeclaration() {
    if (atLineEnd()) return;
    if (startsWith("%term") && (at_ + 5 >= lineEnd_ || isBlank(text_[at_ + 5]))) {
      at_ += 5;
      while (!atLineEnd()) {
        Terminal t;
        if (!expectIdentifier("an operator name", t.name, t.loc) || !expectChar('=', "'=' and the operator's number"))
          return;
        skipBlanks();
        size_t digits = at_;
        long long value = 0;
        while (at_ < lineEnd_ && std::isdigit(static_cast<unsigned char>(text_[at_])) && value <= INT_MAX)
          value = value * 10 + (text_[at_++] - '0');
        if (at_ == digits || value == 0 || value > INT_MAX) {
          error(digits, "expected a positive operator number after '='");
          return;
        }
        t.number = static_cast<int>(value);
        t.numbered = true;
        grammar_.terminals.push_back(std::move(t));
      }
      return;
    }
    if (startsWith("%start") && (at_ + 6 >= lineEnd_ || isBlank(text_[at_ + 6]))) {
      at_ += 6;
      std::string name;
      common::SourceLoc loc;
      if (!expectIdentifier("the start nonterminal after %start", name, loc)) return;
      if (!grammar_.start.empty()) {
        diags_.error(loc, "duplicate %start declaration");
        return;
      }
      grammar_.start = name;
      grammar_.startLoc = loc;
      expectLineEnd("after the start nonterminal");
      return;
    }
    error(at_, "expected a declaration (%term, %start, %{ ... %}) or '%%'");
  }

  bool parseTree(Pattern& pattern, int depth) {
    if (depth > 200) {
      error(at_, "pattern nested too deeply (more than 200 levels)");
      return false;
    }
    if (!expectIdentifier("a pattern", pattern.symbol, pattern.loc)) return false;
    skipBlanks();
    if (at_ >= lineEnd_ || text_[at_] != '(') return true;
    ++at_;
    for (;;) {
      Pattern kid;
      if (!parseTree(kid, depth + 1)) return false;
      pattern.kids.push_back(std::move(kid));
      skipBlanks();
      if (at_ < lineEnd_ && text_[at_] == ',') {
        ++at_;
        continue;
      }
      return expectChar(')', "',' or ')' after an operand of '" + pattern.symbol + "'");
    }
  }

  void parseRule() {
    if (atLineEnd()) return;
    Rule rule;
    if (!expectIdentifier("a rule ('nonterminal: pattern \"template\" cost')", rule.lhs, rule.loc)) return;
    if (!expectChar(':', "':' after '" + rule.lhs + "'")) return;
    if (!parseTree(rule.pattern, 0)) return;
    skipBlanks();
    if (at_ >= lineEnd_ || text_[at_] != '"') {
      error(at_, "expected the assembler template, a string in double quotes");
      return;
    }
    size_t open = at_++;
    // The template is the body of a C string literal: a backslash escapes the character after
    // it, so `\"` does not close it and a template cannot end in a lone backslash.
    size_t close = at_;
    while (close < lineEnd_ && text_[close] != '"') close += text_[close] == '\\' ? 2 : 1;
    if (close >= lineEnd_) {
      error(open, "unterminated template: missing '\"' on this line");
      return;
    }
    rule.asmTemplate = text_.substr(at_, close - at_);
    at_ = close + 1;
    skipBlanks();
    size_t end = lineEnd_;
    while (end > at_ && std::isspace(static_cast<unsigned char>(text_[end - 1]))) --end;
    std::string cost = text_.substr(at_, end - at_);
    rule.cost.loc = file_.locate(at_);
    // As lburg does: a cost that is a whole number is a constant; anything else is C code.
    bool constant = !cost.empty() && cost.size() <= 9 && cost.find_first_not_of("0123456789") == std::string::npos;
    if (cost.empty()) {
      rule.cost.value = 0;
    } else if (constant) {
      rule.cost.value = std::stoll(cost);
    } else {
      rule.cost.dynamic = true;
      rule.cost.code = cost;
    }
    rule.number = static_cast<int>(grammar_.rules.size()) + 1;
    rule.numbered = true;
    grammar_.rules.push_back(std::move(rule));
  }

  const common::SourceFile& file_;
  const std::string& text_;
  common::Diagnostics& diags_;
  Grammar& grammar_;
  size_t lineStart_ = 0, lineEnd_ = 0, at_ = 0;
};

}  // namespace

bool parseLburgGrammar(const common::SourceFile& file, common::Diagnostics& diags, Grammar& grammar) {
  int errorsBefore = diags.errorCount();
  LburgParser(file, diags, grammar).parse();
  return diags.errorCount() == errorsBefore;
}

}  // namespace burgspec
