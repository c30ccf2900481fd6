// The Failure helpers of result/result.h: a kind's name both ways, and make_failure.
#include <algorithm>
#include <array>
#include <utility>

#include <fmt/format.h>

#include "result/result.h"

namespace storh::result {
namespace {

using Kind = Failure::Kind;

// Every kind with its name in result files, in declaration order. The names are the
// schema: changing one breaks every file written before.
constexpr std::array<std::pair<Kind, std::string_view>, 9> kFailureKinds{{
    {Kind::failed, "failed"},
    {Kind::crashed, "crashed"},
    {Kind::timeout, "timeout"},
    {Kind::memory, "memory"},
    {Kind::exit, "exit"},
    {Kind::load, "load"},
    {Kind::interrupted, "interrupted"},
    {Kind::skipped, "skipped"},
    {Kind::counters, "counters"},
}};

}  // namespace

std::string_view failure_kind_name(Failure::Kind kind) {
  for (const auto& [known, name] : kFailureKinds) {
    if (known == kind) return name;
  }
  return "unknown";  // not reached: every kind is in the table
}

std::optional<Failure::Kind> parse_failure_kind(std::string_view name) {
  for (const auto& [kind, known] : kFailureKinds) {
    if (known == name) return kind;
  }
  return std::nullopt;
}

std::string failure_kind_choices() {
  std::string choices;
  for (const auto& [kind, name] : kFailureKinds) {
    choices += fmt::format("{}{}", choices.empty() ? "" : ", ", name);
  }
  return choices;
}

Failure make_failure(FailedRun run, Failure::Kind kind, std::string message) {
  Failure failure;
  failure.engine = std::move(run.engine);
  failure.dataset = run.dataset;
  failure.params = std::move(run.params);
  failure.repeat = run.repeat;
  failure.operation = std::move(run.operation);
  failure.kind = kind;
  // Tabs (libpq indents its DETAIL and HINT lines with them) break every table and
  // terminal that shows the message; a space says the same.
  std::replace(message.begin(), message.end(), '\t', ' ');
  failure.message = std::move(message);
  return failure;
}

}  // namespace storh::result
