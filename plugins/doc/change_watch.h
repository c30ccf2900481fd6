// change_watch.h: the inotify side of Validation::notify. Internal to the DocStore; not
// thread-safe (owned by one instance).
//
// One inotify descriptor (IN_CLOEXEC | IN_NONBLOCK) watches data/ and each of its shard
// directories. No thread reads it: the store drains it at the start of each public call,
// so an event queued by another process's rename, write or unlink (the kernel queues it
// before that call returns) is seen by the first call that starts after it.
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
#pragma once

#include <sys/inotify.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/durable_io.h"
#include "storh/function_ref.h"

namespace storh::engines::doc {

// Why watches could not be set: the call and its path, and the reason.
struct WatchError {
  std::string where;  // "inotify_add_watch /x/data/3f"
  std::string what;   // "No space left on device (fs.inotify.max_user_watches)"
};

struct DrainResult {
  bool lost = false;                // drop the watches and every entry's trust (see above)
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
  // Watches data/ and every directory in it. Not an error when data/ does not exist yet
  // (armed() stays false).
  std::optional<WatchError> arm();
  // Closes the descriptor and forgets every watch (since() is 0 everywhere).
  void disarm() noexcept;
  // Watches data/<shard>, which this instance just made; nothing happens before the
  // caller writes into it. Sets `had_files` when it already holds a record file
  // (another process wrote there before the watch existed).
  std::optional<WatchError> watch_made_shard(std::string_view shard, bool& had_files);

  // Reads every queued event. `changed(shard, name)` is called for each event on a
  // record file name in a shard that this instance did not cause.
  DrainResult drain(FunctionRef<void(std::string_view shard, std::string_view name)> changed);

  // This instance unlinked data/<shard>/<name>: its IN_DELETE is not a foreign change.
  void expect_own_delete(std::string_view shard, std::string_view name);

  std::uint32_t tick() const noexcept { return tick_; }
  // The tick at which data/<shard> was watched; 0 when it is not (or the shard is not
  // two lower-case hex digits: such shards are always stat-checked).
  std::uint32_t since(std::string_view shard) const noexcept;

 private:
  std::optional<WatchError> add(const std::string& shard, bool& added);
  void handle(const inotify_event& event, DrainResult& result,
              FunctionRef<void(std::string_view, std::string_view)> changed);

  std::filesystem::path data_dir_;
  std::string own_temp_prefix_;  // ".<pid>.<hex8>."
  UniqueFd fd_;
  int data_wd_ = -1;
  std::unordered_map<int, std::string> shard_of_wd_;
  std::unordered_map<std::string, int> wd_of_shard_;
  std::array<std::uint32_t, 256> since_{};
  std::uint32_t tick_ = 0;
  std::vector<std::uint32_t> own_cookies_;  // IN_MOVED_FROM of our temp files
  std::vector<std::string> own_deletes_;    // "<shard>/<name>"
};

// Test seam: while non-zero, setting a watch fails with this errno: EMFILE fails
// inotify_init1 (the per-user instance limit), any other value inotify_add_watch (ENOSPC:
// the per-user watch limit).
void set_change_watch_fault(int error_number) noexcept;

}  // namespace storh::engines::doc
