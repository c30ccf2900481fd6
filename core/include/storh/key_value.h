// storh/key_value.h: the key-value capability, what an engine answers so that the host
// can run YCSB's core workloads on it (docs/ycsb.md).
//
// The host generates the workload (keys, field values, the operation mix, the key
// distribution) and times every call; the engine only stores and answers. A record is
// a key and a set of named fields ("field0" .. "field9"), as YCSB's DB interface has
// it. An engine that stores one value per key encodes the fields itself (or uses
// storh::bench_support's record codec).
//
// Optional and additive (plugin ABI 1.6): a plugin without it runs scenarios and
// transactions exactly as before. To offer it, define a KeyValueStore class and add
// one line to any translation unit of the plugin:
//
//   STORH_KEY_VALUE(storh_example::MyStore)
//
// which exports the factory storh_create_key_value. The host looks it up only in
// plugins whose manifest says ABI minor >= 6.
//
// One repeat of a key-value cell, in a fresh worker process:
//   1. the host makes one KeyValueStore and calls open(ctx) (untimed): the engine
//      creates its store under ctx.work_dir(), with the cell's parameters;
//   2. load phase: clients insert the records (timed as the "load" phase);
//   3. run phase: clients run the operation mix (each call timed);
//   4. close() once (untimed). An error there fails the cell.
//
// Threading: open() and close() are called from the worker's main thread. Each client
// thread calls open_session() once (concurrently with the others) and then uses its
// KeyValueSession from that thread only. Sessions are destroyed before close().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/dll/alias.hpp>

#include "storh/engine.h"

namespace storh {

// One field of a record.
struct KvField {
  std::string name;
  std::string value;
};

// A record's fields, in the order the host gave them (an engine keeps that order).
using KvRecord = std::vector<KvField>;

// A key and its fields: one row of a scan.
struct KvRow {
  std::string key;
  KvRecord fields;
};

// The outcome of one call. `not_found` is an answer, not a failure: the host decides
// whether it was expected (a read of a key it never inserted) or wrong.
enum class KvCode { ok, not_found };

// One client's connection to the store. Every call must not throw; a failure is an
// error Status whose message says what failed (the host fails the cell with it).
class KeyValueSession {
 public:
  virtual ~KeyValueSession() = default;

  // Reads `key`. `fields` empty: every field; else only the fields named (a field the
  // record does not have is left out). On success sets `code` and, when ok, `out`
  // (cleared first).
  virtual Status read(std::string_view key, const std::vector<std::string>& fields, KvRecord& out,
                      KvCode& code) noexcept = 0;

  // Up to `count` records in key order, from the first key >= `start_key`; `fields` as
  // read(). `out` is cleared first.
  virtual Status scan(std::string_view start_key, std::size_t count,
                      const std::vector<std::string>& fields, std::vector<KvRow>& out) noexcept = 0;

  // Replaces the fields given and keeps the others. Sets `code` to not_found (and
  // writes nothing) when the key is absent.
  virtual Status update(std::string_view key, const KvRecord& fields, KvCode& code) noexcept = 0;

  // Stores a new record (overwriting one of the same key, as YCSB's bindings do).
  virtual Status insert(std::string_view key, const KvRecord& fields) noexcept = 0;

  // Deletes `key`; `code` is not_found when it was absent.
  virtual Status remove(std::string_view key, KvCode& code) noexcept = 0;
};

// What a plugin implements to offer the key-value capability. The durability of a
// write is the cell's `durability` parameter ("none", "os" or "fsync", declared by
// the engine like any other parameter): when an insert, update or remove returns ok,
// the write survives what that level promises (docs/ycsb.md).
class KeyValueStore {
 public:
  virtual ~KeyValueStore() = default;

  // Untimed, once per repeat: create the store under ctx.work_dir() with the cell's
  // parameters. ctx.measure must not be called here.
  virtual Status open(RunContext& ctx) noexcept = 0;

  // Untimed: a session for one client (`client` in 0 .. clients - 1). Called
  // concurrently from every client thread. On success stores it in `out`.
  virtual Status open_session(std::uint32_t client,
                              std::unique_ptr<KeyValueSession>& out) noexcept = 0;

  // Untimed, once per repeat after every session is gone: flush and close the store.
  virtual Status close() noexcept = 0;
};

// The factory behind storh_create_key_value. Must not throw: nullptr on failure.
using KeyValueFactory = std::unique_ptr<KeyValueStore>();

inline constexpr const char* kKeyValueSymbol = "storh_create_key_value";
// The first plugin ABI minor that may export kKeyValueSymbol.
inline constexpr std::uint32_t kKeyValueAbiMinor = 6;

}  // namespace storh

// Exports the key-value factory for class `store_class` (default constructible). At
// most once per plugin; may sit in any of its translation units.
#define STORH_KEY_VALUE(store_class)                                                 \
  namespace {                                                                        \
  std::unique_ptr<::storh::KeyValueStore> storh_detail_create_key_value() noexcept { \
    try {                                                                            \
      return std::make_unique<store_class>();                                        \
    } catch (...) {                                                                  \
      return nullptr;                                                                \
    }                                                                                \
  }                                                                                  \
  }                                                                                  \
  BOOST_DLL_ALIAS(storh_detail_create_key_value, storh_create_key_value)
