// count: the interposer's exact counts, snapshots and differences, and the callgrind
// dump parser (docs/counters.md).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "count/callgrind.h"
#include "count/counters.h"
#include "count/fixed_run.h"
#include "process/child_process.h"
#include "test_support.h"

using namespace storh;
using storh::test::ScratchDir;

namespace {

std::map<std::string, std::uint64_t> parse_lines(const std::string& text) {
  std::map<std::string, std::uint64_t> values;
  std::istringstream in(text);
  std::string name;
  std::uint64_t value = 0;
  while (in >> name >> value) values[name] = value;
  return values;
}

process::ProcessOutcome run_program(const std::vector<std::string>& environment,
                                    const std::filesystem::path& dir) {
  process::ProcessOptions options;
  options.argv = {STORH_TEST_COUNT_PROGRAM, dir.string()};
  options.environment = environment;
  options.capture_stdout = true;
  options.timeout_seconds = 60;
  return process::run_process(options);
}

std::string read_fixture(const std::string& name) {
  return test::read_text(std::string(STORH_TEST_SOURCE_DIR) + "/tests/fixtures/callgrind/" + name);
}

}  // namespace

TEST_CASE("count: the preloaded interposer counts each wrapped call exactly", "[count]") {
  ScratchDir dir;
  const process::ProcessOutcome outcome =
      run_program({std::string("LD_PRELOAD=") + STORH_TEST_INTERPOSER,
                   // an ASan build wants its runtime first; harmless otherwise
                   "ASAN_OPTIONS=verify_asan_link_order=0"},
                  dir.path());
  INFO(outcome.stderr_tail);
  REQUIRE(outcome.succeeded());
  const std::map<std::string, std::uint64_t> expected = {
      {"fsync", 3},       {"fdatasync", 1},   {"opens", 5},        {"creates", 2},
      {"renames", 1},     {"unlinks", 3},     {"stats", 5},        {"read_calls", 2},
      {"read_bytes", 14}, {"write_calls", 3}, {"write_bytes", 12}, {"close", 5},
      {"getdents", 8},    {"mkdir", 2},       {"mmap", 1},         {"munmap", 1},
      {"syncfs", 1}};
  CHECK(parse_lines(outcome.stdout_text) == expected);
}

TEST_CASE("count: without the interposer the program sees no snapshot function", "[count]") {
  ScratchDir dir;
  const process::ProcessOutcome outcome = run_program({}, dir.path());
  CHECK(outcome.exit_code == 2);
}

TEST_CASE("count: the interposer is found next to the host of a build tree", "[count]") {
  const auto found = count::find_interposer(STORH_TEST_HOST);
  REQUIRE(found.has_value());
  CHECK(std::filesystem::equivalent(*found, STORH_TEST_INTERPOSER));
}

TEST_CASE("count: the interposer is found through a symlink to the host", "[count]") {
  // Regression: the CLI's host is /proc/self/exe, whose directory holds no interposer.
  ScratchDir dir;
  std::filesystem::create_symlink(STORH_TEST_HOST, dir / "storh-host");
  const auto found = count::find_interposer(dir / "storh-host");
  REQUIRE(found.has_value());
  CHECK(std::filesystem::equivalent(*found, STORH_TEST_INTERPOSER));
}

TEST_CASE("count: the interposer is found in the install layout", "[count]") {
  ScratchDir dir;
  // Installed as <prefix>/bin/storh-host with the library under <prefix>/<libdir>/storh.
  const std::filesystem::path libdir = dir / STORH_TEST_INSTALL_LIBDIR / "storh";
  test::write_text(libdir / "libstorh_count.so", "");
  const auto found = count::find_interposer(dir / "bin/storh-host");
  REQUIRE(found.has_value());
  CHECK(found->parent_path() == libdir.lexically_normal());
}

TEST_CASE("count: a snapshot without the interposer holds only the rusage counters", "[count]") {
  CHECK_FALSE(count::interposer_loaded());
  const count::Snapshot before = count::take_snapshot();
  const count::Snapshot after = count::take_snapshot();
  CHECK(before.interposed == 0);
  std::vector<std::string> names;
  for (const auto& [name, delta] : count::difference(before, after)) names.push_back(name);
  CHECK(names == std::vector<std::string>{"minor_faults", "major_faults", "voluntary_switches",
                                          "involuntary_switches"});
}

TEST_CASE("count: differences of interposed snapshots cover every syscall counter", "[count]") {
  count::Snapshot before, after;
  before.interposed = after.interposed = static_cast<std::size_t>(count::Counter::minor_faults);
  after.values[static_cast<std::size_t>(count::Counter::fsync)] = 7;
  after.values[static_cast<std::size_t>(count::Counter::write_bytes)] = 4096;
  after.values[static_cast<std::size_t>(count::Counter::getdents)] = 3;
  const count::Deltas deltas = count::difference(before, after);
  REQUIRE(deltas.size() == count::kCounterCount - 1);  // instructions come from callgrind
  CHECK(deltas.front() == std::pair<std::string, std::uint64_t>{"fsync", 7});
  CHECK(deltas[10] == std::pair<std::string, std::uint64_t>{"write_bytes", 4096});
  CHECK(deltas[12] == std::pair<std::string, std::uint64_t>{"getdents", 3});
}

