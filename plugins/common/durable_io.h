// durable_io.h: the durability primitives every engine with writes uses (engine-spec.md
// section 1.5): file descriptors that close themselves, complete writes, fsync, atomic
// replace and durable append.
//
// Durability contract: a function documented as durable has called fsync(2) on the file
// (and, after a rename, on its directory) before it returns; when it throws, nothing it
// wrote is promised. Every failure throws StoreError naming the operation and the path.
//
// Every write, sync, rename and directory sync here is a write boundary of
// fault_injection.h (a test hook; one relaxed atomic load when unarmed).
//
// `Sync::none` exists so a benchmark can measure what fsync costs (a suite's
// `durability = "none"`); engines must never default to it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace storh::engines {

enum class Sync { durable, none };

// The engines' `durability` parameter: "durable" -> Sync::durable, "none" -> Sync::none.
// Throws StoreError naming both choices for any other text.
Sync parse_sync(std::string_view durability);

// How a bulk write makes many new files durable at once (the `bulk_sync` parameter of the
// doc and log engines):
//   filesystem: one syncfs(2) of their filesystem. It writes back every dirty file, commits
//     the journal once and flushes the disk cache once, so the files are durable as if
//     each had been fsynced, their directory entries too. It also flushes what other
//     writers left dirty on that filesystem, and the caller waits for that.
//   files: an fsync (or fdatasync) of each file and directory, storh's calls: one journal
//     commit and one disk cache flush each.
// Fewer than kFilesystemSyncMinFiles files use `files` either way, so a small write never
// waits for the rest of the filesystem; so does a filesystem whose syncfs cannot be trusted
// to report a failed writeback (open_for_syncfs).
enum class BulkSync { filesystem, files };
inline constexpr std::size_t kFilesystemSyncMinFiles = 16;
// "filesystem" | "files"; throws StoreError naming the valid choices otherwise.
BulkSync parse_bulk_sync(std::string_view name);
// Whether `files` new files call for one syncfs: durable, BulkSync::filesystem and at least
// kFilesystemSyncMinFiles files. The syncfs happens only when open_for_syncfs then gives a
// descriptor; otherwise each file is synced.
bool syncs_filesystem(Sync sync, BulkSync bulk_sync, std::size_t files) noexcept;

