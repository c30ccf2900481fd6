// util/files.h: small filesystem helpers with errors as values.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "util/expected.h"

namespace storh {

// Writes all of `data` to `fd`, again after an interrupted write; false on an error
// (errno says which). Async-signal-safe.
bool write_all(int fd, std::string_view data);

// Reads a whole file, opened close-on-exec (a child forked meanwhile by another thread
// does not inherit it). The error names the path and the OS reason.
Expected<std::string> read_file(const std::filesystem::path& path);

// The content of a small text file (a /sys or /proc value, a git ref) without the white
// space around it; empty when the file cannot be read.
std::string read_trimmed(const std::filesystem::path& path);

// The largest input file (suite, result, A/B or calibration file) storh reads: far above
// any real one, far below what would exhaust memory.
inline constexpr std::uintmax_t kMaxInputFileBytes = std::uintmax_t{256} << 20;

// read_file for a file a user names: refuses, with the path and the reason, anything that
// is not a regular file (a directory, a device such as /dev/zero, a FIFO) and a file
// larger than `max_bytes`, before reading a byte of it.
Expected<std::string> read_input_file(const std::filesystem::path& path,
                                      std::uintmax_t max_bytes = kMaxInputFileBytes);

// Whether `path` can receive a file storh writes with write_file_atomically: it has no
// NUL byte, no component longer than NAME_MAX, is not an existing non-regular file (a
// directory, /dev/null, a FIFO), and its nearest existing ancestor is a directory in
// which an entry can really be made: the check creates a temporary file there (a
// directory when the rest of the path is still to be created) and removes it at once,
// since access(2) says yes for root in /proc and /sys, which take no files. Empty when
// it can; else the reason, starting with the path. Leaves nothing behind.
std::string check_output_file(const std::filesystem::path& path);

// The outermost missing directory above `file` (what writing it will create, e.g.
// "out" for out/a/b.json when out/ does not exist), or empty when its parent exists.
std::filesystem::path directory_to_create(const std::filesystem::path& file);

// "a directory", "a character device", ... for the type in a stat(2) st_mode.
std::string_view file_type_name(unsigned mode);

// XXH3 64-bit of the file's bytes as 16 lower-case hex digits: which build of a
// plugin a result measured. The error is read_file's.
Expected<std::string> file_hash(const std::filesystem::path& path);

// Writes `content` so that a reader sees the old file or the new one, never a mix:
// a temporary file in the same directory, fsync, rename, fsync of the directory.
// Creates missing parent directories. Returns an empty message on success.
std::string write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace storh
