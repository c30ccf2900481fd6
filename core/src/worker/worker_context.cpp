#include "worker/worker_context.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <fmt/format.h>

#include "process/child_process.h"

namespace storh::worker {

void emit(const Event& event) {
  std::string line = encode(event);
  line.push_back('\n');
  std::string_view rest = line;
  while (!rest.empty()) {
    // A raw system call: the counting interposer must not see the host's own events.
    const auto written =
        static_cast<ssize_t>(::syscall(SYS_write, process::kEventFd, rest.data(), rest.size()));
    if (written < 0) {
      if (errno == EINTR) continue;
      return;  // the host is gone; nothing useful left to do with events
    }
    rest.remove_prefix(static_cast<std::size_t>(written));
  }
}

ParamValues build_params(const EngineInfo& info, const ParamValues& chosen) {
  ParamValues params;
  for (const ParamSpec& spec : info.params) params[spec.name] = spec.default_value;
  for (const auto& [name, value] : chosen) params[name] = value;
  return params;
}

WorkerContext::WorkerContext(std::uint64_t dataset,
                             std::map<std::string, ParamValue, std::less<>> params,
                             std::filesystem::path work_dir,
                             std::set<std::string, std::less<>> selected)
    : dataset_(dataset),
      params_(std::move(params)),
      work_dir_(std::move(work_dir)),
      selected_(std::move(selected)) {}

const ParamValue* WorkerContext::param(std::string_view name) const noexcept {
  auto it = params_.find(name);
  return it == params_.end() ? nullptr : &it->second;
}

bool WorkerContext::selected(std::string_view operation) const noexcept {
  return selected_.find(operation) != selected_.end();
}

Status WorkerContext::do_measure(std::string_view operation, std::uint64_t items,
                                 FunctionRef<Status()> step) noexcept {
  begin(operation);
  count::Probe probe(counting_);
  const Clock::time_point start = Clock::now();
  Status status = step();
  const Clock::time_point end = pad(start, Clock::now());
  report_counts(operation, items, probe.stop(operation, status.ok() && selected(operation)));
  return finish(operation, items, std::chrono::duration<double>(end - start).count(),
                std::move(status), nullptr);
}

Status WorkerContext::do_measure_each(std::string_view operation, std::uint64_t items,
                                      FunctionRef<Status(std::uint64_t)> item) noexcept {
  begin(operation);
  count::Probe probe(counting_);
  stats::LatencyHistogram histogram;
  Status status;
  const Clock::time_point start = Clock::now();
  Clock::time_point item_start = start;
  for (std::uint64_t index = 0; index < items && status.ok(); ++index) {
    status = item(index);
    const Clock::time_point item_end = Clock::now();
    histogram.record(std::chrono::duration<double>(item_end - item_start).count());
    item_start = item_end;
  }
  item_start = pad(start, item_start);
  report_counts(operation, items, probe.stop(operation, status.ok() && selected(operation)));
  return finish(operation, items, std::chrono::duration<double>(item_start - start).count(),
                std::move(status), &histogram);
}

// The batches grow as in Google Benchmark (about 1.4 x min_time / elapsed times as many
// calls, at most 10x per round). Earlier, shorter batches warm caches and branch
// predictors and are discarded. A counting run's counters are per item of one call.
Status WorkerContext::do_measure_repeated(std::string_view operation, std::uint64_t items,
                                          FunctionRef<Status()> step) noexcept {
  if (counting_.instrument || min_time_ <= 0) return do_measure(operation, items, step);
  begin(operation);
  Status status;
  std::uint64_t calls = 1;
  double seconds = 0;
  for (;;) {
    const Clock::time_point start = Clock::now();
    for (std::uint64_t call = 0; call < calls && status.ok(); ++call) status = step();
    const Clock::time_point end = pad(start, Clock::now());
    seconds = std::chrono::duration<double>(end - start).count();
    if (!status.ok() || seconds >= min_time_ || calls >= kMaxCalls) break;
    calls = next_call_count(calls, seconds);
  }
  return finish(operation, items, seconds / static_cast<double>(calls), std::move(status), nullptr,
                calls);
}

void WorkerContext::engine_counter(std::string_view operation, std::string_view name,
                                   std::string_view unit, double total, bool repeats) noexcept {
  const auto sampled = sampled_items_.find(operation);
  if (sampled == sampled_items_.end()) return;
  try {
    emit(EngineCounterEvent{std::string(operation), sampled->second, std::string(name),
                            std::string(unit), total, repeats});
  } catch (...) {
    // Out of memory while building one line: the host sees no such counter.
  }
}

void WorkerContext::progress(std::string_view message) noexcept {
  try {
    emit(ProgressEvent{std::string(message)});
  } catch (...) {
  }
}

void WorkerContext::begin(std::string_view operation) noexcept {
  try {
    current_ = operation;
    emit(BeginEvent{current_});
  } catch (...) {
  }
}

// The counting pass's counters of one step (count/probe.h), when it reported any.
void WorkerContext::report_counts(std::string_view operation, std::uint64_t items,
                                  std::optional<count::Counted> counted) noexcept {
  if (!counted) return;
  try {
    emit(CountersEvent{std::string(operation), items, std::move(counted->deltas), counted->dump,
                       counted->children});
  } catch (...) {
    // Out of memory while building one line: the host sees no counters for this step.
  }
}

WorkerContext::Clock::time_point WorkerContext::pad(Clock::time_point start,
                                                    Clock::time_point end) const noexcept {
  if (injected_slowdown_ <= 0) return end;
  const Clock::time_point until =
      end + std::chrono::duration_cast<Clock::duration>((end - start) * injected_slowdown_);
  Clock::time_point now = Clock::now();
  while (now < until) now = Clock::now();
  return now;
}

std::uint64_t WorkerContext::next_call_count(std::uint64_t calls, double seconds) const noexcept {
  const double multiplier =
      seconds / min_time_ > 0.1 ? min_time_ * 1.4 / seconds : 10.0;  // seconds > 0 here
  const auto grown = static_cast<double>(calls) * std::min(multiplier, 10.0);
  return std::min(kMaxCalls, std::max(calls + 1, static_cast<std::uint64_t>(grown)));
}

Status WorkerContext::finish(std::string_view operation, std::uint64_t items, double seconds,
                             Status status, const stats::LatencyHistogram* histogram,
                             std::uint64_t calls) noexcept {
  try {
    if (!status.ok()) {
      if (first_failure_.empty()) {
        first_failure_operation_ = operation;
        first_failure_ = status.message();
      }
      emit(FailEvent{std::string(operation), status.message()});
      return status;
    }
    measured_.emplace(operation);
    if (selected(operation)) {
      SampleEvent event{std::string(operation), seconds, items, calls};
      if (histogram != nullptr && histogram->count() > 0) event.latency = histogram->to_json();
      emit(event);
      sampled_items_[std::string(operation)] = items * calls;
    }
    return status;
  } catch (const std::exception& e) {
    return Status::error(
        fmt::format("{}: host could not record the sample: {}", operation, e.what()));
  }
}

}  // namespace storh::worker
