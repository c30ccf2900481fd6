// YCSB runs end to end: suites with [ycsb] through run_cli and workers, on the
// example key-value engine (examples/kv_minimal) and its fault-switch fixture
// (tests/fixtures/plugins/kv_memory_plugin.cpp), and on the doc and lmdb engines.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "test_support.h"

using storh::test::cli;
using storh::test::contains;
using storh::test::metric;
using storh::test::ScratchDir;

namespace {

const std::string example_path_flag =
    "--plugin-path=" + std::filesystem::path(STORH_TEST_KV_MINIMAL_PLUGIN).parent_path().string();

// NOLINTNEXTLINE(bugprone-exception-escape): a test's aggregate; a throw fails the test
struct YcsbRun {
  storh::test::CliResult cli;
  nlohmann::json result;
  std::filesystem::path output;
};

// Writes `ycsb` ([ycsb] body) and `engines` as a suite, runs `command` on it.
YcsbRun run_ycsb(const ScratchDir& dir, const std::string& ycsb,
                 const std::vector<std::string>& extra = {},
                 const std::string& engines = "[engines.kv_memory]\n",
                 const std::string& command = "run") {
  const auto suite = dir / "ycsb.toml";
  storh::test::write_text(suite,
                          "name = \"ycsb\"\ntimeout = \"60s\"\n[ycsb]\n" + ycsb + "\n" + engines);
  YcsbRun run;
  run.output = dir / "ycsb.json";
  std::vector<std::string> args = {command, suite.string(), example_path_flag,
                                   storh::test::fixture_path_flag};
  if (command == "run") {
    args.push_back("--output=" + run.output.string());
    args.push_back("--work-dir=" + (dir / "work").string());
  }
  args.insert(args.end(), extra.begin(), extra.end());
  run.cli = cli(args);
  if (std::filesystem::exists(run.output)) {
    run.result = nlohmann::json::parse(storh::test::read_text(run.output));
  }
  return run;
}

std::uint64_t processed(const nlohmann::json& result, const std::string& key) {
  return metric(result, key)["load"]["processed"].get<std::uint64_t>();
}

// Runs workloads a to f on `engine` (its suite table `table`) over `clients` (a TOML
// value) at 200 records and `operations` operations; every cell must pass, every read
// verified.
void every_workload_runs(const std::string& engine, const std::string& table,
                         const std::string& clients, std::uint64_t operations) {
  ScratchDir dir;
  const YcsbRun run =
      run_ycsb(dir,
               "workload = [\"a\", \"b\", \"c\", \"d\", \"e\", \"f\"]\n"
               "clients = " +
                   clients + "\nrecordcount = 200\noperationcount = " + std::to_string(operations) +
                   "\nmaxscanlength = 20\n",
               {}, table);
  INFO(run.cli.err);
  REQUIRE(run.cli.code == 0);
  CHECK(run.result["failures"].empty());
  for (const char* workload : {"a", "b", "c", "d", "e", "f"}) {
    INFO(workload);
    CHECK(processed(run.result, engine + ".ycsb_" + workload + "[clients=2]") == operations);
  }
}

}  // namespace

