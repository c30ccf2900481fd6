// The expression parser: pgbench's exprscan.l tokens and exprparse.y grammar as a
// precedence-climbing parser. The levels, lowest first, are bison's: OR, AND, NOT
// (prefix), IS / ISNULL / NOTNULL (non-associative), comparisons (non-associative),
// bitwise | # & << >> and prefix ~, + -, * / %, unary + -. The tree is pgbench's: a > b
// is lt(b, a) (so b is evaluated first), -x is 0 - x, ~x is -1 # x.
#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <limits>

#include "pg/pgbench_expr.h"
#include "pg/pgbench_expr_lex.h"

namespace storh::engines::pg {
namespace {

using namespace expr_lex;  // NOLINT(google-build-using-namespace): this file is its parser

constexpr int kNargsVariable = -1;  // least, greatest: one or more
constexpr int kNargsHash = -3;      // one, or two with a seed
constexpr int kNargsPermute = -4;   // two, or three with a seed

struct FunctionInfo {
  const char* name;
  int nargs;
  Function function;
};

constexpr std::array<FunctionInfo, 21> kFunctions = {{
    {"abs", 1, Function::abs},
    {"debug", 1, Function::debug},
    {"double", 1, Function::to_double},
    {"exp", 1, Function::exp},
    {"greatest", kNargsVariable, Function::greatest},
    {"hash", kNargsHash, Function::hash_murmur2},
    {"hash_fnv1a", kNargsHash, Function::hash_fnv1a},
    {"hash_murmur2", kNargsHash, Function::hash_murmur2},
    {"int", 1, Function::to_int},
    {"least", kNargsVariable, Function::least},
    {"ln", 1, Function::ln},
    {"mod", 2, Function::mod},
    {"permute", kNargsPermute, Function::permute},
    {"pi", 0, Function::pi},
    {"pow", 2, Function::pow},
    {"power", 2, Function::pow},
    {"random", 2, Function::random},
    {"random_exponential", 3, Function::random_exponential},
    {"random_gaussian", 3, Function::random_gaussian},
    {"random_zipfian", 3, Function::random_zipfian},
    {"sqrt", 1, Function::sqrt},
}};

std::string function_names() {
  std::string names;
  for (const FunctionInfo& info : kFunctions) {
    if (!names.empty()) names += ", ";
    names += info.name;
  }
  return names;
}

// Binding levels, lowest first, as exprparse.y's precedence declarations.
enum Level : int { kNone = 0, kOr, kAnd, kNot, kIs, kCompare, kBit, kAdd, kMul, kUnary };

int infix_level(Tok kind) {
  switch (kind) {
    case Tok::kw_or:
      return kOr;
    case Tok::kw_and:
      return kAnd;
    case Tok::kw_is:
    case Tok::kw_isnull:
    case Tok::kw_notnull:
      return kIs;
    case Tok::lt:
    case Tok::gt:
    case Tok::eq:
    case Tok::ne:
    case Tok::le:
    case Tok::ge:
      return kCompare;
    case Tok::amp:
    case Tok::pipe:
    case Tok::hash:
    case Tok::shl:
    case Tok::shr:
      return kBit;
    case Tok::plus:
    case Tok::minus:
      return kAdd;
    case Tok::star:
    case Tok::slash:
    case Tok::percent:
      return kMul;
    default:
      return kNone;
  }
}

Expr constant(const Value& value) {
  Expr expr;
  expr.constant = value;
  return expr;
}

Expr variable(std::string name) {
  Expr expr;
  expr.kind = Expr::Kind::variable;
  expr.variable = std::move(name);
  return expr;
}

Expr call(Function function, std::vector<Expr> args) {
  Expr expr;
  expr.kind = Expr::Kind::call;
  expr.function = function;
  expr.args = std::move(args);
  return expr;
}

class Parser {
 public:
  Parser(std::string_view text, std::size_t begin) : text_(text), lexer_(text, begin) { advance(); }

  ParsedExpr parse() {
    Expr expr = parse_level(kOr);
    if (token_.kind != Tok::end) {
      fail(token_.offset,
           fmt::format("expected an operator or the end of the line, found \"{}\"", token_.text));
    }
    return {std::move(expr), lexer_.pos()};
  }

 private:
  void advance() {
    previous_ = std::move(token_);
    token_ = lexer_.lex();
  }

  [[noreturn]] void expected_operand() {
    if (previous_.text.empty()) {
      fail(token_.offset, fmt::format("expected an expression, found \"{}\"", token_.text));
    }
    fail(token_.offset, fmt::format("expected an operand after \"{}\", found \"{}\"",
                                    previous_.text, token_.text));
  }

