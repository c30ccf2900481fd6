// lmdb_store.cpp: LmdbStore and LmdbHandle over the LMDB C API (lmdb_store.h).
#include "lmdb/lmdb_store.h"

#include <lmdb.h>

#include <string>
#include <utility>

#include "common/store_error.h"

namespace storh::engines::lmdb {

namespace {

// Reader slots in the lock file: one per handle with a read transaction, and the host
// may run many client threads. 64 bytes each.
constexpr unsigned int kMaxReaders = 1024;

MDB_val to_val(std::string_view bytes) {
  // LMDB never writes through a key or a value it is given to store.
  return MDB_val{bytes.size(), const_cast<char*>(bytes.data())};
}

std::string_view to_view(const MDB_val& val) {
  return {static_cast<const char*>(val.mv_data), val.mv_size};
}

// Closes a cursor however the scan ends (the row callback may throw).
struct CursorGuard {
  MDB_cursor* cursor = nullptr;
  ~CursorGuard() {
    if (cursor != nullptr) mdb_cursor_close(cursor);
  }
};

}  // namespace

LmdbStore::LmdbStore(std::filesystem::path directory, LmdbOptions options)
    : directory_(std::move(directory)), options_(options) {
  std::error_code ec;
  std::filesystem::create_directories(directory_, ec);
  if (ec) throw StoreError("lmdb open " + directory_.string() + ": " + ec.message());
  if (options_.writes_per_transaction == 0) options_.writes_per_transaction = 1;

  int rc = mdb_env_create(&env_);
  if (rc != MDB_SUCCESS) fail("env_create", rc);
  unsigned int flags = MDB_NOTLS;
  if (!options_.sync) flags |= MDB_NOSYNC;
  if (!options_.meta_sync) flags |= MDB_NOMETASYNC;
  if (options_.write_map) flags |= MDB_WRITEMAP;
  if (options_.map_async) flags |= MDB_MAPASYNC;
  if ((rc = mdb_env_set_mapsize(env_, options_.map_size)) != MDB_SUCCESS ||
      (rc = mdb_env_set_maxreaders(env_, kMaxReaders)) != MDB_SUCCESS ||
      (rc = mdb_env_open(env_, directory_.c_str(), flags, 0644)) != MDB_SUCCESS) {
    mdb_env_close(env_);
    env_ = nullptr;
    fail("open", rc);
  }

  // The database handle is opened once, in a committed transaction, and then shared by
  // every transaction of the environment.
  MDB_txn* txn = nullptr;
  if ((rc = mdb_txn_begin(env_, nullptr, 0, &txn)) == MDB_SUCCESS) {
    if ((rc = mdb_dbi_open(txn, nullptr, MDB_CREATE, &dbi_)) == MDB_SUCCESS) {
      rc = mdb_txn_commit(txn);
    } else {
      mdb_txn_abort(txn);
    }
  }
  if (rc != MDB_SUCCESS) {
    mdb_env_close(env_);
    env_ = nullptr;
    fail("open database", rc);
  }
}

LmdbStore::~LmdbStore() {
  if (env_ != nullptr) mdb_env_close(env_);
}

void LmdbStore::close() {
  if (env_ == nullptr) return;
  const int rc = mdb_env_sync(env_, 1);
  mdb_env_close(env_);
  env_ = nullptr;
  if (rc != MDB_SUCCESS) fail("sync", rc);
}

LmdbHandle LmdbStore::handle() const {
  return handle(options_.writes_per_transaction);
}

LmdbHandle LmdbStore::handle(std::uint32_t writes) const {
  if (env_ == nullptr) throw StoreError("lmdb handle " + directory_.string() + ": store is closed");
  return LmdbHandle(*this, writes == 0 ? 1 : writes);
}

std::optional<std::string> LmdbStore::get(std::string_view key) const {
  return handle(1).get(key);
}

void LmdbStore::put(std::string_view key, std::string_view value) {
  handle(1).put(key, value);
}

bool LmdbStore::erase(std::string_view key) {
  return handle(1).erase(key);
}

void LmdbStore::scan(std::string_view start, std::size_t count, const ScanRow& row) const {
  handle(1).scan(start, count, row);
}

void LmdbStore::fail(std::string_view operation, int rc) const {
  throw StoreError("lmdb " + std::string(operation) + " " + directory_.string() + ": " +
                   mdb_strerror(rc));
}

LmdbHandle::LmdbHandle(const LmdbStore& store, std::uint32_t writes_per_transaction) noexcept
    : store_(&store), batch_(writes_per_transaction) {}

LmdbHandle::LmdbHandle(LmdbHandle&& other) noexcept
    : store_(other.store_),
      batch_(other.batch_),
      pending_(std::exchange(other.pending_, 0)),
      write_(std::exchange(other.write_, nullptr)),
      read_(std::exchange(other.read_, nullptr)),
      read_active_(std::exchange(other.read_active_, false)) {}

LmdbHandle::~LmdbHandle() {
  if (write_ != nullptr) mdb_txn_abort(write_);
  if (read_ != nullptr) mdb_txn_abort(read_);
}

MDB_txn* LmdbHandle::write_txn() {
  if (write_ == nullptr) {
    // A reader's snapshot is not needed while this handle writes: its reads go
    // through the write transaction.
    end_read();
    const int rc = mdb_txn_begin(store_->env_, nullptr, 0, &write_);
    if (rc != MDB_SUCCESS) {
      write_ = nullptr;
      store_->fail("begin write", rc);
    }
  }
  return write_;
}

MDB_txn* LmdbHandle::read_txn() {
  if (write_ != nullptr) return write_;
  if (read_active_) return read_;
  // Reset rather than aborted after each read: renewing keeps the reader slot, so a
  // read costs no slot search and no allocation.
  const int rc = read_ == nullptr ? mdb_txn_begin(store_->env_, nullptr, MDB_RDONLY, &read_)
                                  : mdb_txn_renew(read_);
  if (rc != MDB_SUCCESS) store_->fail("begin read", rc);
  read_active_ = true;
  return read_;
}

void LmdbHandle::end_read() noexcept {
  if (read_active_) mdb_txn_reset(read_);
  read_active_ = false;
}

std::optional<std::string> LmdbHandle::get(std::string_view key) {
  MDB_txn* txn = read_txn();
  MDB_val k = to_val(key);
  MDB_val v;
  const int rc = mdb_get(txn, store_->dbi_, &k, &v);
  std::optional<std::string> value;
  if (rc == MDB_SUCCESS) value.emplace(to_view(v));
  if (txn != write_) end_read();
  if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND) store_->fail("get", rc);
  return value;
}

