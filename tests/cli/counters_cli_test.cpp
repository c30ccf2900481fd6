// The counting pass end to end (docs/counters.md): storh-host runs a suite with
// counters, and the fixture's known system calls come back exactly, per item.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "count/callgrind.h"
#include "test_support.h"

using storh::test::cli;
using storh::test::contains;
using storh::test::metric;
using storh::test::ScratchDir;

namespace {

using storh::test::fixture_path_flag;

using storh::test::read_json;

storh::test::CliResult run_suite(const ScratchDir& dir, const std::string& text,
                                 std::vector<std::string> extra = {}) {
  storh::test::write_text(dir / "s.toml", text);
  std::vector<std::string> args = {"run", (dir / "s.toml").string(), fixture_path_flag,
                                   "--output=" + (dir / "o.json").string(),
                                   "--work-dir=" + dir.path().string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return cli(args);
}

// Whether this build and machine can run the instructions pass; says why not.
bool can_count_instructions() {
#if defined(__SANITIZE_ADDRESS__)
  WARN("sanitizer build: valgrind cannot run an AddressSanitizer binary");
  return false;
#else
  if (!storh::count::find_valgrind() || !storh::count::callgrind_supported()) {
    WARN("valgrind is not installed: the instructions pass is not tested");
    return false;
  }
  return true;
#endif
}

}  // namespace

TEST_CASE("counters: the syscalls pass reports the fixture's calls per item exactly",
          "[counters]") {
  ScratchDir dir;
  const auto run = run_suite(dir, R"(datasets = [40]
counters = ["syscalls"]
[engines.syscalls_fixture]
params = { fsyncs = 3 }
)");
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  const nlohmann::json result = read_json(dir / "o.json");
  CHECK(result["experiment"]["counters"] == nlohmann::json::array({"syscalls"}));
  const nlohmann::json& put = metric(result, "syscalls_fixture.put")["counters"];
  CHECK(put["fsync"] == 3.0);
  CHECK(put["creates"] == 1.0);
  CHECK(put["opens"] == 1.0);
  CHECK(put["write_calls"] == 1.0);
  CHECK(put["write_bytes"] == 8.0);
  CHECK(put["read_calls"] == 0.0);
  CHECK(put["close"] == 1.0);
  CHECK(put["getdents"] == 0.0);
  CHECK(put.contains("minor_faults"));
  const nlohmann::json& get = metric(result, "syscalls_fixture.get")["counters"];
  CHECK(get["fsync"] == 0.0);
  CHECK(get["opens"] == 1.0);
  CHECK(get["creates"] == 0.0);
  CHECK(get["read_calls"] == 1.0);
  CHECK(get["read_bytes"] == 8.0);
  CHECK(get["close"] == 1.0);
  // The counting run adds no samples: the timed repeat is the only one.
  CHECK(metric(result, "syscalls_fixture.put")["samples"].size() == 1);
}

TEST_CASE("counters: a run with --counters=syscalls reports counters beside the times",
          "[counters][report]") {
  ScratchDir dir;
  const auto run = run_suite(dir, R"(datasets = [20]
[engines.syscalls_fixture]
params = { fsyncs = 2 }
)",
                             {"--counters=syscalls"});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  // The run's own report, on stdout, and `report` of its file say the same.
  for (const std::string& text : {run.out, cli({"report", (dir / "o.json").string()}).out,
                                  cli({"report", (dir / "o.json").string(), "--format=md"}).out}) {
    CHECK(contains(text, "ounters per item (counting pass):"));
    CHECK(contains(text, "fsync 2, opens 1, creates 1, write_calls 1, write_bytes 8, close 1"));
    CHECK(contains(text, "opens 1, read_calls 1, read_bytes 8, close 1"));
    // The child's work is invisible to the counters: never reported as zero.
    CHECK(contains(text, "not counted (its work ran in child processes"));
  }
  const nlohmann::json result = read_json(dir / "o.json");
  const nlohmann::json& spawn = metric(result, "syscalls_fixture.spawn");
  CHECK_FALSE(spawn.contains("counters"));
  CHECK(contains(spawn["not_counted"].get<std::string>(), "child processes"));
  const auto csv = cli({"report", (dir / "o.json").string(), "--format=csv"});
  CHECK(contains(csv.out, ",fsync_per_item,"));
  CHECK(contains(csv.out, "not counted"));
}

TEST_CASE("counters: a min_time step is counted for one call, so counters stay per call",
          "[counters][min_time]") {
  ScratchDir dir;
  const auto run = run_suite(dir, R"(datasets = [10]
min_time = "5ms"
counters = ["syscalls"]
[engines.repeatable]
)");
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  const nlohmann::json result = read_json(dir / "o.json");
  const nlohmann::json& count = metric(result, "repeatable.count");
  CHECK(count["samples"][0]["calls"].get<std::uint64_t>() > 1);  // the timed repeat
  CHECK(count["counters"]["stats"] == 0.1);                      // one stat, 10 items
}

