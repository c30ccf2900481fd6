// db_bench.h: db_bench's operations over an ordered byte store, written once for the
// adapters of the engines db_bench was made for (rocksdb, leveldb).
//
// Keys are db_bench's: the key number as 16 zero-padded decimal digits ("%016llu").
// A value is value_size bytes made from its key number, compressible to about half as
// db_bench's are (compression_ratio 0.5): printable bytes from a splitmix64 stream
// seeded with the key number, the first half repeated; so every read is checked.
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
// An unselected fillrandom still runs, untimed, when a later step needs its keys; any
// other unselected step is skipped. Puts are single writes (db_bench's batch size 1).
//
// Store is an engine's store with:
//   bool get(std::string_view key, std::string& value) const;   false when absent
//   void put(std::string_view key, std::string_view value);
//   void scan(std::string_view start, std::size_t count, const Row& row) const;
//   void close();
// where Row is callable as row(key, value); get, put and scan may be called from two
// threads at once (readwhilewriting). Engine errors are exceptions: the step fails with
// their message.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
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

inline std::uint64_t splitmix64(std::uint64_t& state) noexcept {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Keys and values of a dataset of n keys. Not thread-safe: one per thread.
class DbBenchData {
 public:
  DbBenchData(std::uint64_t n, std::size_t value_size) : n_(n), value_(value_size, '\0') {}

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
    std::uint64_t bits = 0;
    const std::size_t half = (value_.size() + 1) / 2;
    for (std::size_t j = 0; j < half; ++j) {
      if (j % 8 == 0) bits = splitmix64(state);
      value_[j] = static_cast<char>(' ' + (bits & 0xff) % 95);
      bits >>= 8;
    }
    for (std::size_t j = half; j < value_.size(); ++j) value_[j] = value_[j - half];
    return value_;
  }

 private:
  std::uint64_t n_;
  char key_[16] = {};
  std::string value_;
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

// n gets of keys drawn by `draw`, each value compared with its key's.
template <typename Store>
Status read_random(std::string_view op, const Store& store, DbBenchData& data, KeyDraw draw) {
  std::string got;
  for (std::uint64_t done = 0; done < data.n(); ++done) {
    const std::uint64_t i = draw.next();
    const std::string_view key = data.key(i);
    if (!store.get(key, got)) {
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

// Iterates from the first key: n entries of value_size bytes.
template <typename Store>
Status read_seq(std::string_view op, const Store& store, const DbBenchData& data) {
  std::uint64_t count = 0;
  std::uint64_t wrong_sizes = 0;
  store.scan({}, data.n() + 1, [&](std::string_view, std::string_view value) {
    ++count;
    if (value.size() != data.value_size()) ++wrong_sizes;
  });
  if (wrong_sizes != 0) {
    return Status::error(std::string(op) + ": " + std::to_string(wrong_sizes) + " values are not " +
                         std::to_string(data.value_size()) + " bytes");
  }
  return expect_count(op, count, data.n());
}

// Runs the operations of `operations` (a subset of kDbBenchOrder, in that order) on
// stores that `open(dir)` opens (std::unique_ptr<Store>, creating the database) in
// `dir`, which must not exist yet or be empty. Leaves the store closed.
template <typename Store, typename Open>
Status run_db_bench(RunContext& ctx, std::string_view engine,
                    const std::vector<std::string_view>& operations, std::size_t value_size,
                    const std::filesystem::path& dir, Open&& open) {
  const auto offered = [&](std::string_view op) {
    return std::find(operations.begin(), operations.end(), op) != operations.end();
  };
  const auto wanted = [&](std::string_view op) { return offered(op) && ctx.selected(op); };
  const std::uint64_t n = ctx.dataset_size();
  DbBenchData data(n, value_size);
  const auto progress = [&](std::string_view op) {
    ctx.progress(std::string(engine) + ": " + std::string(op) + " of " + std::to_string(n) +
                 " keys");
  };

  std::unique_ptr<Store> store;
  STORH_TRY(guarded("open", [&] { store = open(dir); }));
  if (wanted("fillseq")) {
    progress("fillseq");
    STORH_TRY(ctx.measure("fillseq", n, [&] {
      for (std::uint64_t i = 0; i < n; ++i) store->put(data.key(i), data.value(i));
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
  if (wanted("fillrandom") || later) {
    std::vector<std::uint64_t> order(n);
    std::iota(order.begin(), order.end(), std::uint64_t{0});
    std::shuffle(order.begin(), order.end(), std::mt19937_64(1));
    const auto fill = [&] {
      for (const std::uint64_t i : order) store->put(data.key(i), data.value(i));
    };
    progress("fillrandom");
    if (wanted("fillrandom")) {
      STORH_TRY(ctx.measure("fillrandom", n, fill));
    } else {
      STORH_TRY(guarded("fillrandom", fill));
    }
  }
  if (wanted("overwrite")) {
    progress("overwrite");
    STORH_TRY(ctx.measure("overwrite", n, [&] {
      KeyDraw draw(n, 2);
      for (std::uint64_t done = 0; done < n; ++done) {
        const std::uint64_t i = draw.next();
        store->put(data.key(i), data.value(i));
      }
    }));
  }
  if (wanted("readrandom")) {
    progress("readrandom");
    STORH_TRY(ctx.measure("readrandom", n,
                          [&] { return read_random("readrandom", *store, data, KeyDraw(n, 3)); }));
  }
  if (wanted("readseq")) {
    progress("readseq");
    STORH_TRY(ctx.measure("readseq", n, [&] { return read_seq("readseq", *store, data); }));
  }
  if (wanted("readwhilewriting")) {
    progress("readwhilewriting");
    BackgroundWriter<Store> writer(*store, n, value_size, 5);
    STORH_TRY(ctx.measure("readwhilewriting", n, [&]() -> Status {
      Status read = read_random("readwhilewriting", *store, data, KeyDraw(n, 4));
      return read.ok() ? writer.check("readwhilewriting") : read;
    }));
    writer.stop();
    STORH_TRY(writer.check("readwhilewriting"));
  }
  return guarded("close", [&] { store->close(); });
}

}  // namespace storh::engines::bench
