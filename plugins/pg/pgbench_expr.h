// pgbench_expr.h: pgbench 15's expression language (\set, \if, \elif), parsed and
// evaluated with pgbench's types, operators, functions and errors.
//
// Values are NULL, boolean, bigint or double; arithmetic on two integers stays integer
// and fails on overflow ("bigint add out of range"), any double operand makes it
// double. Variables hold either a value or the text they were given (-D, \gset) and
// convert lazily, as pgbench does, so a variable's text form (what a simple-mode query
// gets) is pgbench's: integers in decimal, doubles as "%.15g", "true"/"false", "NULL".
//
// parse_expression() never throws: a syntax error comes back as the offset in the text
// and what was expected there. evaluate() throws ExprError with pgbench's message
// ("division by zero", "undefined variable \"x\"", ...); the caller adds where.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "pg/pgbench_random.h"

namespace storh::engines::pg {

class ExprError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Value {
  enum class Type : std::uint8_t { null, boolean, integer, real };
  Type type = Type::null;
  bool boolean = false;
  std::int64_t integer = 0;
  double real = 0;

  static Value null_value() { return {}; }
  static Value of_bool(bool b) { return {Type::boolean, b, 0, 0}; }
  static Value of_int(std::int64_t i) { return {Type::integer, false, i, 0}; }
  static Value of_double(double d) { return {Type::real, false, 0, d}; }
};

// pgbench's text form of a value (getVariable).
std::string value_text(const Value& value);
// pgbench's reading of a variable's text (makeVariableValue): null, true/yes/on (and
// their prefixes), false/no/off, an integer, else a double. Throws ExprError naming
// `name` when the text is none of these.
Value value_from_text(std::string_view name, std::string_view text);
// pgbench's variable names: a letter, '_' or a non-ASCII byte, then those or digits.
bool valid_variable_name(std::string_view name) noexcept;

// A client's variables. Not thread-safe; one per client.
class Variables {
 public:
  void set_text(const std::string& name, std::string text);
  void set_value(const std::string& name, const Value& value);
  bool has(const std::string& name) const { return vars_.count(name) != 0; }
  // The value, converted from its text on first use; nullptr when undefined. Throws
  // ExprError for text that is no value.
  const Value* value(const std::string& name);
  // The text form, formatted on first use; nullptr when undefined.
  const std::string* text(const std::string& name);

 private:
  struct Entry {
    std::optional<Value> value;
    std::optional<std::string> text;
  };
  std::unordered_map<std::string, Entry> vars_;
};

enum class Function : std::uint8_t {
  add,
  sub,
  mul,
  div,
  mod,
  abs,
  least,
  greatest,
  debug,
  pi,
  sqrt,
  ln,
  exp,
  to_int,
  to_double,
  random,
  random_gaussian,
  random_exponential,
  random_zipfian,
  pow,
  logical_and,
  logical_or,
  logical_not,
  bit_and,
  bit_or,
  bit_xor,
  shift_left,
  shift_right,
  eq,
  ne,
  le,
  lt,
  is,
  case_end,
  hash_murmur2,
  hash_fnv1a,
  permute
};

struct Expr {
  enum class Kind : std::uint8_t { constant, variable, call };
  Kind kind = Kind::constant;
  Value constant;
  std::string variable;
  Function function = Function::add;
  std::vector<Expr> args;
};

struct ExprSyntaxError {
  std::size_t offset = 0;  // into the text given to parse_expression
  std::string message;     // what was expected there
};

struct ParsedExpr {
  Expr expr;
  std::size_t end = 0;  // offset just past the expression's line (its '\n' included)
};

// Parses one expression starting at `begin` of `text` and running to the end of the line
// (a backslash before the newline continues it).
std::variant<ParsedExpr, ExprSyntaxError> parse_expression(std::string_view text,
                                                           std::size_t begin);

// What evaluation needs: the client's variables and its random state. `debug`, when
// set, receives debug()'s line ("int 5", "double 1.5", ...).
struct EvalContext {
  Variables& variables;
  PgbenchRandom& random;
  std::function<void(const std::string&)> debug;
};

Value evaluate(const Expr& expr, EvalContext& context);
// pgbench's truth of a value for \if: NULL is false, numbers are true when nonzero.
bool value_truth(const Value& value) noexcept;

}  // namespace storh::engines::pg
