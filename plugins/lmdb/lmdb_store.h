// lmdb_store.h: a byte key-value store over LMDB (liblmdb 0.9): one environment in a
// directory (data.mdb, lock.mdb), one unnamed database, keys ordered bytewise.
//
// Durability is LMDB's own flags (LmdbOptions): by default every commit is synced
// before it returns; `sync = false` (MDB_NOSYNC) leaves commits in the OS's page cache
// (they survive a process crash, not a power loss); `write_map` + `map_async` also
// write through a writable map flushed asynchronously.
//
// Threading: LmdbStore is thread-safe. Its get/put/erase/scan each run in their own
// transaction. For speed or write batching, give each thread an LmdbHandle (handle()):
// it keeps its read transaction between calls (MDB_NOTLS ties it to the handle, not
// the thread) and may batch writes. LMDB has one writer at a time: write transactions
// of concurrent handles serialize, and a handle holding a batch open makes other
// writers wait until it commits.
//
// Failure: every call throws StoreError "lmdb <operation> <directory>: <LMDB's text>".
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

struct MDB_env;
struct MDB_txn;

namespace storh::engines::lmdb {

struct LmdbOptions {
  // The largest the data file may grow to, in bytes (MDB_MAP_FULL past it). Address
  // space, not memory: pages are mapped, and touched only when used.
  std::size_t map_size = std::size_t{1} << 30;
  // A handle's writes per write transaction: 1 commits every put and erase; N > 1
  // commits at every Nth write and at LmdbHandle::commit(). A write is not durable (nor
  // visible to other handles) until its commit.
  std::uint32_t writes_per_transaction = 1;
  // false: MDB_NOSYNC, commits are not synced (left to the OS).
  bool sync = true;
  // false: MDB_NOMETASYNC, the meta page is not synced at commit.
  bool meta_sync = true;
  // MDB_WRITEMAP: writes go through a writable memory map.
  bool write_map = false;
  // MDB_MAPASYNC (with write_map): flush the map asynchronously when syncing.
  bool map_async = false;
};

using ScanRow = std::function<void(std::string_view key, std::string_view value)>;

class LmdbStore;

// One thread's access to the store; use it from one thread at a time, and commit or
// destroy it on the thread that wrote: LMDB's write lock belongs to the thread that
// took it. Must be destroyed before its store.
class LmdbHandle {
 public:
  LmdbHandle(LmdbHandle&& other) noexcept;
  LmdbHandle& operator=(LmdbHandle&&) = delete;
  LmdbHandle(const LmdbHandle&) = delete;
  LmdbHandle& operator=(const LmdbHandle&) = delete;
  // Rolls back writes not yet committed: call commit() to keep them.
  ~LmdbHandle();

  // The value of `key`, or nullopt. Sees this handle's uncommitted writes.
  std::optional<std::string> get(std::string_view key);
  // Stores `value` under `key`, replacing any. A failed write rolls back the whole
  // open batch (LMDB cannot continue a failed transaction); the message says how many
  // writes were lost.
  void put(std::string_view key, std::string_view value);
  // Removes `key`; false when it was absent (which writes nothing).
  bool erase(std::string_view key);
  // Calls `row` for up to `count` entries in key order from the first key >= `start`.
  // The views are valid during the call only. Sees this handle's uncommitted writes.
  void scan(std::string_view start, std::size_t count, const ScanRow& row);
  // Commits the open batch, if any.
  void commit();
  // Waits until no other handle holds a batch open: takes LMDB's write lock, which such a
  // handle keeps until its commit, and drops it at once. The next read then sees every
  // write another handle's put has returned from. A no-op while this handle holds a
  // batch (it has the lock, so no other handle has uncommitted writes).
  void wait_for_writers();
  // Writes made and not yet committed.
  std::uint32_t pending() const noexcept { return pending_; }

 private:
  friend class LmdbStore;
  LmdbHandle(const LmdbStore& store, std::uint32_t writes_per_transaction) noexcept;
  MDB_txn* write_txn();      // the open batch, begun if none
  MDB_txn* read_txn();       // the batch if open, else the renewed read transaction
  void end_read() noexcept;  // resets the read transaction (releases its snapshot)
  void after_write();        // counts a write, commits at the batch size
  [[noreturn]] void fail_write(std::string_view operation, int rc);

  const LmdbStore* store_;
  std::uint32_t batch_;
  std::uint32_t pending_ = 0;
  MDB_txn* write_ = nullptr;
  MDB_txn* read_ = nullptr;
  bool read_active_ = false;
};

class LmdbStore {
 public:
  // Opens (creating) the environment in `directory`, made if missing. Throws
  // StoreError naming the directory.
  LmdbStore(std::filesystem::path directory, LmdbOptions options);
  // Closes without reporting errors; call close() to see them.
  ~LmdbStore();
  LmdbStore(const LmdbStore&) = delete;
  LmdbStore& operator=(const LmdbStore&) = delete;

  // A handle batching options().writes_per_transaction writes (or `writes` when given).
  LmdbHandle handle() const;
  LmdbHandle handle(std::uint32_t writes) const;

  // One transaction each (committed before put and erase return), from any thread.
  std::optional<std::string> get(std::string_view key) const;
  void put(std::string_view key, std::string_view value);
  bool erase(std::string_view key);
  void scan(std::string_view start, std::size_t count, const ScanRow& row) const;

  // Syncs everything committed to disk (whatever `sync` says) and closes the
  // environment. Every handle must be gone. Idempotent.
  void close();

  const std::filesystem::path& directory() const noexcept { return directory_; }
  const LmdbOptions& options() const noexcept { return options_; }

 private:
  friend class LmdbHandle;
  [[noreturn]] void fail(std::string_view operation, int rc) const;

  std::filesystem::path directory_;
  LmdbOptions options_;
  MDB_env* env_ = nullptr;
  unsigned int dbi_ = 0;
};

}  // namespace storh::engines::lmdb
