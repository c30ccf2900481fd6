// The doc engine's key-value capability (storh/key_value.h), so YCSB's workloads run on
// storh's document store, and the reading of the `durability` its scenario shares
// (doc_params.h).
//
// A record is one document in the collection "ycsb" under <work>/doc:
//   {"key": "<the key>", "fields": {"field0": "<value>", ...}}
// with the fields in the host's order. Its id is a UUIDv7 made from the key's xxh128
// (the version and variant bits set, 122 bits of the hash), since the store takes
// UUIDv7 ids only; every answer checks the document's "key", so two keys that share an
// id would be an error, never a wrong answer.
//
// Scans run in key order through the store's own range index on "key", built at open:
// where key >= start, order by key, limit count (DocQuery). While the index's delta file
// exists (every insert since the index was built, so in a YCSB run every record: it is
// built on the empty store) the planner cannot read the index in order: it takes every
// id from the base and the delta whose key is >= start, loads and re-checks those
// records and sorts them, so a scan costs on the order of the records past its start
// key, not of its length (docs/ycsb.md).
//
// Sessions: the doc store is one thread per instance, and instances (threads or
// processes) share a collection through its write lock; each session opens its own
// DocStore on the collection, with the cell's durability and validation. A session
// sees another's writes through the store's cache validation (stat by default).
#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/durable_io.h"
#include "common/hashes.h"
#include "common/store_error.h"
#include "doc/bench/doc_params.h"
#include "doc/doc_store.h"
#include "doc/index_manager.h"
#include "doc/query.h"
#include "storh/key_value.h"

namespace storh::engines::doc {

Sync durability(const bench::Lookup& param) {
  const std::string name = bench::text(param, kDurability);
  if (name == "durable" || name == "fsync") return Sync::durable;
  if (name == "none" || name == "os") return Sync::none;
  throw StoreError("durability \"" + name + "\" (valid: durable, none, os, fsync)");
}

namespace {

constexpr std::string_view kCollection = "ycsb";

// The record id of `key`: its xxh128 as a UUIDv7 (version 7, variant 10).
std::string doc_kv_id(std::string_view key) {
  std::string hex = xxh128_hex(key);
  hex[12] = '7';
  static constexpr std::string_view kHex = "0123456789abcdef";
  hex[16] = kHex[8 + (kHex.find(hex[16]) & 3)];
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20);
}

// The "fields" object of a document stored under `key`; throws StoreError for a
// document that is not one of this store's records, or another key's.
const Json& doc_kv_fields(std::string_view key, const Json& data) {
  const auto stored = data.find("key");
  const auto fields = data.find("fields");
  if (!data.is_object() || stored == data.end() || !stored->is_string() || fields == data.end() ||
      !fields->is_object()) {
    throw StoreError("the document of " + std::string(key) + " is not a record");
  }
  if (stored->get_ref<const std::string&>() != key) {
    throw StoreError("keys " + std::string(key) + " and " + stored->get_ref<const std::string&>() +
                     " share the id " + doc_kv_id(key));
  }
  return *fields;
}

// `fields` (a record's "fields") as a KvRecord: only the names in `asked` (all when
// empty), in the stored order.
void doc_kv_project(std::string_view key, const Json& fields, const std::vector<std::string>& asked,
                    KvRecord& out) {
  out.clear();
  for (const auto& [name, value] : fields.items()) {
    if (!asked.empty() && std::find(asked.begin(), asked.end(), name) == asked.end()) continue;
    if (!value.is_string()) {
      throw StoreError("field " + name + " of " + std::string(key) + " is not a record's string");
    }
    out.push_back({name, value.get<std::string>()});
  }
}

class DocKvSession final : public KeyValueSession {
 public:
  DocKvSession(const std::filesystem::path& root, const DocStoreOptions& options)
      : store_(root, std::string(kCollection), options) {}

