#include "doc/change_watch.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "doc/record_file.h"
#include "doc/record_writer.h"

namespace storh::engines::doc {
namespace fs = std::filesystem;
namespace {

// Every change of a name (create, delete, both halves of a rename), of a file's bytes
// (a write without close too), of its attributes (touch), and of the directory itself.
constexpr std::uint32_t kMask = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
                                IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB | IN_DELETE_SELF |
                                IN_MOVE_SELF | IN_ONLYDIR;
constexpr std::uint32_t kLost =
    IN_Q_OVERFLOW | IN_IGNORED | IN_UNMOUNT | IN_DELETE_SELF | IN_MOVE_SELF;
// The own-event lists stay short (a drain runs at the start of every call); past this
// they are dropped, which only makes later own events look foreign (slower, not wrong).
constexpr std::size_t kOwnLimit = 4096;

int g_fault = 0;

std::string reason(int err) {
  std::string text = std::strerror(err);
  if (err == ENOSPC) text += " (fs.inotify.max_user_watches)";
  if (err == EMFILE) text += " (fs.inotify.max_user_instances)";
  return text;
}

// The names in `dir` (without . and ..) with whether each is a directory. Empty when
// `dir` cannot be read.
std::vector<std::pair<std::string, bool>> list_names(const fs::path& dir) {
  std::vector<std::pair<std::string, bool>> names;
  DIR* handle = ::opendir(dir.c_str());
  if (handle == nullptr) return names;
  while (const dirent* entry = ::readdir(handle)) {
    const std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    bool is_dir = entry->d_type == DT_DIR;
    if (entry->d_type == DT_UNKNOWN) {
      struct stat info {};
      is_dir = ::fstatat(::dirfd(handle), entry->d_name, &info, AT_SYMLINK_NOFOLLOW) == 0 &&
               S_ISDIR(info.st_mode);
    }
    names.emplace_back(std::string(name), is_dir);
  }
  ::closedir(handle);
  return names;
}

// Removes `key` from `owned` if it is there: whether it was (an own event, consumed).
bool take_own(std::vector<std::string>& owned, const std::string& key) {
  const auto own = std::find(owned.begin(), owned.end(), key);
  if (own == owned.end()) return false;
  owned.erase(own);
  return true;
}

void push_own(std::vector<std::string>& owned, std::string key) {
  if (owned.size() >= kOwnLimit) owned.clear();
  owned.push_back(std::move(key));
}

}  // namespace

void set_change_watch_fault(int error_number) noexcept {
  g_fault = error_number;
}

ChangeWatch::ChangeWatch(fs::path data_dir, std::string own_prefix)
    : data_dir_(std::move(data_dir)),
      own_temp_prefix_("." + std::move(own_prefix) + "."),
      collection_dir_(data_dir_.parent_path()) {}

std::uint32_t ChangeWatch::since(std::string_view shard) const noexcept {
  const std::optional<std::size_t> hex = ShardDirs::hex_index(shard);
  return hex ? since_[*hex] : 0;
}

std::optional<WatchError> ChangeWatch::arm() {
  if (!fd_.valid()) {
    const int fd =
        g_fault == EMFILE ? (errno = g_fault, -1) : ::inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    if (fd < 0) return WatchError{"inotify_init1", reason(errno)};
    fd_ = UniqueFd(fd);
    bell_ = std::make_unique<ChangeBell>(fd);
    if (!bell_->usable()) bell_.reset();
  }
  const int wd = g_fault != 0 ? (errno = g_fault, -1)
                              : ::inotify_add_watch(fd_.get(), data_dir_.c_str(), kMask);
  if (wd < 0) {
    if (errno == ENOENT) return std::nullopt;  // no data/ yet: armed on a later call
    return WatchError{"inotify_add_watch " + data_dir_.string(), reason(errno)};
  }
  data_wd_ = wd;
  // data/ is watched first, so a shard made or removed while the others are added is
  // reported by the next drain.
  for (const auto& [name, is_dir] : list_names(data_dir_)) {
    if (!is_dir) continue;
    bool added = false;
    if (auto error = add(name, added)) {
      disarm();
      return error;
    }
  }
  if (auto error = rearm_indexes()) {
    disarm();
    return error;
  }
  return std::nullopt;
}

void ChangeWatch::disarm() noexcept {
  bell_.reset();  // before the descriptor its poll refers to
  fd_ = UniqueFd();
  data_wd_ = -1;
  shard_of_wd_.clear();
  wd_of_shard_.clear();
  since_.fill(0);
  own_cookies_.clear();
  own_deletes_.clear();
  index_dirs_.clear();
  index_since_ = 0;
  own_index_renames_.clear();
  own_index_deletes_.clear();
}

std::optional<WatchError> ChangeWatch::rearm_indexes() {
  for (const auto& [wd, dir] : index_dirs_) ::inotify_rm_watch(fd_.get(), wd);
  index_dirs_.clear();
  index_since_ = 0;
  own_index_renames_.clear();
  own_index_deletes_.clear();
  if (!fd_.valid()) return std::nullopt;
  // Outermost first, so a directory made or removed while the inner ones are added is
  // reported by the next drain.
  bool watched = false;
  if (auto error = add_index_dir(collection_dir_, IndexRole::collection, watched)) return error;
  if (!watched) return std::nullopt;  // no collection directory: nothing is vouched for
  const fs::path storh = collection_dir_ / ".storh";
  if (auto error = add_index_dir(storh, IndexRole::storh, watched)) return error;
  if (auto error = add_index_dir(storh / "indexes", IndexRole::tree, watched)) return error;
  // A missing .storh or indexes/ is fine: its parent's watch reports it appearing.
  index_since_ = ++tick_;
  return std::nullopt;
}

std::optional<WatchError> ChangeWatch::add_index_dir(const fs::path& dir, IndexRole role,
                                                     bool& added) {
  added = false;
  const int wd =
      g_fault != 0 ? (errno = g_fault, -1) : ::inotify_add_watch(fd_.get(), dir.c_str(), kMask);
  if (wd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::nullopt;
    return WatchError{"inotify_add_watch " + dir.string(), reason(errno)};
  }
  index_dirs_[wd] = IndexDir{dir.string(), role};
  added = true;
  if (role != IndexRole::tree) return std::nullopt;
  for (const auto& [name, is_dir] : list_names(dir)) {
    if (!is_dir || name.starts_with('.')) continue;
    bool child = false;
    if (auto error = add_index_dir(dir / name, IndexRole::tree, child)) return error;
  }
  return std::nullopt;
}

std::optional<WatchError> ChangeWatch::add(const std::string& shard, bool& added) {
  const fs::path path = data_dir_ / shard;
  const int wd =
      g_fault != 0 ? (errno = g_fault, -1) : ::inotify_add_watch(fd_.get(), path.c_str(), kMask);
  if (wd < 0) {
    // Gone again (or not a directory): data/'s watch reports its removal.
    if (errno == ENOENT || errno == ENOTDIR) return std::nullopt;
    return WatchError{"inotify_add_watch " + path.string(), reason(errno)};
  }
  if (const auto old = wd_of_shard_.find(shard); old != wd_of_shard_.end() && old->second != wd) {
    shard_of_wd_.erase(old->second);
  }
  shard_of_wd_[wd] = shard;
  wd_of_shard_[shard] = wd;
  ++tick_;
  if (const std::optional<std::size_t> hex = ShardDirs::hex_index(shard)) since_[*hex] = tick_;
  added = true;
  return std::nullopt;
}

std::optional<WatchError> ChangeWatch::watch_made_shard(std::string_view shard, bool& had_files) {
  bool added = false;
  if (auto error = add(std::string(shard), added)) return error;
  had_files = false;
  for (const auto& [name, is_dir] : list_names(data_dir_ / shard)) {
    if (is_dir || is_record_file_name(name)) had_files = true;
  }
  return std::nullopt;
}

void ChangeWatch::expect_own_delete(std::string_view shard, std::string_view name) {
  if (!armed()) return;
  std::string key(shard);
  key += '/';
  key += name;
  push_own(own_deletes_, std::move(key));
}

void ChangeWatch::expect_own_index_change(const std::string& path, bool removed) {
  if (index_since_ == 0) return;
  push_own(removed ? own_index_deletes_ : own_index_renames_, path);
}

DrainResult ChangeWatch::drain(
    FunctionRef<void(std::string_view shard, std::string_view name)> changed,
    FunctionRef<void(std::string_view path, IndexChange change)> index_changed) {
  DrainResult result;
  if (!armed()) return result;
  if (quiet()) return result;  // nothing queued since a drain found the queue empty
  if (bell_) bell_->collect();
  bool read_events = false;
  alignas(inotify_event) char buffer[32 * 1024];
  while (!result.lost && !result.error) {
    const ssize_t got = ::read(fd_.get(), buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      // EAGAIN: drained. Anything else leaves the queue unknown.
      if (got < 0 && errno != EAGAIN) result.lost = true;
      break;
    }
    read_events = true;
    for (std::size_t at = 0; at < static_cast<std::size_t>(got);) {
      const auto* event = reinterpret_cast<const inotify_event*>(buffer + at);
      handle(*event, result, changed, index_changed);
      at += sizeof(inotify_event) + event->len;
    }
  }
  // Arm the bell only on an empty queue: while events keep coming (the store's own
  // writes), a poll would complete at once and cost a ring call for nothing.
  if (bell_ && !read_events && !result.lost && !result.error) bell_->arm();
  return result;
}

void ChangeWatch::handle(const inotify_event& event, DrainResult& result,
                         FunctionRef<void(std::string_view, std::string_view)> changed,
                         FunctionRef<void(std::string_view, IndexChange)> index_changed) {
  if (result.lost || (event.mask & IN_Q_OVERFLOW) != 0) {
    result.lost = true;
    return;
  }
  const auto shard = shard_of_wd_.find(event.wd);
  if (event.wd != data_wd_ && shard == shard_of_wd_.end()) {
    if (const auto index = index_dirs_.find(event.wd); index != index_dirs_.end()) {
      handle_index(event, index->second, result, index_changed);
    }
    return;  // otherwise a watch removed since the event was queued (rearm_indexes)
  }
  if ((event.mask & kLost) != 0) {
    result.lost = true;
    return;
  }
  const std::string_view name = event.len > 0 ? std::string_view(event.name) : std::string_view();
  const bool is_dir = (event.mask & IN_ISDIR) != 0;
  if (event.wd == data_wd_) {
    if (!is_dir) {
      // A record file directly under data/: never read by a get, but a scan lists it.
      if (is_record_file_name(name)) result.unlisted = true;
    } else if ((event.mask & IN_CREATE) != 0) {
      // mkdir succeeds only on a free name, so a name already watched was made (and
      // watched) by this instance; a removal in between was reported as lost first.
      if (wd_of_shard_.contains(std::string(name))) return;
      bool added = false;
      result.error = add(std::string(name), added);
      result.unlisted = true;  // files may have landed in it before the watch
    } else if ((event.mask & (IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)) != 0) {
      result.lost = true;  // a shard removed, moved away or replaced
    }
    return;
  }
  if (is_dir) {
    result.unlisted = true;  // nothing nests below a shard: the fast path must look
    return;
  }
  // Own writes: a temp file of this instance renamed to a record name. The rename queues
  // IN_MOVED_FROM (temp name) then IN_MOVED_TO (record name) with one cookie. Another
  // process's rename carries its own temp prefix, so it is never taken for ours; the
  // cache already holds what we renamed (stamped from the temp file's fstat).
  if (name.starts_with(own_temp_prefix_)) {
    if ((event.mask & IN_MOVED_FROM) != 0) {
      if (own_cookies_.size() >= kOwnLimit) own_cookies_.clear();
      own_cookies_.push_back(event.cookie);
    }
    return;
  }
  if (!is_record_file_name(name)) return;
  if ((event.mask & IN_MOVED_TO) != 0) {
    if (const auto own = std::find(own_cookies_.begin(), own_cookies_.end(), event.cookie);
        own != own_cookies_.end()) {
      own_cookies_.erase(own);
      return;
    }
  }
  if ((event.mask & IN_DELETE) != 0 && !own_deletes_.empty()) {
    // Our unlink succeeded, so the file existed and this is the first IN_DELETE of it
    // since; a foreign delete after ours needs a foreign create first, which is reported.
    std::string key = shard->second;
    key += '/';
    key += name;
    if (take_own(own_deletes_, key)) return;
  }
  changed(shard->second, name);
}

void ChangeWatch::handle_index(const inotify_event& event, const IndexDir& dir, DrainResult& result,
                               FunctionRef<void(std::string_view, IndexChange)> index_changed) {
  constexpr std::uint32_t kNameChange = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO;
  if ((event.mask & kLost) != 0) {
    result.index_lost = true;  // the directory itself went, or its watch did
    return;
  }
  if (event.len == 0) return;  // the directory's own attributes
  const std::string_view name(event.name);
  if (dir.role != IndexRole::tree) {
    // Only the way down to the index folder matters here (not data/, writers/, the lock).
    const std::string_view way = dir.role == IndexRole::collection ? ".storh" : "indexes";
    if (name == way && (event.mask & kNameChange) != 0) result.index_lost = true;
    return;
  }
  if (name.starts_with('.')) return;  // temp files and a rebuild's .chunks/
  if ((event.mask & IN_ISDIR) != 0) {
    // Made (its files may predate its watch), removed, moved away or replaced.
    if ((event.mask & kNameChange) != 0) result.index_lost = true;
    return;
  }
  std::string path = dir.path;
  path += '/';
  path += name;
  // Own writes: the first IN_MOVED_TO (IN_DELETE) of a path this instance renamed onto
  // (unlinked) since the last drain. A foreign event on that path queued before ours and
  // taken for ours leaves ours reported instead, which drops what the cache holds.
  if ((event.mask & IN_MOVED_TO) != 0 && take_own(own_index_renames_, path)) return;
  if ((event.mask & IN_DELETE) != 0 && take_own(own_index_deletes_, path)) return;
  IndexChange change = IndexChange::content;
  if ((event.mask & (IN_CREATE | IN_MOVED_TO)) != 0) change = IndexChange::appeared;
  if ((event.mask & (IN_DELETE | IN_MOVED_FROM)) != 0) change = IndexChange::removed;
  index_changed(path, change);
}

}  // namespace storh::engines::doc
