// The expression lexer: exprscan.l's rules by hand. Longest match wins as in flex: "1.5e3"
// is one double, "1e" is the integer 1 then the word e, "9223372036854775808" is only
// valid after a unary minus.
#include "pg/pgbench_expr_lex.h"

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cstdlib>

namespace storh::engines::pg::expr_lex {

Token Lexer::lex() {
  for (;;) {
    if (pos_ >= text_.size()) return Token{Tok::end, pos_, "end of the line", 0, 0};
    const char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++pos_;
    } else if (c == '\\' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n') {
      pos_ += 2;  // a continuation line
    } else if (c == '\n') {
      return Token{Tok::end, pos_++, "end of the line", 0, 0};
    } else {
      break;
    }
  }
  const std::size_t start = pos_;
  const char c = text_[pos_];
  auto two = [&](char next) { return pos_ + 1 < text_.size() && text_[pos_ + 1] == next; };
  auto op = [&](Tok kind, std::size_t length) {
    pos_ += length;
    return Token{kind, start, std::string(text_.substr(start, length)), 0, 0};
  };
  switch (c) {
    case '+':
      return op(Tok::plus, 1);
    case '-':
      return op(Tok::minus, 1);
    case '*':
      return op(Tok::star, 1);
    case '/':
      return op(Tok::slash, 1);
    case '%':
      return op(Tok::percent, 1);
    case '(':
      return op(Tok::lparen, 1);
    case ')':
      return op(Tok::rparen, 1);
    case ',':
      return op(Tok::comma, 1);
    case '~':
      return op(Tok::tilde, 1);
    case '&':
      return op(Tok::amp, 1);
    case '|':
      return op(Tok::pipe, 1);
    case '#':
      return op(Tok::hash, 1);
    case '=':
      return op(Tok::eq, 1);
    case '<':
      if (two('>')) return op(Tok::ne, 2);
      if (two('=')) return op(Tok::le, 2);
      if (two('<')) return op(Tok::shl, 2);
      return op(Tok::lt, 1);
    case '>':
      if (two('=')) return op(Tok::ge, 2);
      if (two('>')) return op(Tok::shr, 2);
      return op(Tok::gt, 1);
    case '!':
      if (two('=')) return op(Tok::ne, 2);
      break;
    case ':': {
      std::size_t end = pos_ + 1;
      while (end < text_.size() && is_alnum(text_[end])) ++end;
      if (end == pos_ + 1) break;
      pos_ = end;
      return Token{Tok::variable, start, std::string(text_.substr(start + 1, end - start - 1)), 0,
                   0};
    }
    default:
      break;
  }
  if (is_digit(c) || (c == '.' && pos_ + 1 < text_.size() && is_digit(text_[pos_ + 1]))) {
    return lex_number();
  }
  if (is_alpha(c)) {
    std::size_t end = pos_;
    while (end < text_.size() && is_alnum(text_[end])) ++end;
    const std::string_view word = text_.substr(pos_, end - pos_);
    pos_ = end;
    static constexpr std::array<std::pair<const char*, Tok>, 14> kKeywords = {{
        {"and", Tok::kw_and},
        {"or", Tok::kw_or},
        {"not", Tok::kw_not},
        {"is", Tok::kw_is},
        {"isnull", Tok::kw_isnull},
        {"notnull", Tok::kw_notnull},
        {"null", Tok::kw_null},
        {"true", Tok::kw_true},
        {"false", Tok::kw_false},
        {"case", Tok::kw_case},
        {"when", Tok::kw_when},
        {"then", Tok::kw_then},
        {"else", Tok::kw_else},
        {"end", Tok::kw_end},
    }};
    for (const auto& [name, kind] : kKeywords) {
      if (iequals(word, name)) return Token{kind, start, std::string(word), 0, 0};
    }
    return Token{Tok::ident, start, std::string(word), 0, 0};
  }
  fail(start, fmt::format("unexpected character \"{}\"", c));
}

Token Lexer::lex_number() {
  const std::size_t start = pos_;
  std::size_t end = pos_;
  while (end < text_.size() && is_digit(text_[end])) ++end;
  bool is_double = false;
  if (end < text_.size() && text_[end] == '.') {
    is_double = true;
    ++end;
    while (end < text_.size() && is_digit(text_[end])) ++end;
  }
  // An exponent only when digits follow it ("1e" is 1 then the word e).
  if (end < text_.size() && (text_[end] == 'e' || text_[end] == 'E')) {
    std::size_t exp = end + 1;
    if (exp < text_.size() && (text_[exp] == '+' || text_[exp] == '-')) ++exp;
    if (exp < text_.size() && is_digit(text_[exp])) {
      while (exp < text_.size() && is_digit(text_[exp])) ++exp;
      end = exp;
      is_double = true;
    }
  }
  pos_ = end;
  Token token{Tok::integer, start, std::string(text_.substr(start, end - start)), 0, 0};
  if (!is_double) {
    if (token.text == "9223372036854775808") {
      token.kind = Tok::maxint_plus_one;
      return token;
    }
    const auto [ptr, ec] =
        std::from_chars(token.text.data(), token.text.data() + token.text.size(), token.integer);
    if (ec != std::errc() || ptr != token.text.data() + token.text.size()) {
      fail(start, fmt::format("bigint constant overflow: {}", token.text));
    }
    return token;
  }
  token.kind = Tok::real;
  errno = 0;
  token.real = std::strtod(token.text.c_str(), nullptr);
  if (errno == ERANGE) fail(start, fmt::format("double constant overflow: {}", token.text));
  return token;
}

}  // namespace storh::engines::pg::expr_lex
