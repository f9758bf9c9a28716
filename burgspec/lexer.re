// The BURG spec lexer. re2c turns this file into lexer.cpp at build time.
// The scanners read the source text in place: std::string keeps a NUL after its last character,
// which serves as the sentinel; a NUL inside the text is an ordinary character.
#include "burgspec/lexer.hpp"

#include <cstring>

namespace burgspec {

/*!re2c
  re2c:define:YYCTYPE = "unsigned char";
  re2c:yyfill:enable = 0;
  re2c:eof = 0;

  identifier = [a-zA-Z_][a-zA-Z0-9_]*;
  space = [ \t\r\n\v\f]+;
  lineComment = "//" [^\n\x00]*;
  // In C++ code, a backslash before a newline splices two lines (phase 2): a literal or a line
  // comment goes on across it, so that a '}' on the next line is still inside it.
  splice = [\\] ("\n" | "\r\n");
  codeLineComment = "//" ([^\n\x00\\] | splice | [\\])*;
  blockComment = "/*" ([^*\x00] | "*"+ [^*/\x00])* "*"+ "/";
  stringLiteral = ["] ([^"\\\n\x00] | splice | [\\][^\n\x00])* ["];
  charLiteral = ['] ([^'\\\n\x00] | splice | [\\][^\n\x00])+ ['];
  ppNumber = [0-9] [0-9a-zA-Z_'.]*;
  rawStringStart = [uUL8]* "R" ["] [^ ()\\\t\v\f\r\n"\x00]* "(";
*/

const char* tokenKindName(TokenKind kind) {
  switch (kind) {
    case TokenKind::End: return "end of file";
    case TokenKind::Error: return "invalid token";
    case TokenKind::Identifier: return "identifier";
    case TokenKind::Integer: return "integer";
    case TokenKind::Colon: return "':'";
    case TokenKind::Semicolon: return "';'";
    case TokenKind::LeftParen: return "'('";
    case TokenKind::RightParen: return "')'";
    case TokenKind::Comma: return "','";
    case TokenKind::Equals: return "'='";
    case TokenKind::LeftBrace: return "'{'";
    case TokenKind::LeftBracket: return "'['";
    case TokenKind::RightBracket: return "']'";
    case TokenKind::LeftAngle: return "'<'";
    case TokenKind::PercentPercent: return "'%%'";
    case TokenKind::PrologueBegin: return "'%{'";
    case TokenKind::Directive: return "directive";
  }
  return "token";
}

Token Lexer::make(TokenKind kind, size_t begin, const char* error) const {
  Token token;
  token.kind = kind;
  token.text = std::string_view(file_->text()).substr(begin, cursor_ - begin);
  token.offset = begin;
  token.loc = file_->locate(begin);
  token.error = error;
  return token;
}

Token Lexer::next() {
  const std::string& text = file_->text();
  const unsigned char* base = reinterpret_cast<const unsigned char*>(text.c_str());
  const unsigned char* YYLIMIT = base + text.size();
  for (;;) {
    const unsigned char* YYCURSOR = base + cursor_;
    const unsigned char* YYMARKER = YYCURSOR;
    size_t begin = cursor_;
#define BURG_TOKEN(kind) (cursor_ = YYCURSOR - base, make(kind, begin))
#define BURG_ERROR(message) (cursor_ = YYCURSOR - base, make(TokenKind::Error, begin, message))
    /*!re2c
      $            { cursor_ = text.size(); return make(TokenKind::End, text.size()); }
      space        { cursor_ = YYCURSOR - base; continue; }
      lineComment  { cursor_ = YYCURSOR - base; continue; }
      blockComment { cursor_ = YYCURSOR - base; continue; }
      "/*"         { cursor_ = text.size(); return make(TokenKind::Error, begin, "unterminated comment"); }
      "%%"         { return BURG_TOKEN(TokenKind::PercentPercent); }
      "%{"         { return BURG_TOKEN(TokenKind::PrologueBegin); }
      "%}"         { return BURG_ERROR("'%}' without a matching '%{'"); }
      "%" identifier { return BURG_TOKEN(TokenKind::Directive); }
      "%"          { return BURG_ERROR("expected a directive name after '%'"); }
      identifier   { return BURG_TOKEN(TokenKind::Identifier); }
      [0-9]+       { return BURG_TOKEN(TokenKind::Integer); }
      ":"          { return BURG_TOKEN(TokenKind::Colon); }
      ";"          { return BURG_TOKEN(TokenKind::Semicolon); }
      "("          { return BURG_TOKEN(TokenKind::LeftParen); }
      ")"          { return BURG_TOKEN(TokenKind::RightParen); }
      ","          { return BURG_TOKEN(TokenKind::Comma); }
      "="          { return BURG_TOKEN(TokenKind::Equals); }
      "{"          { return BURG_TOKEN(TokenKind::LeftBrace); }
      "["          { return BURG_TOKEN(TokenKind::LeftBracket); }
      "]"          { return BURG_TOKEN(TokenKind::RightBracket); }
      "<"          { return BURG_TOKEN(TokenKind::LeftAngle); }
      [\x80-\xff]+ { return BURG_ERROR("non-ASCII characters are allowed only in comments and code"); }
      *            { return BURG_ERROR("unexpected character"); }
    */
#undef BURG_TOKEN
#undef BURG_ERROR
  }
}

Lexer::CodePiece Lexer::nextCodePiece(size_t& begin) {
  const std::string& text = file_->text();
  const unsigned char* base = reinterpret_cast<const unsigned char*>(text.c_str());
  const unsigned char* YYLIMIT = base + text.size();
  const unsigned char* YYCURSOR = base + cursor_;
  const unsigned char* YYMARKER = YYCURSOR;
  begin = cursor_;
  /*!re2c
    $              { return CodePiece::End; }
    stringLiteral  { cursor_ = YYCURSOR - base; return CodePiece::Skipped; }
    charLiteral    { cursor_ = YYCURSOR - base; return CodePiece::Skipped; }
    codeLineComment { cursor_ = YYCURSOR - base; return CodePiece::Skipped; }
    blockComment   { cursor_ = YYCURSOR - base; return CodePiece::Skipped; }
    "/*"           { cursor_ = text.size(); return CodePiece::Skipped; }
    ppNumber       { cursor_ = YYCURSOR - base; return CodePiece::Skipped; }
    identifier     { cursor_ = YYCURSOR - base; return CodePiece::Skipped; }
    rawStringStart {
      // A raw string ends at `)delimiter"`; the delimiter sits between the quote and the '('.
      cursor_ = YYCURSOR - base;
      size_t quote = text.find('"', begin);
      std::string close = ")" + text.substr(quote + 1, cursor_ - 1 - (quote + 1)) + "\"";
      size_t end = text.find(close, cursor_);
      cursor_ = end == std::string::npos ? text.size() : end + close.size();
      return CodePiece::Skipped;
    }
    *              { cursor_ = YYCURSOR - base; return CodePiece::Char; }
  */
}

RawCapture Lexer::captureBalanced(char open, char close) {
  const std::string& text = file_->text();
  size_t start = cursor_;
  int depth = 1;
  for (;;) {
    size_t begin;
    CodePiece piece = nextCodePiece(begin);
    if (piece == CodePiece::End) return {text.substr(start), start, false};
    if (piece != CodePiece::Char) continue;
    char c = text[begin];
    if (c == open) {
      ++depth;
    } else if (c == close && --depth == 0) {
      return {text.substr(start, begin - start), start, true};
    }
  }
}

RawCapture Lexer::captureListItem() {
  const std::string& text = file_->text();
  size_t start = cursor_;
  std::string open;  // the brackets open inside the item, innermost last
  for (;;) {
    size_t begin;
    CodePiece piece = nextCodePiece(begin);
    if (piece == CodePiece::End) return {text.substr(start), start, false};
    if (piece != CodePiece::Char) continue;
    char c = text[begin];
    if (c == '(' || c == '[' || c == '{') {
      open += c;
    } else if (c == ')' || c == ']' || c == '}') {
      char opening = c == ')' ? '(' : c == ']' ? '[' : '{';
      if (open.empty() || open.back() != opening) {
        cursor_ = begin;
        return {text.substr(start, begin - start), start, open.empty() && c == ']'};
      }
      open.pop_back();
    } else if (c == ',' && open.empty()) {
      cursor_ = begin;
      return {text.substr(start, begin - start), start, true};
    }
  }
}

RawCapture Lexer::capturePrologue() {
  const std::string& text = file_->text();
  size_t start = cursor_;
  size_t end = text.find("%}", start);
  if (end == std::string::npos) {
    cursor_ = text.size();
    return {text.substr(start), start, false};
  }
  cursor_ = end + 2;
  return {text.substr(start, end - start), start, true};
}

std::string Lexer::rest() {
  const std::string& text = file_->text();
  std::string result = text.substr(cursor_);
  cursor_ = text.size();
  return result;
}

}  // namespace burgspec
