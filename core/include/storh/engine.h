// storh/engine.h: what a storage engine plugin implements (Engine) and what the host
// gives it while it runs (RunContext).
//
// Threading: the host calls an Engine from one thread. RunContext is not thread-safe
// unless a function says otherwise.
//
// Lifetime: the host keeps the plugin library loaded for as long as any Engine made by
// it lives, and copies every string it keeps; a plugin may return views into its own
// static data.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "storh/function_ref.h"
#include "storh/status.h"

namespace storh {

// ---------------------------------------------------------------------------------
// Self-description
// ---------------------------------------------------------------------------------

enum class ParamType { integer, number, string, boolean };

// A parameter value as a suite gives it. An integer parameter holds std::int64_t,
// a number double, a string std::string and a boolean bool.
using ParamValue = std::variant<std::int64_t, double, std::string, bool>;

struct ParamSpec {
  std::string name;  // snake_case, unique within the engine
  ParamType type = ParamType::string;
  ParamValue default_value;  // must have `type`
  // When non-empty, the only values a suite may choose; the host rejects any other
  // value with the list of these. Empty means any value of `type`.
  std::vector<ParamValue> allowed;
  std::string description;  // one line
};

// The inclusive bounds of an integer or number parameter (Engine::param_ranges). An
// infinite bound is no bound.
struct ParamRange {
  std::string name;  // a ParamSpec name of type integer or number
  double minimum = -std::numeric_limits<double>::infinity();
  double maximum = std::numeric_limits<double>::infinity();
};

// Which way is better for the operation's time. Every operation is a timed step, so
// lower is better: the only value. SDK 1.4 and older also had higher_is_better (1),
// which no call here could produce a value for; the host refuses an operation that
// still declares it, naming the plugin and the operation. The type stays so that
// OperationSpec keeps its layout.
enum class Direction { lower_is_better };

struct OperationSpec {
  std::string name;  // the metric is "<engine>.<name>"
  std::string unit;  // what one item is, plural: "records", "ids", "rows"
  Direction direction = Direction::lower_is_better;
  std::string description;  // one line: what the timed step does
};

struct EngineInfo {
  // Leave both empty: the host takes them from the manifest (STORH_PLUGIN), the one
  // place they are stated. A plugin that sets them must set STORH_PLUGIN's values:
  // the host refuses a description whose name or version differs, naming both.
  std::string name;
  std::string version;
  std::string description;  // one line
  std::vector<ParamSpec> params;
  // In the order the scenario runs them. A suite may select a subset.
  std::vector<OperationSpec> operations;
};

// ---------------------------------------------------------------------------------
// The run context
// ---------------------------------------------------------------------------------

// Runs `fn` and turns any exception into an error Status naming `what`. `fn` returns
// Status or void.
template <typename F>
Status guarded(std::string_view what, F&& fn) noexcept {
  try {
    if constexpr (std::is_void_v<std::invoke_result_t<F&>>) {
      fn();
      return {};
    } else {
      return fn();
    }
  } catch (const std::exception& e) {
    return Status::error(std::string(what) + ": " + e.what());
  } catch (...) {
    return Status::error(std::string(what) + ": unknown exception");
  }
}

// Implemented by the host. Every function is noexcept: a host failure is reported
// through the returned Status, never thrown into plugin code.
//
// ABI: the virtual functions keep their order and signatures for ever (old plugins
// call them by vtable slot). The timing calls a plugin makes are the public templates
// measure, measure_each and measure_repeated; each calls the private virtual in the
// slot the virtual of the same name had up to SDK 1.4, so a plugin built against those
// headers runs unchanged.
class RunContext {
 public:
  virtual ~RunContext() = default;

  // Number of records the scenario works on (the suite's dataset size), >= 1.
  virtual std::uint64_t dataset_size() const noexcept = 0;

  // The value of a declared parameter for this cell: the suite's choice, or the
  // declared default. nullptr only for a name the engine did not declare.
  virtual const ParamValue* param(std::string_view name) const noexcept = 0;

  // A private directory for this run, created empty by the host before run() and
  // removed by the host afterwards. Engines keep every file they write inside it.
  virtual const std::filesystem::path& work_dir() const noexcept = 0;

  // Whether the suite asked for this operation. A scenario still runs unselected
  // operations that later ones depend on (put before get), but need not time them;
  // measurements of unselected operations are dropped by the host.
  virtual bool selected(std::string_view operation) const noexcept = 0;

  // The one way to time a step. Each of the three takes any callable that returns
  // Status or void; an exception it throws fails the operation with its message
  // (as guarded does). Time an operation once per run: storh/plugin.h says why.

