// Users' own pgbench scripts and weighted mixes (pgbench -f file@w, -b name@w): the
// `scripts` list read as pgbench reads its options, the script choice made as pgbench
// makes it for the same seed, and the `custom` load transaction through the CLI: a mix
// runs, a bad script is bad input before any cell, a run-time error fails its cell.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "pg/installation.h"
#include "pg/pgbench_mix.h"
#include "pg_server_fixture.h"
#include "test_support.h"

namespace pg = storh::engines::pg;
using storh::test::contains;
using storh::test::PgServer;
using storh::test::ScratchDir;

namespace {

namespace fs = std::filesystem;

std::string errors_of(const pg::MixParse& parsed) {
  std::string all;
  for (const std::string& error : parsed.errors) all += error + "\n";
  return all;
}

// pgbench's output for `options` against `server` (stdout and stderr).
std::string pgbench_output(const PgServer& server, const std::string& options) {
  const std::string command =
      fmt::format("'{}' -h '{}' -p {} -U {} -n {} postgres 2>&1",
                  (pg::find_installation("").bindir / "pgbench").string(),
                  server.server->socket_host(), pg::kSocketPort, pg::kSuperuser, options);
  std::string output;
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) output += buffer.data();
  REQUIRE(::pclose(pipe) == 0);
  return output;
}

// "SQL script 2: ...\n - weight: 3 ...\n - 1496 transactions": the counts by script.
std::vector<std::uint64_t> per_script_counts(const std::string& output) {
  const std::regex block(R"(SQL script \d+: [^\n]*\n - weight: [^\n]*\n - (\d+) transactions)");
  std::vector<std::uint64_t> counts;
  for (std::sregex_iterator it(output.begin(), output.end(), block), end; it != end; ++it) {
    counts.push_back(std::stoull((*it)[1].str()));
  }
  return counts;
}

struct MixSuiteRun {  // NOLINT(bugprone-exception-escape): a test's value
  storh::test::CliResult cli;
  nlohmann::json result;
};

MixSuiteRun run_mix_suite(const ScratchDir& dir, const std::string& body) {
  const fs::path suite = dir / "pg.toml";
  storh::test::write_text(suite, "name = \"pg\"\ntimeout = \"120s\"\n" + body + "\n");
  const fs::path output = dir / "pg.json";
  MixSuiteRun run;
  run.cli =
      storh::test::cli({suite.string(), std::string("--plugin-path=") + STORH_TEST_PLUGIN_DIR,
                        "--output=" + output.string(), "--work-dir=" + (dir / "work").string()});
  if (fs::exists(output)) run.result = nlohmann::json::parse(storh::test::read_text(output));
  return run;
}

std::string custom_load_suite(std::uint64_t transactions, const std::string& scripts) {
  return fmt::format(
      "datasets = [1]\n[load]\nclients = [1]\ntransactions = [{}]\nwarmup = 0\nprogress = 0\n"
      "[engines.pg]\noperations = [\"custom\"]\n[engines.pg.params]\nrandom_seed = 7\n"
      "vars = {{ n = 10 }}\nscripts = {}\n",
      transactions, scripts);
}

}  // namespace

