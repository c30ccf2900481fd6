// The smallest engine with the key-value capability (storh/key_value.h): records in a
// std::map under a std::shared_mutex, one session per client. A template for a new
// engine's YCSB adapter (docs/ycsb.md) and the engine the host's YCSB tests run on.
// `corrupt_reads = true` makes every read answer a wrong value, so tests can see a
// wrong answer fail its cell; `crash_after = N` (N > 0) makes the Nth read, scan,
// update or remove of the store call std::abort(), so tests can see a crash inside an
// engine fail its own cell only. Load-phase inserts do not count: with N > 0 the run
// phase crashes at its Nth operation that is not an insert.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <variant>
#include <vector>

#include "storh/key_value.h"
#include "storh/plugin.h"

namespace {

using storh::KvCode;
using storh::KvRecord;
using storh::Status;

// Only the fields asked for (all when `fields` is empty), in the record's order.
KvRecord project(const KvRecord& record, const std::vector<std::string>& fields) {
  if (fields.empty()) return record;
  KvRecord out;
  for (const storh::KvField& f : record) {
    for (const std::string& name : fields) {
      if (f.name == name) out.push_back(f);
    }
  }
  return out;
}

struct Store {
  std::shared_mutex mutex;
  std::map<std::string, KvRecord, std::less<>> records;
  bool corrupt_reads = false;
  std::uint64_t crash_after = 0;  // 0: never
  std::atomic<std::uint64_t> counted{0};

  // Counts one read, scan, update or remove; aborts at the crash_after-th.
  void count_operation() {
    if (crash_after == 0) return;
    if (counted.fetch_add(1, std::memory_order_relaxed) + 1 == crash_after) std::abort();
  }
};

class Session final : public storh::KeyValueSession {
 public:
  explicit Session(Store& store) : store_(store) {}

  Status read(std::string_view key, const std::vector<std::string>& fields, KvRecord& out,
              KvCode& code) noexcept override {
    return storh::guarded("read", [&] {
      store_.count_operation();
      std::shared_lock lock(store_.mutex);
      const auto it = store_.records.find(key);
      code = it == store_.records.end() ? KvCode::not_found : KvCode::ok;
      if (code == KvCode::ok) out = project(it->second, fields);
      if (code == KvCode::ok && store_.corrupt_reads && !out.empty()) out[0].value += "!";
    });
  }

  Status scan(std::string_view start_key, std::size_t count, const std::vector<std::string>& fields,
              std::vector<storh::KvRow>& out) noexcept override {
    return storh::guarded("scan", [&] {
      store_.count_operation();
      out.clear();
      std::shared_lock lock(store_.mutex);
      for (auto it = store_.records.lower_bound(start_key);
           it != store_.records.end() && out.size() < count; ++it) {
        out.push_back({it->first, project(it->second, fields)});
      }
    });
  }

  Status update(std::string_view key, const KvRecord& fields, KvCode& code) noexcept override {
    return storh::guarded("update", [&] {
      store_.count_operation();
      std::unique_lock lock(store_.mutex);
      const auto it = store_.records.find(key);
      code = it == store_.records.end() ? KvCode::not_found : KvCode::ok;
      if (code == KvCode::not_found) return;
      for (const storh::KvField& field : fields) {
        auto at = std::find_if(it->second.begin(), it->second.end(),
                               [&](const storh::KvField& f) { return f.name == field.name; });
        if (at != it->second.end()) {
          at->value = field.value;
        } else {
          it->second.push_back(field);
        }
      }
    });
  }

  Status insert(std::string_view key, const KvRecord& fields) noexcept override {
    return storh::guarded("insert", [&] {
      std::unique_lock lock(store_.mutex);
      store_.records.insert_or_assign(std::string(key), fields);
    });
  }

  Status remove(std::string_view key, KvCode& code) noexcept override {
    return storh::guarded("remove", [&] {
      store_.count_operation();
      std::unique_lock lock(store_.mutex);
      const auto it = store_.records.find(key);
      code = it == store_.records.end() ? KvCode::not_found : KvCode::ok;
      if (it != store_.records.end()) store_.records.erase(it);
    });
  }

 private:
  Store& store_;
};

class MemoryStore final : public storh::KeyValueStore {
 public:
  Status open(storh::RunContext& ctx) noexcept override {
    return storh::guarded("kv_memory: open", [&]() -> Status {
      store_.corrupt_reads = ctx.bool_param("corrupt_reads");
      const std::int64_t after = ctx.int_param("crash_after");
      if (after < 0) return Status::error("crash_after must be at least 0");
      store_.crash_after = static_cast<std::uint64_t>(after);
      return {};
    });
  }
  Status open_session(std::uint32_t client,
                      std::unique_ptr<storh::KeyValueSession>& out) noexcept override {
    static_cast<void>(client);
    return storh::guarded("open_session", [&] { out = std::make_unique<Session>(store_); });
  }
  Status close() noexcept override { return {}; }

 private:
  Store store_;
};

// An Engine must describe itself and run a scenario; this one has a trivial one.
class MemoryEngine final : public storh::Engine {
 public:
  storh::EngineInfo describe() const noexcept override {
    storh::EngineInfo info;
    info.description = "example: an in-memory std::map with the key-value capability (YCSB)";
    info.params.push_back({"corrupt_reads",
                           storh::ParamType::boolean,
                           false,
                           {},
                           "every read answers a wrong value (tests)"});
    info.params.push_back({"crash_after",
                           storh::ParamType::integer,
                           std::int64_t{0},
                           {},
                           "the Nth read, scan, update or remove aborts the process; 0: never "
                           "(tests)"});
    info.operations.push_back(
        {"noop", "items", storh::Direction::lower_is_better, "does nothing (scenario runs)"});
    return info;
  }
  Status run(storh::RunContext& ctx) noexcept override {
    return ctx.measure("noop", 1, [] {});
  }
};

}  // namespace

STORH_PLUGIN(kv_memory, "1.0.0", MemoryEngine)
STORH_KEY_VALUE(MemoryStore)
