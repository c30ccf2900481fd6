// Load runs end to end: suites with [load] through run_cli, workers and their
// clients (threads or processes) as real processes, using the slow_tx fixture.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_support.h"

using storh::test::cli;
using storh::test::contains;
using storh::test::metric;
using storh::test::ScratchDir;

namespace {

using storh::test::fixture_path_flag;

// NOLINTNEXTLINE(bugprone-exception-escape): a test's aggregate; a throw fails the test
struct LoadRun {
  storh::test::CliResult cli;
  nlohmann::json result;
};

// Writes `load` ([load] body) and `engine` (the [engines.slow_tx] body) as a suite,
// runs it and reads the result file.
LoadRun run_load(const ScratchDir& dir, const std::string& load, const std::string& engine,
                 const std::vector<std::string>& extra = {}) {
  const auto suite = dir / "load.toml";
  storh::test::write_text(suite, "name = \"load\"\ntimeout = \"60s\"\n[load]\nprogress = 0\n" +
                                     load + "\n[engines.slow_tx]\n" + engine + "\n");
  const auto output = dir / "load.json";
  std::vector<std::string> args = {suite.string(), fixture_path_flag, "--output=" + output.string(),
                                   "--work-dir=" + (dir / "work").string()};
  args.insert(args.end(), extra.begin(), extra.end());
  LoadRun run;
  run.cli = cli(args);
  if (std::filesystem::exists(output)) {
    run.result = nlohmann::json::parse(storh::test::read_text(output));
  }
  return run;
}

}  // namespace

TEST_CASE("load cli: open-loop latency counts from the intended start, so queueing shows",
          "[load][cli]") {
  // 1 client asked for 1000 tps by an engine that needs >= 2 ms per transaction:
  // transaction i is intended at i ms and cannot end before 2(i+1) ms, so its
  // latency is at least i + 2 ms whatever the machine's speed.
  ScratchDir dir;
  const auto open = run_load(dir, "transactions = 40\nrate = 1000",
                             "operations = [\"sleep\"]\nparams = { delay_us = 2000 }");
  INFO(open.cli.out << open.cli.err);
  REQUIRE(open.cli.code == 0);
  const auto& open_load = metric(open.result, "slow_tx.sleep[clients=1,transactions=40]")["load"];
  CHECK(open_load["target_rate"] == 1000.0);
  CHECK(open_load["processed"] == 40);
  CHECK(open_load["intended"] == 40);
  CHECK(open_load["latency"]["p50"].get<double>() >= 0.020);
  CHECK(open_load["latency"]["max"].get<double>() >= 0.041);

  // Closed loop, the same engine: each transaction's own time only.
  ScratchDir closed_dir;
  const auto closed = run_load(closed_dir, "transactions = 40",
                               "operations = [\"sleep\"]\nparams = { delay_us = 2000 }");
  REQUIRE(closed.cli.code == 0);
  const auto& closed_load =
      metric(closed.result, "slow_tx.sleep[clients=1,transactions=40]")["load"];
  CHECK(closed_load["target_rate"].is_null());
  CHECK(closed_load["latency"]["min"].get<double>() >= 0.002);
  CHECK(closed_load["latency"]["p50"].get<double>() <
        open_load["latency"]["p50"].get<double>() / 2);
}

TEST_CASE("load cli: a duration-bound run stops on time", "[load][cli]") {
  ScratchDir dir;
  const auto run = run_load(dir, "clients = 2\nduration = \"0.5s\"",
                            "operations = [\"sleep\"]\nparams = { delay_us = 1000 }");
  INFO(run.cli.out << run.cli.err);
  REQUIRE(run.cli.code == 0);
  const auto& m = metric(run.result, "slow_tx.sleep[clients=2,duration=0.5s]");
  const auto& load = m["load"];
  CHECK(load["duration_seconds"] == 0.5);
  CHECK(load["intended"].is_null());
  const double seconds = load["repeats"][0]["run_seconds"].get<double>();
  // No transaction starts after the deadline; the last one started before it ends
  // within one transaction (1 ms) plus scheduling noise.
  CHECK(seconds >= 0.5);
  CHECK(seconds < 0.5 + 0.4);
  CHECK(load["processed"].get<std::uint64_t>() > 10);
  CHECK(load["processed"].get<std::uint64_t>() <= std::uint64_t{2} * 500);
}

TEST_CASE("load cli: process clients claim every token exactly once", "[load][cli]") {
  ScratchDir dir;
  const auto run = run_load(dir, "clients = 4\ntransactions = 50\nwarmup = 3\nmode = \"processes\"",
                            "operations = [\"claim\"]\nparams = { expect_processes = true }");
  INFO(run.cli.out << run.cli.err);
  REQUIRE(run.cli.code == 0);  // finish() checked tokens and one process per client
  const auto& load = metric(run.result, "slow_tx.claim[clients=4,transactions=50]")["load"];
  CHECK(load["mode"] == "processes");
  CHECK(load["processed"] == 200);
  CHECK(load["failed"] == 0);
  CHECK(load["latency"]["count"] == 200);
}