TEST_CASE("counters: an engine's own counters list picks its instruments", "[counters]") {
  ScratchDir dir;
  const auto run = run_suite(dir, R"(datasets = [10]
counters = ["syscalls"]
[engines.syscalls_fixture]
[engines.repeatable]
counters = []
)");
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  const nlohmann::json result = read_json(dir / "o.json");
  CHECK(result["experiment"]["counters"] == nlohmann::json::array({"syscalls"}));
  CHECK(metric(result, "syscalls_fixture.put")["counters"]["fsync"] == 2.0);
  CHECK_FALSE(metric(result, "repeatable.count").contains("counters"));
}

TEST_CASE("counters: an extra fsync per put fails the gate on the counter alone", "[counters]") {
  ScratchDir base_dir, current_dir;
  const std::string suite = R"(datasets = [20]
counters = ["syscalls"]
[engines.syscalls_fixture]
operations = ["put"]
)";
  REQUIRE(run_suite(base_dir, suite, {"--set", "syscalls_fixture.fsyncs=1"}).code == 0);
  REQUIRE(run_suite(current_dir, suite, {"--set", "syscalls_fixture.fsyncs=2"}).code == 0);
  const std::string base = (base_dir / "o.json").string();
  const std::string current = (current_dir / "o.json").string();
  // Time alone never fails here (the threshold is huge); the fsync counter does.
  const auto gate = cli({"gate", base, current, "--threshold=100000", "--counter=fsync=0"});
  INFO(gate.out << gate.err);
  CHECK(gate.code == 1);
  CHECK(contains(gate.out, "syscalls_fixture.put fsync/item      base 1 current 2 +100.00% FAIL"));
  CHECK(cli({"gate", base, base, "--threshold=100000", "--counter=fsync=0"}).code == 0);
}

TEST_CASE("counters: ci gates on the suite's [gate] counters", "[counters]") {
  ScratchDir dir;
  storh::test::write_text(dir / "ci.toml", fmt::format(R"(datasets = [20]
counters = ["syscalls"]
output = "{0}/o.json"
work_dir = "{0}"
[engines.syscalls_fixture]
operations = ["put"]
[gate]
baseline = "{0}/baseline.json"
threshold = 100000
counters = {{ fsync = 0 }}
)",
                                                       dir.path().string()));
  const std::string suite = (dir / "ci.toml").string();
  const auto update = cli({"ci", suite, fixture_path_flag, "--update-baseline"});
  INFO(update.out << update.err);
  REQUIRE(update.code == 0);
  const auto same = cli({"ci", suite, fixture_path_flag});
  INFO(same.out << same.err);
  CHECK(same.code == 0);
  const auto more = cli({"ci", suite, fixture_path_flag, "--set", "syscalls_fixture.fsyncs=3"});
  INFO(more.out << more.err);
  CHECK(more.code == 1);
  CHECK(contains(more.out + more.err, "syscalls_fixture.put fsync/item      base 2 current 3"));
}

TEST_CASE("counters: a failing counting run is a counters failure of its cell", "[counters]") {
  ScratchDir dir;
  const auto run = run_suite(dir, R"(datasets = [5]
counters = ["syscalls"]
[engines.syscalls_fixture]
params = { fail_counted = true }
)");
  INFO(run.out << run.err);
  CHECK(run.code == 3);
  const nlohmann::json result = read_json(dir / "o.json");
  REQUIRE(result["failures"].size() == 1);
  CHECK(result["failures"][0]["kind"] == "counters");
  CHECK(contains(result["failures"][0]["message"], "counting run (syscalls): put: failing"));
  // The timed results stay, without counters.
  CHECK(metric(result, "syscalls_fixture.put")["samples"].size() == 1);
  CHECK_FALSE(metric(result, "syscalls_fixture.put").contains("counters"));
}

TEST_CASE("counters: --counters=none turns the pass off, a bad value is refused", "[counters]") {
  ScratchDir dir;
  const std::string suite =
      "datasets = [5]\ncounters = [\"syscalls\"]\n[engines.syscalls_fixture]\n";
  REQUIRE(run_suite(dir, suite, {"--counters=none"}).code == 0);
  CHECK_FALSE(read_json(dir / "o.json")["experiment"].contains("counters"));
  const auto bad = run_suite(dir, suite, {"--counters=syscalls,cycles"});
  CHECK(bad.code == 2);
  CHECK(contains(bad.err, "--counters: unknown instrument \"cycles\""));
}