  Status read(std::string_view key, const std::vector<std::string>& fields, KvRecord& out,
              KvCode& code) noexcept override {
    return guarded("doc read", [&] {
      const SharedJson data = store_.find(doc_kv_id(key));
      code = data ? KvCode::ok : KvCode::not_found;
      out.clear();
      if (data) doc_kv_project(key, doc_kv_fields(key, *data), fields, out);
    });
  }

  Status scan(std::string_view start_key, std::size_t count, const std::vector<std::string>& fields,
              std::vector<KvRow>& out) noexcept override {
    return guarded("doc scan", [&] {
      out.clear();
      if (count == 0) return;
      const std::vector<SharedRecord> records = DocQuery(store_)
                                                    .where("key")
                                                    .gte(Json(std::string(start_key)))
                                                    .order_by("key")
                                                    .limit(static_cast<std::int64_t>(count))
                                                    .get_shared();
      for (const SharedRecord& record : records) {
        const auto key = record.data->find("key");
        if (key == record.data->end() || !key->is_string()) {
          throw StoreError("the document " + record.id + " is not a record");
        }
        KvRow& row = out.emplace_back();
        row.key = key->get<std::string>();
        doc_kv_project(row.key, doc_kv_fields(row.key, *record.data), fields, row.fields);
      }
    });
  }

  Status update(std::string_view key, const KvRecord& fields, KvCode& code) noexcept override {
    return guarded("doc update", [&] {
      const std::string id = doc_kv_id(key);
      const SharedJson data = store_.find(id);
      code = data ? KvCode::ok : KvCode::not_found;
      if (!data) return;
      static_cast<void>(doc_kv_fields(key, *data));
      Json changed = *data;
      for (const KvField& field : fields) changed["fields"][field.name] = field.value;
      store_.put(std::move(changed), id);
    });
  }

  Status insert(std::string_view key, const KvRecord& fields) noexcept override {
    return guarded("doc insert", [&] {
      Json data = {{"key", std::string(key)}, {"fields", Json::object()}};
      for (const KvField& field : fields) data["fields"][field.name] = field.value;
      store_.put(std::move(data), doc_kv_id(key));
    });
  }

  Status remove(std::string_view key, KvCode& code) noexcept override {
    return guarded("doc remove", [&]() -> Status {
      const std::string id = doc_kv_id(key);
      const SharedJson data = store_.find(id);
      code = data ? KvCode::ok : KvCode::not_found;
      if (!data) return {};
      static_cast<void>(doc_kv_fields(key, *data));
      store_.remove(id);
      // The store does not sync an unlink (as storh); the key-value contract wants a
      // remove durable at fsync.
      if (store_.sync() == Sync::durable &&
          !sync_directory(store_.record_path(id).parent_path(), Sync::durable)) {
        return Status::error("fsync of the directory of " + std::string(key) + " failed");
      }
      return {};
    });
  }

 private:
  DocStore store_;
};

class DocKeyValueStore final : public KeyValueStore {
 public:
  Status open(RunContext& ctx) noexcept override {
    return guarded("doc open", [&] {
      root_ = ctx.work_dir() / "doc";
      options_.sync = durability(ctx);
      options_.validation = validation(ctx);
      DocStore store(root_, std::string(kCollection), options_);
      index_manager(store).field("key").range().sync();
    });
  }

  Status open_session(std::uint32_t client,
                      std::unique_ptr<KeyValueSession>& out) noexcept override {
    return guarded("doc session " + std::to_string(client), [&] {
      if (root_.empty()) throw StoreError("the store is not open");
      out = std::make_unique<DocKvSession>(root_, options_);
    });
  }

  Status close() noexcept override { return {}; }

 private:
  std::filesystem::path root_;
  DocStoreOptions options_;
};

}  // namespace

}  // namespace storh::engines::doc

STORH_KEY_VALUE(storh::engines::doc::DocKeyValueStore)