  // Times one step: reads the host clock, calls `step()`, reads the clock again and
  // records (seconds, items) for `operation`. `items` is how many units the step
  // processes (rate = items / seconds). If `step` fails, nothing is recorded, the
  // operation fails with that message and the returned Status carries it; the
  // scenario should return it.
  template <typename F>
  Status measure(std::string_view operation, std::uint64_t items, F&& step) noexcept {
    return do_measure(operation, items, [&]() noexcept { return guarded(operation, step); });
  }

  // Like measure(), calling `item(index)` for each index in [0, items), and the host
  // also times each call separately and records their latency distribution. Use it
  // where one item costs well over a microsecond (a clock read costs ~20 ns).
  template <typename F>
  Status measure_each(std::string_view operation, std::uint64_t items, F&& item) noexcept {
    return do_measure_each(operation, items, [&](std::uint64_t index) noexcept {
      return guarded(operation, [&] { return item(index); });
    });
  }

  // Like measure(), for a step too fast to time in one call (Google Benchmark's
  // min_time, ABI 1.2): the host calls `step` repeatedly, in batches that grow until
  // one batch lasts at least the run's min_time (the suite's `min_time`, default
  // 20 ms; `--min-time`), and records that batch as seconds per call with `items`
  // items per call. Earlier, shorter batches only warm up and are dropped.
  //
  // Contract: `step` must do the same work every call and leave nothing behind that
  // changes what the next call measures (no growing state, no files): a lookup, a
  // scan, a count, a parse. Check the answer inside `step` or after the call: the
  // first error stops the batch, fails the operation and is returned. With min_time
  // 0, and in counting runs (docs/counters.md: counters are per call), the step runs
  // exactly once, as with measure(). Use storh::do_not_optimize on a result that is
  // otherwise unused, so the compiler cannot drop the work.
  template <typename F>
  Status measure_repeated(std::string_view operation, std::uint64_t items, F&& step) noexcept {
    return do_measure_repeated(operation, items,
                               [&]() noexcept { return guarded(operation, step); });
  }

  // Convenience accessors: the declared default if the name is unknown to the suite,
  // `fallback` if the parameter is undeclared or of another type.
  std::int64_t int_param(std::string_view name, std::int64_t fallback = 0) const noexcept {
    return get_or<std::int64_t>(name, fallback);
  }
  double number_param(std::string_view name, double fallback = 0) const noexcept {
    return get_or<double>(name, fallback);
  }
  bool bool_param(std::string_view name, bool fallback = false) const noexcept {
    return get_or<bool>(name, fallback);
  }
  std::string string_param(std::string_view name, std::string fallback = {}) const {
    const ParamValue* value = param(name);
    if (value != nullptr && std::holds_alternative<std::string>(*value)) {
      return std::get<std::string>(*value);
    }
    return fallback;
  }

 private:
  // The host's side of measure(): the vtable slot of SDK 1.4's virtual measure. `step`
  // does not throw.
  virtual Status do_measure(std::string_view operation, std::uint64_t items,
                            FunctionRef<Status()> step) noexcept = 0;

  // The host's side of measure_each(): the slot of SDK 1.4's virtual measure_each.
  virtual Status do_measure_each(std::string_view operation, std::uint64_t items,
                                 FunctionRef<Status(std::uint64_t)> item) noexcept = 0;

 public:
  // A short human message for the progress line ("loading 100000 rows"). Cheap; the
  // host shows it only on a terminal.
  virtual void progress(std::string_view message) noexcept = 0;

 private:
  // The host's side of measure_repeated() (ABI 1.2): the slot of SDK 1.4's virtual
  // measure_repeated.
  virtual Status do_measure_repeated(std::string_view operation, std::uint64_t items,
                                     FunctionRef<Status()> step) noexcept = 0;

 public:
  // ABI 1.7: the engine's own count of the work of `operation`'s step, e.g. the
  // server's WAL bytes over it ("pg.wal_bytes", unit "bytes"). Call it after
  // measure(...) returned for `operation`, with the total over that step; the host
  // records total / items of the step per item, beside its own counters
  // (docs/counters.md). `name` is "<engine>.<counter>" in snake_case; `unit` a plural
  // noun; `repeats` says the count is exact for the same workload and seed, so a gate
  // may compare it with 0 tolerance. Read the count outside the timed step. A call for
  // an operation not measured (or not selected) in this run is dropped; a second call
  // for the same step and name replaces the first. Thread-safe only from the thread
  // that runs the scenario. Older hosts never see it: they refuse a 1.7 plugin.
  virtual void engine_counter(std::string_view operation, std::string_view name,
                              std::string_view unit, double total, bool repeats) noexcept {
    static_cast<void>(operation);
    static_cast<void>(name);
    static_cast<void>(unit);
    static_cast<void>(total);
    static_cast<void>(repeats);
  }

