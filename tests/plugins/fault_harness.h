// The write-boundary fault harness: runs an operation
// sequence against an engine with a fault injected at every write boundary it crosses
// (common/fault_injection.h), in three modes, reopens the store and checks storh's
// invariants:
//
//   * every operation that returned is there, with its data;
//   * an operation that threw, or was running when the process died, is wholly present
//     or wholly absent (per record for operations marked `per_record`, such as batches
//     that promise nothing about their rows when they throw);
//   * operations that never ran left nothing;
//   * the engine's verify() is ok.
//
// Modes: fail the k-th boundary with EIO, with ENOSPC (after writing half the bytes, for
// writes), and kill the process at it (a forked child runs the sequence and _exits at
// boundary k; the parent reopens). A run first counts the boundaries of a clean pass
// (N), then injects at k = 1..N in each mode: 3N crash points.
//
// An engine test supplies a Subject: how to open the store, the operations (each with
// the state of the keys it changes before and after), how to read one key from a
// reopened store and how to verify it.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/fault_injection.h"
#include "common/record.h"
#include "scratch_dir.h"

namespace fault_test {

using storh::engines::Json;
namespace fault = storh::engines::fault;

// What one key holds; nullopt = absent.
using Value = std::optional<Json>;

struct Effect {
  std::string key;
  Value before;
  Value after;
};

template <typename Store>
struct Op {
  std::string name;
  std::vector<Effect> effects;
  std::function<void(Store&)> run;
  bool per_record = false;  // when it fails, each effect on its own may have happened
};

template <typename Store>
struct Subject {
  std::string engine;
  std::function<std::unique_ptr<Store>()> open;
  std::function<std::vector<Op<Store>>()> ops;  // the same sequence on every call
  std::function<Value(Store&, const std::string& key)> read;
  std::function<std::vector<std::string>(Store&)> verify;  // errors; empty = ok
  // When set: a reopened store whose verify() fails is repaired and verified again;
  // only a failure after the repair counts (Tally::repaired counts the repairs). For
  // drift the engine documents as repairable (the document store's indexes, 4.8).
  std::function<void(Store&)> repair;
  // Continue with the next operations after one throws (the engine must recover in
  // process). When false, a failure ends the sequence.
  bool continue_after_error = true;
  // Called before each run (removes the previous store), then `setup` fills the fresh
  // store with what the operations' `before` values say (no fault is armed yet).
  std::function<void()> reset;
  std::function<void(Store&)> setup = [](Store&) {};
};

// A scratch directory on tmpfs (/dev/shm) when there is one: the hook counts and
// injects at the same calls on any filesystem, and a killed process loses nothing from
// the page cache, so tmpfs tests the same crash points without paying for real fsyncs
// (hundreds of runs in seconds). Elsewhere the usual test scratch directory.
class Scratch {
 public:
  Scratch() {
    std::error_code ec;
    if (std::filesystem::is_directory("/dev/shm", ec) && ::access("/dev/shm", W_OK) == 0) {
      char name[] = "/dev/shm/storh-fault-XXXXXX";
      if (::mkdtemp(name) != nullptr) {
        own_ = name;
        return;
      }
    }
    fallback_.emplace();
  }
  ~Scratch() {
    std::error_code ec;
    if (!own_.empty()) std::filesystem::remove_all(own_, ec);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  const std::filesystem::path& path() const { return own_.empty() ? fallback_->path() : own_; }

 private:
  std::filesystem::path own_;
  std::optional<storh::test::ScratchDir> fallback_;
};

enum class Status { not_run, acked, threw, died };

struct Tally {
  std::uint64_t boundaries = 0;    // N
  std::uint64_t crash_points = 0;  // runs with an injected fault (3N)
  std::uint64_t fired = 0;         // runs where the fault was reached
  std::uint64_t records_lost = 0;  // acknowledged effects missing after reopen
  std::uint64_t half_visible = 0;  // failed operations partly present
  std::uint64_t leaked = 0;        // effects of operations that never ran
  std::uint64_t verify_failed = 0;
  std::uint64_t repaired = 0;  // verify() failed, repair() fixed it (Subject::repair)
  std::uint64_t acked_ops = 0;
  std::vector<std::string> problems;  // the first few, for the report
};

namespace detail {

inline std::string describe(const Value& value) {
  return value ? value->dump() : std::string("(absent)");
}

inline void note(Tally& tally, const std::string& what) {
  if (tally.problems.size() < 8) tally.problems.push_back(what);
}

// Runs the operations on `store` and reports each one's status through `report`.
template <typename Store>
void run_ops(Store& store, std::vector<Op<Store>>& ops, bool continue_after_error,
             const std::function<void(std::size_t, Status)>& report,
             const std::function<void(std::size_t)>& starting = {}) {
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (starting) starting(i);
    try {
      ops[i].run(store);
      report(i, Status::acked);
    } catch (const std::exception&) {
      report(i, Status::threw);
      if (!continue_after_error) return;
    }
  }
}

template <typename Store>
void check(const Subject<Store>& subject, const std::vector<Op<Store>>& ops,
           const std::vector<Status>& status, const std::string& where, Tally& tally) {
  fault::disarm();
  std::unique_ptr<Store> store;
  try {
    store = subject.open();
  } catch (const std::exception& e) {
    ++tally.verify_failed;
    note(tally, where + ": reopen failed: " + e.what());
    return;
  }
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Op<Store>& op = ops[i];
    std::size_t now_after = 0, now_before = 0;
    for (const Effect& effect : op.effects) {
      const Value got = subject.read(*store, effect.key);
      const bool is_after = got == effect.after;
      const bool is_before = got == effect.before;
      now_after += is_after ? 1 : 0;
      now_before += is_before ? 1 : 0;
      const std::string what = where + ": " + op.name + " " + effect.key + " holds " +
                               describe(got) + ", expected " + describe(effect.after);
      if (status[i] == Status::acked && !is_after) {
        ++tally.records_lost;
        note(tally, what + " (acknowledged)");
      } else if (status[i] == Status::not_run && !is_before) {
        ++tally.leaked;
        note(tally, what + " (never ran; before: " + describe(effect.before) + ")");
      } else if (!is_after && !is_before) {
        ++tally.half_visible;
        note(tally, what + " (failed op, neither before nor after)");
      }
    }
    const bool failed = status[i] == Status::threw || status[i] == Status::died;
    if (failed && !op.per_record && now_after != op.effects.size() &&
        now_before != op.effects.size()) {
      ++tally.half_visible;
      note(tally, where + ": " + op.name + " is half visible (" + std::to_string(now_after) +
                      " of " + std::to_string(op.effects.size()) + " effects)");
    }
  }
  std::vector<std::string> errors = subject.verify(*store);
  if (!errors.empty() && subject.repair) {
    if (tally.repaired++ == 0) note(tally, where + ": repaired: " + errors.front());
    subject.repair(*store);
    errors = subject.verify(*store);
  }
  if (!errors.empty()) {
    ++tally.verify_failed;
    note(tally, where + ": verify: " + errors.front());
  }
}

// The child of a kill run: writes "S<i>" before operation i and "A<i>" / "T<i>" after.
template <typename Store>
[[noreturn]] void child(const Subject<Store>& subject, std::uint64_t k, int fd) {
  auto say = [fd](char kind, std::size_t i) {
    const std::string line = kind + std::to_string(i) + "\n";
    if (::write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) _exit(3);
  };
  try {
    std::unique_ptr<Store> store = subject.open();
    subject.setup(*store);
    std::vector<Op<Store>> ops = subject.ops();
    fault::arm(k, fault::Action::exit);
    run_ops<Store>(
        *store, ops, subject.continue_after_error,
        [&](std::size_t i, Status s) { say(s == Status::acked ? 'A' : 'T', i); },
        [&](std::size_t i) { say('S', i); });
    fault::disarm();
  } catch (...) {
    _exit(2);
  }
  _exit(0);
}

}  // namespace detail

