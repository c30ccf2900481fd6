// db_bench.h: db_bench's operations over an ordered byte store, written once for the
// adapters of every byte-store engine (rocksdb, leveldb, lmdb, sqlite).
//
// Keys are db_bench's: the key number as 16 zero-padded decimal digits ("%016llu").
// A value is value_size bytes made from its key number, compressible to about half as
// db_bench's are (compression_ratio 0.5): a window of db_bench-like bytes the key number
// picks, starting with the key number's 8 bytes; so every read is checked.
//
// The operations, in db_bench's order, each timed with items = n (the dataset size);
// an engine's adapter offers a subset (kDbBenchOrder names them all):
//   fillseq           starts from an empty database; puts keys 0 .. n-1 in order
//   fillrandom        starts from a fresh, empty database (fillseq's is removed first,
//                     as db_bench's fresh-db benchmarks do); puts the n keys, each once,
//                     in a shuffled order
//   overwrite         fillrandom's n keys; n puts of uniformly random keys of [0, n)
//   readrandom        the n keys; n gets of random keys, each value compared
//   readseq           the n keys; one iteration from the first key, the count and every
//                     value's size checked
//   readwhilewriting  the n keys; n random gets, each compared, timed, while one
//                     background thread puts random keys of [0, n) (their own values, so
//                     the reads stay checkable) from before the first read until the last
// DbBenchShape (below) runs each step on several threads, as db_bench's --threads, and
// can draw fillrandom's keys as db_bench does (uniformly, some never written).
// An unselected fillrandom still runs, untimed, when a later step needs its keys; any
// other unselected step is skipped. Puts are single writes (db_bench's batch size 1).
//
// Store is an engine's store with:
//   bool get(std::string_view key, std::string& value) const;   false when absent
//   void put(std::string_view key, std::string_view value);
//   void scan(std::string_view start, std::size_t count, const Row& row) const;
//   void close();
//   void flush();   optional: ends the step's writes (commits a batch), timed with them
//   std::vector<EngineCount> take_counts();   optional: the engine's own statistics
//                   since the previous call (common/engine_count.h); each timed step
//                   reports what it read after the step as engine counters
// where Row is callable as row(key, value); get, put and scan may be called from two
// threads at once (readwhilewriting). Engine errors are exceptions: the step fails with
// their message.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <numeric>
#include <random>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/bench/answers.h"
#include "common/bench/engine_counts.h"
#include "common/splitmix64.h"
#include "storh/engine.h"

namespace storh::engines::bench {

inline constexpr std::string_view kDbBenchOrder[] = {
    "fillseq", "fillrandom", "overwrite", "readrandom", "readseq", "readwhilewriting"};

// The OperationSpec of db_bench operation `name` (one of kDbBenchOrder).
inline OperationSpec db_bench_operation(std::string_view name) {
  struct Known {
    std::string_view name;
    std::string_view unit;
    std::string_view description;
  };
  static constexpr Known kKnown[] = {
      {"fillseq", "puts", "put the n keys in key order into an empty database"},
      {"fillrandom", "puts",
       "put the n keys, each once, in a shuffled order into a fresh database"},
      {"overwrite", "puts", "n puts of uniformly random existing keys"},
      {"readrandom", "gets", "n gets of uniformly random keys, each value checked"},
      {"readseq", "entries", "iterate over all n keys in key order, the count checked"},
      {"readwhilewriting", "gets",
       "n random gets, each checked, while a background thread puts random keys"},
  };
  for (const Known& known : kKnown) {
    if (known.name == name) {
      return {std::string(name), std::string(known.unit), Direction::lower_is_better,
              std::string(known.description)};
    }
  }
  return {std::string(name), "keys", Direction::lower_is_better, "unknown db_bench operation"};
}

// Keys and values of a dataset of n keys. Not thread-safe: one per thread.
//
// Values cost a copy, not a computation: each is a window of a pool made once, as
// db_bench's RandomGenerator makes its own (pieces of 100 bytes, each 50 random
// printable bytes written twice), chosen by the key number, with the key number in
// its first 8 bytes, so no two keys' values are alike and every read can be checked.
class DbBenchData {
 public:
  DbBenchData(std::uint64_t n, std::size_t value_size) : n_(n), value_(value_size, '\0') {
    std::uint64_t state = 0;
    while (pool_.size() < (std::size_t{1} << 20) + value_size) {
      char piece[kPiece / 2];
      for (char& c : piece) c = static_cast<char>(' ' + splitmix64(state) % 95);
      pool_.append(piece, sizeof piece).append(piece, sizeof piece);
    }
  }

