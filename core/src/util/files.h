// util/files.h: small filesystem helpers with errors as values.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "util/expected.h"

namespace storh {

// Reads a whole file. The error names the path and the OS reason.
Expected<std::string> read_file(const std::filesystem::path& path);

// XXH3 64-bit of the file's bytes as 16 lower-case hex digits: which build of a
// plugin a result measured. The error is read_file's.
Expected<std::string> file_hash(const std::filesystem::path& path);

// Writes `content` so that a reader sees the old file or the new one, never a mix:
// a temporary file in the same directory, fsync, rename, fsync of the directory.
// Creates missing parent directories. Returns an empty message on success.
std::string write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace storh
