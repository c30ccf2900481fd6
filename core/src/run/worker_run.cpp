#include "run/worker_run.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>

#include <fmt/format.h>

#include "worker/request.h"

namespace storh::run {
namespace {

std::string describe_signal(int signal) {
  const char* name = ::strsignal(signal);
  return fmt::format("signal {} ({})", signal, name != nullptr ? name : "unknown");
}

// What one worker said, assembled from its event lines.
class EventCollector {
 public:
  // on_progress gets the plugin's progress messages and, as "<op>", each operation
  // the worker begins to time.
  // on_event (may be empty) sees each event first.
  EventCollector(CellRun& run, std::function<void(const std::string&)> on_progress,
                 std::function<void(const std::string&)> on_load_progress,
                 std::function<void(const worker::Event&)> on_event)
      : run_(run),
        on_progress_(std::move(on_progress)),
        on_load_progress_(std::move(on_load_progress)),
        on_event_(std::move(on_event)) {}

  // A line that does not decode is ignored, as one the worker never finished.
  void on_line(std::string_view line) {
    Expected<worker::Event> event = worker::decode(line);
    if (!event) return;
    if (on_event_) on_event_(*event);
    std::visit([this](auto& e) { on(e); }, *event);
  }

 private:
  void on(worker::LoadedEvent&) {
    run_.loaded = true;
    run_.startup_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  void on(worker::BeginEvent& e) {
    run_.current_operation = std::move(e.op);
    if (on_progress_) on_progress_(run_.current_operation);
  }
  void on(worker::SampleEvent& e) {
    run_.samples.push_back({std::move(e.op), e.seconds, e.items, std::move(e.latency), e.calls});
  }
  void on(worker::FailEvent& e) {
    run_.failed_operation = std::move(e.op);
    run_.failure_message = std::move(e.message);
  }
  void on(worker::DoneEvent& e) {
    run_.done = true;
    if (!e.ok && run_.failure_message.empty()) {
      run_.failed_operation = std::move(e.op);
      run_.failure_message = std::move(e.message);
    }
  }
  void on(worker::ProgressEvent& e) {
    run_.progress_message = std::move(e.message);
    if (on_progress_) {
      on_progress_(run_.current_operation.empty()
                       ? run_.progress_message
                       : run_.current_operation + ": " + run_.progress_message);
    }
  }
  void on(worker::LoadEvent& e) { run_.loads.push_back({std::move(e.op), std::move(e.outcome)}); }
  void on(worker::LoadProgressEvent& e) {
    if (on_load_progress_) on_load_progress_(e.line);
  }
  void on(worker::CountersEvent&) {}  // the counting pass's, through on_event
  void on(worker::EngineCounterEvent& e) { run_.engine_counters.push_back(std::move(e)); }

  CellRun& run_;
  std::function<void(const std::string&)> on_progress_;
  std::function<void(const std::string&)> on_load_progress_;
  std::function<void(const worker::Event&)> on_event_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace

WhyFailed why_failed(const process::ProcessOutcome& outcome, const CellRun& run, bool cancelled) {
  using Kind = result::Failure::Kind;
  if (!outcome.started) return {Kind::exit, outcome.error};
  if (outcome.cancelled || cancelled) return {Kind::interrupted, "stopped by the user (interrupt)"};
  // Memory before the timer: on a busy machine a growing worker can pass its timeout
  // first, or grow past the limit in the grace period after the timeout's SIGTERM.
  if (outcome.memory_exceeded) {
    return {Kind::memory, fmt::format("worker exceeded the memory limit (resident {} MiB){}",
                                      outcome.peak_rss_bytes >> 20,
                                      outcome.timed_out ? ", as its timeout expired too" : "")};
  }
  if (outcome.oom_killed) {
    return {Kind::memory,
            fmt::format("worker killed by the kernel's out-of-memory killer (SIGKILL, which the "
                        "host did not send; resident {} MiB)",
                        outcome.peak_rss_bytes >> 20)};
  }
  if (outcome.timed_out) {
    return {Kind::timeout, fmt::format("worker timed out after {:.6g} s", outcome.wall_seconds)};
  }
  if (outcome.signal) {
    return {Kind::crashed, fmt::format("worker killed by {}", describe_signal(*outcome.signal))};
  }
  if (!run.loaded) {
    std::string tail = process::tail_lines(outcome.stderr_tail, 3);
    return {Kind::load, tail.empty() ? "the worker exited before loading the plugin" : tail};
  }
  if (!run.failure_message.empty()) return {Kind::failed, run.failure_message};
  return {Kind::exit, fmt::format("worker exited with code {} before finishing",
                                  outcome.exit_code.value_or(-1))};
}

namespace {

// Turns a worker's exit into a Failure, or nullopt when it ran cleanly.
std::optional<result::Failure> failure_of(const plan::Cell& cell, int repeat,
                                          const process::ProcessOutcome& outcome,
                                          const CellRun& run, const RunnerOptions& options) {
  if (outcome.succeeded() && run.done && run.failure_message.empty()) return std::nullopt;
  WhyFailed why = why_failed(outcome, run, options.cancel != nullptr && options.cancel->load());
  result::FailedRun failed = cell.failed_run(repeat);
  failed.operation = !run.failed_operation.empty() ? run.failed_operation : run.current_operation;
  result::Failure f = result::make_failure(std::move(failed), why.kind, std::move(why.message));
  f.signal = outcome.signal;
  f.exit_code = outcome.exit_code;
  f.stderr_tail = outcome.stderr_tail;
  return f;
}

worker::ParamValues chosen_values(const plan::Cell& cell) {
  return {cell.chosen.begin(), cell.chosen.end()};
}

// What the worker is asked for one run of the cell.
worker::WorkerRequest request_for(const plan::Plan& plan, const WorkerRunSpec& spec) {
  const plan::Cell& cell = *spec.cell;
  worker::WorkerRequest request;
  request.plugin = cell.plugin;
  request.name = cell.engine;
  request.dataset = cell.dataset;
  request.work_dir = spec.work_dir;
  request.operations = cell.operation_names();
  request.params = chosen_values(cell);
  request.load = cell.load;
  if (!cell.load) request.min_time = plan.min_time_seconds;
  request.inject_slowdown = spec.inject_slowdown;
  request.count = spec.count;
  return request;
}

}  // namespace

std::string params_argument(const plan::Cell& cell) {
  return worker::params_to_json(chosen_values(cell));
}

WorkerRunOutcome run_worker(const plan::Plan& plan, const WorkerRunSpec& spec,
                            const RunnerOptions& options, ProgressLine* progress,
                            const std::string& where) {
  const plan::Cell& cell = *spec.cell;
  WorkerRunOutcome result;
  CellRun& run = result.run;
  run.repeat = spec.repeat;
  const std::string load_label =
      cell.load ? fmt::format(" {}", fmt::join(cell.load->qualifiers(), " ")) : "";
  EventCollector collector(
      run,
      [&](const std::string& message) {
        if (progress != nullptr) progress->show(fmt::format("{}: {}", where, message));
      },
      [&](const std::string& line) {
        if (progress == nullptr) return;
        progress->print(
            fmt::format("{}{}: {}: {}", cell.engine, load_label, run.current_operation, line));
        progress->show(where);
      },
      spec.on_event);
  process::ProcessOptions process;
  process.argv = request_for(plan, spec).to_argv(options.host_executable);
  process.timeout_seconds = plan.timeout_seconds;
  process.memory_limit_bytes = plan.memory_limit_bytes;
  process.cancel = options.cancel;
  if (spec.adjust_process) spec.adjust_process(process);
  if (options.spawn && !spec.adjust_process && !spec.count && process.environment.empty()) {
    process.spawn = [&](const process::ChildFds& fds) {
      return options.spawn(cell.engine, cell.plugin, process.argv, fds);
    };
  }
  process.on_event_line = [&](std::string_view line) { collector.on_line(line); };
  result.process = process::run_process(process);
  const process::ProcessOutcome& outcome = result.process;

  result.failure = failure_of(cell, spec.repeat, outcome, run, options);
  result.record = {cell.engine,
                   cell.dataset,
                   cell.params,
                   spec.repeat,
                   !result.failure,
                   outcome.wall_seconds,
                   outcome.peak_rss_bytes,
                   run.startup_seconds};
  return result;
}

}  // namespace storh::run