  std::uint64_t n() const noexcept { return n_; }
  std::size_t value_size() const noexcept { return value_.size(); }

  // Key number `i`; valid until the next call.
  std::string_view key(std::uint64_t i) noexcept {
    for (int digit = 15; digit >= 0; --digit) {
      key_[digit] = static_cast<char>('0' + i % 10);
      i /= 10;
    }
    return {key_, sizeof key_};
  }

  // The value of key number `i`; valid until the next call.
  std::string_view value(std::uint64_t i) noexcept {
    std::uint64_t state = i;
    const std::size_t windows = (pool_.size() - value_.size()) / kPiece + 1;
    std::memcpy(value_.data(), pool_.data() + splitmix64(state) % windows * kPiece, value_.size());
    std::memcpy(value_.data(), &i, std::min(sizeof i, value_.size()));
    return value_;
  }

 private:
  static constexpr std::size_t kPiece = 100;
  std::uint64_t n_;
  char key_[16] = {};
  std::string value_;
  std::string pool_;
};

// A reproducible stream of key numbers drawn uniformly from [0, n).
class KeyDraw {
 public:
  KeyDraw(std::uint64_t n, std::uint64_t seed) noexcept : n_(n), state_(seed) {}
  std::uint64_t next() noexcept { return splitmix64(state_) % n_; }

 private:
  std::uint64_t n_;
  std::uint64_t state_;
};

// One thread putting random keys until destroyed (readwhilewriting's writer).
template <typename Store>
class BackgroundWriter {
 public:
  // Starts the thread and returns once its first put is done (or it failed).
  BackgroundWriter(Store& store, std::uint64_t n, std::size_t value_size, std::uint64_t seed)
      : thread_([this, &store, n, value_size, seed](std::stop_token token) {
          DbBenchData data(n, value_size);
          KeyDraw draw(n, seed);
          try {
            do {
              const std::uint64_t i = draw.next();
              store.put(data.key(i), data.value(i));
              writes_.fetch_add(1, std::memory_order_release);
            } while (!token.stop_requested());
          } catch (const std::exception& e) {
            error_ = e.what();
            failed_.store(true, std::memory_order_release);
          }
        }) {
    while (writes_.load(std::memory_order_acquire) == 0 &&
           !failed_.load(std::memory_order_acquire)) {
      std::this_thread::yield();
    }
  }

  // Whether every put so far succeeded; does not wait.
  Status check(std::string_view op) const {
    if (!failed_.load(std::memory_order_acquire)) return {};
    return Status::error(std::string(op) + ": the background writer failed: " + error_);
  }

  // Stops the thread and waits for it; check() then covers every put.
  void stop() {
    thread_.request_stop();
    if (thread_.joinable()) thread_.join();
  }

  std::uint64_t writes() const noexcept { return writes_.load(std::memory_order_acquire); }

 private:
  std::atomic<std::uint64_t> writes_{0};
  std::atomic<bool> failed_{false};
  std::string error_;    // written before failed_ is set
  std::jthread thread_;  // last: starts after, and is joined before, the members above
};

// How run_db_bench runs its steps; the defaults are its one-thread, every-key-once form.
struct DbBenchShape {
  // Threads per timed step (db_bench's --threads). Each thread does the step's whole
  // work, as db_bench's threads do (its num is per thread): fillseq's each put keys
  // 0 .. n-1 in order, fillrandom's and overwrite's each n puts, readrandom's and
  // readwhilewriting's each n gets, readseq's each one scan of the database; a step
  // counts threads * its one-thread items. readwhilewriting's writer is one more thread.
  unsigned threads = 1;
  // fillrandom's keys. false: each key once, in a shuffled order, so every read finds
  // its key. true: n uniform draws of [0, n) per thread, as db_bench's fillrandom (with
  // one thread about 1/e of the keys stay unwritten, overwrite's draws add some); reads
  // then miss keys as db_bench's do, each miss checked against the keys written.
  bool uniform_fill = false;
  // Whole-database iterations per readseq thread, timed as one step of
  // threads * readseq_passes * entries items (db_bench's `readseq,readseq,...`). One
  // pass over a million keys lasts a few tenths of a second, shorter than a shared
  // machine's noise; more passes let a comparison see past it.
  unsigned readseq_passes = 1;
};

// Seeds of thread t's draws are kSeed + t * kThreadSeedStep: thread 0 keeps the
// one-thread seeds, and no two threads draw the same stream.
inline constexpr std::uint64_t kThreadSeedStep = 1000;

// Marks in `written` the keys that `threads` streams of n draws from `seed` put.
inline void mark_drawn(std::vector<bool>& written, std::uint64_t seed, unsigned threads) {
  const std::uint64_t n = written.size();
  for (unsigned t = 0; t < threads; ++t) {
    KeyDraw draw(n, seed + t * kThreadSeedStep);
    for (std::uint64_t done = 0; done < n; ++done) written[draw.next()] = true;
  }
}

// Runs step(t) for t in [0, threads), each on its own thread (one: the caller's), and
// returns the first failure; an exception is a failure with its message.
template <typename Step>
Status on_threads(std::string_view op, unsigned threads, Step&& step) {
  if (threads <= 1) return guarded(op, [&] { return step(0U); });
  std::vector<Status> results(threads);
  {
    std::vector<std::jthread> pool;
    pool.reserve(threads);
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] { results[t] = guarded(op, [&] { return step(t); }); });
    }
  }
  for (Status& result : results) {
    if (!result.ok()) return result;
  }
  return {};
}

