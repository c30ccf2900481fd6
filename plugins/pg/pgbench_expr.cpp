// Evaluation of pgbench's expressions, with pgbench 15's coercions and messages word for
// word (evalStandardFunc, evalLazyFunc), so an error reads as pgbench's does. Variables
// and the text of their values: pgbench_variables.cpp.
#include "pg/pgbench_expr.h"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <numbers>
#include <optional>

namespace storh::engines::pg {
namespace {

constexpr double kMinGaussianParam = 2.0;
constexpr double kMinZipfianParam = 1.001;
constexpr double kMaxZipfianParam = 1000.0;

const char* type_name(const Value& value) {
  switch (value.type) {
    case Value::Type::null:
      return "null";
    case Value::Type::boolean:
      return "boolean";
    case Value::Type::integer:
      return "int";
    case Value::Type::real:
      break;
  }
  return "double";
}

// PostgreSQL's own snprintf (which pgbench links) spells NaN and infinities so.
std::optional<std::string> special(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value < 0 ? "-Infinity" : "Infinity";
  return std::nullopt;
}

std::string format_double(double value) {
  if (auto text = special(value)) return *text;
  std::array<char, 64> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.*g", 15, value);
  return buffer.data();
}

// "%f", as pgbench's messages print doubles.
std::string fixed(double value) {
  if (auto text = special(value)) return *text;
  std::array<char, 512> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%f", value);
  return buffer.data();
}

bool to_bool(const Value& value) {
  if (value.type == Value::Type::boolean) return value.boolean;
  throw ExprError(fmt::format("cannot coerce {} to boolean", type_name(value)));
}

std::int64_t to_int(const Value& value) {
  if (value.type == Value::Type::integer) return value.integer;
  if (value.type == Value::Type::real) {
    const double rounded = std::rint(value.real);
    // FLOAT8_FITS_IN_INT64: [-2^63, 2^63).
    if (std::isnan(rounded) || rounded < -9223372036854775808.0 ||
        rounded >= 9223372036854775808.0) {
      throw ExprError("double to int overflow for " + fixed(rounded));
    }
    return static_cast<std::int64_t>(rounded);
  }
  throw ExprError(fmt::format("cannot coerce {} to int", type_name(value)));
}

double to_double(const Value& value) {
  if (value.type == Value::Type::real) return value.real;
  if (value.type == Value::Type::integer) return static_cast<double>(value.integer);
  throw ExprError(fmt::format("cannot coerce {} to double", type_name(value)));
}

Value arithmetic(Function f, const Value& l, const Value& r) {
  if ((l.type == Value::Type::real || r.type == Value::Type::real) && f != Function::mod) {
    const double ld = to_double(l);
    const double rd = to_double(r);
    switch (f) {
      case Function::add:
        return Value::of_double(ld + rd);
      case Function::sub:
        return Value::of_double(ld - rd);
      case Function::mul:
        return Value::of_double(ld * rd);
      case Function::div:
        return Value::of_double(ld / rd);
      case Function::eq:
        return Value::of_bool(ld == rd);
      case Function::ne:
        return Value::of_bool(ld != rd);
      case Function::le:
        return Value::of_bool(ld <= rd);
      default:
        return Value::of_bool(ld < rd);
    }
  }
  const std::int64_t li = to_int(l);
  const std::int64_t ri = to_int(r);
  std::int64_t result = 0;
  switch (f) {
    case Function::add:
      if (__builtin_add_overflow(li, ri, &result)) throw ExprError("bigint add out of range");
      return Value::of_int(result);
    case Function::sub:
      if (__builtin_sub_overflow(li, ri, &result)) throw ExprError("bigint sub out of range");
      return Value::of_int(result);
    case Function::mul:
      if (__builtin_mul_overflow(li, ri, &result)) throw ExprError("bigint mul out of range");
      return Value::of_int(result);
    case Function::eq:
      return Value::of_bool(li == ri);
    case Function::ne:
      return Value::of_bool(li != ri);
    case Function::le:
      return Value::of_bool(li <= ri);
    case Function::lt:
      return Value::of_bool(li < ri);
    default:
      break;
  }
  if (ri == 0) throw ExprError("division by zero");
  if (ri == -1) {
    if (f == Function::mod) return Value::of_int(0);
    if (li == std::numeric_limits<std::int64_t>::min()) throw ExprError("bigint div out of range");
    return Value::of_int(-li);
  }
  return Value::of_int(f == Function::div ? li / ri : li % ri);
}

Value random_call(Function f, const std::vector<Value>& args, PgbenchRandom& random) {
  const std::int64_t lo = to_int(args[0]);
  const std::int64_t hi = to_int(args[1]);
  std::int64_t delta = 0;
  if (lo > hi) throw ExprError("empty range given to random");
  if (__builtin_sub_overflow(hi, lo, &delta) || __builtin_add_overflow(delta, 1, &delta)) {
    throw ExprError("random range is too large");
  }
  if (f == Function::random) return Value::of_int(random.uniform(lo, hi));
  const double parameter = to_double(args[2]);
  if (f == Function::random_gaussian) {
    if (parameter < kMinGaussianParam) {
      throw ExprError(fmt::format("gaussian parameter must be at least {} (not {})",
                                  fixed(kMinGaussianParam), fixed(parameter)));
    }
    return Value::of_int(random.gaussian(lo, hi, parameter));
  }
  if (f == Function::random_zipfian) {
    if (parameter < kMinZipfianParam || parameter > kMaxZipfianParam) {
      throw ExprError(fmt::format("zipfian parameter must be in range [{:.3f}, {:.0f}] (not {})",
                                  kMinZipfianParam, kMaxZipfianParam, fixed(parameter)));
    }
    return Value::of_int(random.zipfian(lo, hi, parameter));
  }
  if (parameter <= 0.0) {
    throw ExprError(
        fmt::format("exponential parameter must be greater than zero (not {})", fixed(parameter)));
  }
  return Value::of_int(random.exponential(lo, hi, parameter));
}

Value extremum(Function f, const std::vector<Value>& args) {
  bool any_double = false;
  for (const Value& arg : args) any_double = any_double || arg.type == Value::Type::real;
  if (any_double) {
    double result = to_double(args[0]);
    for (std::size_t i = 1; i < args.size(); ++i) {
      const double v = to_double(args[i]);
      result = f == Function::least ? std::min(result, v) : std::max(result, v);
    }
    return Value::of_double(result);
  }
  std::int64_t result = to_int(args[0]);
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::int64_t v = to_int(args[i]);
    result = f == Function::least ? std::min(result, v) : std::max(result, v);
  }
  return Value::of_int(result);
}

Value lazy(const Expr& expr, EvalContext& context) {
  const Value first = evaluate(expr.args[0], context);
  if (expr.function == Function::case_end) {
    // args: when, then, when, then, ..., else
    std::size_t i = 0;
    Value condition = first;
    for (;;) {
      if (value_truth(condition)) return evaluate(expr.args[i + 1], context);
      i += 2;
      if (i + 1 == expr.args.size()) return evaluate(expr.args[i], context);
      condition = evaluate(expr.args[i], context);
    }
  }
  if (first.type == Value::Type::null) return Value::null_value();
  const bool b = to_bool(first);
  if (expr.function == Function::logical_and ? !b : b) return Value::of_bool(b);
  const Value second = evaluate(expr.args[1], context);
  if (second.type == Value::Type::null) return Value::null_value();
  return Value::of_bool(to_bool(second));
}

void debug(const Value& value, EvalContext& context) {
  if (!context.debug) return;
  switch (value.type) {
    case Value::Type::null:
      context.debug("null");
      return;
    case Value::Type::boolean:
      context.debug(value.boolean ? "boolean true" : "boolean false");
      return;
    case Value::Type::integer:
      context.debug(fmt::format("int {}", value.integer));
      return;
    case Value::Type::real:
      context.debug("double " + format_double(value.real));
      return;
  }
}

Value call(const Expr& expr, EvalContext& context) {
  const Function f = expr.function;
  if (f == Function::logical_and || f == Function::logical_or || f == Function::case_end) {
    return lazy(expr, context);
  }
  std::vector<Value> args;
  args.reserve(expr.args.size());
  bool has_null = false;
  for (const Expr& arg : expr.args) {
    args.push_back(evaluate(arg, context));
    has_null = has_null || args.back().type == Value::Type::null;
  }
  if (has_null && f != Function::is && f != Function::debug) return Value::null_value();
  switch (f) {
    case Function::add:
    case Function::sub:
    case Function::mul:
    case Function::div:
    case Function::mod:
    case Function::eq:
    case Function::ne:
    case Function::le:
    case Function::lt:
      return arithmetic(f, args[0], args[1]);
    case Function::bit_and:
    case Function::bit_or:
    case Function::bit_xor:
    case Function::shift_left:
    case Function::shift_right: {
      const std::int64_t l = to_int(args[0]);
      const std::int64_t r = to_int(args[1]);
      if (f == Function::bit_and) return Value::of_int(l & r);
      if (f == Function::bit_or) return Value::of_int(l | r);
      if (f == Function::bit_xor) return Value::of_int(l ^ r);
      // pgbench shifts as C does on its platform; x86-64 masks the count to 6 bits.
      const auto count = static_cast<unsigned>(r) & 63U;
      if (f == Function::shift_left) {
        return Value::of_int(static_cast<std::int64_t>(static_cast<std::uint64_t>(l) << count));
      }
      return Value::of_int(l >> count);
    }
    case Function::logical_not:
      return Value::of_bool(!to_bool(args[0]));
    case Function::pi:
      return Value::of_double(std::numbers::pi);
    case Function::abs:
      if (args[0].type == Value::Type::integer) {
        const std::int64_t i = args[0].integer;
        // pgbench negates INT64_MIN as C does (it stays INT64_MIN).
        return Value::of_int(i < 0 ? static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(i))
                                   : i);
      }
      return Value::of_double(args[0].real < 0.0 ? -args[0].real : args[0].real);
    case Function::debug:
      debug(args[0], context);
      return args[0];
    case Function::to_double:
      return Value::of_double(to_double(args[0]));
    case Function::sqrt:
      return Value::of_double(std::sqrt(to_double(args[0])));
    case Function::ln:
      return Value::of_double(std::log(to_double(args[0])));
    case Function::exp:
      return Value::of_double(std::exp(to_double(args[0])));
    case Function::to_int:
      return Value::of_int(to_int(args[0]));
    case Function::least:
    case Function::greatest:
      return extremum(f, args);
    case Function::random:
    case Function::random_exponential:
    case Function::random_gaussian:
    case Function::random_zipfian:
      return random_call(f, args, context.random);
    case Function::pow:
      return Value::of_double(std::pow(to_double(args[0]), to_double(args[1])));
    case Function::is:
      // pgbench compares the type and the boolean member of the union (its own shortcut).
      return Value::of_bool(args[0].type == args[1].type && (args[0].type != Value::Type::boolean ||
                                                             args[0].boolean == args[1].boolean));
    case Function::hash_murmur2:
      return Value::of_int(pgbench_hash_murmur2(to_int(args[0]), to_int(args[1])));
    case Function::hash_fnv1a:
      return Value::of_int(pgbench_hash_fnv1a(to_int(args[0]), to_int(args[1])));
    case Function::permute: {
      const std::int64_t value = to_int(args[0]);
      const std::int64_t size = to_int(args[1]);
      const std::int64_t seed = to_int(args[2]);
      if (size <= 0) throw ExprError("permute size parameter must be greater than zero");
      return Value::of_int(pgbench_permute(value, size, seed));
    }
    default:
      break;
  }
  throw ExprError("internal error: unexpected function");
}

}  // namespace

std::string value_text(const Value& value) {
  switch (value.type) {
    case Value::Type::null:
      return "NULL";
    case Value::Type::boolean:
      return value.boolean ? "true" : "false";
    case Value::Type::integer:
      return std::to_string(value.integer);
    case Value::Type::real:
      break;
  }
  return format_double(value.real);
}

Value evaluate(const Expr& expr, EvalContext& context) {
  switch (expr.kind) {
    case Expr::Kind::constant:
      return expr.constant;
    case Expr::Kind::variable: {
      const Value* value = context.variables.value(expr.variable);
      if (value == nullptr)
        throw ExprError(fmt::format("undefined variable \"{}\"", expr.variable));
      return *value;
    }
    case Expr::Kind::call:
      break;
  }
  return call(expr, context);
}

}  // namespace storh::engines::pg
