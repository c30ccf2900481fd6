#include "run/runner.h"

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "env/environment.h"
#include "env/provenance.h"
#include "plugin/describe.h"
#include "run/aggregate.h"
#include "util/expected.h"
#include "worker/process.h"

namespace storh::run {
namespace {

using nlohmann::json;

// A new, empty directory for this run's work directories.
Expected<std::filesystem::path> make_work_root(const suite::Suite& suite) {
  std::error_code ec;
  const std::filesystem::path parent =
      suite.work_dir ? *suite.work_dir : std::filesystem::temp_directory_path(ec);
  if (ec)
    return Error{fmt::format("no temporary directory for the work directories: {}", ec.message())};
  const auto nonce = static_cast<std::uint32_t>(
      std::chrono::steady_clock::now().time_since_epoch().count() * 2654435761u);
  const std::filesystem::path root =
      parent / fmt::format("storh-host-{}-{:08x}", ::getpid(), nonce);
  if (!std::filesystem::create_directories(root, ec) || ec) {
    return Error{fmt::format("{}: cannot create the work directory: {}", root.string(),
                             ec ? ec.message() : "it already exists")};
  }
  return root;
}

std::string params_argument(const plan::Cell& cell) {
  json chosen = json::object();
  for (const auto& [name, value] : cell.chosen) chosen[name] = plugin::param_value_json(value);
  return chosen.dump();
}

std::string describe_signal(int signal) {
  const char* name = ::strsignal(signal);
  return fmt::format("signal {} ({})", signal, name != nullptr ? name : "unknown");
}

// What one worker said, assembled from its event lines.
class EventCollector {
 public:
  EventCollector(CellRun& run, std::function<void(const std::string&)> on_progress,
                 std::function<void(const std::string&)> on_load_progress)
      : run_(run),
        on_progress_(std::move(on_progress)),
        on_load_progress_(std::move(on_load_progress)) {}

  void on_line(std::string_view line) {
    const json event = json::parse(line, nullptr, false);
    if (event.is_discarded() || !event.is_object() || !event.contains("event")) return;
    const std::string kind = event.value("event", "");
    if (kind == "loaded") {
      run_.loaded = true;
      run_.startup_seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    } else if (kind == "begin") {
      run_.current_operation = event.value("op", "");
    } else if (kind == "sample") {
      OperationSample sample;
      sample.operation = event.value("op", "");
      sample.seconds = event.value("seconds", 0.0);
      sample.items = event.value("items", std::uint64_t{0});
      if (event.contains("latency")) sample.latency = event["latency"];
      run_.samples.push_back(std::move(sample));
    } else if (kind == "fail") {
      run_.failed_operation = event.value("op", "");
      run_.failure_message = event.value("message", "");
    } else if (kind == "done") {
      run_.done = true;
      if (!event.value("ok", false) && run_.failure_message.empty()) {
        run_.failed_operation = event.value("op", "");
        run_.failure_message = event.value("message", "");
      }
    } else if (kind == "progress") {
      run_.progress_message = event.value("message", "");
      if (on_progress_) on_progress_(run_.progress_message);
    } else if (kind == "load") {
      run_.loads.push_back({event.value("op", ""), event.value("outcome", json())});
    } else if (kind == "load_progress") {
      if (on_load_progress_) on_load_progress_(event.value("line", ""));
    }
  }