// n gets of keys drawn by `draw`: a key found must hold its own value, and a key not
// found must be one that `written` says was never put.
template <typename Store>
Status read_random(std::string_view op, const Store& store, DbBenchData& data, KeyDraw draw,
                   const std::vector<bool>& written) {
  std::string got;
  for (std::uint64_t done = 0; done < data.n(); ++done) {
    const std::uint64_t i = draw.next();
    const std::string_view key = data.key(i);
    if (!store.get(key, got)) {
      if (!written[i]) continue;
      return Status::error(std::string(op) + ": key " + std::string(key) + " not found");
    }
    if (got != data.value(i)) {
      return Status::error(std::string(op) + ": key " + std::string(key) +
                           " read back a wrong value (" + std::to_string(got.size()) +
                           " bytes, expected " + std::to_string(data.value_size()) + ")");
    }
  }
  return {};
}

// Iterates from the first key: `expected` entries of value_size bytes.
template <typename Store>
Status read_seq(std::string_view op, const Store& store, const DbBenchData& data,
                std::uint64_t expected) {
  std::uint64_t count = 0;
  std::uint64_t wrong_sizes = 0;
  store.scan({}, expected + 1, [&](std::string_view, std::string_view value) {
    ++count;
    if (value.size() != data.value_size()) ++wrong_sizes;
  });
  if (wrong_sizes != 0) {
    return Status::error(std::string(op) + ": " + std::to_string(wrong_sizes) + " values are not " +
                         std::to_string(data.value_size()) + " bytes");
  }
  return expect_count(op, count, expected);
}

// Calls store.flush() when Store has one: a write step's last act, inside its time.
template <typename Store>
void flush_writes(Store& store) {
  if constexpr (requires { store.flush(); }) store.flush();
}

