#pragma once
// The tokens of a BURG spec, and the lexer that produces them. The scanner itself is generated
// by re2c from lexer.re. Besides ordinary tokens, the lexer captures raw C++ text: the prologue
// `%{ ... %}`, a cost expression `( ... )`, an action block `{ ... }`, a type `< ... >` and a
// parameter's domain (`[p in domain, ...]`).
#include <cstddef>
#include <string>
#include <string_view>

#include "common/source.hpp"

namespace burgspec {

enum class TokenKind {
  End,    // end of input
  Error,  // a character or sequence the language does not have; see Token::error
  Identifier,
  Integer,  // decimal digits
  Colon,
  Semicolon,
  LeftParen,
  RightParen,
  Comma,
  Equals,
  LeftBrace,    // opens an action block
  LeftBracket,  // opens a rule's parameter list
  RightBracket,
  LeftAngle,       // opens a C++ type
  PercentPercent,  // %%
  PrologueBegin,   // %{
  Directive,       // %term, %start, %type, %node, %label, %param, or an unknown %word (the parser decides)
};

// The name of a token kind as a diagnostic shows it ("identifier", "';'").
const char* tokenKindName(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::End;
  std::string_view text;  // the token's characters in the source
  size_t offset = 0;      // byte offset of the first character
  common::SourceLoc loc;
  const char* error = nullptr;  // why, when kind == Error

  size_t endOffset() const { return offset + text.size(); }
};

// Raw text captured up to a closing delimiter.
struct RawCapture {
  std::string text;   // everything between the delimiters, verbatim
  size_t textOffset;  // byte offset of text's first character
  bool closed;        // false when the input ended first
};

class Lexer {
 public:
  explicit Lexer(const common::SourceFile& file) : file_(&file) {}

  // The next token; skips white space and `//` and `/* */` comments.
  Token next();

  // Captures text up to the `close` that balances an `open` already consumed; string and
  // character literals (raw strings included) and comments inside are skipped as wholes, so
  // their brackets do not count. The closing delimiter is consumed but not part of the text.
  RawCapture captureBalanced(char open, char close);
  // Captures one item of a bracketed list: text up to a `,` or `]` outside (), [] and {} (and
  // outside literals and comments), which is left unconsumed; `closed` is false when the input
  // ends first or a closing bracket that matches no opening one ends it (also left unconsumed).
  RawCapture captureListItem();
  // Captures the prologue after `%{`, up to the first `%}`.
  RawCapture capturePrologue();
  // The rest of the input, verbatim (the epilogue).
  std::string rest();

  size_t offset() const { return cursor_; }
  const common::SourceFile& file() const { return *file_; }

 private:
  // One lexical element of C++ code, for the raw-capture modes.
  enum class CodePiece { End, Char, Skipped };
  CodePiece nextCodePiece(size_t& begin);
  Token make(TokenKind kind, size_t begin, const char* error = nullptr) const;

  const common::SourceFile* file_;
  size_t cursor_ = 0;
};

}  // namespace burgspec