void LmdbHandle::put(std::string_view key, std::string_view value) {
  MDB_txn* txn = write_txn();
  MDB_val k = to_val(key);
  MDB_val v = to_val(value);
  const int rc = mdb_put(txn, store_->dbi_, &k, &v, 0);
  if (rc != MDB_SUCCESS) fail_write("put", rc);
  after_write();
}

bool LmdbHandle::erase(std::string_view key) {
  MDB_txn* txn = write_txn();
  MDB_val k = to_val(key);
  const int rc = mdb_del(txn, store_->dbi_, &k, nullptr);
  if (rc == MDB_NOTFOUND) {
    // Nothing written: do not hold the write lock for an empty transaction.
    if (pending_ == 0) {
      mdb_txn_abort(write_);
      write_ = nullptr;
    }
    return false;
  }
  if (rc != MDB_SUCCESS) fail_write("erase", rc);
  after_write();
  return true;
}

void LmdbHandle::scan(std::string_view start, std::size_t count, const ScanRow& row) {
  if (count == 0) return;
  MDB_txn* txn = read_txn();
  struct ReadEnd {
    LmdbHandle* handle;
    bool reading;
    ~ReadEnd() {
      if (reading) handle->end_read();
    }
  } read_end{this, txn != write_};
  CursorGuard guard;
  int rc = mdb_cursor_open(txn, store_->dbi_, &guard.cursor);
  if (rc != MDB_SUCCESS) {
    guard.cursor = nullptr;
    store_->fail("scan", rc);
  }
  MDB_val k = to_val(start);
  MDB_val v;
  // LMDB has no empty key, and MDB_SET_RANGE refuses one: start at the first key.
  rc = mdb_cursor_get(guard.cursor, &k, &v, start.empty() ? MDB_FIRST : MDB_SET_RANGE);
  for (std::size_t seen = 0; rc == MDB_SUCCESS && seen < count; ++seen) {
    row(to_view(k), to_view(v));
    if (seen + 1 < count) rc = mdb_cursor_get(guard.cursor, &k, &v, MDB_NEXT);
  }
  if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND) store_->fail("scan", rc);
}

void LmdbHandle::commit() {
  if (write_ == nullptr) return;
  // mdb_txn_commit frees the transaction whether or not it succeeds.
  const int rc = mdb_txn_commit(std::exchange(write_, nullptr));
  const std::uint32_t lost = std::exchange(pending_, 0);
  if (rc != MDB_SUCCESS) {
    throw StoreError("lmdb commit " + store_->directory_.string() + ": " + mdb_strerror(rc) + " (" +
                     std::to_string(lost) + " writes lost)");
  }
}

void LmdbHandle::wait_for_writers() {
  if (write_ != nullptr) return;
  end_read();
  MDB_txn* txn = nullptr;
  const int rc = mdb_txn_begin(store_->env_, nullptr, 0, &txn);
  if (rc != MDB_SUCCESS) store_->fail("begin write", rc);
  mdb_txn_abort(txn);
}

void LmdbHandle::after_write() {
  if (++pending_ >= batch_) commit();
}

void LmdbHandle::fail_write(std::string_view operation, int rc) {
  // A failed write leaves the transaction unusable (MDB_TXN_ERROR): only abort is left.
  mdb_txn_abort(std::exchange(write_, nullptr));
  const std::uint32_t lost = std::exchange(pending_, 0);
  std::string message = "lmdb " + std::string(operation) + " " + store_->directory_.string() +
                        ": " + mdb_strerror(rc);
  if (lost > 0) message += " (the batch's " + std::to_string(lost) + " uncommitted writes lost)";
  throw StoreError(message);
}

}  // namespace storh::engines::lmdb
