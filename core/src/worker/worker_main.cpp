#include "worker/worker_main.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "count/callgrind.h"
#include "count/fixed_run.h"
#include "count/probe.h"
#include "plugin/describe.h"
#include "plugin/loader.h"
#include "process/child_process.h"
#include "stats/stats.h"
#include "storh/version.h"
#include "worker/event.h"
#include "worker/load_worker.h"
#include "worker/request.h"
#include "worker/ycsb_worker.h"

namespace storh::worker {
namespace {

using Clock = std::chrono::steady_clock;

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

// The host's side of the plugin contract inside the worker.
class WorkerContext final : public RunContext {
 public:
  WorkerContext(std::uint64_t dataset, std::map<std::string, ParamValue, std::less<>> params,
                std::filesystem::path work_dir, std::set<std::string, std::less<>> selected)
      : dataset_(dataset),
        params_(std::move(params)),
        work_dir_(std::move(work_dir)),
        selected_(std::move(selected)) {}

  std::uint64_t dataset_size() const noexcept override { return dataset_; }

  const ParamValue* param(std::string_view name) const noexcept override {
    auto it = params_.find(name);
    return it == params_.end() ? nullptr : &it->second;
  }

  const std::filesystem::path& work_dir() const noexcept override { return work_dir_; }

  bool selected(std::string_view operation) const noexcept override {
    return selected_.find(operation) != selected_.end();
  }

  Status do_measure(std::string_view operation, std::uint64_t items,
                    FunctionRef<Status()> step) noexcept override {
    begin(operation);
    count::Probe probe(counting_);
    const Clock::time_point start = Clock::now();
    Status status = step();
    const Clock::time_point end = pad(start, Clock::now());
    report_counts(operation, items, probe.stop(operation, status.ok() && selected(operation)));
    return finish(operation, items, std::chrono::duration<double>(end - start).count(),
                  std::move(status), nullptr);
  }

