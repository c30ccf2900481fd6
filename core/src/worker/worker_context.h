// worker/worker_context.h: the host's side of the plugin contract inside a worker
// (storh::RunContext): it times each step and tells the host what happened as event
// lines on file descriptor 3 (worker/event.h).
//
// One WorkerContext per worker process, not thread-safe (as RunContext). Every
// override is noexcept: running out of memory while writing an event drops that event;
// a step whose sample cannot be recorded fails with a Status that says so.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "count/probe.h"
#include "stats/stats.h"
#include "storh/engine.h"
#include "worker/event.h"
#include "worker/request.h"

namespace storh::worker {

// Writes one event line to the host; a host that is gone drops it silently.
void emit(const Event& event);

// Parameters for a run: the declared defaults, overridden by the host's choices.
ParamValues build_params(const EngineInfo& info, const ParamValues& chosen);

class WorkerContext final : public RunContext {
 public:
  WorkerContext(std::uint64_t dataset, std::map<std::string, ParamValue, std::less<>> params,
                std::filesystem::path work_dir, std::set<std::string, std::less<>> selected);

  std::uint64_t dataset_size() const noexcept override { return dataset_; }
  const ParamValue* param(std::string_view name) const noexcept override;
  const std::filesystem::path& work_dir() const noexcept override { return work_dir_; }
  bool selected(std::string_view operation) const noexcept override;

  Status do_measure(std::string_view operation, std::uint64_t items,
                    FunctionRef<Status()> step) noexcept override;
  Status do_measure_each(std::string_view operation, std::uint64_t items,
                         FunctionRef<Status(std::uint64_t)> item) noexcept override;
  // min_time: the step repeats in growing batches until one lasts min_time; that batch
  // is the sample, as seconds per call. A counting run calls the step once.
  Status do_measure_repeated(std::string_view operation, std::uint64_t items,
                             FunctionRef<Status()> step) noexcept override;

  // Attributed to the operation's last recorded sample; dropped without one.
  void engine_counter(std::string_view operation, std::string_view name, std::string_view unit,
                      double total, bool repeats) noexcept override;
  void progress(std::string_view message) noexcept override;

  // The power harness's injected slowdown (`--inject-slowdown=F`): every timed step
  // lasts (1 + F) times as long, by spinning on the clock inside the timed region.
  void set_injected_slowdown(double fraction) { injected_slowdown_ = fraction; }
  // `__worker --min-time=S`: the suite's min_time for measure_repeated; 0 turns it off.
  void set_min_time(double seconds) { min_time_ = seconds; }
  // `__worker --count=...`: the counting pass's worker brackets each step with a Probe.
  void count_with(count::ProbeMode mode) { counting_ = mode; }

  const std::string& current_operation() const { return current_; }
  // The first step that failed, even if the engine ignored the Status it got back:
  // a wrong answer must fail the run.
  const std::string& first_failure() const { return first_failure_; }
  const std::string& first_failure_operation() const { return first_failure_operation_; }
  const std::set<std::string, std::less<>>& measured() const { return measured_; }

 private:
  using Clock = std::chrono::steady_clock;
  static constexpr std::uint64_t kMaxCalls = 1'000'000'000;

  void begin(std::string_view operation) noexcept;
  static void report_counts(std::string_view operation, std::uint64_t items,
                            std::optional<count::Counted> counted) noexcept;
  Clock::time_point pad(Clock::time_point start, Clock::time_point end) const noexcept;
  std::uint64_t next_call_count(std::uint64_t calls, double seconds) const noexcept;
  Status finish(std::string_view operation, std::uint64_t items, double seconds, Status status,
                const stats::LatencyHistogram* histogram, std::uint64_t calls = 1) noexcept;

  std::uint64_t dataset_;
  // Items of each selected operation's last sample (all calls of a batch): what an
  // engine counter of that step is divided by.
  std::map<std::string, std::uint64_t, std::less<>> sampled_items_;
  std::map<std::string, ParamValue, std::less<>> params_;
  std::filesystem::path work_dir_;
  std::set<std::string, std::less<>> selected_;
  std::string current_;
  std::string first_failure_;
  std::string first_failure_operation_;
  std::set<std::string, std::less<>> measured_;
  double injected_slowdown_ = 0;
  double min_time_ = 0;
  count::ProbeMode counting_;
};

}  // namespace storh::worker