  Expr parse_level(int min_level) {
    Expr lhs = parse_prefix();
    for (;;) {
      const Tok kind = token_.kind;
      const int level = infix_level(kind);
      if (level == kNone || level < min_level) return lhs;
      if (level == kIs) {
        lhs = parse_is(std::move(lhs));
        if (infix_level(token_.kind) == kIs) {
          fail(token_.offset,
               fmt::format("\"{}\" cannot follow an IS test without parentheses", token_.text));
        }
        continue;
      }
      const std::string op = token_.text;
      advance();
      Expr rhs = parse_level(level + 1);
      lhs = binary(kind, std::move(lhs), std::move(rhs));
      if (level == kCompare && infix_level(token_.kind) == kCompare) {
        fail(token_.offset, fmt::format("\"{}\" cannot follow the comparison \"{}\" without "
                                        "parentheses",
                                        token_.text, op));
      }
    }
  }

  static Expr binary(Tok kind, Expr lhs, Expr rhs) {
    auto two = [&](Function f, bool swap) {
      std::vector<Expr> args;
      args.push_back(std::move(swap ? rhs : lhs));
      args.push_back(std::move(swap ? lhs : rhs));
      return call(f, std::move(args));
    };
    switch (kind) {
      case Tok::kw_or:
        return two(Function::logical_or, false);
      case Tok::kw_and:
        return two(Function::logical_and, false);
      case Tok::lt:
        return two(Function::lt, false);
      case Tok::gt:
        return two(Function::lt, true);
      case Tok::le:
        return two(Function::le, false);
      case Tok::ge:
        return two(Function::le, true);
      case Tok::eq:
        return two(Function::eq, false);
      case Tok::ne:
        return two(Function::ne, false);
      case Tok::amp:
        return two(Function::bit_and, false);
      case Tok::pipe:
        return two(Function::bit_or, false);
      case Tok::hash:
        return two(Function::bit_xor, false);
      case Tok::shl:
        return two(Function::shift_left, false);
      case Tok::shr:
        return two(Function::shift_right, false);
      case Tok::plus:
        return two(Function::add, false);
      case Tok::minus:
        return two(Function::sub, false);
      case Tok::star:
        return two(Function::mul, false);
      case Tok::slash:
        return two(Function::div, false);
      default:
        return two(Function::mod, false);
    }
  }

  Expr parse_is(Expr lhs) {
    const Tok kind = token_.kind;
    advance();
    auto is = [](Expr operand, Value against) {
      std::vector<Expr> args;
      args.push_back(std::move(operand));
      args.push_back(constant(against));
      return call(Function::is, std::move(args));
    };
    auto negate = [](Expr operand) {
      std::vector<Expr> args;
      args.push_back(std::move(operand));
      return call(Function::logical_not, std::move(args));
    };
    if (kind == Tok::kw_isnull) return is(std::move(lhs), Value::null_value());
    if (kind == Tok::kw_notnull) return negate(is(std::move(lhs), Value::null_value()));
    bool negated = false;
    if (token_.kind == Tok::kw_not) {
      negated = true;
      advance();
    }
    Value against;
    if (token_.kind == Tok::kw_true || token_.kind == Tok::kw_false) {
      against = Value::of_bool(token_.kind == Tok::kw_true);
    } else if (token_.kind != Tok::kw_null) {
      fail(token_.offset, fmt::format("expected NULL, TRUE or FALSE after \"{}\", found \"{}\"",
                                      previous_.text, token_.text));
    }
    advance();
    Expr test = is(std::move(lhs), against);
    return negated ? negate(std::move(test)) : test;
  }

  Expr parse_prefix() {
    const Token token = token_;
    switch (token.kind) {
      case Tok::lparen: {
        advance();
        Expr inner = parse_level(kOr);
        if (token_.kind != Tok::rparen) {
          fail(token_.offset, fmt::format("expected \")\" to close the \"(\" at column {}, found "
                                          "\"{}\"",
                                          column_of(token.offset), token_.text));
        }
        advance();
        return inner;
      }
      case Tok::plus:
        advance();
        return parse_level(kUnary);
      case Tok::minus: {
        advance();
        if (token_.kind == Tok::maxint_plus_one) {
          advance();
          return constant(Value::of_int(std::numeric_limits<std::int64_t>::min()));
        }
        std::vector<Expr> args;
        args.push_back(constant(Value::of_int(0)));
        args.push_back(parse_level(kUnary));
        return call(Function::sub, std::move(args));
      }
      case Tok::tilde: {
        advance();
        std::vector<Expr> args;
        args.push_back(constant(Value::of_int(~std::int64_t{0})));
        args.push_back(parse_level(kBit + 1));
        return call(Function::bit_xor, std::move(args));
      }
      case Tok::kw_not: {
        advance();
        std::vector<Expr> args;
        args.push_back(parse_level(kIs));
        return call(Function::logical_not, std::move(args));
      }
      case Tok::kw_null:
        advance();
        return constant(Value::null_value());
      case Tok::kw_true:
        advance();
        return constant(Value::of_bool(true));
      case Tok::kw_false:
        advance();
        return constant(Value::of_bool(false));
      case Tok::integer:
        advance();
        return constant(Value::of_int(token.integer));
      case Tok::real:
        advance();
        return constant(Value::of_double(token.real));
      case Tok::maxint_plus_one:
        fail(token.offset,
             "bigint constant overflow: 9223372036854775808 (only -9223372036854775808 "
             "is a bigint)");
      case Tok::variable:
        advance();
        return variable(token.text);
      case Tok::ident:
        return parse_call();
      case Tok::kw_case:
        return parse_case();
      default:
        expected_operand();
    }
  }