  Status do_measure_each(std::string_view operation, std::uint64_t items,
                         FunctionRef<Status(std::uint64_t)> item) noexcept override {
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

  // min_time: the step repeats in batches that grow as in Google Benchmark (about
  // 1.4 x min_time / elapsed times as many calls, at most 10x per round) until one
  // batch lasts min_time; that batch is the sample, as seconds per call. Earlier,
  // shorter batches warm caches and branch predictors and are discarded. A counting
  // run calls the step once: its counters are per item of one call.
  Status do_measure_repeated(std::string_view operation, std::uint64_t items,
                             FunctionRef<Status()> step) noexcept override {
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
    return finish(operation, items, seconds / static_cast<double>(calls), std::move(status),
                  nullptr, calls);
  }

  // Attributed to the operation's last recorded sample; dropped without one.
  void engine_counter(std::string_view operation, std::string_view name, std::string_view unit,
                      double total, bool repeats) noexcept override {
    const auto sampled = sampled_items_.find(operation);
    if (sampled == sampled_items_.end()) return;
    try {
      emit(EngineCounterEvent{std::string(operation), sampled->second, std::string(name),
                              std::string(unit), total, repeats});
    } catch (...) {
      // Out of memory while building one line: the host sees no such counter.
    }
  }

  void progress(std::string_view message) noexcept override {
    try {
      emit(ProgressEvent{std::string(message)});
    } catch (...) {
    }
  }

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
  void begin(std::string_view operation) noexcept {
    try {
      current_ = operation;
      emit(BeginEvent{current_});
    } catch (...) {
    }
  }

  // The counting pass's counters of one step (count/probe.h), when it reported any.
  static void report_counts(std::string_view operation, std::uint64_t items,
                            std::optional<count::Counted> counted) noexcept {
    if (!counted) return;
    try {
      emit(CountersEvent{std::string(operation), items, std::move(counted->deltas), counted->dump,
                         counted->children});
    } catch (...) {
      // Out of memory while building one line: the host sees no counters for this step.
    }
  }

  Clock::time_point pad(Clock::time_point start, Clock::time_point end) const noexcept {
    if (injected_slowdown_ <= 0) return end;
    const Clock::time_point until =
        end + std::chrono::duration_cast<Clock::duration>((end - start) * injected_slowdown_);
    Clock::time_point now = Clock::now();
    while (now < until) now = Clock::now();
    return now;
  }

  static constexpr std::uint64_t kMaxCalls = 1'000'000'000;

  std::uint64_t next_call_count(std::uint64_t calls, double seconds) const noexcept {
    const double multiplier =
        seconds / min_time_ > 0.1 ? min_time_ * 1.4 / seconds : 10.0;  // seconds > 0 here
    const auto grown = static_cast<double>(calls) * std::min(multiplier, 10.0);
    return std::min(kMaxCalls, std::max(calls + 1, static_cast<std::uint64_t>(grown)));
  }

  Status finish(std::string_view operation, std::uint64_t items, double seconds, Status status,
                const stats::LatencyHistogram* histogram, std::uint64_t calls = 1) noexcept {
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

// Ends the worker without unloading the plugin: threads or static destructors a
// plugin left behind must not turn a finished run into a crash after "done".
[[noreturn]] void finish_worker(int code) {
  std::cout.flush();
  std::cerr.flush();
  ::_exit(code);
}

// `__preflight`'s "--key=value" arguments into a map; anything else is an error.
std::optional<std::map<std::string, std::string>> parse_flags(const std::vector<std::string>& args,
                                                              std::size_t first) {
  std::map<std::string, std::string> flags;
  for (std::size_t i = first; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const std::size_t equals = arg.find('=');
    if (!arg.starts_with("--") || equals == std::string::npos) return std::nullopt;
    flags[arg.substr(2, equals - 2)] = arg.substr(equals + 1);
  }
  return flags;
}

int fail_input(const std::string& message) {
  std::cerr << "storh-host worker: " << message << '\n';
  return kWorkerExitBadInput;
}

// Parameters for the run: the declared defaults, overridden by the host's choices.
ParamValues build_params(const EngineInfo& info, const ParamValues& chosen) {
  ParamValues params;
  for (const ParamSpec& spec : info.params) params[spec.name] = spec.default_value;
  for (const auto& [name, value] : chosen) params[name] = value;
  return params;
}

// Why this worker cannot count with `instrument`, or "" when it can.
std::string counting_problem(count::Instrument instrument) {
  if (instrument == count::Instrument::syscalls && !count::interposer_loaded()) {
    return "--count=syscalls: libstorh_count.so is not preloaded (LD_PRELOAD)";
  }
  if (instrument == count::Instrument::instructions && !count::callgrind_supported()) {
    return "--count=instructions: this host was built without valgrind/callgrind.h";
  }
  return "";
}

}  // namespace

int worker_main(const std::vector<std::string>& args) {
  Expected<WorkerRequest> request = WorkerRequest::from_argv(args);
  if (!request) return fail_input(request.error());
  // Before the plugin loads: its static state may read the clock.
  if (std::string error = count::apply_fixed_run(request->count.has_value()); !error.empty()) {
    return fail_input(error);
  }
  Expected<std::unique_ptr<plugin::LoadedPlugin>> loaded =
      plugin::load_plugin(request->plugin, request->name);
  if (!loaded) return fail_input(loaded.error());
  Engine& engine = (*loaded)->engine();
  const EngineInfo info = (*loaded)->describe();

  std::set<std::string, std::less<>> selected(request->operations.begin(),
                                              request->operations.end());
  if (selected.empty()) {
    for (const OperationSpec& op : info.operations) selected.insert(op.name);
  }
  WorkerContext context(request->dataset, build_params(info, request->params), request->work_dir,
                        selected);
  if (request->inject_slowdown) context.set_injected_slowdown(*request->inject_slowdown);
  if (request->min_time) context.set_min_time(*request->min_time);
  if (request->count) {
    if (std::string problem = counting_problem(*request->count); !problem.empty()) {
      return fail_input(problem);
    }
    context.count_with({request->count});
  }
  emit(LoadedEvent{});
  // A load cell: its configuration says how its clients run (load/config.h).
  if (request->load && request->load->ycsb) {
    finish_worker(run_ycsb_cell(**loaded, context, request->operations, *request->load,
                                [](const Event& event) { emit(event); }));
  }
  if (request->load) {
    finish_worker(run_load_cell(**loaded, context, request->operations, *request->load,
                                [](const Event& event) { emit(event); }));
  }
  const Status status = engine.run(context);
  if (!status.ok()) {
    emit(DoneEvent{false, context.current_operation(), status.message()});
    finish_worker(kWorkerExitStepFailed);
  }
  if (!context.first_failure().empty()) {
    emit(DoneEvent{false, context.first_failure_operation(), context.first_failure()});
    finish_worker(kWorkerExitStepFailed);
  }
  for (const std::string& op : selected) {
    if (context.measured().count(op) == 0) {
      const std::string message =
          fmt::format("operation \"{}\" was selected but the engine never measured it", op);
      emit(DoneEvent{false, op, message});
      finish_worker(kWorkerExitStepFailed);
    }
  }
  emit(DoneEvent{});
  finish_worker(kWorkerExitOk);
}

int describe_main(const std::vector<std::string>& args) {
  if (args.size() < 2) return fail_input("usage: storh-host __describe FILE [--name=NAME]");
  std::string expected_name;
  if (args.size() > 2 && args[2].starts_with("--name=")) expected_name = args[2].substr(7);
  Expected<std::unique_ptr<plugin::LoadedPlugin>> loaded =
      plugin::load_plugin(args[1], expected_name);
  if (!loaded) {
    std::cerr << loaded.error() << '\n';
    return kWorkerExitBadInput;
  }
  plugin::Description description{(*loaded)->manifest(), (*loaded)->describe(), args[1], {}};
  if (Transactions* transactions = (*loaded)->transactions()) {
    description.transactions = transactions->describe();
  }
  description.key_value = (*loaded)->key_value() != nullptr;
  if ((*loaded)->manifest().abi_minor >= storh::kParamRangesAbiMinor) {
    description.ranges = (*loaded)->engine().param_ranges();
  }
  std::cout << plugin::description_json(description)
                   .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
            << '\n';
  return kWorkerExitOk;
}

int preflight_main(const std::vector<std::string>& args) {
  if (args.size() < 2) {
    return fail_input("usage: storh-host __preflight FILE --name=NAME --params=JSON");
  }
  const auto flags = parse_flags(args, 2);
  if (!flags) return fail_input("arguments after FILE must be --key=value");
  const auto get = [&](const char* key) {
    auto it = flags->find(key);
    return it == flags->end() ? std::string() : it->second;
  };
  Expected<std::unique_ptr<plugin::LoadedPlugin>> loaded =
      plugin::load_plugin(args[1], get("name"));
  if (!loaded) return fail_input(loaded.error());
  if ((*loaded)->manifest().abi_minor < storh::kPreflightAbiMinor) return kWorkerExitOk;
  const Engine& engine = (*loaded)->engine();
  Expected<ParamValues> chosen = params_from_json(get("params"));
  if (!chosen) return fail_input("--params: " + chosen.error());
  const ParamValues params = build_params((*loaded)->describe(), *chosen);
  const Status status = engine.preflight({params.begin(), params.end()});
  if (!status.ok()) {
    std::cerr << status.message() << '\n';
    return kWorkerExitBadInput;
  }
  // ABI 1.7: the parts of each transaction type under these parameters, and the
  // parameter that needs a duration, as JSON {"parts": {"type": ["part", ...]},
  // "needs_duration": {"param": ..., "reason": ...}} on stdout, so that the host names
  // the parts' metrics and refuses a cell without a duration up front.
  Transactions* transactions = (*loaded)->transactions();
  if ((*loaded)->manifest().abi_minor >= storh::kTransactionReportAbiMinor &&
      transactions != nullptr) {
    const std::vector<std::pair<std::string, ParamValue>> values(params.begin(), params.end());
    nlohmann::json parts = nlohmann::json::object();
    const std::vector<TransactionSpec> specs = transactions->describe();
    for (std::size_t type = 0; type < specs.size(); ++type) {
      std::vector<std::string> names = transactions->parts(type, values);
      if (!names.empty()) parts[specs[type].name] = std::move(names);
    }
    nlohmann::json answer = {{"parts", std::move(parts)}};
    const Transactions::DurationNeed need = transactions->needs_duration(values);
    if (!need.param.empty()) {
      answer["needs_duration"] = {{"param", need.param}, {"reason", need.reason}};
    }
    std::cout << answer.dump() << '\n';
  }
  return kWorkerExitOk;
}

}  // namespace storh::worker
