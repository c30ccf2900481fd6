#include "run/work_root.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <optional>

#include <fmt/format.h>

namespace storh::run {
namespace {

constexpr std::string_view kPrefix = "storh-host-";
constexpr std::string_view kLockName = ".owner";

// The pid in "storh-host-[<kind>-]<pid>-<8 hex>", or nullopt for any other name.
std::optional<pid_t> owner_pid(std::string_view name) {
  if (!name.starts_with(kPrefix)) return std::nullopt;
  name.remove_prefix(kPrefix.size());
  const std::size_t last_dash = name.rfind('-');
  if (last_dash == std::string_view::npos || name.size() - last_dash - 1 != 8) return std::nullopt;
  std::string_view rest = name.substr(0, last_dash);
  if (const std::size_t kind_dash = rest.rfind('-'); kind_dash != std::string_view::npos) {
    rest.remove_prefix(kind_dash + 1);
  }
  pid_t pid = 0;
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), pid);
  if (ec != std::errc{} || end != rest.data() + rest.size() || pid <= 0) return std::nullopt;
  return pid;
}

bool is_stale(const std::filesystem::path& root, pid_t pid) {
  const int fd = ::open((root / kLockName).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    // No lock file: a root from an older host, or one whose owner is between mkdir and
    // creating the lock. Only a pid that no process has can be stale.
    return errno == ENOENT && ::kill(pid, 0) != 0 && errno == ESRCH;
  }
  const bool unowned = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
  ::close(fd);
  return unowned;
}

}  // namespace

std::vector<std::filesystem::path> sweep_stale_work_roots(const std::filesystem::path& parent) {
  std::vector<std::filesystem::path> removed;
  // readdir, not directory_iterator, which makes a path of every entry: a busy /tmp
  // has hundreds, and every run sweeps it. Only a work root's name is looked at further.
  DIR* dir = ::opendir(parent.c_str());
  if (dir == nullptr) return removed;
  std::vector<std::string> names;
  while (const dirent* entry = ::readdir(dir)) {
    if (owner_pid(entry->d_name)) names.emplace_back(entry->d_name);
  }
  ::closedir(dir);
  for (const std::string& name : names) {
    const std::filesystem::path root = parent / name;
    std::error_code ec;
    // A symlink is not followed: its target is not ours to remove.
    if (!std::filesystem::is_directory(std::filesystem::symlink_status(root, ec))) continue;
    if (!is_stale(root, *owner_pid(name))) continue;
    std::filesystem::remove_all(root, ec);
    if (!ec) removed.push_back(root);
  }
  return removed;
}

Expected<WorkRoot> WorkRoot::create(const std::optional<std::filesystem::path>& work_dir,
                                    std::string_view kind, std::ostream* notices) {
  std::error_code ec;
  const std::filesystem::path parent =
      work_dir ? *work_dir : std::filesystem::temp_directory_path(ec);
  if (ec) {
    return Error{fmt::format("no temporary directory for the work directories: {}", ec.message())};
  }
  for (const std::filesystem::path& stale : sweep_stale_work_roots(parent)) {
    if (notices != nullptr) {
      *notices << fmt::format(
          "storh-host: removed the stale work directory {} (its host "
          "process is gone)\n",
          stale.string());
    }
  }
  const auto nonce = static_cast<std::uint32_t>(
      std::chrono::steady_clock::now().time_since_epoch().count() * 2654435761u);
  const std::filesystem::path root =
      parent /
      fmt::format("{}{}{}{}-{:08x}", kPrefix, kind, kind.empty() ? "" : "-", ::getpid(), nonce);
  if (!std::filesystem::create_directories(root, ec) || ec) {
    return Error{fmt::format("{}: cannot create the work directory: {}", root.string(),
                             ec ? ec.message() : "it already exists")};
  }
  const int fd = ::open((root / kLockName).c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0 || ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const std::string message =
        fmt::format("{}: cannot lock the work directory: {}", root.string(), std::strerror(errno));
    if (fd >= 0) ::close(fd);
    std::filesystem::remove_all(root, ec);
    return Error{message};
  }
  return WorkRoot(root, fd);
}

WorkRoot::WorkRoot(WorkRoot&& other) noexcept
    : path_(std::move(other.path_)), lock_fd_(other.lock_fd_), removed_(other.removed_) {
  other.path_.clear();
  other.lock_fd_ = -1;
}

std::string WorkRoot::remove() {
  if (removed_ || path_.empty()) return {};
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
  removed_ = !ec;
  return ec ? ec.message() : std::string();
}

WorkRoot::~WorkRoot() {
  remove();
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

std::string create_run_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  if (std::filesystem::create_directories(dir, ec)) return "";
  return fmt::format("{}: cannot create the work directory: {}", dir.string(), ec.message());
}

}  // namespace storh::run
