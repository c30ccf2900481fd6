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
// Shorter (SDK 1.7, header-only): a plain store class with the five calls, made a
// whole plugin by one line (KeyValueAdapter, below; examples/kv_minimal):
//
//   STORH_KEY_VALUE_PLUGIN(my_engine, "1.0.0", MyStore, "what it is")
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

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
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

namespace storh {

// ---- SDK 1.7: a key-value plugin from a plain store class ----------------------------

// The fields of `record` named in `fields` (every field when `fields` is empty), in
// the record's order: what a read or a scan answers.
inline KvRecord kv_select(const KvRecord& record, const std::vector<std::string>& fields) {
  if (fields.empty()) return record;
  KvRecord out;
  for (const KvField& field : record) {
    if (std::find(fields.begin(), fields.end(), field.name) != fields.end()) out.push_back(field);
  }
  return out;
}

// Sets each of `fields` in `record`, appending those it lacks: what an update does.
inline void kv_merge(KvRecord& record, const KvRecord& fields) {
  for (const KvField& field : fields) {
    const auto at = std::find_if(record.begin(), record.end(),
                                 [&](const KvField& f) { return f.name == field.name; });
    if (at != record.end()) {
      at->value = field.value;
    } else {
      record.push_back(field);
    }
  }
}

// A KeyValueStore over a plain `Store` class: one Store, default constructed and
// shared by every client, so its calls must be safe from many threads at once. Store has
//   bool read(std::string_view key, const std::vector<std::string>& fields, KvRecord& out);
//   void scan(std::string_view start, std::size_t count,
//             const std::vector<std::string>& fields, std::vector<KvRow>& out);
//   bool update(std::string_view key, const KvRecord& fields);
//   void insert(std::string_view key, const KvRecord& fields);
//   bool remove(std::string_view key);
// with the meanings of KeyValueSession's (`out` arrives empty; false is not_found),
// and optionally void open(RunContext&) and void close(), called as KeyValueStore's.
// A call may throw: the exception becomes the error "<name> <call>: <what()>".
template <typename Store>
class KeyValueAdapter : public KeyValueStore {
 public:
  explicit KeyValueAdapter(std::string name = "kv") : name_(std::move(name)) {}

  Status open(RunContext& ctx) noexcept override {
    return guarded(name_ + " open", [&] {
      if constexpr (requires { store_.open(ctx); }) store_.open(ctx);
    });
  }
  Status open_session(std::uint32_t /*client*/,
                      std::unique_ptr<KeyValueSession>& out) noexcept override {
    return guarded(name_ + " session", [&] { out = std::make_unique<Session>(*this); });
  }
  Status close() noexcept override {
    return guarded(name_ + " close", [&] {
      if constexpr (requires { store_.close(); }) store_.close();
    });
  }

  Store& store() noexcept { return store_; }

 private:
  class Session final : public KeyValueSession {
   public:
    explicit Session(KeyValueAdapter& adapter) : adapter_(adapter) {}
    Status read(std::string_view key, const std::vector<std::string>& fields, KvRecord& out,
                KvCode& code) noexcept override {
      return call("read", [&] {
        out.clear();
        code = found(adapter_.store_.read(key, fields, out));
      });
    }
    Status scan(std::string_view start_key, std::size_t count,
                const std::vector<std::string>& fields, std::vector<KvRow>& out) noexcept override {
      return call("scan", [&] {
        out.clear();
        adapter_.store_.scan(start_key, count, fields, out);
      });
    }
    Status update(std::string_view key, const KvRecord& fields, KvCode& code) noexcept override {
      return call("update", [&] { code = found(adapter_.store_.update(key, fields)); });
    }
    Status insert(std::string_view key, const KvRecord& fields) noexcept override {
      return call("insert", [&] { adapter_.store_.insert(key, fields); });
    }
    Status remove(std::string_view key, KvCode& code) noexcept override {
      return call("remove", [&] { code = found(adapter_.store_.remove(key)); });
    }