TEST_CASE("ycsb cli: workloads a and e write the load phase, the mix and each kind",
          "[ycsb][cli]") {
  ScratchDir dir;
  const YcsbRun run = run_ycsb(dir,
                               "workload = [\"a\", \"e\"]\nclients = 2\nrecordcount = 300\n"
                               "operationcount = 501\nmaxscanlength = 20\n");
  INFO(run.cli.err);
  REQUIRE(run.cli.code == 0);
  // The load phase inserts every record, split over the two clients.
  CHECK(processed(run.result, "kv_memory.ycsb_a.load[clients=2]") == 300);
  // 501 operations over two clients (251 + 250) add up, mix and kinds alike.
  CHECK(processed(run.result, "kv_memory.ycsb_a[clients=2]") == 501);
  CHECK(processed(run.result, "kv_memory.ycsb_a.read[clients=2]") +
            processed(run.result, "kv_memory.ycsb_a.update[clients=2]") ==
        501);
  CHECK(processed(run.result, "kv_memory.ycsb_e[clients=2]") == 501);
  CHECK(processed(run.result, "kv_memory.ycsb_e.insert[clients=2]") +
            processed(run.result, "kv_memory.ycsb_e.scan[clients=2]") ==
        501);
  const nlohmann::json& read = metric(run.result, "kv_memory.ycsb_a.read[clients=2]");
  const nlohmann::json& latency = read["load"]["latency"];
  REQUIRE(latency.is_object());
  for (const char* field : {"p50", "p95", "p99", "max"}) {
    INFO(field);
    CHECK(latency[field].is_number());
  }
  CHECK(read["load"]["tps_excluding_setup"].get<double>() > 0);
  CHECK(run.result["failures"].empty());

  // The report has a table per workload with a column pair per kind.
  const storh::test::CliResult report = cli({"report", run.output.string()});
  REQUIRE(report.code == 0);
  CHECK(contains(report.out, "YCSB workload a:"));
  CHECK(contains(report.out, "read ops/s"));
  CHECK(contains(report.out, "scan p99"));
  const storh::test::CliResult markdown = cli({"report", run.output.string(), "--format=md"});
  CHECK(contains(markdown.out, "## YCSB workload e"));
}

TEST_CASE("ycsb cli: a read-modify-write counts under read and update too, as in YCSB",
          "[ycsb][cli]") {
  ScratchDir dir;
  const YcsbRun run = run_ycsb(dir, "workload = \"f\"\nrecordcount = 100\noperationcount = 200\n");
  INFO(run.cli.err);
  REQUIRE(run.cli.code == 0);
  const std::uint64_t rmw = processed(run.result, "kv_memory.ycsb_f.read_modify_write[clients=1]");
  CHECK(rmw > 0);
  // The mix counts each read-modify-write once; its read and its update count again
  // under read (with the plain reads: 200 in all) and update (workload f has no other).
  CHECK(processed(run.result, "kv_memory.ycsb_f[clients=1]") == 200);
  CHECK(processed(run.result, "kv_memory.ycsb_f.read[clients=1]") == 200);
  CHECK(processed(run.result, "kv_memory.ycsb_f.update[clients=1]") == rmw);
}

TEST_CASE("ycsb cli: a read that answers a wrong value fails its cell, and the file is written",
          "[ycsb][cli]") {
  ScratchDir dir;
  // Workload a scans nothing, so YCSB's default maxscanlength (1000) does not refuse 50
  // records.
  const YcsbRun run = run_ycsb(dir, "recordcount = 50\noperationcount = 50",
                               {"--set=kv_memory.corrupt_reads=true"});
  CHECK(run.cli.code == 3);
  REQUIRE(run.result.is_object());
  REQUIRE_FALSE(run.result["failures"].empty());
  const std::string message = run.result["failures"][0]["message"].get<std::string>();
  CHECK(contains(message, "wrong answer"));
}

TEST_CASE("ycsb cli: an engine that aborts mid-run fails its own cell, the others report",
          "[ycsb][cli]") {
  ScratchDir dir;
  // Two cells: crash_after = 0 never crashes; 30 aborts at the run phase's 30th read or
  // update (the load phase's inserts do not count).
  const YcsbRun run = run_ycsb(dir, "recordcount = 100\noperationcount = 100",
                               {"--set=kv_memory.crash_after=0,30"});
  INFO(run.cli.err);
  CHECK(run.cli.code == 3);
  REQUIRE(run.result.is_object());
  REQUIRE(run.result["failures"].size() == 1);
  const nlohmann::json& failure = run.result["failures"][0];
  CHECK(failure["kind"] == "crashed");
  CHECK(failure["params"]["crash_after"] == 30);
  CHECK(failure["operation"] == "ycsb_a");

  // The cell that did not crash has its load phase, its mix and each kind.
  std::vector<std::string> keys;
  for (const nlohmann::json& m : run.result["metrics"]) keys.push_back(m["key"]);
  INFO(run.result["metrics"].dump());
  const auto has = [&](const std::string& operation) {
    return std::any_of(keys.begin(), keys.end(), [&](const std::string& key) {
      return key.rfind("kv_memory." + operation + "[", 0) == 0 && contains(key, "crash_after=0");
    });
  };
  CHECK(has("ycsb_a.load"));
  CHECK(has("ycsb_a"));
  CHECK(has("ycsb_a.read"));
  CHECK(has("ycsb_a.update"));
  // The crashed cell's run phase reports nothing.
  CHECK_FALSE(std::any_of(keys.begin(), keys.end(), [](const std::string& key) {
    return key.rfind("kv_memory.ycsb_a[", 0) == 0 && contains(key, "crash_after=30");
  }));
}

