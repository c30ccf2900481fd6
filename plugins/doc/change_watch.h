// change_watch.h: the inotify side of Validation::notify. Internal to the DocStore; not
// thread-safe (owned by one instance).
//
// One inotify descriptor (IN_CLOEXEC | IN_NONBLOCK) watches data/ and each of its shard
// directories. No thread reads it: the store drains it at the start of each public call,
// so an event queued by another process's rename, write or unlink (the kernel queues it
// before that call returns) is seen by the first call that starts after it. A drain that
// finds the descriptor empty arms a ChangeBell (change_bell.h); while the bell stays
// quiet, later drains return at once without a `read`.
//
// Trust is per shard and per moment: every watch added bumps a tick, and a shard's
// since() is the tick at which its watch was added. A cache entry validated (written,
// read or stat-checked) at tick t >= since(shard) has had every later change of its file
// reported, so it needs no stat. Entries from before a watch existed need one.
//
// What a drain cannot attribute to one record name is "lost" (IN_Q_OVERFLOW, a shard
// directory removed, moved or replaced, data/ itself deleted or moved, a watch dropped by
// the kernel): the store then disarms and re-arms, which moves every since() past every
// entry, so each entry is stat-checked once more.
//
// The index folder is watched on the same descriptor: the collection directory (for
// .storh appearing or going), .storh (for indexes/), and .storh/indexes with every
// directory below it except dot names (temp files, a rebuild's .chunks/). An event on an
// index file is reported by path; one on an index directory (made, removed, moved, its
// watch dropped) is "index lost": the store re-arms the index side alone, which moves
// index_since() past every index cache entry (stat-checked once), and leaves the record
// side's trust alone. A directory made there is covered that way too: its files may
// predate its watch.
#pragma once

#include <sys/inotify.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/durable_io.h"
#include "doc/change_bell.h"
#include "doc/index_hooks.h"
#include "storh/function_ref.h"

namespace storh::engines::doc {

// Why watches could not be set: the call and its path, and the reason.
struct WatchError {
  std::string where;  // "inotify_add_watch /x/data/3f"
  std::string what;   // "No space left on device (fs.inotify.max_user_watches)"
};

struct DrainResult {
  bool lost = false;                // drop the watches and every entry's trust (see above)
  bool index_lost = false;          // re-arm the index side (rearm_indexes())
  bool unlisted = false;            // the file set may hold names the store has not seen (new
                                    // shard directory, a file or directory where none belongs)
  std::optional<WatchError> error;  // a new shard could not be watched: give up notify
};

class ChangeWatch {
 public:
  // `own_prefix` is the store's temp-file prefix "<pid>.<hex8>": renames from
  // .<own_prefix>.* are this instance's own writes.
  ChangeWatch(std::filesystem::path data_dir, std::string own_prefix);

  bool armed() const noexcept { return fd_.valid() && data_wd_ >= 0; }
  // Whether drain() would return at once: the bell is armed and has heard nothing.
  bool quiet() const noexcept { return armed() && bell_ && bell_->quiet(); }
  // Watches data/ and every directory in it, then the index folder (rearm_indexes()). Not
  // an error when data/ does not exist yet (armed() stays false).
  std::optional<WatchError> arm();
  // Closes the descriptor and forgets every watch (since() and index_since() are 0).
  void disarm() noexcept;
  // Drops the index side's watches and own-event expectations, watches the index folder
  // afresh and moves index_since() to a new tick. Events still queued on the old watches
  // are ignored (every index entry is stat-checked once instead).
  std::optional<WatchError> rearm_indexes();
  // Watches data/<shard>, which this instance just made; nothing happens before the
  // caller writes into it. Sets `had_files` when it already holds a record file
  // (another process wrote there before the watch existed).
  std::optional<WatchError> watch_made_shard(std::string_view shard, bool& had_files);

  // Reads every queued event. `changed(shard, name)` is called for each event on a
  // record file name in a shard that this instance did not cause; `index_changed(path,
  // change)` for each on an index file (absolute path) that this instance did not cause.
  DrainResult drain(FunctionRef<void(std::string_view shard, std::string_view name)> changed,
                    FunctionRef<void(std::string_view path, IndexChange change)> index_changed);

  // This instance unlinked data/<shard>/<name>: its IN_DELETE is not a foreign change.
  void expect_own_delete(std::string_view shard, std::string_view name);
  // This instance renamed a file onto `path` under the index folder (removed = false) or
  // unlinked it (true), and nothing has drained since: the first IN_MOVED_TO (IN_DELETE)
  // of that path is its own. Ignored while the index folder is not watched.
  void expect_own_index_change(const std::string& path, bool removed);

  // The tick at which the index folder was (re)watched; 0 while it is not.
  std::uint32_t index_since() const noexcept { return index_since_; }

  std::uint32_t tick() const noexcept { return tick_; }
  // The tick at which data/<shard> was watched; 0 when it is not (or the shard is not
  // two lower-case hex digits: such shards are always stat-checked).
  std::uint32_t since(std::string_view shard) const noexcept;

 private:
  // What an index-side watch is on: the collection directory and .storh matter only for
  // the one child that leads to the index folder; below it every non-dot name matters.
  enum class IndexRole { collection, storh, tree };
  struct IndexDir {
    std::string path;
    IndexRole role;
  };

  std::optional<WatchError> add(const std::string& shard, bool& added);
  // Watches `dir` with `role`, then (for the tree) every directory below it. False when
  // `dir` does not exist (a caller's watch reports it appearing).
  std::optional<WatchError> add_index_dir(const std::filesystem::path& dir, IndexRole role,
                                          bool& added);
  void handle(const inotify_event& event, DrainResult& result,
              FunctionRef<void(std::string_view, std::string_view)> changed,
              FunctionRef<void(std::string_view, IndexChange)> index_changed);
  void handle_index(const inotify_event& event, const IndexDir& dir, DrainResult& result,
                    FunctionRef<void(std::string_view, IndexChange)> index_changed);

  std::filesystem::path data_dir_;
  std::string own_temp_prefix_;  // ".<pid>.<hex8>."
  UniqueFd fd_;
  std::unique_ptr<ChangeBell> bell_;  // on fd_; null where io_uring cannot be used
  int data_wd_ = -1;
  std::unordered_map<int, std::string> shard_of_wd_;
  std::unordered_map<std::string, int> wd_of_shard_;
  std::array<std::uint32_t, 256> since_{};
  std::uint32_t tick_ = 0;
  std::vector<std::uint32_t> own_cookies_;  // IN_MOVED_FROM of our temp files
  std::vector<std::string> own_deletes_;    // "<shard>/<name>"

  std::filesystem::path collection_dir_;  // data/'s parent
  std::unordered_map<int, IndexDir> index_dirs_;
  std::uint32_t index_since_ = 0;
  std::vector<std::string> own_index_renames_;  // absolute paths
  std::vector<std::string> own_index_deletes_;
};

// Test seam: while non-zero, setting a watch fails with this errno: EMFILE fails
// inotify_init1 (the per-user instance limit), any other value inotify_add_watch (ENOSPC:
// the per-user watch limit).
void set_change_watch_fault(int error_number) noexcept;

}  // namespace storh::engines::doc
