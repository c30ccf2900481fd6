// Helpers for the DocStore tests: scratch stores, raw record files and forked processes.
#pragma once

#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "child_process.h"
#include "common/bench/bench_row.h"
#include "common/memory_cache.h"
#include "common/uuid_v7.h"
#include "doc/change_bell.h"
#include "doc/doc_store.h"
#include "doc/index_manager.h"
#include "doc/query.h"
#include "scratch_dir.h"

namespace doc_test {

namespace fs = std::filesystem;
using storh::engines::Json;
using storh::engines::Record;
using storh::engines::RecordQuery;
using storh::engines::doc::DocStore;
using storh::engines::doc::DocStoreOptions;
using storh::engines::doc::Validation;

// Whether NOTIFY's bell can work here: io_uring is set up on an inotify descriptor (not
// where the kernel is too old, a seccomp filter refuses it, or kernel.io_uring_disabled).
inline bool change_bell_available() {
  const int fd = ::inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  if (fd < 0) return false;
  const bool usable = storh::engines::doc::ChangeBell(fd).usable();
  ::close(fd);
  return usable;
}

// While alive, watches set up (a store's first call) get no bell: NOTIFY drains with
// `read` on every call, as where io_uring is missing.
struct BellDisabled {
  explicit BellDisabled(bool disabled) { storh::engines::doc::set_change_bell_disabled(disabled); }
  ~BellDisabled() { storh::engines::doc::set_change_bell_disabled(false); }
  BellDisabled(const BellDisabled&) = delete;
  BellDisabled& operator=(const BellDisabled&) = delete;
};

inline DocStoreOptions with_mode(Validation mode) {
  DocStoreOptions options;
  options.validation = mode;
  return options;
}

// An id whose shard (characters 24..25) is `shard`.
inline std::string id_in_shard(const std::string& shard, int n) {
  char text[64];
  std::snprintf(text, sizeof text, "018bcfe5-6800-7000-8000-%s%010x", shard.c_str(), n);
  return text;
}

inline fs::path record_file(const fs::path& root, const std::string& collection,
                            const std::string& id) {
  return root / collection / "data" / id.substr(24, 2) / (id + ".jsonc");
}

// Every file under `dir` whose name ends with .tmp.
inline std::vector<fs::path> temp_files(const fs::path& dir) {
  std::vector<fs::path> found;
  if (!fs::exists(dir)) return found;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.path().filename().string().ends_with(".tmp")) found.push_back(entry.path());
  }
  return found;
}

using storh::test::fork_child;
using storh::test::wait_child;

inline void set_mtime(const fs::path& file, const struct timespec& when) {
  struct timespec times[2] = {when, when};
  REQUIRE(::utimensat(AT_FDCWD, file.c_str(), times, 0) == 0);
}

inline struct timespec mtime_of(const fs::path& file) {
  struct stat info {};
  REQUIRE(::stat(file.c_str(), &info) == 0);
  return info.st_mtim;
}

inline std::vector<std::string> ids_of(const std::vector<Record>& records) {
  std::vector<std::string> ids;
  for (const auto& record : records) ids.push_back(record.id);
  return ids;
}

// Rewrites `file` in place with `text` (same inode) and restores its mtime: the change
// STAT cannot see when the size is unchanged.
inline void rewrite_keeping_mtime(const fs::path& file, const std::string& text) {
  const struct timespec before = mtime_of(file);
  storh::test::write_text(file, text);
  set_mtime(file, before);
}

// A record file's exact text.
inline std::string record_text(const std::string& id, const std::string& data) {
  return "{\"id\":\"" + id + "\",\"data\":" + data + "}\n";
}

// A mode's options with a shared cache.
inline DocStoreOptions options_for(Validation mode,
                                   std::shared_ptr<storh::engines::MemoryCache> cache) {
  DocStoreOptions options = with_mode(mode);
  options.cache = std::move(cache);
  return options;
}

// A "docs" store with `n` benchmark rows and ids generated from kBenchStartMs + i.
inline std::vector<std::string> fill_bench_rows(DocStore& store, int n) {
  std::vector<std::string> ids;
  for (int i = 0; i < n; ++i) {
    const std::string id = storh::engines::uuid_v7::generate(storh::engines::kBenchStartMs + i);
    store.put(storh::engines::bench_row(static_cast<std::uint64_t>(i)), id);
    ids.push_back(id);
  }
  return ids;
}

inline void index_benchmark_fields(DocStore& store) {
  storh::engines::doc::index_manager(store)
      .field("kind")
      .field("bucket")
      .field("publishedAt")
      .range()
      .sync();
}

inline std::size_t count_kind(DocStore& store, const char* kind) {
  return storh::engines::doc::DocQuery(store).where("kind").eq(kind).count();
}

}  // namespace doc_test
