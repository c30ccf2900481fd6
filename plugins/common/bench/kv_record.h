// kv_record.h: a key-value record (storh/key_value.h) as one stored value, and the
// session every byte-oriented engine (RocksDB, LevelDB, LMDB) answers through.
//
// The value format: for each field, its name's length and value's length as LEB128
// varints, then the name's and the value's bytes. Decoding checks every length against
// the bytes left, so a damaged value is an error, never a read past the end.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storh/key_value.h"

namespace storh::engines::bench {

// Appends `record`'s encoding to `out` (cleared first).
void encode_kv_record(const KvRecord& record, std::string& out);

// Decodes `value` into `out` (cleared first), keeping only the fields named in
// `fields` (all when empty). Returns false for a value that is not an encoding.
bool decode_kv_record(std::string_view value, const std::vector<std::string>& fields,
                      KvRecord& out);

// `stored` with the fields of `changes` replaced (or appended, for a name it lacks).
void merge_kv_fields(KvRecord& stored, const KvRecord& changes);

// The `durability` parameter of a key-value engine (kv_adapter.h): "none" (writes may
// be lost even when the process crashes), "os" (handed to the kernel: they survive a
// process crash, not a power loss) or "fsync" (synced before the call returns; the
// default).
enum class KvDurability { none, os, fsync };

// What a byte store offers; ByteStoreSession turns it into a KeyValueSession. Each call
// throws on an engine error (ByteStoreSession turns that into a Status naming the call).
class ByteStore {
 public:
  virtual ~ByteStore() = default;
  // The value of `key`, or nullopt when absent.
  virtual std::optional<std::string> get(std::string_view key) = 0;
  // Stores `value` under `key`, replacing any.
  virtual void put(std::string_view key, std::string_view value) = 0;
  // Removes `key`; false when it was absent.
  virtual bool erase(std::string_view key) = 0;
  // Calls `row(key, value)` for up to `count` entries in key order from the first key
  // >= `start`.
  virtual void scan(std::string_view start, std::size_t count,
                    const std::function<void(std::string_view, std::string_view)>& row) = 0;
};

// A KeyValueSession over a ByteStore it owns: records encoded as above; an update
// reads, merges and writes the record back (as YCSB's RocksDB binding does).
class ByteStoreSession final : public KeyValueSession {
 public:
  explicit ByteStoreSession(std::unique_ptr<ByteStore> store) : store_(std::move(store)) {}

  Status read(std::string_view key, const std::vector<std::string>& fields, KvRecord& out,
              KvCode& code) noexcept override;
  Status scan(std::string_view start_key, std::size_t count, const std::vector<std::string>& fields,
              std::vector<KvRow>& out) noexcept override;
  Status update(std::string_view key, const KvRecord& fields, KvCode& code) noexcept override;
  Status insert(std::string_view key, const KvRecord& fields) noexcept override;
  Status remove(std::string_view key, KvCode& code) noexcept override;

 private:
  std::unique_ptr<ByteStore> store_;
  std::string buffer_;  // reused encoding buffer
  KvRecord merged_;     // reused by update
};

}  // namespace storh::engines::bench
