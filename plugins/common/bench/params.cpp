#include "common/bench/params.h"

#include <algorithm>
#include <stdexcept>
#include <variant>

namespace storh::engines::bench {
namespace {

// The value of `name` when it holds a T, else nullptr (absent: the default applies).
template <typename T>
const T* held(const Lookup& param, std::string_view name) {
  const ParamValue* value = param(name);
  return value != nullptr ? std::get_if<T>(value) : nullptr;
}

}  // namespace

const ParamValue* Lookup::operator()(std::string_view name) const {
  if (ctx_ != nullptr) return ctx_->param(name);
  for (const auto& [key, value] : *values_) {
    if (key == name) return &value;
  }
  return nullptr;
}

ParamSpec spec(const IntParam& param) {
  return {std::string(param.name),
          ParamType::integer,
          param.fallback,
          {},
          std::string(param.description)};
}

ParamSpec spec(const NumberParam& param) {
  return {std::string(param.name),
          ParamType::number,
          param.fallback,
          {},
          std::string(param.description)};
}

ParamSpec spec(const TextParam& param) {
  ParamSpec out{std::string(param.name),
                ParamType::string,
                std::string(param.fallback),
                {},
                std::string(param.description)};
  for (std::string_view choice : param.choices) out.allowed.emplace_back(std::string(choice));
  return out;
}

ParamSpec spec(const BoolParam& param) {
  return {std::string(param.name),
          ParamType::boolean,
          param.fallback,
          {},
          std::string(param.description)};
}

ParamRange range(const IntParam& param) {
  ParamRange out{std::string(param.name)};
  if (param.minimum != kNoMinimum) out.minimum = static_cast<double>(param.minimum);
  if (param.maximum != kNoMaximum) out.maximum = static_cast<double>(param.maximum);
  return out;
}

ParamRange range(const NumberParam& param) {
  return {std::string(param.name), param.minimum, param.maximum};
}

double number_value(const Lookup& param, const NumberParam& spec) {
  const double* value = held<double>(param, spec.name);
  return value != nullptr ? *value : spec.fallback;
}

bool in_range(const NumberParam& spec, double value) {
  return value >= spec.minimum && value <= spec.maximum;
}

std::int64_t integer_value(const Lookup& param, const IntParam& spec) {
  const std::int64_t* value = held<std::int64_t>(param, spec.name);
  return value != nullptr ? *value : spec.fallback;
}

bool in_range(const IntParam& spec, std::int64_t value) {
  return value >= spec.minimum && value <= spec.maximum;
}

std::int64_t integer(const Lookup& param, const IntParam& spec) {
  const std::int64_t got = integer_value(param, spec);
  if (!in_range(spec, got)) {
    throw std::invalid_argument(std::string(spec.name) + " = " + std::to_string(got) +
                                " is out of range [" + std::to_string(spec.minimum) + ", " +
                                std::to_string(spec.maximum) + "]");
  }
  return got;
}

std::string text(const Lookup& param, const TextParam& spec) {
  const std::string* value = held<std::string>(param, spec.name);
  return value != nullptr ? *value : std::string(spec.fallback);
}

std::size_t choice(const Lookup& param, const TextParam& spec) {
  const std::string got = text(param, spec);
  const auto found = std::find(spec.choices.begin(), spec.choices.end(), got);
  if (found != spec.choices.end()) return static_cast<std::size_t>(found - spec.choices.begin());
  std::string valid;
  for (std::string_view known : spec.choices) {
    valid += (valid.empty() ? "" : ", ") + std::string(known);
  }
  throw std::invalid_argument(std::string(spec.name) + " \"" + got + "\" (valid: " + valid + ")");
}

bool boolean(const Lookup& param, const BoolParam& spec) {
  const bool* value = held<bool>(param, spec.name);
  return value != nullptr ? *value : spec.fallback;
}

}  // namespace storh::engines::bench
