#include "pg/installation.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>
#include <optional>
#include <system_error>
#include <vector>

#include "pg/connection.h"

namespace storh::engines::pg {
namespace {

namespace fs = std::filesystem;

// The first line a shell command prints; empty when it fails or prints nothing.
std::string first_line_of(const std::string& command) {
  struct Close {
    void operator()(FILE* pipe) const noexcept { pclose(pipe); }
  };
  const std::unique_ptr<FILE, Close> pipe(popen(command.c_str(), "r"));
  if (!pipe) return {};
  std::array<char, 512> buffer{};
  if (fgets(buffer.data(), static_cast<int>(buffer.size()), pipe.get()) == nullptr) return {};
  std::string line(buffer.data());
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  return line;
}

bool has_server(const fs::path& bindir) {
  return ::access((bindir / "initdb").c_str(), X_OK) == 0 &&
         ::access((bindir / "postgres").c_str(), X_OK) == 0;
}

// /usr/lib/postgresql/<major>/bin with the highest major that has a server.
std::optional<fs::path> newest_debian_bindir() {
  std::error_code ec;
  std::vector<std::pair<int, fs::path>> found;
  for (const fs::directory_entry& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    if (has_server(entry.path() / "bin")) found.emplace_back(std::stoi(name), entry.path() / "bin");
  }
  if (found.empty()) return std::nullopt;
  return std::max_element(found.begin(), found.end())->second;
}

std::string server_version(const fs::path& bindir) {
  // "postgres (PostgreSQL) 15.20 (Debian 15.20-0+deb12u1)": the third word.
  const std::string line =
      first_line_of(fmt::format("'{}' --version 2>/dev/null", (bindir / "postgres").string()));
  const std::size_t close = line.find(") ");
  if (close == std::string::npos) return {};
  const std::string rest = line.substr(close + 2);
  return rest.substr(0, rest.find(' '));
}

}  // namespace

Installation find_installation(const std::string& bindir) {
  if (!bindir.empty()) {
    if (!has_server(bindir)) {
      throw PgError(fmt::format(
          "bindir \"{}\" has no PostgreSQL server (initdb and postgres): point pg.bindir at an "
          "installation's bin directory, or install Debian's {} (scripts/setup.sh does)",
          bindir, kServerPackage));
    }
    return {bindir, server_version(bindir)};
  }
  const std::string configured = first_line_of("pg_config --bindir 2>/dev/null");
  if (!configured.empty() && has_server(configured)) {
    return {configured, server_version(configured)};
  }
  if (const std::optional<fs::path> debian = newest_debian_bindir()) {
    return {*debian, server_version(*debian)};
  }
  throw PgError(fmt::format(
      "no PostgreSQL server binaries found (initdb and postgres, looked in `pg_config --bindir` "
      "and /usr/lib/postgresql/*/bin): install Debian's {} (scripts/setup.sh does) or set "
      "pg.bindir",
      kServerPackage));
}

}  // namespace storh::engines::pg
