#include "run/fail_fast.h"

#include <fmt/format.h>

#include "suite/parse.h"

namespace storh::run {
namespace {

// "repeat 2" or "warm-up 1", 1-based as the progress line counts them.
std::string run_name(const plan::Plan& plan, int repeat) {
  return repeat < 0 ? fmt::format("warm-up {}", repeat + static_cast<int>(plan.warmup) + 1)
                    : fmt::format("repeat {}", repeat + 1);
}

// "misbehave n=100 behaviour=hang", the cell as the progress line shows it.
std::string cell_name(const plan::Cell& cell) {
  std::string name = fmt::format("{} n={}", cell.engine, cell.dataset);
  for (const auto& [param, value] : cell.chosen) {
    name += fmt::format(" {}={}", param, suite::param_value_text(value));
  }
  if (cell.load) name += fmt::format(" {}", fmt::join(cell.load->qualifiers(), " "));
  return name;
}

}  // namespace

bool repeats_would_repeat(result::Failure::Kind kind) {
  using Kind = result::Failure::Kind;
  return kind == Kind::timeout || kind == Kind::crashed || kind == Kind::failed ||
         kind == Kind::memory;
}

std::string FailFast::record(std::size_t cell, const result::Failure& failure) {
  if (!enabled_ || !repeats_would_repeat(failure.kind) || stopped_.count(cell) != 0) return {};
  // Runs of a cell go warm-ups first, then repeats, in either order of the plan.
  // An adaptive cell may run up to max repeats: at most that many remain.
  const std::uint32_t last = plan_.repeat_until ? plan_.repeat_until->max : plan_.repeat;
  const int remaining = static_cast<int>(last) - 1 - failure.repeat;
  if (remaining <= 0) return {};
  stopped_.emplace(cell, failure);
  return fmt::format(
      "storh-host: {}: {} failed ({}: {}); skipping its {} remaining run(s) "
      "(--no-fail-fast runs them)",
      cell_name(plan_.cells[cell]), run_name(plan_, failure.repeat),
      result::failure_kind_name(failure.kind), failure.message, remaining);
}

std::optional<result::Failure> FailFast::skip(std::size_t cell, int repeat) const {
  const auto stopped = stopped_.find(cell);
  if (stopped == stopped_.end() || repeat <= stopped->second.repeat) return std::nullopt;
  const result::Failure& cause = stopped->second;
  result::FailedRun skipped = plan_.cells[cell].failed_run(repeat);
  skipped.operation = cause.operation;
  return result::make_failure(
      std::move(skipped), result::Failure::Kind::skipped,
      fmt::format("not run: {} failed ({}: {}), so repeating it would only repeat that "
                  "(--no-fail-fast runs every repeat)",
                  run_name(plan_, cause.repeat), result::failure_kind_name(cause.kind),
                  cause.message));
}

}  // namespace storh::run
