#include "ab/ab_runner.h"

#include <fmt/format.h>

#include "env/environment.h"
#include "load/outcome.h"
#include "result/engine_values.h"
#include "run/finish.h"
#include "run/progress_line.h"
#include "run/repeat.h"
#include "run/work_root.h"
#include "run/worker_run.h"
#include "util/secrets.h"
#include "util/splitmix64.h"

namespace storh::ab {
namespace {

// The random order's coin: splitmix64's output for state x.
std::uint64_t mix(std::uint64_t x) {
  return splitmix64(x);
}

Side first_side(const AbRunOptions& options, std::size_t cell, std::uint32_t pair) {
  if (options.order == Order::abba) return pair % 2 == 0 ? Side::base : Side::head;
  return (mix(options.seed ^ mix(cell * 0x100000001ULL + pair)) & 1) == 0 ? Side::base : Side::head;
}

// What one run of `operation` measured, as the pairs compare it: a scenario step's
// seconds, or a load phase's seconds per transaction (its run time over the
// transactions processed, so duration runs whose counts differ still compare). nullopt
// when the run has none, or its load phase failed a transaction or processed none.
std::optional<double> paired_seconds(const run::CellRun& run, const std::string& operation) {
  for (const run::OperationSample& s : run.samples) {
    if (s.operation == operation) return s.seconds;
  }
  for (const run::LoadSample& sample : run.loads) {
    if (sample.operation != operation) continue;
    Expected<load::LoadOutcome> outcome = load::load_outcome_from_json(sample.outcome);
    if (!outcome || outcome->processed == 0 || outcome->failed > 0) return std::nullopt;
    return outcome->run_seconds / static_cast<double>(outcome->processed);
  }
  return std::nullopt;
}

// One side's state while the pairs run.
struct SideRuns {
  const plan::Plan* plan = nullptr;
  std::vector<run::CellRuns> runs;  // per cell, by pair index (failed runs included)
  result::ResultFile result;
  std::optional<double> inject_slowdown;  // asked of every worker of this side
};

}  // namespace

std::string check_pairable(const plan::Plan& base, const plan::Plan& head) {
  if (base.cells.size() != head.cells.size()) {
    return fmt::format(
        "base has {} cell(s) and head {}: the sides must run the same engines, "
        "datasets and parameter matrix",
        base.cells.size(), head.cells.size());
  }
  for (std::size_t c = 0; c < base.cells.size(); ++c) {
    const plan::Cell& b = base.cells[c];
    const plan::Cell& h = head.cells[c];
    if (b.engine != h.engine || b.dataset != h.dataset || b.qualifiers != h.qualifiers) {
      return fmt::format("cell {} differs: base runs {} n={} [{}], head runs {} n={} [{}]", c + 1,
                         b.engine, b.dataset, fmt::join(b.qualifiers, ","), h.engine, h.dataset,
                         fmt::join(h.qualifiers, ","));
    }
  }
  return {};
}

PairedMetric pair_samples(const std::string& key, const OperationSpec& operation,
                          const std::vector<run::CellRun>& base_runs,
                          const std::vector<run::CellRun>& head_runs,
                          const std::vector<Side>& first) {
  PairedMetric metric{key, operation.unit, result::metric_direction(operation.direction), {}};
  const std::size_t n = std::min({base_runs.size(), head_runs.size(), first.size()});
  for (std::size_t p = 0; p < n; ++p) {
    const std::optional<double> b = paired_seconds(base_runs[p], operation.name);
    const std::optional<double> h = paired_seconds(head_runs[p], operation.name);
    if (!b || !h) continue;
    metric.pairs.push_back({static_cast<std::uint32_t>(p), *b, *h, first[p]});
  }
  return metric;
}

Expected<AbResult> run_ab(const plan::Plan& base_plan, const plan::Plan& head_plan,
                          const AbRunOptions& options) {
  if (std::string why = check_pairable(base_plan, head_plan); !why.empty()) return Error{why};
  Expected<run::WorkRoot> made_root =
      run::WorkRoot::create(head_plan.work_dir, "", options.runner.warnings);
  if (!made_root) return Error{made_root.error()};
  const std::filesystem::path work_root = made_root->path();

  SideRuns base{&base_plan, std::vector<run::CellRuns>(base_plan.cells.size()), {}, std::nullopt};
  SideRuns head{&head_plan,
                std::vector<run::CellRuns>(head_plan.cells.size()),
                {},
                options.head_inject_slowdown};
  result::Environment environment = env::capture_environment(work_root);
  run::check_load(options.runner, "at the start of the run", environment);
  run::ProgressLine progress(options.runner.progress);
  const std::size_t cells = base_plan.cells.size();
  const std::uint32_t pairs = head_plan.repeat;
  const std::uint32_t warmup = head_plan.warmup;
  const std::size_t total = cells * 2 * (static_cast<std::size_t>(pairs) + warmup);
  std::size_t started = 0;
  bool interrupted = false;
  std::vector<std::vector<Side>> firsts(cells);

  // One run of one side; false once the user interrupted.
  auto run_one = [&](SideRuns& side, Side which, std::size_t c, int repeat) {
    if (options.runner.cancel != nullptr && options.runner.cancel->load()) return false;
    const plan::Cell& cell = side.plan->cells[c];
    const std::string where =
        fmt::format("[{}/{}] {} n={} {} {} {}", ++started, total, cell.engine, cell.dataset,
                    side_name(which), repeat < 0 ? "warm-up" : "pair",
                    repeat < 0 ? repeat + static_cast<int>(warmup) + 1 : repeat + 1);
    progress.show(where);
    run::WorkerRunSpec spec(
        cell, repeat,
        work_root / fmt::format("c{:03}-{}-{}-{}{}", c, cell.engine, side_name(which),
                                repeat < 0 ? "w" : "p", repeat < 0 ? -repeat : repeat));
    spec.inject_slowdown = side.inject_slowdown;
    run::RepeatOutcome ran =
        run::run_repeat(*side.plan, spec, options.runner, &progress, where, side.result);
    if (side.result.interrupted) interrupted = true;
    // A run without a directory keeps its place, so that pair indices stay aligned.
    if (repeat >= 0) side.runs[c].push_back(ran.run ? std::move(*ran.run) : run::CellRun{});
    return !interrupted;
  };
  auto run_pair = [&](std::size_t c, int repeat, Side first) {
    SideRuns& one = first == Side::base ? base : head;
    SideRuns& two = first == Side::base ? head : base;
    const Side other = first == Side::base ? Side::head : Side::base;
    return run_one(one, first, c, repeat) && run_one(two, other, c, repeat);
  };

  bool going = true;
  for (int w = -static_cast<int>(warmup); going && w < 0; ++w) {
    for (std::size_t c = 0; going && c < cells; ++c) going = run_pair(c, w, Side::base);
  }
  for (std::uint32_t p = 0; going && p < pairs; ++p) {
    for (std::size_t c = 0; going && c < cells; ++c) {
      const Side first = first_side(options, c, p);
      firsts[c].push_back(first);
      going = run_pair(c, static_cast<int>(p), first);
    }
  }
  progress.clear();
  interrupted = interrupted || !going;
  run::check_load(options.runner, "at the end of the run", environment);

  const std::string removal_error = made_root->remove();
  AbResult out;
  for (SideRuns* side : {&base, &head}) {
    side->result.environment = environment;
    side->result.interrupted = interrupted;
    // A copy: the pairing below reads the runs too.
    run::finish_result({.described = side->plan,
                        .ran = side->plan,
                        .runs = side->runs,
                        .failed_repeats = {},
                        .adaptive = false,
                        .counting_pass = options.counting_pass && !interrupted,
                        .work_root = work_root,
                        .removal_error = removal_error},
                       options.runner, side->result);
  }
  for (std::size_t c = 0; c < cells; ++c) {
    const plan::Cell& cell = head_plan.cells[c];
    const plan::Cell& base_cell = base_plan.cells[c];
    for (const OperationSpec& op : cell.operations) {
      const bool on_base = std::any_of(base_cell.operations.begin(), base_cell.operations.end(),
                                       [&](const OperationSpec& b) { return b.name == op.name; });
      if (!on_base) continue;
      out.metrics.push_back(
          pair_samples(plan::metric_key(cell, op.name), op, base.runs[c], head.runs[c], firsts[c]));
    }
  }
  std::sort(out.metrics.begin(), out.metrics.end(),
            [](const PairedMetric& a, const PairedMetric& b) { return a.key < b.key; });
  out.base = std::move(base.result);
  out.head = std::move(head.result);
  out.base_setup = options.base_setup;
  out.head_setup = options.head_setup;
  for (SideSetup* setup : {&out.base_setup, &out.head_setup}) {
    for (std::string& set : setup->sets) set = mask_secrets(set);
  }
  out.order = options.order;
  out.seed = options.seed;
  out.pairs = pairs;
  return out;
}

std::string confirm(const plan::Plan& base, const plan::Plan& head, std::uint32_t pairs,
                    AbRunOptions options, const std::set<std::string>& keys, AbResult& result) {
  options.counting_pass = false;
  plan::Plan base_subset = plan::with_metrics(base, keys);
  plan::Plan head_subset = plan::with_metrics(head, keys);
  base_subset.repeat = head_subset.repeat = pairs;
  Expected<AbResult> again = run_ab(base_subset, head_subset, options);
  if (!again) return again.error();
  for (PairedMetric& metric : again->metrics) {
    if (keys.count(metric.key) > 0) result.confirmation.push_back(std::move(metric));
  }
  for (auto [to, from] : {std::pair{&result.base, &again->base}, {&result.head, &again->head}}) {
    to->runs.insert(to->runs.end(), from->runs.begin(), from->runs.end());
    to->failures.insert(to->failures.end(), from->failures.begin(), from->failures.end());
    to->interrupted = to->interrupted || from->interrupted;
  }
  return {};
}

}  // namespace storh::ab
