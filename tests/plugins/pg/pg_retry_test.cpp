// Conflicts, retries, reconnections and per-script results of the `custom` transaction,
// against one real server the test starts (the cells use it as a DSN server, each in a
// database of its own): what pgbench 15 does with --max-tries, -C and pipelines, and a
// mix's results per script adding up to the mix's.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pg/pgbench_mix.h"
#include "pg_suite_run.h"

namespace pg = storh::engines::pg;
using storh::test::contains;
using storh::test::PgServer;
using storh::test::ScratchDir;

namespace {

namespace fs = std::filesystem;
using storh::test::DsnSuiteRun;
using storh::test::load_of;
using storh::test::run_custom_suite;

std::uint64_t counted(const nlohmann::json& load, const char* field) {
  return load.value(field, std::uint64_t{0});
}

}  // namespace

TEST_CASE("retry: a mix's parts are named from the list alone", "[retry]") {
  CHECK(pg::mix_part_names("suites/pg/transfer.sql@3, select-only@1,/x/Audit-2.sql") ==
        std::vector<std::string>{"transfer", "select_only", "audit_2"});
  CHECK(pg::mix_part_names("a.sql,b/a.sql,a.sql@2") == std::vector<std::string>{"a", "a_2", "a_3"});
  CHECK(pg::mix_part_names("") == std::vector<std::string>{"tpcb_like"});
  CHECK(pg::mix_part_names("1.sql,@3").empty());
}