TEST_CASE("mix: scripts and weights are read as pgbench reads -f and -b", "[mix]") {
  ScratchDir dir;
  storh::test::write_text(dir / "ok.sql", "SELECT 1;\n");
  storh::test::write_text(dir / "bad.sql", "SELECT 1;\n\\set x 1 +\n");

  const pg::MixParse mix = pg::load_script_mix("select-only@2, ok.sql@3,tpcb_like", dir.path());
  INFO(errors_of(mix));
  REQUIRE(mix.errors.empty());
  REQUIRE(mix.mix.entries.size() == 3);
  CHECK(mix.mix.entries[0].name == "select_only");
  CHECK(mix.mix.entries[0].weight == 2);
  CHECK(mix.mix.entries[1].name == "ok.sql");
  CHECK_FALSE(mix.mix.entries[1].builtin);
  CHECK(mix.mix.entries[2].weight == 1);
  CHECK(mix.mix.total_weight == 6);
  // pgbench allows a weight of 0 for a script, not for the whole mix.
  CHECK(pg::load_script_mix("ok.sql@0,select_only", dir.path()).errors.empty());
  CHECK(contains(errors_of(pg::load_script_mix("ok.sql@0", dir.path())), "must not be zero"));
  // An empty list is pgbench's default script.
  CHECK(pg::load_script_mix("", dir.path()).mix.entries.at(0).name == "tpcb_like");

  // Every error at once, a script's with file:line:col.
  const pg::MixParse bad =
      pg::load_script_mix("bad.sql,ok.sql@x,ok.sql@-1,missing.sql,,select@1", dir.path());
  const std::string errors = errors_of(bad);
  CHECK(bad.errors.size() == 6);
  CHECK(contains(errors, (dir / "bad.sql").string() + ":2:"));
  CHECK(contains(errors, "invalid weight specification \"@x\""));
  CHECK(contains(errors, "out of range (0 .. 2147483647)"));
  CHECK(contains(errors, "missing.sql: cannot read the script"));
  CHECK(contains(errors, "an empty entry"));
  CHECK(contains(errors, "built-in scripts: tpcb_like, simple_update, select_only"));

  CHECK(pg::parse_script_vars("n=10; m = x=y;") ==
        std::vector<std::pair<std::string, std::string>>{{"n", "10"}, {"m", " x=y"}});
  CHECK_THROWS_WITH(pg::parse_script_vars("n"), Catch::Contains("invalid variable definition"));
  CHECK_THROWS_WITH(pg::parse_script_vars("1n=2"), Catch::Contains("invalid variable name"));
}

TEST_CASE("mix: each client chooses the scripts pgbench's thread chooses with the same seed",
          "[mix]") {
  PgServer server;
  const fs::path one = server.scratch.path() / "one.sql";
  const fs::path three = server.scratch.path() / "three.sql";
  storh::test::write_text(one, "SELECT 1;\n");
  storh::test::write_text(three, "SELECT 3;\n");
  const std::string output =
      pgbench_output(server, fmt::format("-c 2 -j 2 -t 1000 --random-seed=7 -f '{}@1' -f '{}@3'",
                                         one.string(), three.string()));
  INFO(output);
  const std::vector<std::uint64_t> theirs = per_script_counts(output);
  REQUIRE(theirs.size() == 2);

  const pg::MixParse parsed =
      pg::load_script_mix(fmt::format("{}@1,{}@3", one.string(), three.string()), "/");
  REQUIRE(parsed.errors.empty());
  const pg::PgbenchSeeds seeds(7, 2, 2);
  std::vector<std::uint64_t> ours(2, 0);
  for (std::uint32_t k = 0; k < 2; ++k) {
    pg::ClientSetup setup;
    setup.client_id = k;
    setup.function_seed = seeds.client[k];
    pg::MixClient client(server.connect(), pg::QueryMode::extended, parsed.mix, setup,
                         seeds.choose[k]);
    for (int i = 0; i < 1000; ++i) {
      client.run();
      ++ours[client.last_script()];
    }
  }
  // pgbench's per-script report can miss a transaction its total counted (seen: 527 +
  // 1472 of "2000/2000 processed"): each script may differ from ours by at most what
  // its report lost, and no more.
  const std::uint64_t lost = 2000 - (theirs[0] + theirs[1]);
  INFO("pgbench's per-script counts miss " << lost << " of its 2000");
  for (std::size_t s = 0; s < 2; ++s) {
    CHECK(ours[s] >= theirs[s]);
    CHECK(ours[s] - theirs[s] <= lost);
  }
  CHECK(ours[0] + ours[1] == 2000);
  // 1:3 within a few percent of 2,000.
  CHECK(ours[0] > 450);
  CHECK(ours[0] < 550);
}

TEST_CASE("mix: a weighted mix of a file and a built-in runs through the CLI", "[mix][cli]") {
  ScratchDir dir(storh::test::server_scratch_base());
  storh::test::write_text(dir / "mine.sql",
                          "\\set aid random_zipfian(1, 100000 * :scale, 1.07)\n"
                          "\\set aid :aid + :n - 10\n"  // vars = { n = 10 }
                          "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n");
  const MixSuiteRun run = run_mix_suite(
      dir,
      custom_load_suite(2000, fmt::format("\"select_only@1,{}@3\"", (dir / "mine.sql").string())) +
          "query_mode = [\"simple\", \"extended\", \"prepared\"]\n");
  INFO(run.cli.err << run.result["failures"].dump());
  REQUIRE(run.cli.code == 0);
  for (const char* mode : {"simple", "extended", "prepared"}) {
    const nlohmann::json& m = storh::test::metric(
        run.result, fmt::format("pg.custom[query_mode={},clients=1,transactions=2000]", mode));
    CHECK(m["load"]["processed"] == 2000);
    CHECK(m["load"]["failed"] == 0);
  }
}

