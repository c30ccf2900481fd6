#include "cli/expected_time.h"

#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "run/progress_line.h"
#include "util/files.h"
#include "util/json_input.h"

namespace storh::cli {
namespace {

// Whether the last result's field at `depth` named `key` is one last_run_seconds reads:
// "interrupted", "experiment" with its "fingerprint" and "shard", and each run's
// "wall_seconds". The rest (the metrics, most of a result) is skipped as it is parsed.
bool wanted(int depth, const std::string& key) {
  switch (depth) {
    case 1:
      return key == "interrupted" || key == "experiment" || key == "runs";
    case 2:  // in "experiment" ("runs" is an array: its objects' keys are at 3)
      return key == "fingerprint" || key == "shard";
    case 3:
      return key == "wall_seconds";
    default:
      return false;
  }
}

// The worker runs' wall time of the last complete, unsharded run of this plan at the
// suite's output, or 0 when there is none. Only the fields it needs are kept, not the
// whole result: a short run pays for this before it starts.
double last_run_seconds(const Prepared& prepared) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(prepared.suite.output, ec)) return 0;
  Expected<std::string> text = read_file(prepared.suite.output);
  if (!text || json_nesting_depth(*text, kMaxJsonDepth) > kMaxJsonDepth) return 0;
  const nlohmann::json last = nlohmann::json::parse(
      *text,
      [](int depth, nlohmann::json::parse_event_t event, nlohmann::json& value) {
        return event != nlohmann::json::parse_event_t::key ||
               wanted(depth, value.get_ref<const std::string&>());
      },
      false);
  try {
    if (!last.is_object() || last.value("interrupted", true)) return 0;
    const nlohmann::json& experiment = last.at("experiment");
    if (experiment.contains("shard") ||
        experiment.at("fingerprint").get<std::string>() != prepared.plan.fingerprint) {
      return 0;
    }
    double seconds = 0;
    for (const nlohmann::json& run : last.at("runs")) {
      seconds += run.at("wall_seconds").get<double>();
    }
    return seconds;
  } catch (const nlohmann::json::exception&) {  // not a result file: no estimate
    return 0;
  }
}

}  // namespace

std::string expected_time(const Prepared& prepared) {
  if (const double last = last_run_seconds(prepared); last > 0) {
    return fmt::format("about {} (the last run of this plan, {})", run::duration_text(last),
                       prepared.suite.output.string());
  }
  const plan::Plan& plan = prepared.plan;
  if (plan.cells.empty()) return {};
  double timed = 0;
  for (const plan::Cell& cell : plan.cells) {
    if (!cell.load || !cell.load->duration_seconds) return {};
    timed += *cell.load->duration_seconds;
  }
  const std::size_t runs = plan.cells.size() * (plan.repeat + plan.warmup);
  return fmt::format("at least {} (the timed phases of {} duration-bound run(s))",
                     run::duration_text(timed * static_cast<double>(plan.repeat + plan.warmup)),
                     runs);
}

}  // namespace storh::cli
