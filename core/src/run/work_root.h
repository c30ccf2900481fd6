// run/work_root.h: the directory one host run gives its workers, and the sweep of the
// ones a killed host left behind.
//
// A root is `<work_dir or $TMPDIR>/storh-host-[<kind>-]<pid>-<8 hex>`. Its owner holds an
// flock(2) on `<root>/.owner` for as long as the WorkRoot lives; the kernel drops that
// lock when the owner dies in any way, SIGKILL included. So a root whose lock can be
// taken belongs to nobody, and the next run removes it. (A root from a host older than
// this file has no lock: it is stale when no process has its pid.)
#pragma once

#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "util/expected.h"

namespace storh::run {

class WorkRoot {
 public:
  // Sweeps stale roots in the parent, `work_dir` or else the temporary directory
  // (reporting each removal to `notices`, which may be null), then creates a new empty
  // root there. `kind` is "" for timed runs, "count" for counting passes.
  static Expected<WorkRoot> create(const std::optional<std::filesystem::path>& work_dir,
                                   std::string_view kind, std::ostream* notices);

  WorkRoot(WorkRoot&& other) noexcept;
  WorkRoot& operator=(WorkRoot&&) = delete;
  WorkRoot(const WorkRoot&) = delete;
  WorkRoot& operator=(const WorkRoot&) = delete;
  // Removes the root and everything in it now; the lock stays until destruction.
  // Empty on success, else the reason. Idempotent.
  std::string remove();
  // Removes the root (unless remove() did) and releases the lock.
  ~WorkRoot();

  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  WorkRoot(std::filesystem::path path, int lock_fd) : path_(std::move(path)), lock_fd_(lock_fd) {}

  std::filesystem::path path_;
  int lock_fd_ = -1;
  bool removed_ = false;
};

// Creates the directory of one run in a root (with its parents). "" when done, else
// "DIR: cannot create the work directory: why". A run's directory is never reused:
// one that exists already is an error too.
std::string create_run_dir(const std::filesystem::path& dir);

// Removes every root in `parent` whose owner is gone; returns the removed paths.
std::vector<std::filesystem::path> sweep_stale_work_roots(const std::filesystem::path& parent);

}  // namespace storh::run
