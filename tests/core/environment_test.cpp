#include "env/environment.h"

#include <chrono>
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

using namespace storh::env;

namespace {

// A Release build without assertions or sanitizers: no build warnings.
HostBuild release_build() {
  HostBuild build;
  build.type = "Release";
  build.compiler = "g++ 12.2.0";
  return build;
}

storh::result::Environment quiet_environment() {
  storh::result::Environment env;
  env.cpu_count = 8;
  env.cpu_governor = "performance";
  env.work_dir_filesystem = "ext4";
  return env;
}

constexpr const char* kMounts =
    "proc /proc proc rw,relatime 0 0\n"
    "/dev/vda / ext4 rw,relatime 0 0\n"
    "/dev/vdb /work xfs rw,relatime 0 0\n"
    "/dev/vdc /workspace btrfs rw 0 0\n"
    "tmpfs /tmp tmpfs rw,nosuid 0 0\n"
    "/dev/sdb1 /mnt/my\\040disk vfat rw 0 0\n"
    "overlay /work/main/build overlay rw 0 0\n"
    "tmpfs /work/main/build tmpfs rw 0 0\n";

}  // namespace

TEST_CASE("environment: os-release gives PRETTY_NAME unquoted", "[env]") {
  CHECK(parse_os_release("NAME=\"Debian GNU/Linux\"\n"
                         "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n"
                         "VERSION_ID=\"12\"\n") == "Debian GNU/Linux 12 (bookworm)");
  CHECK(parse_os_release("PRETTY_NAME='Alpine Linux v3.19'\n") == "Alpine Linux v3.19");
  CHECK(parse_os_release("PRETTY_NAME=\"Say \\\"hi\\\"\"\n") == "Say \"hi\"");
  CHECK(parse_os_release("PRETTY_NAME=Plain\n") == "Plain");
  CHECK(parse_os_release("NAME=\"Fedora Linux\"\n") == "Fedora Linux");  // no PRETTY_NAME
  CHECK(parse_os_release("") == "");
}

TEST_CASE("environment: cpuinfo gives the model name", "[env]") {
  CHECK(parse_cpu_model("processor\t: 0\n"
                        "vendor_id\t: GenuineIntel\n"
                        "model name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n"
                        "\n"
                        "processor\t: 1\n"
                        "model name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n") ==
        "Intel(R) Xeon(R) CPU @ 2.20GHz");
  CHECK(parse_cpu_model("processor\t: 0\nHardware\t: BCM2835\n") == "BCM2835");
  CHECK(parse_cpu_model("processor\t: 0\n") == "");
}

TEST_CASE("environment: meminfo gives MemTotal in bytes", "[env]") {
  CHECK(parse_meminfo_total("MemTotal:       16323432 kB\nMemFree:  1 kB\n") == 16323432ULL * 1024);
  CHECK(parse_meminfo_total("MemFree:  1 kB\n") == 0);
  CHECK(parse_meminfo_total("MemTotal: lots\n") == 0);
  CHECK(parse_meminfo_total("MemTotal: 12 MB\n") == 0);  // an unknown unit is not guessed
  CHECK(parse_meminfo_total("MemTotal: 99999999999999999999999 kB\n") == 0);
}

TEST_CASE("environment: the longest whole-component mount prefix decides the filesystem", "[env]") {
  CHECK(filesystem_for("/work/main/src", kMounts) == "xfs");
  CHECK(filesystem_for("/work", kMounts) == "xfs");
  CHECK(filesystem_for("/workspace/a", kMounts) == "btrfs");  // not "/work"
  CHECK(filesystem_for("/workx", kMounts) == "ext4");
  CHECK(filesystem_for("/", kMounts) == "ext4");
  CHECK(filesystem_for("/tmp/storh-1", kMounts) == "tmpfs");
  CHECK(filesystem_for("/mnt/my disk/runs", kMounts) == "vfat");    // \040 is a space
  CHECK(filesystem_for("/work/main/build/x", kMounts) == "tmpfs");  // the later mount hides
  CHECK(filesystem_for("/anything", "") == "");
  CHECK(filesystem_for("/anything", "garbage\n\n") == "");
}

TEST_CASE("environment: time is ISO-8601 UTC with whole seconds", "[env]") {
  using namespace std::chrono;
  const sys_days day = year(2026) / November / 30;
  CHECK(format_utc(day + hours(3) + minutes(22) + seconds(7) + milliseconds(900)) ==
        "2026-11-30T03:22:07Z");
  CHECK(format_utc(system_clock::time_point{}) == "1970-01-01T00:00:00Z");
}

TEST_CASE("environment: an optimized build on a quiet machine has no warnings", "[env]") {
  CHECK(environment_warnings(quiet_environment(), release_build()).empty());
  HostBuild build = release_build();
  build.type = "RelWithDebInfo";
  CHECK(environment_warnings(quiet_environment(), build).empty());
  auto env = quiet_environment();
  env.cpu_governor.clear();  // not exposed (VMs, containers): nothing to warn about
  CHECK(environment_warnings(env, release_build()).empty());
}

TEST_CASE("environment: debug builds and assertions are warned about", "[env]") {
  HostBuild build = release_build();
  build.type = "Debug";
  build.assertions = true;
  CHECK(environment_warnings(quiet_environment(), build) ==
        std::vector<std::string>{"debug build: timings are not representative "
                                 "(build type \"Debug\", assertions enabled)"});
  build.type = "Release";  // Release, but NDEBUG was undefined
  CHECK(
      environment_warnings(quiet_environment(), build) ==
      std::vector<std::string>{"debug build: timings are not representative (assertions enabled)"});
}

TEST_CASE("environment: sanitizers, CPU scaling, one CPU and tmpfs are warned about", "[env]") {
  HostBuild build = release_build();
  build.sanitizers = true;
  auto env = quiet_environment();
  env.cpu_governor = "powersave";
  env.cpu_count = 1;
  env.work_dir_filesystem = "tmpfs";
  const auto warnings = environment_warnings(env, build);
  REQUIRE(warnings.size() == 4);
  CHECK(warnings[0] == "sanitizers enabled: timings are not representative");
  CHECK_THAT(warnings[1],
             Catch::Matchers::StartsWith("CPU frequency scaling governor is \"powersave\""));
  CHECK_THAT(warnings[2], Catch::Matchers::StartsWith("fewer than 2 CPUs"));
  CHECK_THAT(warnings[3], Catch::Matchers::StartsWith("work directory is on tmpfs"));
}

TEST_CASE("environment: capture fills the fields from this machine without throwing", "[env]") {
  const auto now = std::chrono::system_clock::time_point{} + std::chrono::seconds(90);
  // A work directory that does not exist yet: its nearest existing ancestor counts.
  const auto env = capture_environment("/nonexistent-storh-dir/runs/1", now);
  CHECK(env.time == "1970-01-01T00:01:30Z");
  CHECK_THAT(env.kernel, Catch::Matchers::StartsWith("Linux "));
  CHECK_FALSE(env.compiler.empty());
  CHECK_FALSE(env.build_type.empty());
  if (std::filesystem::exists("/proc/self/mounts")) CHECK_FALSE(env.work_dir_filesystem.empty());
  CHECK(env.warnings == environment_warnings(env, host_build()));
}