// Runs every crash point of `subject` and returns the tally. Prints one summary line.
template <typename Store>
Tally run_all(const Subject<Store>& subject) {
  Tally tally;
  // N: the boundaries a clean pass crosses (after opening).
  subject.reset();
  {
    std::unique_ptr<Store> store = subject.open();
    subject.setup(*store);
    std::vector<Op<Store>> ops = subject.ops();
    fault::count_only();
    std::vector<Status> status(ops.size(), Status::not_run);
    detail::run_ops<Store>(*store, ops, true, [&](std::size_t i, Status s) { status[i] = s; });
    tally.boundaries = fault::crossed();
    fault::disarm();
    for (std::size_t i = 0; i < ops.size(); ++i) {
      INFO(subject.engine << " clean pass: " << ops[i].name);
      REQUIRE(status[i] == Status::acked);
    }
    store.reset();
    detail::check(subject, ops, status, subject.engine + " clean pass", tally);
  }
  REQUIRE(tally.boundaries > 0);

  for (std::uint64_t k = 1; k <= tally.boundaries; ++k) {
    for (const int error : {EIO, ENOSPC}) {
      subject.reset();
      const std::string where =
          subject.engine + " k=" + std::to_string(k) + (error == EIO ? " EIO" : " ENOSPC");
      std::vector<Op<Store>> ops = subject.ops();
      std::vector<Status> status(ops.size(), Status::not_run);
      {
        std::unique_ptr<Store> store = subject.open();
        subject.setup(*store);
        fault::arm(k, fault::Action::fail, error);
        detail::run_ops<Store>(*store, ops, subject.continue_after_error,
                               [&](std::size_t i, Status s) { status[i] = s; });
        tally.fired += fault::fired() ? 1 : 0;
        fault::disarm();
      }
      ++tally.crash_points;
      detail::check(subject, ops, status, where, tally);
    }

    subject.reset();
    const std::string where = subject.engine + " k=" + std::to_string(k) + " kill";
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::close(fds[0]);
      detail::child(subject, k, fds[1]);
    }
    ::close(fds[1]);
    std::string said;
    char chunk[512];
    for (ssize_t got; (got = ::read(fds[0], chunk, sizeof chunk)) > 0;) {
      said.append(chunk, static_cast<std::size_t>(got));
    }
    ::close(fds[0]);
    int wstatus = 0;
    REQUIRE(::waitpid(pid, &wstatus, 0) == pid);
    REQUIRE(WIFEXITED(wstatus));
    const int code = WEXITSTATUS(wstatus);
    INFO(where);
    REQUIRE((code == fault::kExitCode || code == 0));
    std::vector<Op<Store>> ops = subject.ops();
    std::vector<Status> status(ops.size(), Status::not_run);
    std::size_t at = 0;
    for (std::size_t lf; (lf = said.find('\n', at)) != std::string::npos; at = lf + 1) {
      const std::size_t i = std::stoul(said.substr(at + 1, lf - at - 1));
      const char kind = said[at];
      status[i] = kind == 'A' ? Status::acked : kind == 'T' ? Status::threw : Status::died;
    }
    ++tally.crash_points;
    tally.fired += code == fault::kExitCode ? 1 : 0;
    detail::check(subject, ops, status, where, tally);
  }

  std::string summary =
      subject.engine + ": " + std::to_string(tally.boundaries) + " write boundaries, " +
      std::to_string(tally.crash_points) + " crash points (EIO, ENOSPC, kill), " +
      std::to_string(tally.fired) + " reached, records lost " + std::to_string(tally.records_lost) +
      ", half visible " + std::to_string(tally.half_visible) + ", leaked " +
      std::to_string(tally.leaked) + ", verify failures " + std::to_string(tally.verify_failed);
  if (subject.repair) summary += ", repaired " + std::to_string(tally.repaired);
  WARN(summary);
  for (const std::string& problem : tally.problems) WARN(problem);
  return tally;
}

// The checks every engine's fault test makes on its tally.
inline void require_clean(const Tally& tally) {
  CHECK(tally.records_lost == 0);
  CHECK(tally.half_visible == 0);
  CHECK(tally.leaked == 0);
  CHECK(tally.verify_failed == 0);
  CHECK(tally.fired == tally.crash_points);
}

}  // namespace fault_test