TEST_CASE("counters: instructions without valgrind on PATH are refused at validate", "[counters]") {
  ScratchDir dir;
  storh::test::write_text(dir / "s.toml",
                          "counters = [\"instructions\"]\n[engines.syscalls_fixture]\n");
  const std::string saved = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "";
  ::setenv("PATH", dir.path().c_str(), 1);
  const auto run = cli({"validate", (dir / "s.toml").string(), fixture_path_flag});
  ::setenv("PATH", saved.c_str(), 1);
  CHECK(run.code == 2);
  CHECK(contains(run.err, "s.toml:1:13: counters: \"instructions\" needs valgrind on PATH"));
}

// Regression: the installed binary runs its workers as /proc/self/exe, which under
// valgrind names valgrind itself ("mmap(0x58000000) failed in UME"), so every
// instructions counting run of a real `storh-host` command failed.
TEST_CASE("counters: the storh-host binary itself counts instructions", "[counters][valgrind]") {
  if (!can_count_instructions()) return;
  ScratchDir dir;
  storh::test::write_text(dir / "s.toml",
                          "datasets = [10]\ncounters = [\"instructions\"]\n"
                          "[engines.syscalls_fixture]\n");
  const std::string command =
      fmt::format("'{}' run '{}' {} --output='{}' --work-dir='{}' >'{}' 2>&1", STORH_TEST_HOST,
                  (dir / "s.toml").string(), fixture_path_flag, (dir / "o.json").string(),
                  dir.path().string(), (dir / "log.txt").string());
  const int status = std::system(command.c_str());
  INFO(storh::test::read_text(dir / "log.txt"));
  REQUIRE(status == 0);
  const nlohmann::json result = read_json(dir / "o.json");
  CHECK(metric(result, "syscalls_fixture.put")["counters"]["instructions"] > 0);
}

TEST_CASE("counters: instructions per item come from callgrind and follow the work",
          "[counters][valgrind]") {
  if (!can_count_instructions()) return;
  ScratchDir dir;
  const auto run = run_suite(dir, R"(datasets = [10]
counters = ["instructions"]
[engines.syscalls_fixture]
params = { fsyncs = [1, 4] }
)");
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  const nlohmann::json result = read_json(dir / "o.json");
  CHECK(result["experiment"]["counters"] == nlohmann::json::array({"instructions"}));
  const double one = metric(result, "syscalls_fixture.put[fsyncs=1]")["counters"]["instructions"];
  const double four = metric(result, "syscalls_fixture.put[fsyncs=4]")["counters"]["instructions"];
  CHECK(one > 0);
  CHECK(four > one);  // three more fsync calls per item, each some instructions
  CHECK(metric(result, "syscalls_fixture.get[fsyncs=1]")["counters"]["instructions"] > 0);
  CHECK_FALSE(metric(result, "syscalls_fixture.put[fsyncs=1]")["counters"].contains("fsync"));
}

// Counting runs fix the clock and the seeds engines read (docs/counters.md,
// "Reproducible counts"), so doc's record ids, and with them its shard directories,
// repeat: with random ids two runs of 100 records rarely make the same number of
// shards, and every directory walk after that counts differently.
TEST_CASE("counters: two counting runs of doc count the same system calls", "[counters][engines]") {
  ScratchDir dir;
  const std::string suite = std::string(STORH_TEST_SOURCE_DIR) + "/suites/ci.toml";
  auto counted = [&](const std::string& name) {
    const auto output = dir / name;
    const auto run = cli({suite, "--engine=doc", "--dataset=100", "--repeat=1", "--warmup=0",
                          "--min-time=0", "--counters=syscalls", "--output=" + output.string(),
                          "--work-dir=" + dir.path().string()});
    INFO(run.out << run.err);
    REQUIRE(run.code == 0);
    return read_json(output);
  };
  const nlohmann::json first = counted("first.json");
  const nlohmann::json second = counted("second.json");
  // The kernel's own figures (getrusage) depend on memory layout and load.
  const std::set<std::string> from_kernel = {"minor_faults", "major_faults", "voluntary_switches",
                                             "involuntary_switches"};
  REQUIRE(first["metrics"].size() == second["metrics"].size());
  std::size_t compared = 0;
  for (std::size_t m = 0; m < first["metrics"].size(); ++m) {
    const nlohmann::json& a = first["metrics"][m];
    const nlohmann::json& b = second["metrics"][m];
    REQUIRE(a["key"] == b["key"]);
    REQUIRE(a.contains("counters"));
    for (const auto& [name, value] : a["counters"].items()) {
      if (from_kernel.contains(name)) continue;
      INFO(a["key"].get<std::string>() << " " << name);
      CHECK(b["counters"][name] == value);
      ++compared;
    }
  }
  CHECK(compared == std::size_t{10} * 17);  // every doc operation of the suite, every other counter
}
