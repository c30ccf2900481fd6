#include "run/runner.h"

#include <chrono>
#include <functional>

#include <fmt/format.h>

#include "env/environment.h"
#include "env/provenance.h"
#include "run/adaptive.h"
#include "run/aggregate.h"
#include "run/fail_fast.h"
#include "run/finish.h"
#include "run/progress_line.h"
#include "run/repeat.h"
#include "util/expected.h"

namespace storh::run {
namespace {

// (cell, repeat) in execution order; warm-up runs have negative repeats. Interleaved:
// every cell's warm-ups, then repeat 0 of every cell, then repeat 1, ...
std::vector<std::pair<std::size_t, int>> schedule(const plan::Plan& plan) {
  std::vector<std::pair<std::size_t, int>> runs;
  const int first = -static_cast<int>(plan.warmup);
  const int last = static_cast<int>(plan.repeat);
  if (plan.order == suite::RunOrder::interleave) {
    for (int repeat = first; repeat < last; ++repeat) {
      for (std::size_t c = 0; c < plan.cells.size(); ++c) runs.emplace_back(c, repeat);
    }
  } else {
    for (std::size_t c = 0; c < plan.cells.size(); ++c) {
      for (int repeat = first; repeat < last; ++repeat) runs.emplace_back(c, repeat);
    }
  }
  return runs;
}

// The plan's runs per cell and units (progress_line.h), for the progress line's eta.
EtaEstimate estimate_for(const plan::Plan& plan, std::uint32_t repeats) {
  std::uint64_t smallest = 0;
  for (const plan::Cell& cell : plan.cells) {
    if (smallest == 0 || cell.dataset < smallest) smallest = cell.dataset;
  }
  std::vector<double> units;
  for (const plan::Cell& cell : plan.cells) {
    units.push_back(cell_units(cell.operations.size(), cell.dataset, smallest));
  }
  return EtaEstimate(std::move(units),
                     std::vector<std::size_t>(plan.cells.size(), repeats + plan.warmup));
}

// Adaptive repeats past the minimum: rounds that add one repeat to each cell whose
// figures are not stable yet (run/adaptive.h), in plan order, until every cell is
// stable or has run max. A cell fail-fast stopped runs no more and records no more
// skips: its min repeats already said why. `run_one` returns false once interrupted.
void run_rounds(const plan::Plan& plan, const std::vector<CellRuns>& all_runs,
                const FailFast& fail_fast, EtaEstimate& eta,
                const std::function<bool(std::size_t, int)>& run_one) {
  const suite::RepeatUntil& bounds = *plan.repeat_until;
  std::vector<bool> done(plan.cells.size(), false);
  auto finish = [&](std::size_t c) {
    done[c] = true;
    for (std::size_t r = all_runs[c].size(); r < bounds.max; ++r) eta.dropped(c);
  };
  for (auto repeat = static_cast<int>(plan.repeat); repeat < static_cast<int>(bounds.max);
       ++repeat) {
    bool ran = false;
    for (std::size_t c = 0; c < plan.cells.size(); ++c) {
      if (done[c]) continue;
      if (fail_fast.skip(c, repeat) || cell_is_stable(plan.cells[c], all_runs[c], bounds.until)) {
        finish(c);
        continue;
      }
      ran = true;
      if (!run_one(c, repeat)) return;
    }
    if (!ran) return;
  }
}

}  // namespace

void check_load(const RunnerOptions& options, std::string_view when, result::Environment& env) {
  const std::optional<double> load = options.load_average ? options.load_average() : std::nullopt;
  if (!load) return;
  std::optional<std::string> warning = env::busy_warning(when, *load, env.cpu_count);
  if (!warning) return;
  if (options.warnings != nullptr) *options.warnings << "warning: " << *warning << '\n';
  env.warnings.push_back(std::move(*warning));
}

Expected<result::ResultFile> run_plan(const plan::Plan& full_plan, const RunnerOptions& options) {
  // Everything below runs `plan`: the whole plan, or the shard's part of it.
  const plan::Plan plan = options.shard ? plan::shard_of(full_plan, *options.shard) : full_plan;
  Expected<WorkRoot> made_root = WorkRoot::create(plan.work_dir, "", options.warnings);
  if (!made_root) return Error{made_root.error()};
  const std::filesystem::path work_root = made_root->path();

  std::vector<CellRuns> all_runs(plan.cells.size());
  std::vector<std::vector<std::string>> failed_repeats(plan.cells.size());
  result::ResultFile result;
  result.environment = env::capture_environment(work_root);
  check_load(options, "at the start of the run", result.environment);
  ProgressLine progress(options.progress);
  // Adaptive: cells may stop anywhere from min to max repeats, so the total and the
  // eta are upper bounds, shown as such ("[12/≤240]").
  const std::uint32_t most = plan.repeat_until ? plan.repeat_until->max : plan.repeat;
  const std::size_t total = plan.cells.size() * (static_cast<std::size_t>(most) + plan.warmup);
  const std::string bound = plan.repeat_until ? "≤" : "";
  std::size_t started = 0;
  EtaEstimate eta = estimate_for(plan, most);

  const int first = -static_cast<int>(plan.warmup);
  FailFast fail_fast(plan, options.fail_fast);
  // Runs repeat `repeat` of cell `c` (or records why not); false once interrupted.
  auto run_one = [&](std::size_t c, int repeat) {
    const plan::Cell& cell = plan.cells[c];
    if (std::optional<result::Failure> skipped = fail_fast.skip(c, repeat)) {
      result.failures.push_back(std::move(*skipped));
      eta.dropped(c);
      return true;
    }
    if (options.cancel != nullptr && options.cancel->load()) {
      result.interrupted = true;
      return false;
    }
    ++started;
    const std::string where = fmt::format(
        "[{}/{}{}] {} {} {}", started, bound, total, plan::progress_name(cell),
        repeat < 0 ? "warm-up" : "repeat", repeat < 0 ? repeat - first + 1 : repeat + 1);
    std::string eta_shown = eta_text(eta.seconds_left());
    if (!bound.empty() && !eta_shown.empty()) eta_shown.insert(4, bound);  // "eta ≤1m05s"
    progress.set_suffix(std::move(eta_shown));
    progress.show(where);
    const std::filesystem::path work_dir =
        work_root / (repeat < 0 ? fmt::format("c{:03}-{}-warmup{}", c, cell.engine, repeat - first)
                                : fmt::format("c{:03}-{}-r{}", c, cell.engine, repeat));
    const auto run_start = std::chrono::steady_clock::now();
    RepeatOutcome ran =
        run_repeat(plan, {cell, repeat, work_dir}, options, &progress, where, result);
    if (!ran.run) {
      eta.dropped(c);
      return true;
    }
    eta.finished(
        c, std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count());
    if (ran.failure) {
      if (std::string note = fail_fast.record(c, *ran.failure); !note.empty() && options.log) {
        progress.clear();
        *options.log << note << '\n';
      }
      if (repeat >= 0) {
        failed_repeats[c].push_back(
            fmt::format("repeat {} {}", repeat + 1, result::failure_kind_name(ran.failure->kind)));
      }
    }
    if (repeat >= 0) all_runs[c].push_back(std::move(*ran.run));
    return !result.interrupted;
  };
  for (const auto& [c, repeat] : schedule(plan)) {
    if (!run_one(c, repeat)) break;
  }
  if (plan.repeat_until && !result.interrupted) {
    run_rounds(plan, all_runs, fail_fast, eta, run_one);
  }
  progress.clear();
  check_load(options, "at the end of the run", result.environment);

  const std::string removal_error = made_root->remove();
  finish_result({.described = &full_plan,
                 .ran = &plan,
                 .runs = std::move(all_runs),
                 .failed_repeats = std::move(failed_repeats),
                 .adaptive = plan.repeat_until.has_value(),
                 .counting_pass = true,
                 .work_root = work_root,
                 .removal_error = removal_error},
                options, result);
  return result;
}

}  // namespace storh::run