// An owned file descriptor, closed on destruction. Move-only.
class UniqueFd {
 public:
  UniqueFd() noexcept = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  ~UniqueFd();
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const noexcept { return fd_; }
  bool valid() const noexcept { return fd_ >= 0; }
  int release() noexcept {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  // Closes now; throws StoreError if close(2) reports an error (it can carry a deferred
  // write error on some filesystems). `path` is for the message.
  void close_or_throw(const std::filesystem::path& path);

 private:
  int fd_ = -1;
};

// open(2) with O_CLOEXEC added, retrying on EINTR; throws StoreError("open <path>: ...").
UniqueFd open_or_throw(const std::filesystem::path& path, int flags, unsigned mode = 0644);

// openat(2) read-only (O_CLOEXEC) for reading one of a store's own files: with O_NOATIME
// where the kernel allows it (the process owns the file or has CAP_FOWNER), so a read
// never writes. On a relatime mount (Linux's default) the first read after each write (and
// one a day after) would otherwise update the file's access time: an inode dirtied and a
// journal entry for every record read once. No engine uses access times. Where O_NOATIME
// is refused (EPERM, and a plain open succeeds), this and every later call open without
// it. Retries on EINTR; returns the descriptor, or -1 with errno set. `dir_fd` may be
// AT_FDCWD.
int open_for_reading_at(int dir_fd, const char* name) noexcept;

// Writes every byte, looping on short writes and EINTR; a zero-byte write is an error.
void write_all(int fd, std::string_view bytes, const std::filesystem::path& path);
// pwrite(2) of every byte at `offset`.
void pwrite_all(int fd, std::string_view bytes, std::uint64_t offset,
                const std::filesystem::path& path);

// fsync(2) (Sync::durable) or nothing (Sync::none); throws on failure.
void sync_file(int fd, const std::filesystem::path& path, Sync sync = Sync::durable);
// fdatasync(2) variant for appends to a file whose size the caller does not rely on
// after a crash beyond what the data itself proves (framed lines do).
void sync_data(int fd, const std::filesystem::path& path, Sync sync = Sync::durable);

// Opens `dir` read-only and fsyncs it. Returns false (never throws) on failure: storh
// ignores errors of this step (section 1.5), and callers may report them.
bool sync_directory(const std::filesystem::path& dir, Sync sync = Sync::durable) noexcept;

// fsync(2) of an open directory (Sync::none: nothing). Returns false on failure, never
// throws, like sync_directory.
bool sync_directory_fd(int dir_fd, Sync sync = Sync::durable) noexcept;

// rename(2); throws StoreError("rename <from>: ...") on failure.
void rename_or_throw(const std::filesystem::path& from, const std::filesystem::path& to);

// The raw calls, for code that handles errno itself (the document store's record
// writer): renameat(2) within one directory, one write(2), fsync(2). They return what
// the system call returns and set errno. Like every function here they are write
// boundaries of fault_injection.h.
int rename_at(int dir_fd, const char* from, const char* to) noexcept;
int write_some(int fd, const void* data, std::size_t size) noexcept;
int fsync_fd(int fd) noexcept;
// syncfs(2) of the filesystem that holds `fd`, a sync boundary like fsync_fd. A failure
// may come from any file of that filesystem written back since `fd` was opened.
int syncfs_fd(int fd) noexcept;

// A descriptor of `dir` for a bulk write's syncfs_fd calls. Open it before the write's
// first file: a syncfs reports the writeback errors of its filesystem since its
// descriptor was opened (or last synced through), so one opened later could miss the
// write's own. Empty (sync each file instead) unless `sync` is durable, `bulk_sync` is
// filesystem and syncfs reports a failed writeback there: Linux 5.17 or later (before 5.8
// syncfs reports none, before 5.17 not the journal's own) and ext4, xfs, btrfs or tmpfs
// (FUSE, for one, answers syncfs without syncing). Empty too when `dir` cannot be opened.
UniqueFd open_for_syncfs(const std::filesystem::path& dir, Sync sync, BulkSync bulk_sync) noexcept;

// Creates `dir` and missing parents (not fsynced, as in storh). Throws on failure.
// (Not named create_directories: argument-dependent lookup would make every call with a
// std::filesystem::path ambiguous with std::filesystem::create_directories.)
void make_directories(const std::filesystem::path& dir);

// Atomic replace (section 1.5 write_atomic): creates the parent if missing, writes
// `.<basename>.<12 random hex>.tmp` beside `path`, fsyncs it, renames it over `path`
// and fsyncs the directory. On failure the temp file is unlinked and StoreError thrown;
// `path` then holds its old content or does not exist.
void write_atomic(const std::filesystem::path& path, std::string_view bytes,
                  Sync sync = Sync::durable);

// Durable append (section 1.5 append): O_APPEND|O_CREAT, write, fsync, close. The
// directory is not fsynced.
void durable_append(const std::filesystem::path& path, std::string_view bytes,
                    Sync sync = Sync::durable);

// One pread(2) of up to `size` bytes at `offset`, retried on EINTR: the bytes read, 0 at
// the end of the file. Throws StoreError("read <path>: ...") on any other error.
std::size_t pread_some(int fd, char* buffer, std::size_t size, std::uint64_t offset,
                       const std::filesystem::path& path);
// pread(2) until `size` bytes are read or the file ends: the bytes read (fewer than
// `size` only at the end of the file). Throws as pread_some does.
std::size_t pread_full(int fd, char* buffer, std::size_t size, std::uint64_t offset,
                       const std::filesystem::path& path);

// The whole file, opened by open_for_reading_at (no access-time update). Throws
// StoreError("read <path>: ...") if it cannot be opened or read.
std::string read_file_bytes(const std::filesystem::path& path);
// Same, but returns false (and leaves `out` empty) when the file does not exist.
bool read_file_if_exists(const std::filesystem::path& path, std::string& out);

// `count` random lower-case hex characters from the process CSPRNG (thread-safe).
std::string random_hex(std::size_t count);

}  // namespace storh::engines