TEST_CASE("load cli: thread clients share the worker process", "[load][cli]") {
  ScratchDir dir;
  const auto threads = run_load(dir, "clients = 3\ntransactions = 20",
                                "operations = [\"claim\"]\nparams = { expect_processes = true }");
  // finish() finds three clients in one process: the expectation is not met.
  CHECK(threads.cli.code == 3);
  REQUIRE(threads.result["failures"].size() == 1);
  CHECK(contains(threads.result["failures"][0]["message"].get<std::string>(),
                 "3 clients ran in 1 process(es)"));
}

TEST_CASE("load cli: a failed transaction ends its client, is counted, and fails the cell",
          "[load][cli]") {
  // Regression: clients went on into a dead server (8,708 failures after a killed
  // postmaster); like pgbench, a client stops at its first error.
  ScratchDir dir;
  const auto run = run_load(dir, "clients = 2\ntransactions = 10",
                            "operations = [\"sleep\"]\nparams = { fail_every = 5 }");
  CHECK(run.cli.code == 3);
  const auto& load = metric(run.result, "slow_tx.sleep[clients=2,transactions=10]")["load"];
  CHECK(load["processed"] == 8);
  CHECK(load["intended"] == 20);
  CHECK(load["failed"] == 2);
  REQUIRE(run.result["failures"].size() == 1);
  const auto& failure = run.result["failures"][0];
  CHECK(failure["kind"] == "failed");
  CHECK(failure["operation"] == "sleep");
  CHECK(contains(failure["message"].get<std::string>(), "2 transaction(s) failed"));
  CHECK(contains(failure["message"].get<std::string>(), "failing as asked"));
  CHECK(contains(run.cli.out, "processed of intended"));
}

TEST_CASE("load cli: a client that cannot open fails the cell with its message", "[load][cli]") {
  ScratchDir dir;
  const auto run = run_load(dir, "clients = 3\ntransactions = 5",
                            "operations = [\"sleep\"]\nparams = { open_fails = true }");
  CHECK(run.cli.code == 3);
  REQUIRE(run.result["failures"].size() == 1);
  CHECK(contains(run.result["failures"][0]["message"].get<std::string>(),
                 "client 1: open_client failed: client 1 refuses to open"));
  CHECK(run.result["metrics"].empty());
}

TEST_CASE("load cli: a clients x transactions matrix in the report and in compare", "[load][cli]") {
  ScratchDir dir;
  const auto run = run_load(dir, "clients = [1, 2]\ntransactions = [3, 5]",
                            "operations = [\"sleep\"]", {"--repeat=2"});
  INFO(run.cli.out << run.cli.err);
  REQUIRE(run.cli.code == 0);
  CHECK(run.result["metrics"].size() == 4);
  const auto& cell = metric(run.result, "slow_tx.sleep[clients=2,transactions=5]");
  CHECK(cell["samples"].size() == 2);
  CHECK(cell["samples"][0]["items"] == 10);
  CHECK(cell["load"]["repeats"].size() == 2);
  CHECK(cell["load"]["processed"] == 20);
  CHECK(cell["rate"]["per_second"] == cell["load"]["tps_excluding_setup"]);
  CHECK(contains(run.cli.out, "sleep: clients x transactions per client (repeats: 2)"));
  CHECK(contains(run.cli.out, "clients \\ transactions  3  "));

  // Two "versions" side by side: compare reads load cells as tps, more is better.
  const auto copy = dir / "again.json";
  std::filesystem::copy_file(dir / "load.json", copy);
  const auto compared =
      cli({"compare", (dir / "load.json").string(), copy.string(), (dir / "load.json").string()});
  INFO(compared.out << compared.err);
  CHECK(compared.code == 0);
  CHECK(contains(compared.out, "slow_tx.sleep[clients=2,transactions=5]"));
  CHECK(contains(compared.out, "x1.000"));
}

