#include "run/counting_pass.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "count/callgrind.h"
#include "count/counters.h"
#include "process/child_process.h"
#include "run/work_root.h"
#include "run/worker_run.h"
#include "util/files.h"
#include "worker/event.h"

namespace storh::run {
namespace {

// Valgrind runs a worker some 20-50 times slower; the plan's timeout is for native runs.
constexpr double kValgrindTimeoutFactor = 50;

// What one counting worker said, from its event lines.
struct CountingRun {
  std::vector<worker::CountersEvent> steps;
  bool done_ok = false;
  std::string message;  // the first failure's

  // Only counters and how the run ended matter here.
  void on_event(const worker::Event& event) {
    if (const auto* counters = std::get_if<worker::CountersEvent>(&event)) {
      steps.push_back(*counters);
    } else if (const auto* fail = std::get_if<worker::FailEvent>(&event)) {
      if (message.empty()) message = fail->message;
    } else if (const auto* done = std::get_if<worker::DoneEvent>(&event)) {
      done_ok = done->ok;
      if (!done_ok && message.empty()) message = done->message;
    }
  }
};

// Sums over the steps of one metric: counter -> (delta, items).
using MetricTotals = std::map<std::string, std::map<std::string, std::pair<double, double>>>;

// What a metric's counters say when a step's work ran in child processes.
constexpr std::string_view kChildrenNotCounted =
    "its work ran in child processes, which the counters do not see";

// Why a counting run failed, or nullopt when it ran cleanly.
std::optional<std::string> failure_message(const process::ProcessOutcome& outcome,
                                           const CountingRun& run) {
  if (outcome.succeeded() && run.done_ok) return std::nullopt;
  if (!outcome.started) return outcome.error;
  if (outcome.out_of_memory()) return std::string("exceeded the memory limit");  // before time
  if (outcome.timed_out) return fmt::format("timed out after {:.6g} s", outcome.wall_seconds);
  if (outcome.signal) return fmt::format("killed by signal {}", *outcome.signal);
  if (!run.message.empty()) return run.message;
  const std::string tail = process::tail_lines(outcome.stderr_tail, 3);
  return tail.empty() ? fmt::format("exited with code {}", outcome.exit_code.value_or(-1)) : tail;
}

// Runs one cell under one instrument and adds what it counted to `totals`; the
// error is the failure's message.
std::string count_cell(const plan::Cell& cell, std::size_t index, count::Instrument instrument,
                       const plan::Plan& plan, const RunnerOptions& options,
                       const std::filesystem::path& root, MetricTotals& totals,
                       std::set<std::string>& in_children) {
  const std::string_view name = count::instrument_name(instrument);
  const std::filesystem::path work_dir =
      root / fmt::format("c{:03}-{}-{}", index, cell.engine, name);
  if (std::string error = create_run_dir(work_dir); !error.empty()) return error;
  const std::filesystem::path dumps = root / fmt::format("callgrind-c{:03}.out", index);
  WorkerRunSpec spec(cell, 0, work_dir);
  spec.count = instrument;
  // The worker runs as a timed repeat does, with the instrument around it.
  if (instrument == count::Instrument::syscalls) {
    const std::optional<std::filesystem::path> interposer =
        count::find_interposer(options.host_executable);
    if (!interposer) return "libstorh_count.so not found (see docs/counters.md)";
    spec.adjust_process = [preload = "LD_PRELOAD=" +
                                     interposer->string()](process::ProcessOptions& process) {
      process.environment.push_back(preload);
#if defined(STORH_UBSAN)
      // An ASan host wants its runtime first; the interposer only forwards to it.
      process.environment.push_back("ASAN_OPTIONS=verify_asan_link_order=0");
#endif
    };
  } else {
    const std::optional<std::filesystem::path> valgrind = count::find_valgrind();
    if (!valgrind) return "valgrind is not on PATH";
    spec.adjust_process = [&dumps, valgrind = *valgrind](process::ProcessOptions& process) {
      // valgrind starts its argument as a new program, and there /proc/self/exe (the
      // CLI's host path) names valgrind itself: give it the binary's real path.
      std::error_code resolved;
      const std::filesystem::path host = std::filesystem::canonical(process.argv.front(), resolved);
      if (!resolved) process.argv.front() = host.string();
      process.argv = count::callgrind_command(valgrind, dumps, process.argv);
      process.memory_limit_bytes.reset();  // the header says why
      if (process.timeout_seconds) *process.timeout_seconds *= kValgrindTimeoutFactor;
    };
  }
  CountingRun run;
  spec.on_event = [&](const worker::Event& event) { run.on_event(event); };
  const process::ProcessOutcome outcome =
      run_worker(plan, spec, options, nullptr, std::string()).process;
  if (std::optional<std::string> message = failure_message(outcome, run)) return *message;

  for (const worker::CountersEvent& step : run.steps) {
    const std::string key = plan::metric_key(cell, step.op);
    if (step.children) in_children.insert(key);
    auto& metric = totals[key];
    const auto items = static_cast<double>(step.items);
    if (instrument == count::Instrument::syscalls) {
      for (const auto& [counter, delta] : step.counters) {
        auto& [sum, counted] = metric[counter];
        sum += static_cast<double>(delta);
        counted += items;
      }
      continue;
    }
    if (!step.dump) return fmt::format("{}: the worker reported no callgrind dump", step.op);
    const std::filesystem::path file = count::callgrind_dump_file(dumps, *step.dump);
    Expected<std::string> text = read_file(file);
    if (!text) return text.error();
    Expected<count::CallgrindDump> dump = count::parse_callgrind(*text, file.string());
    if (!dump) return dump.error();
    if (dump->trigger != step.op) {
      return fmt::format("{}: dump of \"{}\", expected \"{}\"", file.string(), dump->trigger,
                         step.op);
    }
    auto& [sum, counted] = metric["instructions"];
    sum += static_cast<double>(dump->instructions);
    counted += items;
  }
  return "";
}

}  // namespace

bool check_counting(const suite::Suite& suite, const std::filesystem::path& host_executable,
                    std::vector<suite::SuiteError>& errors) {
  const std::size_t first_error = errors.size();
  std::vector<suite::Located<std::string>> all = suite.counters;
  for (const suite::EngineSetting& engine : suite.engines) {
    if (engine.counters) all.insert(all.end(), engine.counters->begin(), engine.counters->end());
  }
  for (const suite::Located<std::string>& counter : all) {
    const auto instrument = count::parse_instrument(counter.value);
    // A file position names no key, so the message does; a flag names itself.
    const std::string key = counter.pos.line != 0 ? "counters: " : "";
    if (suite.load) {
      errors.push_back({counter.pos, key + "a load suite ([load]) has no counting pass; "
                                           "count the operations in a scenario suite"});
    } else if (instrument == count::Instrument::syscalls &&
               !count::find_interposer(host_executable)) {
      errors.push_back({counter.pos, fmt::format("{}\"syscalls\" needs libstorh_count.so "
                                                 "next to {} or in its lib/storh/ (build the "
                                                 "storh_count target)",
                                                 key, host_executable.string())});
    } else if (instrument == count::Instrument::instructions && !count::callgrind_supported()) {
      errors.push_back({counter.pos, key + "\"instructions\" needs a storh-host built with "
                                           "valgrind/callgrind.h (install valgrind and rebuild)"});
    } else if (instrument == count::Instrument::instructions && !count::find_valgrind()) {
      errors.push_back({counter.pos, key + "\"instructions\" needs valgrind on PATH "
                                           "(Debian: apt-get install valgrind)"});
    }
  }
  return errors.size() == first_error;
}

void run_counting_pass(const plan::Plan& plan, const RunnerOptions& options,
                       result::ResultFile& result) {
  // Each cell's instruments (load cells are not counted; a name that is no instrument
  // was refused by the parser); the experiment lists every instrument used, in first use.
  std::vector<std::vector<count::Instrument>> instruments(plan.cells.size());
  for (std::size_t c = 0; c < plan.cells.size(); ++c) {
    if (plan.cells[c].load) continue;
    for (const std::string& counter : plan.cells[c].counters) {
      const auto instrument = count::parse_instrument(counter);
      if (!instrument) continue;
      instruments[c].push_back(*instrument);
      const std::string name(count::instrument_name(*instrument));
      auto& listed = result.experiment.counters;
      if (std::find(listed.begin(), listed.end(), name) == listed.end()) listed.push_back(name);
    }
  }
  if (result.experiment.counters.empty() || result.interrupted) return;
  auto fail = [&](const plan::Cell& cell, std::string message) {
    result.failures.push_back(result::make_failure(
        cell.failed_run(0), result::Failure::Kind::counters, std::move(message)));
  };
  Expected<WorkRoot> made_root = WorkRoot::create(plan.work_dir, "count", options.warnings);
  if (!made_root) {
    for (const plan::Cell& cell : plan.cells) fail(cell, made_root.error());
    return;
  }
  const std::filesystem::path& root = made_root->path();

  MetricTotals totals;
  std::set<std::string> in_children;
  for (std::size_t c = 0; c < plan.cells.size() && !result.interrupted; ++c) {
    const plan::Cell& cell = plan.cells[c];
    for (const count::Instrument instrument : instruments[c]) {
      if (options.cancel != nullptr && options.cancel->load()) {
        result.interrupted = true;
        break;
      }
      if (options.progress != nullptr) {
        *options.progress << fmt::format("\r\033[Kcounting {} n={} {}", cell.engine, cell.dataset,
                                         count::instrument_name(instrument))
                          << std::flush;
      }
      std::string message =
          count_cell(cell, c, instrument, plan, options, root, totals, in_children);
      if (!message.empty()) {
        fail(cell,
             fmt::format("counting run ({}): {}", count::instrument_name(instrument), message));
      }
    }
  }
  if (options.progress != nullptr) *options.progress << "\r\033[K" << std::flush;

  for (result::Metric& metric : result.metrics) {
    if (in_children.contains(metric.key)) {
      metric.not_counted = kChildrenNotCounted;
      continue;
    }
    const auto found = totals.find(metric.key);
    if (found == totals.end()) continue;
    for (const auto& [counter, sums] : found->second) {
      if (sums.second > 0) metric.counters.emplace_back(counter, sums.first / sums.second);
    }
  }
}

}  // namespace storh::run
