// leveldb_store.cpp: the LevelDB byte store (leveldb_store.h).
//
// This namespace is storh::engines::leveldb, so LevelDB's own is spelled ::leveldb.
#include "leveldb/leveldb_store.h"

#include <leveldb/cache.h>
#include <leveldb/db.h>
#include <leveldb/filter_policy.h>
#include <leveldb/iterator.h>
#include <leveldb/options.h>

#include <utility>

#include "common/store_error.h"

namespace storh::engines::leveldb {

namespace {

::leveldb::Slice slice(std::string_view bytes) {
  return {bytes.data(), bytes.size()};
}

}  // namespace

struct Store::Impl {
  std::filesystem::path dir;
  // The DB uses the cache and the filter policy, which LevelDB leaves to its caller:
  // declared first, they are destroyed after it.
  std::unique_ptr<::leveldb::Cache> cache;
  std::unique_ptr<const ::leveldb::FilterPolicy> filter;
  std::unique_ptr<::leveldb::DB> db;
  ::leveldb::WriteOptions write;
  ::leveldb::ReadOptions read;

  [[noreturn]] void fail(std::string_view operation, const ::leveldb::Status& status) const {
    throw StoreError("leveldb " + std::string(operation) + " " + dir.string() + ": " +
                     status.ToString());
  }
};

Store::Store(std::filesystem::path dir, const Options& options) : impl_(std::make_unique<Impl>()) {
  impl_->dir = std::move(dir);
  impl_->write.sync = options.sync;
  impl_->cache.reset(::leveldb::NewLRUCache(options.cache_size));
  if (options.bloom_bits > 0)
    impl_->filter.reset(::leveldb::NewBloomFilterPolicy(options.bloom_bits));

  ::leveldb::Options open;
  open.create_if_missing = true;
  open.block_cache = impl_->cache.get();
  open.filter_policy = impl_->filter.get();
  open.write_buffer_size = options.write_buffer_size;
  open.compression = options.compression == Compression::snappy ? ::leveldb::kSnappyCompression
                                                                : ::leveldb::kNoCompression;

  std::error_code ec;
  std::filesystem::create_directories(impl_->dir, ec);
  if (ec) throw StoreError("leveldb open " + impl_->dir.string() + ": " + ec.message());
  ::leveldb::DB* db = nullptr;
  const ::leveldb::Status status = ::leveldb::DB::Open(open, impl_->dir.string(), &db);
  if (!status.ok()) impl_->fail("open", status);
  impl_->db.reset(db);
}

Store::~Store() {
  close();
}

bool Store::get(std::string_view key, std::string& value) const {
  const ::leveldb::Status status = impl_->db->Get(impl_->read, slice(key), &value);
  if (status.IsNotFound()) return false;
  if (!status.ok()) impl_->fail("get", status);
  return true;
}

std::optional<std::string> Store::get(std::string_view key) const {
  std::string value;
  if (!get(key, value)) return std::nullopt;
  return value;
}

void Store::put(std::string_view key, std::string_view value) {
  const ::leveldb::Status status = impl_->db->Put(impl_->write, slice(key), slice(value));
  if (!status.ok()) impl_->fail("put", status);
}

bool Store::erase(std::string_view key) {
  // LevelDB's Delete succeeds whether or not the key exists; the get tells.
  std::string existing;
  if (!get(key, existing)) return false;
  const ::leveldb::Status status = impl_->db->Delete(impl_->write, slice(key));
  if (!status.ok()) impl_->fail("erase", status);
  return true;
}

void Store::scan(std::string_view start, std::size_t count, const ScanRow& row) const {
  const std::unique_ptr<::leveldb::Iterator> it(impl_->db->NewIterator(impl_->read));
  const ::leveldb::Status status = scan_ordered(*it, slice(start), count, row);
  if (!status.ok()) impl_->fail("scan", status);
}

// LevelDB has no Close that reports: deleting the DB waits for its compaction and
// releases the directory's LOCK.
void Store::close() noexcept {
  impl_->db.reset();
}

const std::filesystem::path& Store::dir() const noexcept {
  return impl_->dir;
}

}  // namespace storh::engines::leveldb
