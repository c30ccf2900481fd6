// Per-statement latencies of scripts (pgbench -r, the pg plugin's statement_latencies)
// against a real server the test starts: a row per command of each script, the runs
// counted on the command that ran them, retries and failures on the command that met
// the conflict, the rows kept through the result file and printed by the report, and
// covering the timed transactions only, as the cell's tps and latency do.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pg_suite_run.h"
#include "result/json.h"

using storh::test::contains;
using storh::test::DsnSuiteRun;
using storh::test::load_of;
using storh::test::PgServer;
using storh::test::run_custom_suite;
using storh::test::ScratchDir;

namespace {

namespace fs = std::filesystem;

// The "statements" rows of `load` whose script is `script`.
std::vector<nlohmann::json> rows_of(const nlohmann::json& load, const std::string& script) {
  std::vector<nlohmann::json> rows;
  for (const nlohmann::json& row : load.at("statements")) {
    if (row["script"] == script) rows.push_back(row);
  }
  return rows;
}

std::uint64_t sum_of(const nlohmann::json& load, const char* field) {
  std::uint64_t sum = 0;
  for (const nlohmann::json& row : load.at("statements")) sum += row[field].get<std::uint64_t>();
  return sum;
}

}  // namespace

TEST_CASE("statements: each script command gets a row with its runs, retries and failures",
          "[statements][cli]") {
  const PgServer& server = storh::test::shared_suite_server();
  server.connect().exec("ALTER SYSTEM SET deadlock_timeout = '10ms'");
  server.connect().exec("SELECT pg_reload_conf()");
  ScratchDir dir(storh::test::server_scratch_base());

  {
    INFO("two SQL lines and a \\set: a row per line, each run once per transaction");
    storh::test::write_text(dir / "lines.sql",
                            "\\set aid random(1, 100000 * :scale)\n"
                            "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"
                            "SELECT 1;\n");
    const DsnSuiteRun run =
        run_custom_suite(server, dir, "lines", "clients = [2]\ntransactions = [20]",
                         fmt::format("scripts = \"{},select_only\"\nstatement_latencies = true\n",
                                     (dir / "lines.sql").string()));
    INFO(run.cli.err << run.result["failures"].dump());
    REQUIRE(run.cli.code == 0);
    const nlohmann::json mix = load_of(run, "custom");
    const std::vector<nlohmann::json> lines = rows_of(mix, "lines");
    REQUIRE(lines.size() == 3);
    CHECK(lines[0]["line"] == 1);
    CHECK(lines[0]["command"] == "\\set aid random(1, 100000 * :scale)");
    CHECK(lines[1]["line"] == 2);
    CHECK(lines[1]["command"] == "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;");
    CHECK(lines[2]["line"] == 3);
    CHECK(lines[2]["command"] == "SELECT 1;");
    const nlohmann::json processed = load_of(run, "custom.lines")["processed"];
    for (const nlohmann::json& row : lines) {
      CHECK(row["count"] == processed);
      CHECK(row["failures"] == 0);
      CHECK(row["retries"] == 0);
      CHECK(row["seconds"].get<double>() > 0);
    }
    // The built-in's rows are its pgbench text's commands: \set aid, then the select.
    const std::vector<nlohmann::json> builtin = rows_of(mix, "select_only");
    REQUIRE(builtin.size() == 2);
    CHECK(builtin[1]["count"] == load_of(run, "custom.select_only")["processed"]);
    CHECK(lines[1]["count"].get<std::uint64_t>() + builtin[1]["count"].get<std::uint64_t>() == 40);
    // Only the mix's metric holds them.
    CHECK_FALSE(load_of(run, "custom.lines").contains("statements"));

    const fs::path file = dir / "lines.json";
    {
      INFO("the result file reads back with its rows, and writes them again the same");
      const storh::Expected<storh::result::ResultFile> read = storh::result::read_result_file(file);
      REQUIRE(read);
      const nlohmann::json again = nlohmann::json::parse(storh::result::to_json(*read).dump());
      for (std::size_t m = 0; m < again["metrics"].size(); ++m) {
        CHECK(again["metrics"][m]["load"].value("statements", nlohmann::json()) ==
              run.result["metrics"][m]["load"].value("statements", nlohmann::json()));
      }
    }
    {
      INFO("the text report prints pgbench -r's block, the Markdown one a table");
      const storh::test::CliResult text = storh::test::cli({"report", file.string()});
      REQUIRE(text.code == 0);
      CHECK(contains(text.out,
                     "statement latencies in milliseconds, failures and retries: "
                     "custom[clients=2,transactions=20]"));
      CHECK(contains(text.out, "    script lines:\n"));
      CHECK(contains(text.out, "  0           0  SELECT 1;\n"));
      const storh::test::CliResult md = storh::test::cli({"report", file.string(), "--format=md"});
      REQUIRE(md.code == 0);
      CHECK(contains(md.out, "| lines | 3 |"));
    }
  }

  {
    INFO("a \\sleep line's mean covers its sleep: the time is put on the line that took it");
    storh::test::write_text(dir / "sleepy.sql", "SELECT 1;\n\\sleep 10 ms\nSELECT 2;\n");
    const DsnSuiteRun run =
        run_custom_suite(server, dir, "sleepy", "clients = [1]\ntransactions = [3]",
                         fmt::format("scripts = \"{}\"\nstatement_latencies = true\n",
                                     (dir / "sleepy.sql").string()));
    INFO(run.cli.err << run.result["failures"].dump());
    REQUIRE(run.cli.code == 0);
    const std::vector<nlohmann::json> rows = rows_of(load_of(run, "custom"), "");
    REQUIRE(rows.size() == 3);
    CHECK(rows[1]["command"] == "\\sleep 10 ms");
    CHECK(rows[1]["count"] == 3);
    CHECK(rows[1]["mean"].get<double>() >= 0.010);
  }

  {
    INFO("retries land on the statements that met the conflicts");
    const DsnSuiteRun run = run_custom_suite(
        server, dir, "transfer", "clients = [8]\ntransactions = [40]",
        fmt::format("scripts = \"{0}transfer.sql@3,{0}audit.sql@1\"\nvars = {{ accounts = 4 }}\n"
                    "max_tries = 1000\nstatement_latencies = true\n",
                    storh::test::example_scripts()));
    INFO(run.cli.err << run.result["failures"].dump());
    REQUIRE(run.cli.code == 0);
    const nlohmann::json mix = load_of(run, "custom");
    REQUIRE(mix.value("retries", 0) > 0);
    CHECK(sum_of(mix, "retries") == mix["retries"]);
    CHECK(sum_of(mix, "failures") == 0);
    for (const nlohmann::json& row : mix["statements"]) {
      const std::string command = row["command"];
      INFO(row.dump());
      // REPEATABLE READ fails an UPDATE of a row another transaction changed, or
      // deadlocks in one; nothing else of the scripts conflicts.
      if (!command.starts_with("UPDATE")) CHECK(row["retries"] == 0);
    }
  }

  {
    INFO("a conflict after the last try is a failure of its statement");
    storh::test::write_text(dir / "serialize.sql",
                            "SELECT 1;\nDO $$ BEGIN RAISE EXCEPTION USING ERRCODE = "
                            "'serialization_failure'; END $$;\n");
    const DsnSuiteRun run = run_custom_suite(
        server, dir, "give-up", "clients = [1]\ntransactions = [20]",
        fmt::format("scripts = \"{},select_only\"\nmax_tries = 3\nstatement_latencies = true\n",
                    (dir / "serialize.sql").string()));
    INFO(run.cli.err << run.result["failures"].dump());
    REQUIRE(run.cli.code == 0);
    const nlohmann::json mix = load_of(run, "custom");
    const std::vector<nlohmann::json> rows = rows_of(mix, "serialize");
    REQUIRE(rows.size() == 2);
    const std::uint64_t failures = mix["serialization_failures"];
    CHECK(failures > 0);
    CHECK(rows[1]["failures"] == failures);
    CHECK(rows[1]["retries"] == 2 * failures);
    CHECK(rows[1]["count"] == 0);
    CHECK(rows[0]["count"] == 3 * failures);  // each try ran the first line
    CHECK(rows[0]["failures"] == 0);
  }

  {
    INFO("process clients are refused: their figures would die with their processes");
    storh::test::write_text(dir / "one.sql", "SELECT 1;\n");
    const DsnSuiteRun run = run_custom_suite(
        server, dir, "processes", "clients = [1]\ntransactions = [2]\nmode = \"processes\"",
        fmt::format("scripts = \"{}\"\nstatement_latencies = true\n", (dir / "one.sql").string()));
    CHECK(run.cli.code == 3);
    REQUIRE(run.result["failures"].size() == 1);
    CHECK(
        contains(run.result["failures"][0]["message"], "statement_latencies needs thread clients"));
  }
}