TEST_CASE("mix: a bad script is bad input with file:line:col before any cell", "[mix][cli]") {
  ScratchDir dir(storh::test::server_scratch_base());
  storh::test::write_text(dir / "bad.sql", "SELECT 1;\n\\set x random(1,\n");
  const MixSuiteRun run =
      run_mix_suite(dir, custom_load_suite(5, fmt::format("\"{}@3\"", (dir / "bad.sql").string())));
  CHECK(run.cli.code == 2);
  CHECK(contains(run.cli.err, (dir / "bad.sql").string() + ":2:"));
  CHECK_FALSE((fs::exists(dir / "work") && !fs::is_empty(dir / "work")));
}

TEST_CASE("mix: a run-time error fails only its cell, naming the script's line", "[mix][cli]") {
  ScratchDir dir(storh::test::server_scratch_base());
  storh::test::write_text(dir / "div.sql", "SELECT 1;\n\\set x 1 / (:client_id - :client_id)\n");
  const MixSuiteRun run = run_mix_suite(
      dir,
      custom_load_suite(5, fmt::format("[\"select_only\", \"{}\"]", (dir / "div.sql").string())));
  CHECK(run.cli.code == 3);
  REQUIRE(run.result["failures"].size() == 1);
  const std::string message = run.result["failures"][0]["message"];
  CHECK(contains(message, (dir / "div.sql").string() + ":2"));
  CHECK(contains(message, "division by zero"));
  const nlohmann::json& other =
      storh::test::metric(run.result, "pg.custom[scripts=select_only,clients=1,transactions=5]");
  CHECK(other["load"]["processed"] == 5);
}

TEST_CASE("mix: unlimited tries without a duration are bad input at the value, before any cell",
          "[mix][cli]") {
  // Regression: max_tries = 0 with a count of transactions passed validate and failed
  // each cell at its first transaction.
  ScratchDir dir(storh::test::server_scratch_base());
  const MixSuiteRun run =
      run_mix_suite(dir, custom_load_suite(5, "\"select_only\"") + "max_tries = 0\n");
  CHECK(run.cli.code == 2);
  // The 15th line of the suite is "max_tries = 0"; the error points at its value.
  CHECK(contains(run.cli.err, (dir / "pg.toml").string() + ":15:13: pg.max_tries: max_tries = 0 "
                                                           "(no limit) needs a duration"));
  CHECK_FALSE((fs::exists(dir / "work") && !fs::is_empty(dir / "work")));
}

TEST_CASE("mix: a quoted --set value is one mix, and an unquoted one gets a note", "[mix][cli]") {
  // Regression: --set pg.scripts=a@3,b@1 split at the comma into two one-script cells,
  // silently, so a mix could only be given in a suite file.
  ScratchDir dir(storh::test::server_scratch_base());
  storh::test::write_text(dir / "pg.toml",
                          "name = \"pg\"\n" + custom_load_suite(5, "\"select_only\"") + "\n");
  const auto validate = [&](const std::string& set) {
    return storh::test::cli({"validate", (dir / "pg.toml").string(),
                             std::string("--plugin-path=") + STORH_TEST_PLUGIN_DIR, "--set", set});
  };
  const std::string note = "a weight on the only script of a mix changes nothing";
  const storh::test::CliResult quoted = validate("pg.scripts=\"select_only@3,simple_update@1\"");
  INFO(quoted.out << quoted.err);
  CHECK(quoted.code == 0);
  CHECK(contains(quoted.out, "1 cell(s)"));
  CHECK(contains(quoted.out, "scripts=select_only@3,simple_update@1"));
  CHECK_FALSE(contains(quoted.err, note));
  const storh::test::CliResult unquoted = validate("pg.scripts=select_only@3,simple_update@1");
  INFO(unquoted.out << unquoted.err);
  CHECK(unquoted.code == 0);
  CHECK(contains(unquoted.out, "2 cell(s)"));
  CHECK(contains(unquoted.err, note));
  CHECK(contains(unquoted.err, "--set 'pg.scripts=\"a.sql@3,select_only@1\"'"));
  // Said once, not once per cell.
  CHECK(unquoted.err.find(note) == unquoted.err.rfind(note));
}
