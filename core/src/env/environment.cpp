#include "env/environment.h"

#include <sys/utsname.h>

#include <ctime>
#include <limits>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "util/files.h"
#include "util/text.h"

#ifndef STORH_BUILD_TYPE
#define STORH_BUILD_TYPE "unknown"
#endif
#ifndef STORH_BUILD_FLAGS
#define STORH_BUILD_FLAGS "unknown"
#endif

namespace storh::env {
namespace {

// Calls fn(line) for each line of text.
template <typename F>
void for_each_line(std::string_view text, F&& fn) {
  while (!text.empty()) {
    const auto end = text.find('\n');
    fn(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
}

// The value of the first "key<sep>value" line whose trimmed key equals `key`.
std::string value_of(std::string_view text, std::string_view key, char separator) {
  std::string found;
  bool done = false;
  for_each_line(text, [&](std::string_view line) {
    const auto at = line.find(separator);
    if (done || at == std::string_view::npos || trim(line.substr(0, at)) != key) return;
    found = std::string(trim(line.substr(at + 1)));
    done = true;
  });
  return found;
}

// os-release values are shell-quoted: "..." or '...' with \-escapes in double quotes.
std::string unquote_shell(std::string_view value) {
  if (value.size() < 2 || (value.front() != '"' && value.front() != '\'') ||
      value.back() != value.front()) {
    return std::string(value);
  }
  const bool escapes = value.front() == '"';
  value = value.substr(1, value.size() - 2);
  std::string out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (escapes && value[i] == '\\' && i + 1 < value.size()) ++i;
    out += value[i];
  }
  return out;
}

// /proc/self/mounts escapes space, tab, newline and backslash as \ooo (octal).
std::string unescape_mount_field(std::string_view field) {
  std::string out;
  for (std::size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size()) {
      const std::string_view digits = field.substr(i + 1, 3);
      if (digits.find_first_not_of("01234567") == std::string_view::npos) {
        out +=
            static_cast<char>((digits[0] - '0') * 64 + (digits[1] - '0') * 8 + (digits[2] - '0'));
        i += 3;
        continue;
      }
    }
    out += field[i];
  }
  return out;
}

// Whether mount point `mount` contains `path`, comparing whole components.
bool contains_path(std::string_view mount, std::string_view path) {
  if (mount == "/") return !path.empty() && path.front() == '/';
  if (path.substr(0, mount.size()) != mount) return false;
  return path.size() == mount.size() || path[mount.size()] == '/';
}

std::string compiler_name() {
#if defined(__clang__)
  return fmt::format("clang++ {}.{}.{}", __clang_major__, __clang_minor__, __clang_patchlevel__);
#elif defined(__GNUC__)
  return fmt::format("g++ {}.{}.{}", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#else
  return "unknown";
#endif
}

// The filesystem of the nearest existing ancestor of `work_dir`, symlinks resolved.
std::string work_dir_filesystem(const std::filesystem::path& work_dir) {
  std::error_code ec;
  std::filesystem::path path = std::filesystem::absolute(work_dir, ec);
  if (ec) return {};
  while (!std::filesystem::exists(path, ec) && path.has_relative_path()) path = path.parent_path();
  path = std::filesystem::canonical(path, ec);
  if (ec) return {};
  auto mounts = read_file("/proc/self/mounts");
  return mounts ? filesystem_for(path, mounts.value()) : std::string();
}

}  // namespace

HostBuild host_build() {
  HostBuild build;
  build.type = STORH_BUILD_TYPE;
  build.flags = std::string(trim(STORH_BUILD_FLAGS));
  build.compiler = compiler_name();
#ifndef NDEBUG
  build.assertions = true;
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(STORH_UBSAN)
  build.sanitizers = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  build.sanitizers = true;
#endif
#endif
  return build;
}

result::Environment capture_environment(const std::filesystem::path& work_dir,
                                        std::chrono::system_clock::time_point now) {
  result::Environment env;
  auto os_release = read_file("/etc/os-release");
  if (!os_release) os_release = read_file("/usr/lib/os-release");
  if (os_release) env.os = parse_os_release(os_release.value());

  struct utsname names {};
  if (::uname(&names) == 0) env.kernel = fmt::format("{} {}", names.sysname, names.release);

  if (auto cpuinfo = read_file("/proc/cpuinfo")) env.cpu_model = parse_cpu_model(cpuinfo.value());
  env.cpu_count = std::thread::hardware_concurrency();
  if (auto meminfo = read_file("/proc/meminfo")) {
    env.memory_bytes = parse_meminfo_total(meminfo.value());
  }
  env.work_dir_filesystem = work_dir_filesystem(work_dir);

  const HostBuild build = host_build();
  env.compiler = build.compiler;
  env.build_type = build.type;
  env.build_flags = build.flags;
  env.cpu_governor = read_trimmed("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  env.time = format_utc(now);
  env.warnings = environment_warnings(env, build);
  return env;
}

std::vector<std::string> environment_warnings(const result::Environment& env,
                                              const HostBuild& build) {
  std::vector<std::string> warnings;
  // RelWithDebInfo is -O2 with symbols: as fast as Release, so it is trusted too.
  const bool optimized = build.type == "Release" || build.type == "RelWithDebInfo";
  if (!optimized || build.assertions) {
    std::vector<std::string> reasons;
    if (!optimized) reasons.push_back(fmt::format("build type \"{}\"", build.type));
    if (build.assertions) reasons.emplace_back("assertions enabled");
    warnings.push_back(
        fmt::format("debug build: timings are not representative ({})", fmt::join(reasons, ", ")));
  }
  if (build.sanitizers) warnings.emplace_back("sanitizers enabled: timings are not representative");
  if (!env.cpu_governor.empty() && env.cpu_governor != "performance") {
    warnings.push_back(
        fmt::format("CPU frequency scaling governor is \"{}\": timings vary with the clock speed; "
                    "set it to \"performance\"",
                    env.cpu_governor));
  }
  if (env.cpu_count == 1) {
    warnings.emplace_back("fewer than 2 CPUs: the host, the worker and engine threads share one");
  }
  if (env.work_dir_filesystem == "tmpfs" || env.work_dir_filesystem == "ramfs") {
    warnings.push_back(
        fmt::format("work directory is on {}: fsync costs nothing in RAM, durable writes look fast",
                    env.work_dir_filesystem));
  }
  return warnings;
}

std::string parse_os_release(std::string_view text) {
  std::string name = value_of(text, "PRETTY_NAME", '=');
  if (name.empty()) name = value_of(text, "NAME", '=');
  return unquote_shell(name);
}

std::string parse_cpu_model(std::string_view cpuinfo) {
  std::string model = value_of(cpuinfo, "model name", ':');
  if (model.empty()) model = value_of(cpuinfo, "Hardware", ':');
  return model;
}

std::uint64_t parse_meminfo_total(std::string_view meminfo) {
  const std::string value = value_of(meminfo, "MemTotal", ':');
  // Small enough that number * 10 + 9 and, as KiB, * 1024 cannot overflow.
  constexpr std::uint64_t kMaxNumber = std::numeric_limits<std::uint64_t>::max() / 10240;
  std::uint64_t number = 0;
  std::size_t digits = 0;
  for (; digits < value.size() && value[digits] >= '0' && value[digits] <= '9'; ++digits) {
    if (number > kMaxNumber) return 0;  // not a real memory size
    number = number * 10 + static_cast<std::uint64_t>(value[digits] - '0');
  }
  if (digits == 0) return 0;
  const std::string_view unit = trim(std::string_view(value).substr(digits));
  if (unit.empty()) return number;
  if (unit == "kB" || unit == "KB" || unit == "KiB") return number * 1024;
  return 0;  // an unknown unit: better empty than wrong
}

std::string filesystem_for(const std::filesystem::path& path, std::string_view mounts) {
  const std::string target = path.lexically_normal().string();
  std::string best_type;
  std::size_t best_length = 0;
  bool found = false;
  for_each_line(mounts, [&](std::string_view line) {
    // device mount-point type options dump pass
    std::string_view fields[3];
    for (auto& field : fields) {
      line = line.substr(std::min(line.size(), line.find_first_not_of(' ')));
      const auto end = line.find(' ');
      field = line.substr(0, end);
      line = end == std::string_view::npos ? std::string_view() : line.substr(end);
    }
    if (fields[2].empty()) return;
    std::string mount = unescape_mount_field(fields[1]);
    if (mount.size() > 1 && mount.back() == '/') mount.pop_back();
    if (!contains_path(mount, target) || (found && mount.size() < best_length)) return;
    best_type = std::string(fields[2]);
    best_length = mount.size();
    found = true;
  });
  return best_type;
}

std::string format_utc(std::chrono::system_clock::time_point time) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm utc{};
  if (::gmtime_r(&seconds, &utc) == nullptr) return {};
  char text[32];
  const std::size_t length = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return std::string(text, length);
}

}  // namespace storh::env