 private:
  CellRun& run_;
  std::function<void(const std::string&)> on_progress_;
  std::function<void(const std::string&)> on_load_progress_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// Turns a worker's exit into a Failure, or nullopt when it ran cleanly.
std::optional<result::Failure> failure_of(const plan::Cell& cell, int repeat,
                                          const worker::ProcessOutcome& outcome, const CellRun& run,
                                          const RunnerOptions& options) {
  if (outcome.succeeded() && run.done && run.failure_message.empty()) return std::nullopt;
  result::Failure f;
  f.engine = cell.engine;
  f.dataset = cell.dataset;
  f.params = cell.params;
  f.repeat = repeat;
  f.operation = !run.failed_operation.empty() ? run.failed_operation : run.current_operation;
  f.signal = outcome.signal;
  f.exit_code = outcome.exit_code;
  f.stderr_tail = outcome.stderr_tail;
  if (!outcome.started) {
    f.kind = "exit";
    f.message = outcome.error;
  } else if (outcome.cancelled || (options.cancel != nullptr && options.cancel->load())) {
    f.kind = "interrupted";
    f.message = "stopped by the user (interrupt)";
  } else if (outcome.timed_out) {
    f.kind = "timeout";
    f.message = fmt::format("worker timed out after {:.6g} s", outcome.wall_seconds);
  } else if (outcome.memory_exceeded) {
    f.kind = "memory";
    f.message = fmt::format("worker exceeded the memory limit (resident {} MiB)",
                            outcome.peak_rss_bytes >> 20);
  } else if (outcome.signal) {
    f.kind = "crashed";
    f.message = fmt::format("worker killed by {}", describe_signal(*outcome.signal));
  } else if (!run.loaded) {
    f.kind = "load";
    f.message = worker::tail_lines(outcome.stderr_tail, 3);
    if (f.message.empty()) f.message = "the worker exited before loading the plugin";
  } else if (!run.failure_message.empty()) {
    f.kind = "failed";
    f.message = run.failure_message;
  } else {
    f.kind = "exit";
    f.message =
        fmt::format("worker exited with code {} before finishing", outcome.exit_code.value_or(-1));
  }
  return f;
}

class ProgressLine {
 public:
  explicit ProgressLine(std::ostream* out) : out_(out) {}
  ~ProgressLine() { clear(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void show(const std::string& text) {
    if (out_ == nullptr) return;
    *out_ << "\r\033[K" << text << std::flush;
    shown_ = true;
  }
  // A line that stays (pgbench -P style), printed above the progress line.
  void print(const std::string& text) {
    if (out_ == nullptr) return;
    clear();
    *out_ << text << '\n' << std::flush;
  }
  void clear() {
    if (out_ != nullptr && shown_) *out_ << "\r\033[K" << std::flush;
    shown_ = false;
  }

 private:
  std::ostream* out_;
  bool shown_ = false;
};

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

// Adds the busy-machine warning when the load average is above the CPU count, and
// prints it at once so a user can stop a run that measures a busy machine.
void check_load(const RunnerOptions& options, std::string_view when, result::Environment& env) {
  const std::optional<double> load = options.load_average ? options.load_average() : std::nullopt;
  if (!load) return;
  std::optional<std::string> warning = env::busy_warning(when, *load, env.cpu_count);
  if (!warning) return;
  if (options.warnings != nullptr) *options.warnings << "warning: " << *warning << '\n';
  env.warnings.push_back(std::move(*warning));
}

}  // namespace

Expected<result::ResultFile> run_plan(const suite::Suite& suite, const plan::Plan& plan,
                                      const RunnerOptions& options) {
  Expected<std::filesystem::path> made_root = make_work_root(suite);
  if (!made_root) return Error{made_root.error()};
  const std::filesystem::path work_root = *made_root;
  std::error_code ec;

  std::vector<CellRuns> all_runs(plan.cells.size());
  result::ResultFile result;
  result.environment = env::capture_environment(work_root);
  check_load(options, "at the start of the run", result.environment);
  ProgressLine progress(options.progress);
  const std::size_t total =
      plan.cells.size() * (static_cast<std::size_t>(plan.repeat) + plan.warmup);
  std::size_t started = 0;

  const int first = -static_cast<int>(plan.warmup);
  for (const auto& [c, repeat] : schedule(plan)) {
    const plan::Cell& cell = plan.cells[c];
    {
      if (options.cancel != nullptr && options.cancel->load()) {
        result.interrupted = true;
        break;
      }
      ++started;
      const std::string where = fmt::format(
          "[{}/{}] {} n={}{} {} {}", started, total, cell.engine, cell.dataset,
          cell.load ? fmt::format(" {}", fmt::join(cell.load->qualifiers(), " ")) : "",
          repeat < 0 ? "warm-up" : "repeat", repeat < 0 ? repeat - first + 1 : repeat + 1);
      progress.show(where);
      // A fresh directory per run, never reused (see the header on deletions).
      const std::filesystem::path work_dir =
          work_root / (repeat < 0
                           ? fmt::format("c{:03}-{}-warmup{}", c, cell.engine, repeat - first)
                           : fmt::format("c{:03}-{}-r{}", c, cell.engine, repeat));
      if (!std::filesystem::create_directories(work_dir, ec)) {
        result.failures.push_back({cell.engine, cell.dataset, cell.params, repeat, "", "exit",
                                   fmt::format("{}: cannot create the work directory: {}",
                                               work_dir.string(), ec.message()),
                                   std::nullopt, std::nullopt, ""});
        continue;
      }

      CellRun run;
      run.repeat = repeat;
      const std::string load_label =
          cell.load ? fmt::format(" {}", fmt::join(cell.load->qualifiers(), " ")) : "";
      EventCollector collector(
          run,
          [&](const std::string& message) { progress.show(fmt::format("{}: {}", where, message)); },
          [&](const std::string& line) {
            progress.print(
                fmt::format("{}{}: {}: {}", cell.engine, load_label, run.current_operation, line));
            progress.show(where);
          });
      worker::ProcessOptions process;
      process.argv = {options.host_executable.string(),
                      "__worker",
                      "--plugin=" + cell.plugin.string(),
                      "--name=" + cell.engine,
                      fmt::format("--dataset={}", cell.dataset),
                      "--work-dir=" + work_dir.string(),
                      fmt::format("--ops={}", fmt::join(cell.operation_names(), ",")),
                      "--params=" + params_argument(cell)};
      if (cell.load) process.argv.push_back("--load=" + load::to_json(*cell.load).dump());
      process.timeout_seconds = suite.timeout_seconds;
      process.memory_limit_bytes = suite.memory_limit_bytes;
      process.cancel = options.cancel;
      process.on_event_line = [&](std::string_view line) { collector.on_line(line); };
      const worker::ProcessOutcome outcome = worker::run_process(process);

      std::optional<result::Failure> failure = failure_of(cell, repeat, outcome, run, options);
      result.runs.push_back({cell.engine, cell.dataset, cell.params, repeat, !failure.has_value(),
                             outcome.wall_seconds, outcome.peak_rss_bytes, run.startup_seconds});
      if (failure) {
        if (failure->kind == "interrupted") result.interrupted = true;
        result.failures.push_back(std::move(*failure));
      }
      if (repeat >= 0) all_runs[c].push_back(std::move(run));
    }
    if (result.interrupted) break;
  }
  progress.clear();
  check_load(options, "at the end of the run", result.environment);

  std::filesystem::remove_all(work_root, ec);
  result.experiment = describe_experiment(suite, plan, work_root);
  result.experiment.hostname = env::host_name();
  if (!suite.file.empty()) {
    result.experiment.git_commit =
        env::git_commit_of(suite.file.has_parent_path() ? suite.file.parent_path() : ".");
  }
  result.experiment.work_dir_cleanup =
      ec ? fmt::format("removal after the suite failed: {}", ec.message())
         : "each run had a fresh directory; all were removed after the last run";
  result.metrics = aggregate_metrics(plan, all_runs);
  return result;
}

}  // namespace storh::run
