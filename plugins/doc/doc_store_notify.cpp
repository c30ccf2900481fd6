// DocStore: the store's side of Validation::notify (the inotify side is change_watch.h).
#include <fmt/format.h>

#include "common/uuid_v7.h"
#include "doc/doc_store_state.h"

namespace storh::engines::doc {

void DocStore::State::sync_watch() {
  if (!watch || scanning > 0) return;
  if (watch->armed()) {
    const DrainResult drained = watch->drain(
        [&](std::string_view, std::string_view name) {
          // Another process changed, made or removed this record file: forget what we know
          // (the next get reads it), and the file set no longer matches the cache. The
          // shared tuple goes too: its (mtime, size) check cannot see a same-stat rewrite.
          const std::string_view id = id_of_file_name(name);
          if (id.size() == uuid_v7::kTextSize) {
            cache.erase(id);
            if (options.cache) options.cache->remove(key_for(id));
          }
          invalidate_fast();
        },
        // An index file: the index side drops what it cached for it. Records and the
        // fast path are untouched.
        [&](std::string_view path, IndexChange change) {
          if (hooks) hooks->index_changed(path, change);
        });
    if (drained.error) {
      fall_back(*drained.error);
      return;
    }
    if (drained.unlisted) invalidate_fast();
    if (drained.lost) {
      // Events were dropped or a directory went away: nothing is vouched for any more.
      // Re-arming below moves every shard's since() past every entry, so each entry is
      // stat-checked once (as STAT would) before it is trusted again. The shard
      // descriptors may name directories that left data/: reopen them by path.
      watch->disarm();
      dirs.clear();
      invalidate_fast();
    } else if (drained.index_lost) {
      // An index directory was made, removed or replaced: every index cache entry is
      // stat-checked once (index_since() moves); the records keep their trust.
      if (auto error = watch->rearm_indexes()) {
        fall_back(*error);
        return;
      }
    }
  }
  if (!watch->armed()) {
    if (auto error = watch->arm()) {
      fall_back(*error);
    } else {
      invalidate_fast();  // what happened before the watches existed is unknown
    }
  }
}

void DocStore::State::shard_made(std::string_view shard) {
  if (!watch) return;
  if (!watch->armed()) {
    // data/ was missing until this write made it: the directories are new, so checking
    // them against the cache is cheap now and spares the first scan its walk.
    if (auto error = watch->arm()) {
      fall_back(*error);
      return;
    }
    const bool matches =
        watch->armed() && cache.complete() && cache_matches_disk(data_dir, cache, false);
    fast_ok = false;
    fast_held = matches;  // restored by end_own_write
    return;
  }
  bool had_files = false;
  if (auto error = watch->watch_made_shard(shard, had_files)) {
    fall_back(*error);
    return;
  }
  // Another process wrote into it between our mkdir and the watch.
  if (had_files) invalidate_fast();
}

void DocStore::drain_changes() {
  state_->sync_watch();
}

IndexWatchTicks DocStore::index_watch() const noexcept {
  const std::optional<ChangeWatch>& watch = state_->watch;
  if (!watch || !watch->armed()) return {};
  return {watch->index_since(), watch->tick()};
}

void DocStore::own_index_change(const std::string& path, bool removed) {
  if (state_->watch) state_->watch->expect_own_index_change(path, removed);
}

void DocStore::State::fall_back(const WatchError& error) {
  if (notify_fallback.empty()) {
    notify_fallback =
        fmt::format("notify validation falls back to stat: {}: {}", error.where, error.what);
  }
  watch.reset();
  invalidate_fast();
}

}  // namespace storh::engines::doc
