// DocStore: the store's side of Validation::notify (the inotify side is change_watch.h).
#include <fmt/format.h>

#include "common/uuid_v7.h"
#include "doc/doc_store_state.h"

namespace storh::engines::doc {

void DocStore::State::sync_watch() {
  if (!watch || scanning > 0) return;
  if (watch->armed()) {
    const DrainResult drained = watch->drain([&](std::string_view, std::string_view name) {
      // Another process changed, made or removed this record file: forget what we know
      // (the next get reads it), and the file set no longer matches the cache. The shared
      // tuple goes too: its (mtime, size) check cannot see a same-stat rewrite.
      const std::string_view id = id_of_file_name(name);
      if (id.size() == uuid_v7::kTextSize) {
        cache.erase(id);
        if (options.cache) options.cache->remove(key_for(id));
      }
      invalidate_fast();
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

void DocStore::State::fall_back(const WatchError& error) {
  if (notify_fallback.empty()) {
    notify_fallback =
        fmt::format("notify validation falls back to stat: {}: {}", error.where, error.what);
  }
  watch.reset();
  invalidate_fast();
}

}  // namespace storh::engines::doc
