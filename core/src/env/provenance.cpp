#include "env/provenance.h"

#include <unistd.h>

#include <array>
#include <charconv>
#include <climits>
#include <system_error>

#include <fmt/format.h>

#include "util/files.h"
#include "util/text.h"

namespace storh::env {
namespace {

bool is_commit(std::string_view text) {
  return text.size() == 40 && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// The git directory of the work tree containing `dir`: `<top>/.git`, or where a
// `.git` file ("gitdir: <path>") points.
std::optional<std::filesystem::path> git_dir_of(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::path at = std::filesystem::absolute(dir, ec);
  if (ec) return std::nullopt;
  for (;; at = at.parent_path()) {
    const std::filesystem::path dot_git = at / ".git";
    if (std::filesystem::is_directory(dot_git, ec)) return dot_git;
    if (std::filesystem::is_regular_file(dot_git, ec)) {
      const std::string text = read_trimmed(dot_git);
      if (!text.starts_with("gitdir:")) return std::nullopt;
      const std::filesystem::path target(std::string(trim(std::string_view(text).substr(7))));
      return target.is_absolute() ? target : at / target;
    }
    if (!at.has_relative_path()) return std::nullopt;
  }
}

// A ref's commit: its loose file in `git_dir`, else its line in packed-refs.
std::optional<std::string> resolve_ref(const std::filesystem::path& git_dir,
                                       const std::string& ref) {
  if (std::string loose = read_trimmed(git_dir / ref); is_commit(loose)) return loose;
  Expected<std::string> packed = read_file(git_dir / "packed-refs");
  if (!packed) return std::nullopt;
  std::string_view rest = *packed;
  while (!rest.empty()) {
    const auto end = rest.find('\n');
    const std::string_view line = trim(rest.substr(0, end));
    // "<40 hex> <ref>"; '#' starts the header, '^' a peeled tag.
    if (line.size() > 41 && line[40] == ' ' && line.substr(41) == ref &&
        is_commit(line.substr(0, 40))) {
      return std::string(line.substr(0, 40));
    }
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  return std::nullopt;
}

}  // namespace

std::string host_name() {
  std::array<char, HOST_NAME_MAX + 1> name{};
  if (::gethostname(name.data(), name.size() - 1) != 0) return {};
  return std::string(name.data());
}

std::optional<std::string> git_commit_of(const std::filesystem::path& dir) {
  const std::optional<std::filesystem::path> git_dir = git_dir_of(dir);
  if (!git_dir) return std::nullopt;
  const std::string head = read_trimmed(*git_dir / "HEAD");
  if (is_commit(head)) return head;  // detached
  if (!head.starts_with("ref:")) return std::nullopt;
  const std::string ref(trim(std::string_view(head).substr(4)));
  if (std::optional<std::string> commit = resolve_ref(*git_dir, ref)) return commit;
  // A linked worktree keeps HEAD in its own directory and branches in the main one.
  const std::string common = read_trimmed(*git_dir / "commondir");
  if (common.empty()) return std::nullopt;
  const std::filesystem::path common_dir = std::filesystem::path(common).is_absolute()
                                               ? std::filesystem::path(common)
                                               : *git_dir / common;
  return resolve_ref(common_dir, ref);
}

std::optional<std::string> git_branch_of(const std::filesystem::path& dir) {
  const std::optional<std::filesystem::path> git_dir = git_dir_of(dir);
  if (!git_dir) return std::nullopt;
  const std::string head = read_trimmed(*git_dir / "HEAD");
  constexpr std::string_view kBranchRef = "refs/heads/";
  if (!head.starts_with("ref:")) return std::nullopt;
  const std::string_view ref = trim(std::string_view(head).substr(4));
  if (!ref.starts_with(kBranchRef) || ref.size() == kBranchRef.size()) return std::nullopt;
  return std::string(ref.substr(kBranchRef.size()));
}

std::optional<double> parse_loadavg(std::string_view text) {
  text = trim(text);
  double load = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), load);
  if (error != std::errc() || end == text.data()) return std::nullopt;
  return load;
}

std::optional<double> read_load_average() {
  Expected<std::string> text = read_file("/proc/loadavg");
  if (!text) return std::nullopt;
  return parse_loadavg(*text);
}

std::optional<std::string> busy_warning(std::string_view when, double load, unsigned cpus) {
  if (cpus == 0 || !(load > cpus)) return std::nullopt;
  return fmt::format(
      "machine busy {}: 1-minute load average {:.2f} > {} CPU{}; other processes competed for "
      "the CPUs, timings are noisy",
      when, load, cpus, cpus == 1 ? "" : "s");
}

}  // namespace storh::env