   private:
    static KvCode found(bool yes) noexcept { return yes ? KvCode::ok : KvCode::not_found; }
    // guarded(), without building the error's words on every call.
    template <typename F>
    Status call(const char* what, F&& fn) noexcept {
      try {
        fn();
        return {};
      } catch (const std::exception& e) {
        return Status::error(adapter_.name_ + " " + what + ": " + e.what());
      } catch (...) {
        return Status::error(adapter_.name_ + " " + what + ": unknown exception");
      }
    }
    KeyValueAdapter& adapter_;
  };

  std::string name_;
  Store store_;
};

// The Engine of a plugin made by STORH_KEY_VALUE_PLUGIN: its description, and a
// scenario that checks the store on its own (`storh-host run`): "insert" puts the
// dataset's n records ("user<i>", one field) into a fresh Store through a
// KeyValueAdapter, "read" reads each back and compares it.
template <typename Store>
class KeyValueEngine : public Engine {
 public:
  KeyValueEngine(std::string name, std::string description)
      : name_(std::move(name)), description_(std::move(description)) {}

  EngineInfo describe() const noexcept override {
    EngineInfo info;
    info.description = description_;
    info.operations = {
        {"insert", "records", Direction::lower_is_better, "insert n records of one field"},
        {"read", "records", Direction::lower_is_better, "read each record back, compared"}};
    return info;
  }

  Status run(RunContext& ctx) noexcept override {
    return guarded(name_, [&] { return scenario(ctx); });
  }

 private:
  Status scenario(RunContext& ctx) {
    KeyValueAdapter<Store> kv(name_);
    if (Status opened = kv.open(ctx); !opened.ok()) return opened;
    std::unique_ptr<KeyValueSession> session;
    if (Status got = kv.open_session(0, session); !got.ok()) return got;
    const std::uint64_t n = ctx.dataset_size();
    const auto key = [](std::uint64_t i) { return "user" + std::to_string(i); };
    Status status = ctx.measure("insert", n, [&]() -> Status {
      for (std::uint64_t i = 0; i < n; ++i) {
        if (Status put = session->insert(key(i), {{"field0", key(i)}}); !put.ok()) return put;
      }
      return {};
    });
    if (status.ok()) {
      status = ctx.measure("read", n, [&]() -> Status {
        KvRecord got;
        KvCode code = KvCode::not_found;
        for (std::uint64_t i = 0; i < n; ++i) {
          if (Status read = session->read(key(i), {}, got, code); !read.ok()) return read;
          if (code != KvCode::ok || got.size() != 1 || got[0].value != key(i)) {
            return Status::error("read: " + key(i) + " did not read back what was inserted");
          }
        }
        return {};
      });
    }
    session.reset();
    Status closed = kv.close();
    return status.ok() ? closed : status;
  }

  std::string name_;
  std::string description_;
};

}  // namespace storh

// A whole key-value plugin from `store_class` (KeyValueAdapter's Store): the manifest
// (as STORH_PLUGIN, with `name` a bare identifier), a KeyValueEngine with
// `description`, and the key-value factory. Needs storh/plugin.h; once per plugin.
#define STORH_KEY_VALUE_PLUGIN(name, version_string, store_class, description)          \
  namespace {                                                                           \
  struct StorhDetailKvStore final : ::storh::KeyValueAdapter<store_class> {             \
    StorhDetailKvStore() : ::storh::KeyValueAdapter<store_class>(#name) {}              \
  };                                                                                    \
  struct StorhDetailKvEngine final : ::storh::KeyValueEngine<store_class> {             \
    StorhDetailKvEngine() : ::storh::KeyValueEngine<store_class>(#name, description) {} \
  };                                                                                    \
  }                                                                                     \
  STORH_PLUGIN(name, version_string, StorhDetailKvEngine)                               \
  STORH_KEY_VALUE(StorhDetailKvStore)
