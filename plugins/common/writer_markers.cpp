#include "common/writer_markers.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/durable_io.h"

namespace storh::engines {
namespace fs = std::filesystem;
namespace {

constexpr long long kMaxPid = 0x7fffffff;
constexpr std::time_t kForeignTempAgeSeconds = 60;

bool all_digits(std::string_view text) noexcept {
  if (text.empty()) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

bool all_lower_hex(std::string_view text) noexcept {
  if (text.empty()) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// Parses a decimal pid; values beyond kMaxPid (or too long to parse) come back as -1.
long long parse_pid(std::string_view digits) noexcept {
  if (digits.size() > 12) return -1;
  long long pid = 0;
  for (char c : digits) pid = pid * 10 + (c - '0');
  return pid;
}

// The owner pid of `.<pid>.<hex>.<counter>.tmp`, or nullopt for any other name.
std::optional<long long> owned_temp_pid(std::string_view name) noexcept {
  if (name.size() < 8 || name.front() != '.' || !name.ends_with(".tmp")) return std::nullopt;
  std::string_view body = name.substr(1, name.size() - 5);  // <pid>.<hex>.<counter>
  const std::size_t first = body.find('.');
  if (first == std::string_view::npos) return std::nullopt;
  const std::size_t second = body.find('.', first + 1);
  if (second == std::string_view::npos || body.find('.', second + 1) != std::string_view::npos) {
    return std::nullopt;
  }
  const std::string_view pid = body.substr(0, first);
  const std::string_view hex = body.substr(first + 1, second - first - 1);
  const std::string_view counter = body.substr(second + 1);
  if (!all_digits(pid) || !all_lower_hex(hex) || !all_digits(counter)) return std::nullopt;
  return parse_pid(pid);
}

void sweep(const fs::path& dir, std::time_t now, std::size_t& deleted) {
  DIR* handle = ::opendir(dir.c_str());
  if (handle == nullptr) return;
  std::vector<fs::path> subdirs;
  while (const dirent* entry = ::readdir(handle)) {
    const std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    const bool temp_name = name.front() == '.' && name.ends_with(".tmp");
    if (entry->d_type == DT_DIR) {
      subdirs.push_back(dir / std::string(name));
      continue;
    }
    if (entry->d_type == DT_UNKNOWN) {
      struct stat info {};
      if (::lstat((dir / std::string(name)).c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
        subdirs.push_back(dir / std::string(name));
        continue;
      }
    }
    if (!temp_name) continue;  // record files cost nothing: decided by name alone
    const fs::path path = dir / std::string(name);
    bool remove = false;
    if (const auto pid = owned_temp_pid(name)) {
      remove = !pid_alive(*pid);
    } else {
      struct stat info {};
      remove = ::lstat(path.c_str(), &info) == 0 && now - info.st_mtime >= kForeignTempAgeSeconds;
    }
    if (remove && ::unlink(path.c_str()) == 0) ++deleted;
  }
  ::closedir(handle);
  for (const fs::path& subdir : subdirs) sweep(subdir, now, deleted);
}

}  // namespace

std::string make_writer_prefix() {
  return fmt::format("{}.{}", ::getpid(), random_hex(8));
}

bool pid_alive(long long pid) noexcept {
  if (pid < 1 || pid > kMaxPid) return false;
  if (::kill(static_cast<pid_t>(pid), 0) == 0) return true;
  if (errno == EPERM) return true;
  if (errno == ESRCH) return false;
  struct stat info {};
  return ::stat(fmt::format("/proc/{}", pid).c_str(), &info) == 0;
}

std::size_t cleanup_temp_files(const fs::path& dir) {
  std::size_t deleted = 0;
  sweep(dir, std::time(nullptr), deleted);
  return deleted;
}

void cleanup_temp_files_on_open(const fs::path& collection_root) {
  const fs::path writers = collection_root / ".storh" / "writers";
  DIR* handle = ::opendir(writers.c_str());
  if (handle == nullptr) {
    cleanup_temp_files(collection_root);
    make_directories(writers);
    return;
  }
  std::vector<std::string> stale;
  while (const dirent* entry = ::readdir(handle)) {
    const std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    const std::size_t dot = name.find('.');
    const bool named_well = dot != std::string_view::npos && all_digits(name.substr(0, dot));
    if (!named_well || !pid_alive(parse_pid(name.substr(0, dot)))) stale.emplace_back(name);
  }
  ::closedir(handle);
  if (stale.empty()) return;
  cleanup_temp_files(collection_root);
  for (const std::string& name : stale) ::unlink((writers / name).c_str());
}

WriterMarker::WriterMarker(fs::path collection_root, std::string prefix)
    : root_(std::move(collection_root)), prefix_(std::move(prefix)) {}

WriterMarker::~WriterMarker() {
  if (registered_pid_ != 0 && registered_pid_ == ::getpid()) ::unlink(path().c_str());
}

fs::path WriterMarker::path() const {
  return root_ / ".storh" / "writers" / prefix_;
}

void WriterMarker::register_once() {
  if (registered_pid_ == ::getpid()) return;
  const fs::path marker = path();
  make_directories(marker.parent_path());
  UniqueFd fd = open_or_throw(marker, O_WRONLY | O_CREAT);
  fd.close_or_throw(marker);
  registered_pid_ = ::getpid();
}

}  // namespace storh::engines