 private:
  template <typename T>
  T get_or(std::string_view name, T fallback) const noexcept {
    const ParamValue* value = param(name);
    if (value != nullptr && std::holds_alternative<T>(*value)) return std::get<T>(*value);
    return fallback;
  }
};

// Aliases of RunContext::measure, measure_each and measure_repeated, so that plugins
// written against SDK 1.4 and older compile unchanged; new code calls ctx.measure(...).
template <typename F>
Status measure(RunContext& ctx, std::string_view operation, std::uint64_t items, F&& fn) noexcept {
  return ctx.measure(operation, items, std::forward<F>(fn));
}

template <typename F>
Status measure_each(RunContext& ctx, std::string_view operation, std::uint64_t items,
                    F&& fn) noexcept {
  return ctx.measure_each(operation, items, std::forward<F>(fn));
}

template <typename F>
Status measure_repeated(RunContext& ctx, std::string_view operation, std::uint64_t items,
                        F&& fn) noexcept {
  return ctx.measure_repeated(operation, items, std::forward<F>(fn));
}

// Keeps the compiler from removing the computation of `value` in a timed step, as
// Google Benchmark's DoNotOptimize: the value is treated as read (and, for the
// non-const overload, possibly written) by code the optimiser cannot see. It costs
// no instruction beyond keeping the value in a register or memory. Prefer it to
// `volatile`, which forces a store on every access and is deprecated for compound
// assignment in C++20.
template <typename T>
inline void do_not_optimize(const T& value) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  asm volatile("" : : "r,m"(value) : "memory");
#else
  std::atomic_signal_fence(std::memory_order_seq_cst);
  (void)value;
#endif
}

template <typename T>
inline void do_not_optimize(T& value) noexcept {
#if defined(__clang__)
  asm volatile("" : "+r,m"(value) : : "memory");
#elif defined(__GNUC__)
  asm volatile("" : "+m,r"(value) : : "memory");
#else
  std::atomic_signal_fence(std::memory_order_seq_cst);
  (void)value;
#endif
}

// Forces every pending write to memory to happen before this point and every later
// read to come from memory (a compiler barrier, not a CPU fence), as Google
// Benchmark's ClobberMemory: use it after writing into a buffer nothing else reads.
inline void clobber_memory() noexcept {
#if defined(__GNUC__) || defined(__clang__)
  asm volatile("" : : : "memory");
#else
  std::atomic_signal_fence(std::memory_order_seq_cst);
#endif
}

// What a plugin implements.
class Engine {
 public:
  virtual ~Engine() = default;

  // Describes the engine. Must be cheap and must not touch the filesystem: the host
  // calls it to list plugins and validate suites.
  virtual EngineInfo describe() const noexcept = 0;

  // Runs the scenario once: every operation in describe() order, each timed step
  // through ctx.measure, measure_each or measure_repeated. Returns the first failure
  // (a wrong answer is a failure, not a fast number); the host records it against the
  // operation that was running. A Status is [[nodiscard]]: handle every one a step
  // returns.
  virtual Status run(RunContext& ctx) noexcept = 0;

  // ABI 1.3. The bounds of integer and number parameters, so that `validate` refuses
  // an out-of-range value in a suite (with its file:line:col and the range) instead
  // of its cell failing at run time. The host calls it only on plugins whose manifest
  // says ABI minor >= 3 (kParamRangesAbiMinor), as cheaply as describe(). The plugin
  // must still check its parameters in run(): the bounds are advice to the host.
  virtual std::vector<ParamRange> param_ranges() const noexcept { return {}; }

  // ABI 1.4. Checks, before any cell runs, that this machine can run a cell whose
  // parameters are `values` (every declared parameter: the suite's choice or the
  // default, sorted by name): that an installation or program the parameters name is
  // there, for example. It may read the filesystem and run a quick command; it must
  // change nothing and should take well under a second. An error is bad input:
  // `validate` and `run` print its message and exit 2 before any cell runs. The host
  // calls it once per distinct parameter combination of the plan, in turn, in the child
  // process that described the plugin (one load for all of them), only on plugins
  // whose manifest says ABI minor >= 4 (kPreflightAbiMinor). run() must
  // still fail cleanly if the machine changed in between. When it accepts them, each
  // line it wrote to stderr that starts with "note: " is shown to the user once (a
  // database a crashed run left on the user's server, say); other output is shown only
  // if the child fails. That child then forks each repeat's worker, without exec: like
  // describe(), preflight() must leave nothing behind that a run could see (close what
  // it opened), and should start no thread, since a child running threads is not forked
  // from and each worker then starts and loads the plugin anew.
  virtual Status preflight(
      const std::vector<std::pair<std::string, ParamValue>>& values) const noexcept {
    static_cast<void>(values);
    return {};
  }
};

}  // namespace storh