TEST_CASE("statements: the rows leave out the warm-up and count the timed transactions",
          "[statements][cli]") {
  // The load's warm-up runs on the timed phase's own clients, so their rows used to
  // count it: 2 clients x 7 warm-up transactions more than the cell processed.
  const PgServer& server = storh::test::shared_suite_server();
  ScratchDir dir(storh::test::server_scratch_base());
  storh::test::write_text(dir / "two.sql", "SELECT 1;\nSELECT 2;\n");
  const std::string params =
      fmt::format("scripts = \"{}\"\nstatement_latencies = true\n", (dir / "two.sql").string());

  for (const char* warmup : {"warmup = 7", "warmup = \"50ms\""}) {
    INFO("the load's warm-up, " << warmup << ", on the clients that then run timed");
    const DsnSuiteRun run = run_custom_suite(
        server, dir, "warm", fmt::format("clients = [2]\ntransactions = [15]\n{}", warmup), params);
    INFO(run.cli.err << run.result["failures"].dump());
    REQUIRE(run.cli.code == 0);
    const nlohmann::json load = load_of(run, "custom");
    REQUIRE(load["processed"] == 30);
    const std::vector<nlohmann::json> rows = rows_of(load, "");
    REQUIRE(rows.size() == 2);
    for (const nlohmann::json& row : rows) CHECK(row["count"] == 30);
  }

  {
    INFO("the suite's warm-up runs are worker runs of their own, whose rows are dropped");
    const DsnSuiteRun run =
        run_custom_suite(server, dir, "warm-runs", "clients = [2]\ntransactions = [15]", params,
                         {"--warmup=2", "--repeat=2"});
    INFO(run.cli.err << run.result["failures"].dump());
    REQUIRE(run.cli.code == 0);
    const nlohmann::json load = load_of(run, "custom");
    REQUIRE(load["processed"] == 60);  // summed over the two timed repeats
    const std::vector<nlohmann::json> rows = rows_of(load, "");
    REQUIRE(rows.size() == 2);
    for (const nlohmann::json& row : rows) CHECK(row["count"] == 60);
  }
}