TEST_CASE("count: an older interposer's snapshots report only the counters it fills", "[count]") {
  // A library from before close..munmap were appended fills the first eleven.
  count::Snapshot before, after;
  before.interposed = after.interposed = static_cast<std::size_t>(count::Counter::close);
  after.values[static_cast<std::size_t>(count::Counter::close)] = 5;
  std::vector<std::string> names;
  for (const auto& [name, delta] : count::difference(before, after)) names.push_back(name);
  REQUIRE(names.size() == count::kCounterCount - 7);
  CHECK(names[10] == "write_bytes");
  CHECK(names[11] == "minor_faults");
}

TEST_CASE("count: an interposer from before syncfs reports every counter but syncfs", "[count]") {
  count::Snapshot before, after;
  before.interposed = after.interposed = static_cast<std::size_t>(count::Counter::syncfs);
  after.values[static_cast<std::size_t>(count::Counter::munmap)] = 2;
  std::vector<std::string> names;
  for (const auto& [name, delta] : count::difference(before, after)) names.push_back(name);
  REQUIRE(names.size() == count::kCounterCount - 2);
  CHECK(names[15] == "munmap");
  CHECK(names[16] == "minor_faults");
}

TEST_CASE("count: every counter has a unique name and a description", "[count]") {
  std::set<std::string_view> names;
  for (const count::CounterInfo& info : count::counter_infos()) {
    CHECK_FALSE(info.description.empty());
    CHECK(names.insert(info.name).second);
    CHECK(count::find_counter(info.name) == &info);
  }
  CHECK(names.size() == count::kCounterCount);
  CHECK(count::find_counter("fsyncs") == nullptr);
  CHECK(test::contains(count::unknown_counter_message("x"),
                       "fdatasync, fsync, getdents, instructions"));
}

TEST_CASE("count: callgrind dump gives the trigger and the totals' Ir", "[count]") {
  auto dump = count::parse_callgrind(read_fixture("callgrind.out.1"), "callgrind.out.1");
  REQUIRE(dump.ok());
  CHECK(dump->trigger == "put");
  CHECK(dump->instructions == 6015);  // totals wins over summary (6014 in the fixture)
}

TEST_CASE("count: callgrind dump falls back to summary and finds Ir among events", "[count]") {
  auto dump = count::parse_callgrind(
      "desc: Trigger: Program termination\nevents: Dr Ir\nsummary: 5 42\n", "x.out");
  REQUIRE(dump.ok());
  CHECK(dump->trigger == "Program termination");
  CHECK(dump->instructions == 42);
}

TEST_CASE("count: callgrind dumps without Ir or totals are errors naming the file", "[count]") {
  auto no_events = count::parse_callgrind("summary: 5\n", "a.out");
  REQUIRE_FALSE(no_events.ok());
  CHECK(no_events.error() == "a.out: no \"events:\" line");
  auto no_ir = count::parse_callgrind("events: Dr\nsummary: 5\n", "b.out");
  REQUIRE_FALSE(no_ir.ok());
  CHECK(no_ir.error() == "b.out: the events (Dr) do not include Ir");
  auto no_totals = count::parse_callgrind("events: Ir\n", "c.out");
  REQUIRE_FALSE(no_totals.ok());
  CHECK(test::contains(no_totals.error(), "c.out: no \"totals:\""));
  auto bad = count::parse_callgrind("events: Ir\ntotals: 12x\n", "d.out");
  REQUIRE_FALSE(bad.ok());
  CHECK(test::contains(bad.error(), "\"12x\" is not a whole number"));
}

TEST_CASE("count: callgrind dump files are numbered after the out file", "[count]") {
  CHECK(count::callgrind_dump_file("/w/cg.out", 3) == std::filesystem::path("/w/cg.out.3"));
  const auto command = count::callgrind_command("/usr/bin/valgrind", "/w/cg.out", {"host", "x"});
  CHECK(command == std::vector<std::string>{"/usr/bin/valgrind", "--tool=callgrind",
                                            "--collect-atstart=no", "--quiet",
                                            "--callgrind-out-file=/w/cg.out", "host", "x"});
}

TEST_CASE("count: a counting worker fixes the engines' clock and seed, any other clears them",
          "[count]") {
  ::setenv(count::kFixedRunVariable, "left by the user's shell", 1);
  CHECK(count::apply_fixed_run(false).empty());
  CHECK(std::getenv(count::kFixedRunVariable) == nullptr);
  CHECK(count::apply_fixed_run(true).empty());
  const char* value = std::getenv(count::kFixedRunVariable);
  REQUIRE(value != nullptr);
  CHECK(std::string(value) == count::fixed_run_value());
  CHECK(count::fixed_run_value() == "1767225600000:8319396948828450420");
  CHECK(count::apply_fixed_run(false).empty());
  CHECK(std::getenv(count::kFixedRunVariable) == nullptr);
}
