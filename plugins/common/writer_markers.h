// writer_markers.h: temp-file sweeps and writer markers (engine-spec.md section 1.5), shared
// by the DocStore and the SegmentedLog (the queue has neither).
//
// An instance that writes has a prefix `<pid>.<8 random hex>`; its temp files are named
// `.<prefix>.<counter>.tmp` and its marker is the empty file
// `<collection>/.storh/writers/<prefix>`. A sweep deletes temp files whose owner pid is
// dead, and other dot-.tmp files older than 60 s, so a crash leaves nothing a reopen does
// not clean, while a live writer's in-flight temp file is never touched.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace storh::engines {

// "<getpid()>.<8 random hex>": the temp prefix and marker name of a new instance.
std::string make_writer_prefix();

// kill(pid, 0) succeeds (EPERM counts as alive), falling back to /proc/<pid>; pids < 1
// or > 0x7fffffff are dead.
bool pid_alive(long long pid) noexcept;

// Walks `dir` recursively and deletes dot-.tmp files: owned ones
// (^\.(\d+)\.[0-9a-f]+\.\d+\.tmp$) whose pid is dead, other ones with mtime >= 60 s old.
// Returns how many were deleted. Missing `dir` is not an error; unlink errors are ignored
// (another process may sweep at the same time).
std::size_t cleanup_temp_files(const std::filesystem::path& dir);

// The open-time sweep: when `<collection_root>/.storh/writers/` is missing, sweep the
// collection once and create it (creating the collection too); otherwise sweep only if
// some marker is stale (bad name or dead pid), then unlink the stale markers. Costs one
// directory listing when every marker is live.
void cleanup_temp_files_on_open(const std::filesystem::path& collection_root);

// The marker of one instance. register_once() touches the file (first mutation, as in
// storh); the destructor removes it, but only in the process that registered it, so a
// forked child never removes its parent's marker. Not thread-safe.
class WriterMarker {
 public:
  WriterMarker(std::filesystem::path collection_root, std::string prefix);
  ~WriterMarker();
  WriterMarker(const WriterMarker&) = delete;
  WriterMarker& operator=(const WriterMarker&) = delete;

  void register_once();
  const std::string& prefix() const noexcept { return prefix_; }
  std::filesystem::path path() const;

 private:
  std::filesystem::path root_;
  std::string prefix_;
  long long registered_pid_ = 0;  // 0: not registered
};

}  // namespace storh::engines