TEST_CASE("retry: conflicts are retried with the same draws, counted by kind, and reconnect",
          "[retry][cli]") {
  const PgServer& server = storh::test::shared_suite_server();
  // A deadlock is found after deadlock_timeout (1 s by default): shorter, so that the
  // transfers' deadlocks cost little.
  server.connect().exec("ALTER SYSTEM SET deadlock_timeout = '10ms'");
  server.connect().exec("SELECT pg_reload_conf()");
  ScratchDir dir(storh::test::server_scratch_base());

  {
    INFO("a retried transaction draws what its first try drew");
    pg::Connection conn = server.connect();
    conn.exec("CREATE SEQUENCE tries");
    // Every first try (odd nextval) fails with a serialization failure.
    const pg::ScriptParse parsed = pg::parse_custom_script(
        "again.sql",
        "\\set r random(1, 1000000000)\n"
        "SELECT :r AS seen \\gset\n"
        "DO $$ BEGIN IF nextval('tries') % 2 = 1 THEN RAISE EXCEPTION USING ERRCODE = "
        "'serialization_failure'; END IF; END $$;\n");
    REQUIRE(parsed.script);
    pg::ScriptMix mix;
    mix.entries.push_back({"again.sql", false, *parsed.script, 1});
    mix.total_weight = 1;
    const pg::ScriptParse plain_parsed =
        pg::parse_custom_script("plain.sql", "\\set r random(1, 1000000000)\n");
    REQUIRE(plain_parsed.script);
    pg::ScriptMix plain;
    plain.entries.push_back({"plain.sql", false, *plain_parsed.script, 1});
    plain.total_weight = 1;
    pg::ClientSetup setup;
    setup.function_seed = 42;
    pg::MixClient retried(std::move(conn), pg::QueryMode::extended, mix, setup, 1);
    pg::MixClient reference(server.connect(), pg::QueryMode::extended, plain, setup, 1);
    for (int i = 0; i < 3; ++i) {
      retried.run({2, 0});
      reference.run();
      CHECK(retried.last_retries() == 1);
      CHECK(*retried.client().variables().text("seen") ==
            *reference.client().variables().text("r"));
    }
    // With one try the conflict is thrown, and said to be one.
    CHECK_THROWS_WITH(retried.run({1, 0}), Catch::Contains("could not serialize") ||
                                               Catch::Contains("serialization_failure"));
    CHECK(retried.last_conflict() == pg::Conflict::serialization);
    CHECK(retried.last_retries() == 0);
  }

  {
    INFO("8 clients transfer under REPEATABLE READ: retried, finished and consistent");
    const DsnSuiteRun run = run_custom_suite(
        server, dir, "transfer", "clients = [8]\ntransactions = [40]",
        fmt::format("scripts = \"{0}transfer.sql@3,{0}audit.sql@1\"\nvars = {{ accounts = 4 }}\n"
                    "max_tries = 1000\n",
                    storh::test::example_scripts()));
    INFO(run.cli.err << run.result["failures"].dump());
    REQUIRE(run.cli.code == 0);
    const nlohmann::json mix = load_of(run, "custom");
    const nlohmann::json transfer = load_of(run, "custom.transfer");
    const nlohmann::json audit = load_of(run, "custom.audit");
    // Every transaction finished, the audits found the sum unchanged (else 1 / 0).
    CHECK(mix["processed"] == 320);
    CHECK(mix["failed"] == 0);
    CHECK(counted(mix, "serialization_failures") + counted(mix, "deadlock_failures") == 0);
    CHECK(counted(mix, "retried") > 0);
    CHECK(counted(mix, "retries") >= counted(mix, "retried"));
    // The parts add up to the mix, and follow the weights 3:1.
    CHECK(transfer["processed"].get<std::uint64_t>() + audit["processed"].get<std::uint64_t>() ==
          320);
    CHECK(counted(transfer, "retries") + counted(audit, "retries") == counted(mix, "retries"));
    CHECK(counted(transfer, "retried") + counted(audit, "retried") == counted(mix, "retried"));
    CHECK(transfer["processed"].get<double>() / 320 > 0.65);
    CHECK(transfer["processed"].get<double>() / 320 < 0.85);
    CHECK(transfer["latency"]["count"] == transfer["processed"]);
    CHECK(transfer["tps_excluding_setup"].get<double>() +
              audit["tps_excluding_setup"].get<double>() ==
          Approx(mix["tps_excluding_setup"].get<double>()).epsilon(1e-9));
  }

  {
    INFO("a conflict after max_tries is a failure of its kind, and the cell still passes");
    storh::test::write_text(dir / "serialize.sql",
                            "DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = "
                            "'serialization_failure'; END $$;\n");
    storh::test::write_text(dir / "deadlock.sql",
                            "DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = "
                            "'deadlock_detected'; END $$;\n");
    const DsnSuiteRun run = run_custom_suite(
        server, dir, "give-up", "clients = [1]\ntransactions = [60]",
        fmt::format("scripts = \"{0},{1},select_only\"\nmax_tries = 3\n",
                    (dir / "serialize.sql").string(), (dir / "deadlock.sql").string()));
    INFO(run.cli.err << run.result["failures"].dump());
    REQUIRE(run.cli.code == 0);
    const nlohmann::json mix = load_of(run, "custom");
    const nlohmann::json serialize = load_of(run, "custom.serialize");
    const nlohmann::json deadlock = load_of(run, "custom.deadlock");
    const std::uint64_t serialization = counted(mix, "serialization_failures");
    const std::uint64_t deadlocks = counted(mix, "deadlock_failures");
    CHECK(serialization > 0);
    CHECK(deadlocks > 0);
    CHECK(mix["processed"].get<std::uint64_t>() + serialization + deadlocks == 60);
    CHECK(mix["failed"] == 0);
    // Each gave up after its third try: two retries each.
    CHECK(counted(mix, "retried") == serialization + deadlocks);
    CHECK(counted(mix, "retries") == 2 * (serialization + deadlocks));
    CHECK(counted(serialize, "serialization_failures") == serialization);
    CHECK(counted(serialize, "deadlock_failures") == 0);
    CHECK(counted(deadlock, "deadlock_failures") == deadlocks);
    CHECK(serialize["processed"] == 0);
    // The report says so too.
    const storh::test::CliResult report =
        storh::test::cli({"report", (dir / "give-up.json").string()});
    CHECK(contains(report.out, "serialization failures"));
    CHECK(contains(report.out, "deadlock failures"));
  }

  {
    INFO("unlimited tries run under a duration and are refused without one, as pgbench's");
    storh::test::write_text(dir / "once.sql", "SELECT 1;\n");
    const std::string params =
        fmt::format("scripts = \"{}\"\nmax_tries = 0\n", (dir / "once.sql").string());
    const DsnSuiteRun timed =
        run_custom_suite(server, dir, "unlimited", "clients = [1]\nduration = [\"1s\"]", params);
    INFO(timed.cli.err << timed.result["failures"].dump());
    CHECK(timed.cli.code == 0);
    const DsnSuiteRun counted = run_custom_suite(server, dir, "unlimited-count",
                                                 "clients = [1]\ntransactions = [3]", params);
    // Refused before any cell runs (pg_mix_test.cpp pins where the error points).
    CHECK(counted.cli.code == 2);
    CHECK(contains(counted.cli.err, "max_tries = 0 (no limit) needs a duration"));
    CHECK(counted.result.is_null());
  }

  {
    INFO("any other error still fails the cell, naming the script's line");
    storh::test::write_text(dir / "broken.sql", "SELECT 1;\nSELECT 1 / 0;\n");
    const DsnSuiteRun run =
        run_custom_suite(server, dir, "broken", "clients = [2]\ntransactions = [5]",
                         fmt::format("scripts = \"{},select_only\"\nmax_tries = 5\n",
                                     (dir / "broken.sql").string()));
    CHECK(run.cli.code == 3);
    REQUIRE(run.result["failures"].size() == 1);
    const std::string message = run.result["failures"][0]["message"];
    CHECK(contains(message, (dir / "broken.sql").string() + ":2: SELECT 1 / 0;"));
    CHECK(contains(message, "division by zero"));
  }

  {
    INFO("a new connection per transaction (pgbench -C), and a pipelined batch");
    const DsnSuiteRun run =
        run_custom_suite(server, dir, "reconnect", "clients = [2]\ntransactions = [30]",
                         fmt::format("scripts = \"{0}pipelined-batch.sql,{0}read-write.sql\"\n"
                                     "query_mode = \"extended\"\nconnect = \"per_transaction\"\n",
                                     storh::test::example_scripts()));
    INFO(run.cli.err << run.result["failures"].dump());
    REQUIRE(run.cli.code == 0);
    const nlohmann::json mix = load_of(run, "custom");
    CHECK(mix["processed"] == 60);
    CHECK(mix["connection_mean"].get<double>() > 0);
    CHECK(load_of(run, "custom.pipelined_batch")["processed"].get<std::uint64_t>() +
              load_of(run, "custom.read_write")["processed"].get<std::uint64_t>() ==
          60);
  }
}