// Runs the operations of `operations` (a subset of kDbBenchOrder, in that order) on
// stores that `open(dir)` opens (std::unique_ptr<Store>, creating the database) in
// `dir`, which must not exist yet or be empty, shaped by `shape`. Leaves the store
// closed. With shape.threads > 1, Store's get, put and scan must be thread-safe.
template <typename Store, typename Open>
Status run_db_bench(RunContext& ctx, std::string_view engine,
                    const std::vector<std::string_view>& operations, std::size_t value_size,
                    const std::filesystem::path& dir, Open&& open, const DbBenchShape& shape = {}) {
  const auto offered = [&](std::string_view op) {
    return std::find(operations.begin(), operations.end(), op) != operations.end();
  };
  const auto wanted = [&](std::string_view op) { return offered(op) && ctx.selected(op); };
  const std::uint64_t n = ctx.dataset_size();
  const unsigned threads = std::max(shape.threads, 1U);
  const auto progress = [&](std::string_view op) {
    ctx.progress(std::string(engine) + ": " + std::string(op) + " of " + std::to_string(n) +
                 " keys");
  };

  std::unique_ptr<Store> store;
  STORH_TRY(guarded("open", [&] { store = open(dir); }));
  // n puts on each thread t of the keys that next_key(t) returns, then the store's flush.
  const auto put_step = [&](std::string_view op, auto next_key) -> Status {
    STORH_TRY(on_threads(op, threads, [&](unsigned t) {
      DbBenchData data(n, value_size);
      auto next = next_key(t);
      for (std::uint64_t done = 0; done < n; ++done) {
        const std::uint64_t i = next();
        store->put(data.key(i), data.value(i));
      }
    }));
    return guarded(op, [&] { flush_writes(*store); });
  };
  const auto uniform = [n](std::uint64_t seed) {
    return [n, seed](unsigned t) {
      return [draw = KeyDraw(n, seed + t * kThreadSeedStep)]() mutable { return draw.next(); };
    };
  };

  if (wanted("fillseq")) {
    progress("fillseq");
    STORH_TRY(measure_with_counts(ctx, *store, "fillseq", threads * n, [&] {
      return put_step("fillseq",
                      [](unsigned) { return [i = std::uint64_t{0}]() mutable { return i++; }; });
    }));
    STORH_TRY(guarded("fillrandom: a fresh database", [&] {
      store->close();
      store.reset();
      std::filesystem::remove_all(dir);
      store = open(dir);
    }));
  }

  bool later = false;
  for (std::string_view op : {"overwrite", "readrandom", "readseq", "readwhilewriting"}) {
    later = later || wanted(op);
  }
  std::vector<bool> written(n, !shape.uniform_fill);
  if (wanted("fillrandom") || later) {
    std::vector<std::vector<std::uint64_t>> orders(shape.uniform_fill ? 0 : threads);
    for (unsigned t = 0; t < orders.size(); ++t) {
      orders[t].resize(n);
      std::iota(orders[t].begin(), orders[t].end(), std::uint64_t{0});
      std::shuffle(orders[t].begin(), orders[t].end(), std::mt19937_64(1 + t * kThreadSeedStep));
    }
    const auto fill = [&] {
      if (shape.uniform_fill) return put_step("fillrandom", uniform(1));
      return put_step("fillrandom", [&](unsigned t) {
        return [&order = orders[t], j = std::size_t{0}]() mutable { return order[j++]; };
      });
    };
    progress("fillrandom");
    if (wanted("fillrandom")) {
      STORH_TRY(measure_with_counts(ctx, *store, "fillrandom", threads * n, fill));
    } else {
      STORH_TRY(guarded("fillrandom", fill));
    }
    if (shape.uniform_fill) mark_drawn(written, 1, threads);
  }
  if (wanted("overwrite")) {
    progress("overwrite");
    STORH_TRY(measure_with_counts(ctx, *store, "overwrite", threads * n,
                                  [&] { return put_step("overwrite", uniform(2)); }));
    if (shape.uniform_fill) mark_drawn(written, 2, threads);
  }
  const auto read_step = [&](std::string_view op, std::uint64_t seed) {
    return on_threads(op, threads, [&, seed](unsigned t) {
      DbBenchData data(n, value_size);
      return read_random(op, *store, data, KeyDraw(n, seed + t * kThreadSeedStep), written);
    });
  };
  if (wanted("readrandom")) {
    progress("readrandom");
    STORH_TRY(measure_with_counts(ctx, *store, "readrandom", threads * n,
                                  [&] { return read_step("readrandom", 3); }));
  }
  if (wanted("readseq")) {
    progress("readseq");
    const auto expected =
        static_cast<std::uint64_t>(std::count(written.begin(), written.end(), true));
    const unsigned passes = std::max(shape.readseq_passes, 1U);
    const auto scan_passes = [&](unsigned) -> Status {
      const DbBenchData data(n, value_size);
      for (unsigned pass = 0; pass < passes; ++pass) {
        STORH_TRY(read_seq("readseq", *store, data, expected));
      }
      return {};
    };
    const std::uint64_t items = std::uint64_t{passes} * threads * expected;
    STORH_TRY(measure_with_counts(ctx, *store, "readseq", items,
                                  [&] { return on_threads("readseq", threads, scan_passes); }));
  }
  if (wanted("readwhilewriting")) {
    progress("readwhilewriting");
    BackgroundWriter<Store> writer(*store, n, value_size, 5);
    STORH_TRY(measure_with_counts(
        ctx, *store, "readwhilewriting", threads * n,
        [&]() -> Status {
          Status read = read_step("readwhilewriting", 4);
          return read.ok() ? writer.check("readwhilewriting") : read;
        },
        StepWork::timed));  // how many puts the writer makes depends on timing
    writer.stop();
    STORH_TRY(writer.check("readwhilewriting"));
  }
  return guarded("close", [&] { store->close(); });
}

}  // namespace storh::engines::bench
