// Temp-file sweeps and writer markers (engine-spec.md 1.5, invariants W1-W6 in part).
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "common/writer_markers.h"
#include "scratch_dir.h"

namespace engines = storh::engines;
namespace fs = std::filesystem;
using storh::test::ScratchDir;
using storh::test::write_text;

namespace {

// A pid that is certainly dead: a child that has exited and been reaped.
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) _exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

void age(const fs::path& file, int seconds) {
  fs::last_write_time(file, fs::last_write_time(file) - std::chrono::seconds(seconds));
}

}  // namespace

TEST_CASE("sweep: owned temp files go when their pid is dead, whatever their age", "[common]") {
  ScratchDir dir;
  const std::string live = "." + std::to_string(::getpid()) + ".ab12cd34.7.tmp";
  const std::string dead = "." + std::to_string(dead_pid()) + ".ab12cd34.8.tmp";
  write_text(dir / "data/00" / live, "x");
  write_text(dir / "data/00" / dead, "x");
  write_text(dir / "data/00/018bcfe5-6800-7000-8000-000000000000.jsonc", "{}");
  CHECK(engines::cleanup_temp_files(dir.path()) == 1);
  CHECK(fs::exists(dir / "data/00" / live));
  CHECK_FALSE(fs::exists(dir / "data/00" / dead));
  CHECK(fs::exists(dir / "data/00/018bcfe5-6800-7000-8000-000000000000.jsonc"));
}

TEST_CASE("sweep: other dot-tmp files go only when 60 s old", "[common]") {
  ScratchDir dir;
  write_text(dir / ".manifest.jsonc.0123456789ab.tmp", "x");
  write_text(dir / ".old.0123456789ab.tmp", "x");
  age(dir / ".old.0123456789ab.tmp", 61);
  write_text(dir / "visible.tmp", "x");  // not a dot file: never touched
  age(dir / "visible.tmp", 600);
  CHECK(engines::cleanup_temp_files(dir.path()) == 1);
  CHECK(fs::exists(dir / ".manifest.jsonc.0123456789ab.tmp"));
  CHECK(fs::exists(dir / "visible.tmp"));
}

TEST_CASE("open-time sweep: first open sweeps and creates the writers directory", "[common]") {
  ScratchDir dir;
  const fs::path root = dir / "docs";
  const std::string dead = "." + std::to_string(dead_pid()) + ".ab12cd34.1.tmp";
  write_text(root / "data/aa" / dead, "x");
  engines::cleanup_temp_files_on_open(root);
  CHECK(fs::is_directory(root / ".storh/writers"));
  CHECK_FALSE(fs::exists(root / "data/aa" / dead));
}

TEST_CASE("open-time sweep: only a stale marker triggers a sweep, and is removed", "[common]") {
  ScratchDir dir;
  const fs::path root = dir / "docs";
  engines::cleanup_temp_files_on_open(root);
  const std::string dead_temp = "." + std::to_string(dead_pid()) + ".ab12cd34.1.tmp";
  write_text(root / "data/aa" / dead_temp, "x");

  // Every marker live: nothing is swept.
  engines::WriterMarker live(root, engines::make_writer_prefix());
  live.register_once();
  engines::cleanup_temp_files_on_open(root);
  CHECK(fs::exists(root / "data/aa" / dead_temp));

  // A dead writer's marker: sweep, then drop that marker only.
  const std::string stale = std::to_string(dead_pid()) + ".deadbeef";
  write_text(root / ".storh/writers" / stale, "");
  engines::cleanup_temp_files_on_open(root);
  CHECK_FALSE(fs::exists(root / "data/aa" / dead_temp));
  CHECK_FALSE(fs::exists(root / ".storh/writers" / stale));
  CHECK(fs::exists(live.path()));
}

TEST_CASE("writer marker: removed by its owner, never by a forked child", "[common]") {
  ScratchDir dir;
  fs::path marker_path;
  {
    engines::WriterMarker marker(dir.path(), engines::make_writer_prefix());
    marker.register_once();
    marker_path = marker.path();
    CHECK(fs::exists(marker_path));
    CHECK(marker.prefix().starts_with(std::to_string(::getpid()) + "."));
    const pid_t child = ::fork();
    if (child == 0) {
      // The child's copy is destroyed when it exits normally through exit(): emulate
      // that by running the destructor explicitly.
      marker.~WriterMarker();
      _exit(0);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    CHECK(fs::exists(marker_path));
  }
  CHECK_FALSE(fs::exists(marker_path));
}

TEST_CASE("pid_alive: this process lives, reaped children and absurd pids do not", "[common]") {
  CHECK(engines::pid_alive(::getpid()));
  CHECK_FALSE(engines::pid_alive(dead_pid()));
  CHECK_FALSE(engines::pid_alive(0));
  CHECK_FALSE(engines::pid_alive(-5));
  CHECK_FALSE(engines::pid_alive(0x80000000LL));
}