  Expr parse_call() {
    const Token name = token_;
    const FunctionInfo* info = nullptr;
    for (const FunctionInfo& candidate : kFunctions) {
      if (iequals(name.text, candidate.name)) info = &candidate;
    }
    if (info == nullptr) {
      fail(name.offset,
           fmt::format("unknown function \"{}\" (valid: {})", name.text, function_names()));
    }
    advance();
    if (token_.kind != Tok::lparen) {
      fail(token_.offset, fmt::format("expected \"(\" after the function name \"{}\", found \"{}\"",
                                      name.text, token_.text));
    }
    advance();
    std::vector<Expr> args;
    if (token_.kind != Tok::rparen) {
      for (;;) {
        args.push_back(parse_level(kOr));
        if (token_.kind != Tok::comma) break;
        advance();
      }
    }
    if (token_.kind != Tok::rparen) {
      fail(token_.offset, fmt::format("expected \",\" or \")\" in the arguments of \"{}\", found "
                                      "\"{}\"",
                                      name.text, token_.text));
    }
    advance();
    const int count = static_cast<int>(args.size());
    std::string wanted;
    switch (info->nargs) {
      case kNargsVariable:
        if (count == 0) wanted = "at least 1 argument";
        break;
      case kNargsHash:
        if (count == 1) args.push_back(variable("default_seed"));
        if (count < 1 || count > 2) wanted = "1 or 2 arguments";
        break;
      case kNargsPermute:
        if (count == 2) args.push_back(variable("default_seed"));
        if (count < 2 || count > 3) wanted = "2 or 3 arguments";
        break;
      default:
        if (count != info->nargs) {
          wanted = fmt::format("{} argument{}", info->nargs, info->nargs == 1 ? "" : "s");
        }
    }
    if (!wanted.empty()) {
      fail(name.offset, fmt::format("\"{}\" takes {}, not {}", info->name, wanted, count));
    }
    return call(info->function, std::move(args));
  }

  Expr parse_case() {
    const std::size_t case_offset = token_.offset;
    advance();
    std::vector<Expr> args;
    while (token_.kind == Tok::kw_when) {
      advance();
      args.push_back(parse_level(kOr));
      if (token_.kind != Tok::kw_then) {
        fail(token_.offset,
             fmt::format("expected THEN after the WHEN condition, found \"{}\"", token_.text));
      }
      advance();
      args.push_back(parse_level(kOr));
    }
    if (args.empty()) {
      fail(token_.offset, fmt::format("expected WHEN after CASE, found \"{}\"", token_.text));
    }
    if (token_.kind == Tok::kw_else) {
      advance();
      args.push_back(parse_level(kOr));
    } else {
      args.push_back(constant(Value::null_value()));
    }
    if (token_.kind != Tok::kw_end) {
      fail(token_.offset, fmt::format("expected WHEN, ELSE or END to close the CASE at column {}, "
                                      "found \"{}\"",
                                      column_of(case_offset), token_.text));
    }
    advance();
    return call(Function::case_end, std::move(args));
  }

  std::size_t column_of(std::size_t offset) const {
    if (offset == 0) return 1;
    const std::size_t newline = text_.rfind('\n', offset - 1);
    return newline == std::string_view::npos ? offset + 1 : offset - newline;
  }

  std::string_view text_;
  expr_lex::Lexer lexer_;
  Token token_;
  Token previous_;
};

}  // namespace

std::variant<ParsedExpr, ExprSyntaxError> parse_expression(std::string_view text,
                                                           std::size_t begin) {
  try {
    Parser parser(text, begin);
    return parser.parse();
  } catch (const expr_lex::SyntaxFailure& failure) {
    return failure.error;
  }
}

}  // namespace storh::engines::pg
