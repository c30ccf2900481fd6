#include "cli/expected_time.h"

#include <system_error>

#include <fmt/format.h>

#include "result/json.h"
#include "run/progress_line.h"

namespace storh::cli {
namespace {

// The worker runs' wall time of the last complete, unsharded run of this plan at the
// suite's output, or 0 when there is none.
double last_run_seconds(const Prepared& prepared) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(prepared.suite.output, ec)) return 0;
  Expected<result::ResultFile> last = result::read_result_file(prepared.suite.output);
  if (!last || last->interrupted || last->experiment.shard ||
      last->experiment.fingerprint != prepared.plan.fingerprint) {
    return 0;
  }
  double seconds = 0;
  for (const result::Run& run : last->runs) seconds += run.wall_seconds;
  return seconds;
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
