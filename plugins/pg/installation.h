// installation.h: which PostgreSQL server binaries a local server runs.
#pragma once

#include <filesystem>
#include <string>

namespace storh::engines::pg {

// The Debian package that provides the server binaries, named in every error about them.
inline constexpr const char* kServerPackage = "postgresql-15";

struct Installation {
  std::filesystem::path bindir;  // holds initdb, postgres and pg_ctl
  std::string version;           // "15.20" as `postgres --version` says; empty if unknown
};

// The installation in `bindir`, or for an empty `bindir` the one `pg_config --bindir`
// names, else the newest /usr/lib/postgresql/<major>/bin (Debian's layout). Looks only
// at the filesystem (and runs pg_config and `postgres --version`). Throws PgError that
// names the directory and the package to install when initdb or postgres is missing.
Installation find_installation(const std::string& bindir);

}  // namespace storh::engines::pg
