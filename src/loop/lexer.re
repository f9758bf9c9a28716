// The .loop scanner, generated into lexer.cpp by re2c at build time.
#include "src/loop/lexer.hpp"

namespace cudaburg {

const char* tokenName(Tok t) {
  switch (t) {
    case Tok::End: return "end of file";
    case Tok::Invalid: return "invalid character";
    case Tok::UnterminatedComment: return "unterminated comment";
    case Tok::Ident: return "identifier";
    case Tok::Integer: return "integer";
    case Tok::Real: return "number";
    case Tok::Size: return "'size'";
    case Tok::KernelKw: return "'kernel'";
    case Tok::Const: return "'const'";
    case Tok::Padded: return "'padded'";
    case Tok::Parallel: return "'parallel'";
    case Tok::Reduce: return "'reduce'";
    case Tok::For: return "'for'";
    case Tok::Min: return "'min'";
    case Tok::Max: return "'max'";
    case Tok::Function: return "a math function";
    case Tok::Float: return "'float'";
    case Tok::Double: return "'double'";
    case Tok::Half: return "'half'";
    case Tok::Int: return "'int'";
    case Tok::BFloat16: return "'bfloat16'";
    case Tok::Tf32: return "'tf32'";
    case Tok::LParen: return "'('";
    case Tok::RParen: return "')'";
    case Tok::LBracket: return "'['";
    case Tok::RBracket: return "']'";
    case Tok::LBrace: return "'{'";
    case Tok::RBrace: return "'}'";
    case Tok::Comma: return "','";
    case Tok::Semicolon: return "';'";
    case Tok::Assign: return "'='";
    case Tok::PlusAssign: return "'+='";
    case Tok::PlusPlus: return "'++'";
    case Tok::Less: return "'<'";
    case Tok::Plus: return "'+'";
    case Tok::Minus: return "'-'";
    case Tok::Star: return "'*'";
    case Tok::Slash: return "'/'";
    case Tok::Percent: return "'%'";
  }
  return "token";
}

Token LoopLexer::next() {
  for (;;) {
    const char* start = cursor_;
    const char* marker = cursor_;
    auto token = [&](Tok kind) {
      return Token{kind, std::string_view(start, cursor_ - start), size_t(start - begin_)};
    };
    /*!re2c
      re2c:define:YYCTYPE = "unsigned char";
      re2c:define:YYCURSOR = "cursor_";
      re2c:define:YYMARKER = "marker";
      re2c:yyfill:enable = 0;

      digit = [0-9];
      ident = [a-zA-Z_][a-zA-Z_0-9]*;
      exponent = [eE] [+-]? digit+;

      "\x00" {
        if (start >= end_) { cursor_ = start; return Token{Tok::End, {}, size_t(end_ - begin_)}; }
        return token(Tok::Invalid);
      }
      [ \t\r\n\f\v]+ { continue; }
      "//" [^\n\x00]* { continue; }
      "/*" { goto block_comment; }

      "size" { return token(Tok::Size); }
      "kernel" { return token(Tok::KernelKw); }
      "const" { return token(Tok::Const); }
      "padded" { return token(Tok::Padded); }
      "parallel" { return token(Tok::Parallel); }
      "reduce" { return token(Tok::Reduce); }
      "for" { return token(Tok::For); }
      "min" { return token(Tok::Min); }
      "max" { return token(Tok::Max); }
      "exp" | "log" | "tanh" | "erf" | "sqrt" | "rsqrt" | "abs" { return token(Tok::Function); }
      "float" { return token(Tok::Float); }
      "double" { return token(Tok::Double); }
      "half" { return token(Tok::Half); }
      "int" { return token(Tok::Int); }
      "bfloat16" { return token(Tok::BFloat16); }
      "tf32" { return token(Tok::Tf32); }
      ident { return token(Tok::Ident); }

      digit+ { return token(Tok::Integer); }
      (digit+ exponent | digit* "." digit+ exponent? | digit+ "." exponent?) [fF]? { return token(Tok::Real); }

      "(" { return token(Tok::LParen); }
      ")" { return token(Tok::RParen); }
      "[" { return token(Tok::LBracket); }
      "]" { return token(Tok::RBracket); }
      "{" { return token(Tok::LBrace); }
      "}" { return token(Tok::RBrace); }
      "," { return token(Tok::Comma); }
      ";" { return token(Tok::Semicolon); }
      "+=" { return token(Tok::PlusAssign); }
      "++" { return token(Tok::PlusPlus); }
      "=" { return token(Tok::Assign); }
      "<" { return token(Tok::Less); }
      "+" { return token(Tok::Plus); }
      "-" { return token(Tok::Minus); }
      "*" { return token(Tok::Star); }
      "/" { return token(Tok::Slash); }
      "%" { return token(Tok::Percent); }
      * { return token(Tok::Invalid); }
    */
  block_comment:
    // Skip to "*/"; reaching the end first is an error reported at the comment's start.
    for (;;) {
      if (cursor_ >= end_) {
        Token t{Tok::UnterminatedComment, std::string_view(start, 2), size_t(start - begin_)};
        cursor_ = end_;
        return t;
      }
      if (cursor_[0] == '*' && cursor_ + 1 < end_ && cursor_[1] == '/') {
        cursor_ += 2;
        break;
      }
      ++cursor_;
    }
  }
}

}  // namespace cudaburg
