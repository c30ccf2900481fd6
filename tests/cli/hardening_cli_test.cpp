// Bad input from the hardening campaign: result files that crashed the
// readers, inputs with no size limit, output paths onto devices or into nowhere, empty
// lists, huge values in messages and work directories a killed host left behind. Each
// case failed (crash, hang, lost result or wrong exit code) before its fix.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "run/work_root.h"
#include "test_support.h"
#include "util/files.h"
#include "util/json_input.h"
#include "util/shorten.h"

using storh::test::cli;
using storh::test::contains;
using storh::test::ScratchDir;

namespace {

using storh::test::fixture_path_flag;

// A quick, valid run: the repeatable fixture, one dataset, one repeat.
std::vector<std::string> quick_run(const ScratchDir& dir, const std::string& output) {
  return {"run",
          "--engine=repeatable",
          "--dataset=10",
          "--repeat=1",
          "--min-time=0",
          fixture_path_flag,
          "--output=" + output,
          "--work-dir=" + dir.path().string()};
}

// Each reader of result files on `file`: report FILE, compare FILE FILE, gate FILE FILE.
std::vector<std::vector<std::string>> every_reader(const std::string& file) {
  return {{"report", file}, {"compare", file, file}, {"gate", file, file}};
}

// The longest line of `text`.
std::size_t longest_line(const std::string& text) {
  std::size_t longest = 0, start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    longest = std::max(longest, end - start);
    start = end + 1;
  }
  return longest;
}

}  // namespace

TEST_CASE("hardening: a number too large for a double is bad input, not an abort",
          "[cli][hardening]") {
  ScratchDir dir;
  const auto ours = dir / "ours.json";
  const auto php = dir / "php.json";
  storh::test::write_text(ours, "{\"schema_version\": 1e999}\n");
  storh::test::write_text(php, "{\"results\": {\"doc.put\": 1e999}}\n");
  for (const auto& file : {ours, php}) {
    for (const auto& args : every_reader(file.string())) {
      const auto run = cli(args);
      INFO(args[0] << " " << file << ": " << run.err);
      CHECK(run.code == 2);
      CHECK(contains(run.err, file.string() + ": not valid JSON"));
      CHECK(contains(run.err, "number overflow"));
    }
  }
}