TEST_CASE("ycsb cli: a bad property exits 2 with its position before any cell runs",
          "[ycsb][cli]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"readproportion = 0.7", "ycsb.toml:3:1: [ycsb] workload a: "},
      {"fieldcount = 0", "fieldcount"},
      {"requestdistribution = \"zipf\"", "ycsb.toml:4:23:"},
      {"workload = \"q\"", "ycsb.toml:4:12:"},
      {"workload = \"e\"\nrecordcount = 10\nmaxscanlength = 11", "maxscanlength"},
  };
  for (const auto& [body, fragment] : cases) {
    INFO(body);
    ScratchDir dir;
    const YcsbRun run = run_ycsb(dir, body);
    INFO(run.cli.err);
    CHECK(run.cli.code == 2);
    CHECK(contains(run.cli.err, fragment));
    CHECK_FALSE(std::filesystem::exists(run.output));
  }
}

TEST_CASE("ycsb cli: validate names the engines without the key-value capability", "[ycsb][cli]") {
  ScratchDir dir;
  const YcsbRun run = run_ycsb(dir, "", {}, "[engines.kv_memory]\n[engines.slow_tx]\n", "validate");
  CHECK(run.cli.code == 2);
  CHECK(contains(run.cli.err, "engine \"slow_tx\" offers no key-value store"));
  CHECK_FALSE(contains(run.cli.err, "engine \"kv_memory\" offers"));
}

TEST_CASE("ycsb cli: list shows which plugins offer the key-value capability", "[ycsb][cli]") {
  const storh::test::CliResult list = cli({"list", example_path_flag});
  REQUIRE(list.code == 0);
  CHECK(contains(list.out, "key-value: yes"));
}

TEST_CASE("ycsb cli: workload d on lmdb batching 8 writes at 2 clients finds every latest insert",
          "[ycsb][cli][lmdb]") {
  // A batched insert has returned before its commit; the reads of the latest keys must
  // still find it (lmdb_plugin.cpp waits for the batch).
  ScratchDir dir;
  const YcsbRun run =
      run_ycsb(dir, "workload = \"d\"\nclients = 2\nrecordcount = 200\noperationcount = 4000\n", {},
               "[engines.lmdb]\nparams = { writes_per_transaction = 8, durability = \"os\" }\n");
  INFO(run.cli.err);
  REQUIRE(run.cli.code == 0);
  CHECK(run.result["failures"].empty());
  CHECK(processed(run.result, "lmdb.ycsb_d[clients=2]") == 4000);
  CHECK(processed(run.result, "lmdb.ycsb_d.insert[clients=2]") > 0);
}

TEST_CASE("ycsb cli: the example engine docs/ycsb.md shows runs workloads a to f", "[ycsb][cli]") {
  every_workload_runs("kv_minimal", "[engines.kv_minimal]\n", "[1, 2]", 500);
}

TEST_CASE("ycsb cli: the doc store runs workloads a to f, every read verified",
          "[ycsb][cli][doc]") {
  every_workload_runs("doc", "[engines.doc]\nparams = { durability = \"os\" }\n", "2", 300);
}
