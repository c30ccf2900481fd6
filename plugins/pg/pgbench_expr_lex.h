// pgbench_expr_lex.h: the tokens of pgbench's expression language (exprscan.l), for
// pgbench_expr_parse.cpp only. A Lexer reads one line of an expression; a backslash
// before the newline continues it. Errors are thrown as SyntaxFailure (caught by
// parse_expression, which returns them as values).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "pg/pgbench_expr.h"

namespace storh::engines::pg::expr_lex {

enum class Tok : std::uint8_t {
  end,
  plus,
  minus,
  star,
  slash,
  percent,
  lparen,
  rparen,
  comma,
  tilde,
  amp,
  pipe,
  hash,
  lt,
  gt,
  eq,
  ne,
  le,
  ge,
  shl,
  shr,
  kw_and,
  kw_or,
  kw_not,
  kw_is,
  kw_isnull,
  kw_notnull,
  kw_null,
  kw_true,
  kw_false,
  kw_case,
  kw_when,
  kw_then,
  kw_else,
  kw_end,
  integer,
  maxint_plus_one,
  real,
  variable,
  ident
};

struct Token {
  Tok kind = Tok::end;
  std::size_t offset = 0;
  std::string text;
  std::int64_t integer = 0;
  double real = 0;
};

struct SyntaxFailure {
  ExprSyntaxError error;
};

inline bool is_alpha(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u == '_' || u >= 0x80;
}
inline bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
inline bool is_alnum(char c) {
  return is_alpha(c) || is_digit(c);
}

inline bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i];
    char y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

class Lexer {
 public:
  Lexer(std::string_view text, std::size_t begin) : text_(text), pos_(begin) {}
  // The next token; Tok::end at the end of the line (which it consumes) or the text.
  Token lex();
  // Just past what has been read.
  std::size_t pos() const noexcept { return pos_; }

 private:
  Token lex_number();

  std::string_view text_;
  std::size_t pos_;
};

[[noreturn]] inline void fail(std::size_t offset, std::string message) {
  throw SyntaxFailure{{offset, std::move(message)}};
}

}  // namespace storh::engines::pg::expr_lex
