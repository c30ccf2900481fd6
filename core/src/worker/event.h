// worker/event.h: what a worker process tells the host, as typed events.
//
// A worker (`storh-host __worker`, worker/worker_main.h) writes one JSON object per line
// on file descriptor 3 (process::kEventFd); the host (run/worker_run.h, run/counting_pass.h) reads
// them. Both sides go through encode() and decode() here, so the two cannot drift apart. The lines,
// in the order a worker writes them:
//
//   {"event":"loaded"}                                   plugin loaded, run() begins
//   {"event":"begin","op":"put"}                         a timed step starts
//   {"event":"sample","op":"put","seconds":0.41,"items":1000[,"calls":N][,"latency":{...}]}
//                                      "calls" only when > 1; "latency" a LatencyHistogram
//   {"event":"fail","op":"put","message":"..."}          the step returned an error
//   {"event":"progress","message":"..."}                 the plugin's progress()
//   {"event":"counters","op":"put","items":1000,"counters":{...}|"dump":N[,"children":true]}
//                                                        counting pass only (count/probe.h)
//   {"event":"load_progress","op":"put_get","line":"progress: 5.0 s, ..."}
//   {"event":"load","op":"put_get","outcome":{...}}      load cells only (docs/load.md):
//                                      a phase's load::LoadOutcome; a phase with failed
//                                      transactions sends it, then "fail"
//   {"event":"engine_counter","op":"put_get","items":N,"name":"pg.wal_bytes","unit":"bytes",
//    "total":1234,"repeats":false}                      an engine's own count over a step
//                                      or a load phase of N items (plugin ABI 1.7)
//   {"event":"done","ok":true}                           run() returned and passed
//   {"event":"done","ok":false,"op":"put","message":"..."}   or failed (op may be "")
//
// A worker that crashes simply stops writing; the host knows the operation from the
// last "begin".
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

#include "count/counters.h"
#include "util/expected.h"
#include "worker/engine_counter_event.h"

namespace storh::worker {

struct LoadedEvent {
  bool operator==(const LoadedEvent&) const = default;
};

struct BeginEvent {
  std::string op;
  bool operator==(const BeginEvent&) const = default;
};

struct SampleEvent {
  std::string op;
  double seconds = 0;                // per call
  std::uint64_t items = 0;           // per call
  std::uint64_t calls = 1;           // >= 1; decode() reads 0 as 1
  nlohmann::json latency = nullptr;  // a LatencyHistogram's JSON, or null when none
  bool operator==(const SampleEvent&) const = default;
};

struct FailEvent {
  std::string op;
  std::string message;
  bool operator==(const FailEvent&) const = default;
};

struct ProgressEvent {
  std::string message;
  bool operator==(const ProgressEvent&) const = default;
};

struct CountersEvent {
  std::string op;
  std::uint64_t items = 0;
  count::Deltas counters{};           // syscalls: name -> delta over the step, in Counter order
  std::optional<std::size_t> dump{};  // instructions: the callgrind dump, instead of counters
  // Child processes ended during the step: part of its work ran where neither
  // instrument counts. Written only when true.
  bool children = false;
  bool operator==(const CountersEvent&) const = default;
};

struct LoadProgressEvent {
  std::string op;
  std::string line;
  bool operator==(const LoadProgressEvent&) const = default;
};

struct LoadEvent {
  std::string op;
  nlohmann::json outcome;  // load::to_json(LoadOutcome)
  bool operator==(const LoadEvent&) const = default;
};

struct DoneEvent {
  bool ok = true;
  std::string op{};       // when !ok: the failed operation, or ""
  std::string message{};  // when !ok
  bool operator==(const DoneEvent&) const = default;
};

using Event =
    std::variant<LoadedEvent, BeginEvent, SampleEvent, FailEvent, ProgressEvent, CountersEvent,
                 LoadProgressEvent, LoadEvent, DoneEvent, EngineCounterEvent>;

// One line of JSON, without the newline. Invalid UTF-8 in a message is replaced, not
// an error: a plugin's message must not lose the event. Throws only std::bad_alloc.
std::string encode(const Event& event);

// Reads encode()'s form. Fails, saying what is wrong, on a line that is not a JSON
// object, an unknown "event", or a missing or mistyped field; fields it does not know
// are ignored.
Expected<Event> decode(std::string_view line);

}  // namespace storh::worker