TEST_CASE("load cli: benches run the union of their points and report sides x points",
          "[load][cli][bench]") {
  // 2/5 is in two benches (one cell); claim runs alone (finish() counts every success as
  // a claim); delay_us makes two sides.
  const std::string benches =
      "[[load.bench]]\nname = \"1: sleep, clients 1..2\"\noperations = [\"sleep\"]\n"
      "points = [\"1/5\", \"2/5\"]\n"
      "[[load.bench]]\nname = \"2: sleep longer\"\noperations = [\"sleep\"]\n"
      "points = [\"2/5\", \"2/10\"]\n"
      "[[load.bench]]\nname = \"3: claim\"\noperations = [\"claim\"]\npoints = [\"3/4\"]\n";
  ScratchDir dir;
  const auto run = run_load(dir, benches, "params = { delay_us = [0, 100] }");
  INFO(run.cli.out << run.cli.err);
  REQUIRE(run.cli.code == 0);
  CHECK(run.result["metrics"].size() == 8);  // 4 points x 2 sides
  CHECK(metric(run.result,
               "slow_tx.sleep[delay_us=100,clients=2,transactions=5]")["load"]["processed"] == 10);
  CHECK(metric(run.result,
               "slow_tx.claim[delay_us=0,clients=3,transactions=4]")["load"]["processed"] == 12);
  const auto& recorded = run.result["experiment"]["load_benches"];
  REQUIRE(recorded.size() == 3);
  CHECK(recorded[1]["name"] == "2: sleep longer");
  CHECK(recorded[1]["points"][1] == nlohmann::json({{"clients", 2}, {"transactions", 10}}));
  CHECK(run.result["experiment"]["engines"][0]["operations"] ==
        nlohmann::json::array({"sleep", "claim"}));
  // The table's first grid: a header of the bench's points, then a row per side (column
  // widths depend on the numbers).
  const std::string heading =
      "  2: sleep longer: sleep (repeats: 1)\n    tps excluding set-up\n      side \\ "
      "clients/transactions";
  const std::size_t table = run.cli.out.find(heading);
  REQUIRE(table != std::string::npos);
  const std::size_t header_start = table + heading.size();
  const std::size_t header_end = run.cli.out.find('\n', header_start);
  const std::string header = run.cli.out.substr(header_start, header_end - header_start);
  CHECK(contains(header, "  2/5  "));
  CHECK(header.ends_with("  2/10"));
  CHECK(run.cli.out.compare(header_end + 1, 17, "      delay_us=0 ") == 0);
  CHECK(contains(run.cli.out, "  3: claim: claim (repeats: 1)\n"));
  CHECK(contains(run.cli.out, "    latency p99 (ms)\n"));
  CHECK_FALSE(contains(run.cli.out, "clients x transactions per client"));

  // The report of the file prints the same tables, Markdown too.
  const auto report = cli({"report", (dir / "load.json").string(), "--format=md"});
  INFO(report.err);
  CHECK(report.code == 0);
  CHECK(contains(report.out,
                 "### slow_tx: 1: sleep, clients 1..2: sleep (repeats: 1)\n\n"
                 "**tps excluding set-up**\n\n"
                 "| side \\ clients/transactions | 1/5 | 2/5 |\n"));

  // validate lists each cell with its operations; --transactions makes the plain matrix.
  const std::vector<std::string> validate = {"validate", (dir / "load.toml").string(),
                                             fixture_path_flag};
  const auto cells = cli(validate);
  INFO(cells.out << cells.err);
  CHECK(cells.code == 0);
  CHECK(contains(cells.out, "8 cell(s)"));
  CHECK(contains(cells.out,
                 "delay_us=100 expect_processes=false fail_every=0 open_fails=false "
                 "clients=2 transactions=10 mode=threads: sleep\n"));
  CHECK(contains(cells.out, "clients=3 transactions=4 mode=threads: claim\n"));
  auto matrix_args = validate;
  matrix_args.push_back("--transactions=7");
  const auto matrix = cli(matrix_args);
  CHECK(matrix.code == 0);
  CHECK(contains(matrix.out, "2 cell(s)"));
  CHECK(contains(matrix.out, "clients=1 transactions=7 mode=threads: sleep, claim\n"));
}

TEST_CASE("load cli: an engine without transactions is refused by a load suite", "[load][cli]") {
  ScratchDir dir;
  const auto suite = dir / "bad.toml";
  storh::test::write_text(suite, "[load]\ntransactions = 5\n\n[engines.misbehave]\n");
  const auto run = cli({"validate", suite.string(), fixture_path_flag});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "bad.toml:4:10: engine \"misbehave\" offers no transactions"));
}

TEST_CASE("load cli: progress lines every interval, only on a terminal", "[load][cli]") {
  ScratchDir dir;
  const auto suite = dir / "progress.toml";
  storh::test::write_text(suite,
                          "[load]\nclients = 2\nduration = \"0.7s\"\nprogress = \"0.2s\"\n"
                          "[engines.slow_tx]\noperations = [\"sleep\"]\n"
                          "params = { delay_us = 500 }\n");
  const std::vector<std::string> args = {suite.string(), fixture_path_flag,
                                         "--output=" + (dir / "p.json").string(),
                                         "--work-dir=" + (dir / "work").string()};
  std::ostringstream out, err;
  storh::cli::CliEnvironment terminal{STORH_TEST_HOST, true};
  REQUIRE(storh::cli::run_cli(args, out, err, terminal) == 0);
  INFO(err.str());
  CHECK(contains(err.str(), "slow_tx clients=2 duration=0.7s: sleep: progress: 0.2 s, "));
  CHECK(contains(err.str(), " tps, lat "));
  CHECK(contains(err.str(), " ms stddev "));

  const auto quiet = cli(args);  // not a terminal
  CHECK(quiet.code == 0);
  CHECK_FALSE(contains(quiet.err, "progress:"));
}