TEST_CASE("hardening: a result file nested 100,000 deep is refused before it is copied",
          "[cli][hardening]") {
  ScratchDir dir;
  const auto deep = dir / "deep.json";
  storh::test::write_text(deep, std::string(100000, '[') + std::string(100000, ']'));
  for (const auto& args : every_reader(deep.string())) {
    const auto run = cli(args);
    INFO(args[0] << ": " << run.err);
    CHECK(run.code == 2);
    CHECK(contains(run.err, "nested more than 256 levels deep"));
  }
  // Brackets inside strings are text, and a file at the limit is read.
  CHECK(storh::json_nesting_depth(R"({"a": "[[[[{{{{", "b": [[1]]})", 256) == 3);
  CHECK(storh::json_nesting_depth(R"(["\"[", ["\\"], [[]]])", 256) == 3);
  const std::string at_limit = std::string(256, '[') + std::string(256, ']');
  CHECK(storh::parse_json_input<nlohmann::json>(at_limit, "x").ok());
  CHECK_FALSE(storh::parse_json_input<nlohmann::json>("[" + at_limit + "]", "x").ok());
}

TEST_CASE("hardening: devices, FIFOs and directories are not read as input files",
          "[cli][hardening]") {
  ScratchDir dir;
  const auto fifo = dir / "fifo.toml";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // Before the fix these read forever (/dev/zero) or waited for a writer (the FIFO).
  const auto zero = cli({"validate", "/dev/zero"});
  CHECK(zero.code == 2);
  CHECK(contains(zero.err, "/dev/zero: cannot read: a character device, not a regular file"));
  const auto piped = cli({"validate", fifo.string()});
  CHECK(piped.code == 2);
  CHECK(contains(piped.err, "cannot read: a FIFO, not a regular file"));
  for (const auto& args : every_reader("/dev/zero")) {
    const auto run = cli(args);
    INFO(args[0] << ": " << run.err);
    CHECK(run.code == 2);
    CHECK(contains(run.err, "not a regular file"));
  }
  const auto directory = cli({"report", dir.path().string()});
  CHECK(directory.code == 2);
  CHECK(contains(directory.err, "a directory, not a regular file"));
}

TEST_CASE("hardening: an input file larger than the limit is refused unread", "[hardening]") {
  ScratchDir dir;
  const auto file = dir / "big.json";
  storh::test::write_text(file, std::string(4096, ' ') + "{}");
  CHECK(storh::read_input_file(file).ok());
  const auto refused = storh::read_input_file(file, 1024);
  REQUIRE_FALSE(refused.ok());
  CHECK(contains(refused.error(), file.string() + ": cannot read: 4098 bytes is more than"));
}

TEST_CASE("hardening: --output onto a device, FIFO or directory is refused before the run",
          "[cli][hardening]") {
  ScratchDir dir;
  const auto fifo = dir / "out.fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  struct Case {
    std::string output;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"/dev/null", "/dev/null: cannot write the result onto a character device"},
      {fifo.string(), "cannot write the result onto a FIFO"},
      {dir.path().string(), "cannot write the result onto a directory"},
  };
  for (const Case& c : cases) {
    for (const std::string command : {"validate", "run"}) {
      std::vector<std::string> args = quick_run(dir, c.output);
      args[0] = command;
      const auto run = cli(args);
      INFO(command << " --output=" << c.output << ": " << run.err);
      CHECK(run.code == 2);
      CHECK(contains(run.err, c.message));
      CHECK_FALSE(contains(run.out, "result:"));
    }
  }
  struct stat info {};
  REQUIRE(::stat("/dev/null", &info) == 0);
  CHECK(S_ISCHR(info.st_mode));
  REQUIRE(::stat(fifo.c_str(), &info) == 0);
  CHECK(S_ISFIFO(info.st_mode));
  // The last line of defence, for a target that turned into a device during the run.
  CHECK(contains(storh::write_file_atomically("/dev/null", "{}"), "cannot write onto"));
}

TEST_CASE("hardening: an output that cannot be created is found at the start, exit 2",
          "[cli][hardening]") {
  ScratchDir dir;
  storh::test::write_text(dir / "plain.txt", "not a directory");
  const std::string long_name(300, 'n');
  struct Case {
    std::string output;
    std::string message;
  };
  const std::vector<Case> cases = {
      {(dir / "plain.txt/r.json").string(), "cannot write"},
      {(dir / (long_name + ".json")).string(), "more than the 255 a file name may have"},
  };
  for (const Case& c : cases) {
    for (const std::string command : {"validate", "run"}) {
      std::vector<std::string> args = quick_run(dir, c.output);
      args[0] = command;
      const auto run = cli(args);
      INFO(command << ": " << run.err);
      CHECK(run.code == 2);
      CHECK(contains(run.err, c.message));
      CHECK(longest_line(run.err) < 400);
    }
  }
  // A NUL in the suite's output (TOML allows \u0000 in a string).
  const auto suite = dir / "nul.toml";
  storh::test::write_text(suite,
                          "name = \"nul\"\noutput = \"a\\u0000b.json\"\n"
                          "[engines.repeatable]\n");
  const auto nul = cli({"validate", suite.string(), fixture_path_flag});
  CHECK(nul.code == 2);
  CHECK(contains(nul.err, "a\\0b.json: cannot write: the path contains a NUL byte"));
  // A missing parent directory is created, as before.
  const auto nested = cli(quick_run(dir, (dir / "new/deeper/r.json").string()));
  INFO(nested.err);
  CHECK(nested.code == 0);
  CHECK(std::filesystem::is_regular_file(dir / "new/deeper/r.json"));
}

TEST_CASE("hardening: an empty --engine or --operation list is bad input", "[cli][hardening]") {
  ScratchDir dir;
  for (const std::string flag : {"--engine=,", "--engine=", "--engine=repeatable,,"}) {
    std::vector<std::string> args = quick_run(dir, (dir / "r.json").string());
    args[0] = "validate";
    args[1] = flag;
    const auto run = cli(args);
    INFO(flag << ": " << run.err);
    CHECK(run.code == 2);
    CHECK(contains(run.err, "--engine: an empty engine name"));
  }
  std::vector<std::string> args = quick_run(dir, (dir / "r.json").string());
  args[0] = "validate";
  args.push_back("--operation=,");
  const auto run = cli(args);
  INFO(run.err);
  CHECK(run.code == 2);
  CHECK(contains(run.err, "--operation: an empty operation name"));
}

TEST_CASE("hardening: a huge value is shortened in its error, no engines has a line",
          "[cli][hardening]") {
  ScratchDir dir;
  const auto suite = dir / "long.toml";
  storh::test::write_text(suite, "name = \"x\"\n[engines.repeatable]\nparams.bogus_" +
                                     std::string(1 << 20, 'a') + " = 1\n");
  const auto run = cli({"validate", suite.string(), fixture_path_flag});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "unknown parameter \"bogus_aaaa"));
  CHECK(contains(run.err, "... (1048582 bytes)\""));
  CHECK(longest_line(run.err) < 400);
  const auto flag = cli({"validate", "--engine=" + std::string(100000, 'z')});
  CHECK(flag.code == 2);
  CHECK(longest_line(flag.err) < 400);

  CHECK(storh::shorten("short") == "short");
  CHECK(storh::shorten(std::string(10, 'x'), 4) == "xxxx... (10 bytes)");
  // Never half a UTF-8 character: "é" is two bytes.
  CHECK(storh::shorten("aaa\xC3\xA9zz", 4) == "aaa... (7 bytes)");

  const auto none = dir / "none.toml";
  storh::test::write_text(none, "name = \"x\"\nrepeat = 1\n\n");
  const auto empty = cli({"validate", none.string()});
  CHECK(empty.code == 2);
  CHECK(contains(empty.err, none.string() + ":3:1: no engines: add at least one"));
  storh::test::write_text(none, "");
  CHECK(contains(cli({"validate", none.string()}).err, none.string() + ":1:1: no engines"));
}

TEST_CASE("hardening: work directories of a host that died are swept by the next run",
          "[cli][hardening]") {
  ScratchDir dir;
  // A dead owner: the pid of a child that has exited and been reaped.
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  REQUIRE(child > 0);
  ::waitpid(child, nullptr, 0);
  const auto dead_unlocked = dir / fmt::format("storh-host-{}-0badc0de", child);
  const auto dead_old_style = dir / fmt::format("storh-host-count-{}-00c0ffee", child);
  std::filesystem::create_directories(dead_unlocked / "c000-doc-r0");
  storh::test::write_text(dead_unlocked / ".owner", "");
  storh::test::write_text(dead_unlocked / "c000-doc-r0/data", std::string(1 << 16, 'x'));
  std::filesystem::create_directories(dead_old_style);
  // A live owner: this process holds the lock, as a running host does.
  const auto live = dir / fmt::format("storh-host-{}-12345678", ::getpid());
  std::filesystem::create_directories(live);
  const int lock = ::open((live / ".owner").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  REQUIRE(lock >= 0);
  REQUIRE(::flock(lock, LOCK_EX | LOCK_NB) == 0);
  // Not a work directory at all.
  std::filesystem::create_directories(dir / "storh-host-notes");
  // A symlink named as a dead owner's root: neither it nor its target is removed.
  const auto target = dir / "linked";
  std::filesystem::create_directories(target);
  const auto link = dir / fmt::format("storh-host-{}-0dd0dd00", child);
  std::filesystem::create_directory_symlink(target, link);

  const auto run = cli(quick_run(dir, (dir / "r.json").string()));
  INFO(run.out << run.err);
  CHECK(run.code == 0);
  CHECK_FALSE(std::filesystem::exists(dead_unlocked));
  CHECK_FALSE(std::filesystem::exists(dead_old_style));
  CHECK(contains(run.err, "removed the stale work directory " + dead_unlocked.string()));
  CHECK(std::filesystem::exists(live));
  CHECK(std::filesystem::exists(dir / "storh-host-notes"));
  CHECK(std::filesystem::is_symlink(link));
  CHECK(std::filesystem::exists(target));
  ::close(lock);
  // The run's own root is gone after it, and the live one is stale now.
  CHECK(storh::run::sweep_stale_work_roots(dir.path()) == std::vector<std::filesystem::path>{live});
}

TEST_CASE("hardening: validate refuses parameter values the bundled engines reject at run time",
          "[cli][hardening]") {
  struct Case {
    std::string engine;
    std::string set;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"log", "log.segment_size=0", "parameter \"log.segment_size\" must be at least 256, got 0"},
      {"log", "log.segment_size=-5", "must be at least 256, got -5"},
      {"queue", "queue.workers=0", "parameter \"queue.workers\" must be 1 to 256, got 0"},
      {"queue", "queue.workers=100000", "must be 1 to 256, got 100000"},
  };
  for (const Case& c : cases) {
    const auto run = cli({"validate", "--engine=" + c.engine, "--set=" + c.set});
    INFO(c.set << ": " << run.err);
    CHECK(run.code == 2);
    CHECK(contains(run.err, "--set: parameter \"" + c.set.substr(0, c.set.find('='))));
    CHECK(contains(run.err, c.message));
  }
  CHECK(cli({"validate", "--engine=queue", "--set=queue.workers=256"}).code == 0);
  // The bounds are part of the plugin's description.
  const auto listed = cli({"list", "--format=json"});
  CHECK(contains(listed.out, "\"ranges\""));
}

TEST_CASE("hardening: every error of a suite is reported in one pass", "[hardening][suite]") {
  // Regression: an unknown engine and a parameter out of bounds were reported only after
  // every type error was fixed, one round trip each.
  ScratchDir dir;
  const auto suite = dir / "many.toml";
  storh::test::write_text(suite,
                          "repeat = \"3\"\n"
                          "[engines.dok]\n"
                          "[engines.log.params]\n"
                          "segment_size = -5\n");
  const auto run =
      cli({"validate", suite.string(), std::string("--plugin-path=") + STORH_TEST_PLUGIN_DIR});
  INFO(run.err);
  CHECK(run.code == 2);
  CHECK(contains(run.err, suite.string() + ":1:10: \"repeat\" must be an integer >= 1"));
  CHECK(contains(run.err, "unknown engine \"dok\""));
  CHECK(contains(run.err, "segment_size"));
}

TEST_CASE("hardening: thousands of errors are reported up to a bound", "[hardening][suite]") {
  ScratchDir dir;
  const auto suite = dir / "lots.toml";
  std::string text = "[engines.doc]\n";
  for (int i = 0; i < 120; ++i) text += "bad_key_" + std::to_string(i) + " = 1\n";
  storh::test::write_text(suite, text);
  const auto run =
      cli({"validate", suite.string(), std::string("--plugin-path=") + STORH_TEST_PLUGIN_DIR});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "... and 70 more error(s) not shown"));
}
