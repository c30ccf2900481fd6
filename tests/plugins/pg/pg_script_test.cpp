// pgbench's custom-script language against the real pgbench 15: the same script run by
// pgbench and by storh's CustomClient against one throwaway server writes the same
// values; the same seed draws the same numbers per client; bad scripts are refused
// with file:line:col before anything runs; run-time errors name the line.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "pg/installation.h"
#include "pg/pgbench_custom.h"
#include "pg_server_fixture.h"

namespace pg = storh::engines::pg;
using storh::test::PgServer;

namespace {

struct PgbenchRun {
  int status = 0;
  std::string output;
};

// Runs the real pgbench over `script` against `server`; `options` as pgbench takes them.
PgbenchRun run_pgbench(const PgServer& server, const std::string& script,
                       const std::string& options) {
  const std::filesystem::path file = server.scratch.path() / "script.sql";
  std::ofstream(file, std::ios::trunc) << script;
  const std::string command = fmt::format("'{}' -h '{}' -p {} -U {} -n {} -f '{}' postgres 2>&1",
                                          (pg::find_installation("").bindir / "pgbench").string(),
                                          server.server->socket_host(), pg::kSocketPort,
                                          pg::kSuperuser, options, file.string());
  PgbenchRun run;
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) run.output += buffer.data();
  run.status = ::pclose(pipe);
  return run;
}

pg::CustomScript parse_ok(const std::string& text, const std::string& name = "script.sql") {
  pg::ScriptParse parsed = pg::parse_custom_script(name, text);
  INFO(parsed.error);
  REQUIRE(parsed.script);
  return std::move(*parsed.script);
}

using Rows = std::map<std::int64_t, std::string>;

Rows results_of(pg::Connection& conn, const std::string& who) {
  const pg::Result rows =
      conn.exec(fmt::format("SELECT line, value FROM results WHERE who = '{}' ORDER BY line", who));
  Rows out;
  for (int row = 0; row < rows.rows(); ++row) {
    out[rows.integer(row, 0, "line")] = std::string(rows.text(row, 1));
  }
  return out;
}

// Every expression of the language, one \set each; the value goes to `results` as the
// text pgbench substitutes (so doubles compare to the last digit pgbench prints).
// NOLINTNEXTLINE(readability-identifier-naming): a constant, if not constexpr
const std::vector<std::string> kExpressions = {
    "1 + 2",
    "7 - 10",
    "6 * 7",
    "7 / 2",
    "-7 / 2",
    "7 % 3",
    "-7 % 3",
    "1.5 + 2",
    "7 / 2.0",
    "1 / 3.0",
    "2 * pi()",
    "1 = 1",
    "1 <> 2",
    "1 != 1",
    "2 < 3",
    "3 <= 3",
    "4 > 5",
    "4 >= 4",
    "1.5 < 2",
    "true AND false",
    "true OR false",
    "NOT true",
    "NULL AND false",
    "false AND NULL",
    "NULL OR true",
    "true or NULL",
    "12 & 10",
    "12 | 10",
    "12 # 10",
    "~5",
    "1 << 10",
    "-16 >> 2",
    "NULL IS NULL",
    "1 IS NULL",
    "1 ISNULL",
    "1 NOTNULL",
    "true IS TRUE",
    "false IS NOT TRUE",
    "1 IS NOT NULL",
    "CASE WHEN 1 > 2 THEN 10 WHEN 2 > 1 THEN 20 ELSE 30 END",
    "CASE WHEN false THEN 1 END",
    "abs(-5)",
    "abs(-2.5)",
    "debug(3)",
    "double(3)",
    "exp(1)",
    "greatest(1, 5.5, 3)",
    "least(4, 2, 9)",
    "hash(42)",
    "hash(42, 7)",
    "hash_fnv1a(42)",
    "hash_fnv1a(-1, 3)",
    "hash_murmur2(123456789, -5)",
    "int(3.7)",
    "int(-2.5)",
    "int(2.5)",
    "ln(10)",
    "ln(0)",
    "mod(-7, 3)",
    "permute(3, 10)",
    "permute(7, 1000, 12345)",
    "permute(-5, 7)",
    "pi()",
    "pow(2, 10)",
    "power(2.5, 0.5)",
    "random(1, 1000000)",
    "random(-5, 5)",
    "random_exponential(1, 1000, 2.5)",
    "random_gaussian(1, 1000, 3.0)",
    "random_zipfian(1, 1000, 1.5)",
    "random_zipfian(1, 10, 2.5)",
    "sqrt(2)",
    "sqrt(-1)",
    "9223372036854775807",
    "-9223372036854775808",
    "1e10",
    ".5",
    "3.0e-3",
    "1.0 / 7",
    "exp(700) * 10",
    ":client_id",
    ":scale",
    ":random_seed",
    ":default_seed",
    ":v1 + 1",
    "1 + 2 * 3",
    "(1 + 2) * 3",
    "- 2 * 3",
    "~1 + 2",
    "NOT 1 = 2",
    "2 + 3 = 5 AND 1 < 2",
    ":dv * 2",
    ":dt AND true",
    ":di + 1",
    "abs(-9223372036854775807 - 1)",
    "1 < 2 IS TRUE",
    "CASE WHEN NULL THEN 1 WHEN 0 THEN 2 WHEN 0.5 THEN 3 END",
    "random(1, 10) > random(1, 10)",
    "greatest(2, 3) + least(1.5, 7)"};

std::string expressions_script() {
  std::string script = "CREATE TABLE IF NOT EXISTS results (who text, line int, value text);\n";
  for (std::size_t i = 0; i < kExpressions.size(); ++i) {
    script += fmt::format("\\set v{} {}\n", i + 1, kExpressions[i]);
    script += fmt::format("INSERT INTO results VALUES (':who', {}, ':v{}');\n", i + 1, i + 1);
  }
  return script;
}

pg::ClientSetup setup_for(std::uint64_t seed, std::uint32_t clients, std::uint32_t client,
                          std::vector<std::pair<std::string, std::string>> defines) {
  const pg::PgbenchSeeds seeds(seed, clients, 1);
  pg::ClientSetup setup;
  setup.client_id = client;
  setup.random_seed = seed;
  setup.default_seed = seeds.default_seed;
  setup.function_seed = seeds.client[client];
  setup.defines = std::move(defines);
  return setup;
}

}  // namespace

TEST_CASE("script: every operator and function gives what pgbench gives", "[script]") {
  PgServer server;
  const std::string script = expressions_script();
  const std::string defines = "-D dv=2.5 -D dt=yes -D di=' 41'";
  for (const std::uint64_t seed : {7ULL, 1234567ULL}) {
    const PgbenchRun run = run_pgbench(
        server, script,
        fmt::format("-t 1 -M simple --random-seed={} -D who=pgbench{} {}", seed, seed, defines));
    INFO(run.output);
    REQUIRE(run.status == 0);

    pg::CustomClient client(
        server.connect(), pg::QueryMode::simple,
        setup_for(
            seed, 1, 0,
            {{"dv", "2.5"}, {"dt", "yes"}, {"di", " 41"}, {"who", fmt::format("storh{}", seed)}}));
    std::vector<std::string> debug_lines;
    client.on_debug([&](const std::string& line) { debug_lines.push_back(line); });
    client.run(parse_ok(script));
    REQUIRE(debug_lines.size() == 1);
    CHECK(run.output.find(debug_lines[0]) != std::string::npos);

    pg::Connection conn = server.connect();
    const Rows theirs = results_of(conn, fmt::format("pgbench{}", seed));
    const Rows ours = results_of(conn, fmt::format("storh{}", seed));
    REQUIRE(theirs.size() == kExpressions.size());
    for (const auto& [line, value] : theirs) {
      INFO(kExpressions[static_cast<std::size_t>(line - 1)]);
      CHECK(ours.at(line) == value);
    }
  }
}

TEST_CASE("script: client k draws what pgbench's client k draws with the same seed", "[script]") {
  PgServer server;
  const std::string script =
      "\\set a random(1, 100000)\n"
      "\\set b random_zipfian(1, 1000, 1.5)\n"
      "\\set c random_exponential(1, 1000, 2.0)\n"
      "\\set d random_gaussian(1, 1000, 2.5)\n"
      "\\set e permute(:a, 100000)\n"
      "\\set f hash(:a)\n"
      "INSERT INTO draws (who, client, a, b, c, d, e, f)\n"
      "  VALUES (':who', :client_id, :a, :b, :c, :d, :e, :f);\n";
  server.connect().exec(
      "CREATE TABLE draws (id bigserial, who text, client int, a bigint, b bigint, c bigint, "
      "d bigint, e bigint, f bigint)");
  const PgbenchRun run =
      run_pgbench(server, script, "-c 3 -j 1 -t 20 -M simple --random-seed=42 -D who=pgbench");
  INFO(run.output);
  REQUIRE(run.status == 0);
  const pg::CustomScript parsed = parse_ok(script);
  for (std::uint32_t k = 0; k < 3; ++k) {
    pg::CustomClient client(server.connect(), pg::QueryMode::simple,
                            setup_for(42, 3, k, {{"who", "storh"}}));
    for (int i = 0; i < 20; ++i) client.run(parsed);
  }
  pg::Connection conn = server.connect();
  auto draws = [&](const std::string& who, std::uint32_t k) {
    const pg::Result rows = conn.exec(fmt::format(
        "SELECT a, b, c, d, e, f FROM draws WHERE who = '{}' AND client = {} ORDER BY id", who, k));
    std::vector<std::string> out;
    for (int row = 0; row < rows.rows(); ++row) {
      std::string line;
      for (int col = 0; col < 6; ++col) line += std::string(rows.text(row, col)) + " ";
      out.push_back(line);
    }
    return out;
  };
  for (std::uint32_t k = 0; k < 3; ++k) {
    INFO("client " << k);
    const std::vector<std::string> theirs = draws("pgbench", k);
    REQUIRE(theirs.size() == 20);
    CHECK(draws("storh", k) == theirs);
  }
}

TEST_CASE("script: the query modes run :variables as pgbench does", "[script]") {
  PgServer server;
  const std::string script =
      "\\set n 5\n"
      "SELECT :n * 2 AS twice, 'x' || :n::text AS cast_ok \\gset r_\n"
      "\\if :r_twice = 10\n"
      "  SELECT 1 AS branch \\gset\n"
      "\\elif true\n"
      "  SELECT 2 AS branch \\gset\n"
      "\\else\n"
      "  SELECT 3 AS branch \\gset\n"
      "\\endif\n"
      "SELECT 7 AS p \\; SELECT 8 AS q \\aset\n";
  const pg::CustomScript parsed = parse_ok(script);
  for (const pg::QueryMode mode :
       {pg::QueryMode::simple, pg::QueryMode::extended, pg::QueryMode::prepared}) {
    pg::CustomClient client(server.connect(), mode, setup_for(1, 1, 0, {}));
    if (mode == pg::QueryMode::simple) {
      client.run(parsed);
      CHECK(*client.variables().text("q") == "8");
      CHECK(*client.variables().text("p") == "7");
    } else {
      // A compound command cannot be one extended-protocol statement (nor in pgbench).
      CHECK_THROWS_WITH(client.run(parsed), Catch::Contains("script.sql:10:"));
    }
    CHECK(*client.variables().text("r_twice") == "10");
    CHECK(*client.variables().text("r_cast_ok") == "x5");
    CHECK(*client.variables().text("branch") == "1");
  }
}

TEST_CASE("script: run-time errors name the line, with pgbench's message", "[script]") {
  PgServer server;
  struct Case {
    std::string script;
    std::string ours;
  };
  const std::vector<Case> cases = {
      {"\\set x 1\n\\set y :x / 0\n", "script.sql:2: \\set y :x / 0: division by zero"},
      {"SELECT 1\n  WHERE false \\gset\n",
       "script.sql:1: SELECT 1: query 0: expected one row, "
       "got 0"},
      {"\\set x :nope + 1\n", "script.sql:1: \\set x :nope + 1: undefined variable \"nope\""},
      {"\\set x 9223372036854775807 + 1\n", "bigint add out of range"},
      {"\\set x random(5, 1)\n", "empty range given to random"},
      {"\\set x random_exponential(1, 10, 0)\n",
       "exponential parameter must be greater than zero (not 0.000000)"},
      {"\\set x random_zipfian(1, 10, 1)\n",
       "zipfian parameter must be in range [1.001, 1000] (not 1.000000)"},
      {"\\set x random_gaussian(1, 10, 1.5)\n",
       "gaussian parameter must be at least 2.000000 (not 1.500000)"},
      {"\\set x permute(1, 0)\n", "permute size parameter must be greater than zero"},
      {"\\set x int(1e30)\n", "double to int overflow for"},
      {"\\set x 1 AND true\n", "cannot coerce int to boolean"},
  };
  for (const Case& c : cases) {
    INFO(c.script);
    pg::CustomClient client(server.connect(), pg::QueryMode::simple, setup_for(1, 1, 0, {}));
    CHECK_THROWS_WITH(client.run(parse_ok(c.script)), Catch::Contains(c.ours));
    // pgbench says the same thing (our message adds where).
    const std::string what =
        c.ours.substr(c.ours.rfind(": ") == std::string::npos ? 0 : c.ours.rfind(": ") + 2);
    const PgbenchRun run = run_pgbench(server, c.script, "-t 1");
    CHECK(run.status != 0);
    CHECK(run.output.find(what) != std::string::npos);
  }
}

TEST_CASE("script: bad scripts are refused with file:line:col before anything runs", "[script]") {
  struct Case {
    const char* text;
    const char* error;
  };
  const std::vector<Case> cases = {
      {"SELECT 1;\n\\foo bar\n", "mine.sql:2:1: unknown meta-command \"\\foo\" (valid: \\set,"},
      {"\\set x 1 +\n", "mine.sql:1:11: \\set: expected an operand after \"+\""},
      {"\\set x (1 + 2\n", "mine.sql:1:14: \\set: expected \")\" to close the \"(\" at column 8"},
      {"\\set x frob(1)\n", "mine.sql:1:8: \\set: unknown function \"frob\" (valid: abs,"},
      {"\\set x random(1)\n", "mine.sql:1:8: \\set: \"random\" takes 2 arguments, not 1"},
      {"\\set x hash(1, 2, 3)\n", "\"hash\" takes 1 or 2 arguments, not 3"},
      {"\\set x least()\n", "\"least\" takes at least 1 argument, not 0"},
      {"\\shell echo hi\n", "mine.sql:1:1: \\shell: a suite never runs commands;"},
      {"\\setshell x echo 1\n", "mine.sql:1:1: \\setshell: a suite never runs commands;"},
      {"SELECT 1;\n\\if true\nSELECT 2;\n", "mine.sql:2:1: \\if without matching \\endif"},
      {"SELECT 1;\n\\else\n", "mine.sql:2:1: \\else without matching \\if"},
      {"\\if 1\n\\else\n\\elif 2\n\\endif\n", "mine.sql:3:1: \\elif after the \\else of line 2"},
      {"\\endif\n", "mine.sql:1:1: \\endif without matching \\if"},
      {"\\set x 1\n\\gset\n", "mine.sql:2:1: \\gset must follow an SQL command"},
      {"SELECT 1 AS a \\gset 1bad\n", "mine.sql:1:21: \\gset: the prefix \"1bad\" makes invalid"},
      {"SELECT 1 AS a \\gset p-q\n", "the prefix \"p-q\" makes invalid variable names"},
      {"", "mine.sql:1:1: the script has no command"},
      {"-- only a comment\n\n", "mine.sql:1:1: the script has no command"},
      {"\\sleep 10 hours\n", "mine.sql:1:11: \\sleep: unknown time unit \"hours\" (valid: us,"},
      {"\\sleep abc\n", "mine.sql:1:8: \\sleep: invalid sleep time \"abc\""},
      {"\\sleep\n", "mine.sql:1:1: \\sleep: expected a time"},
      {"\\set x CASE WHEN 1 THEN 2\n",
       "mine.sql:1:26: \\set: expected WHEN, ELSE or END to "
       "close the CASE at column 8"},
      {"\\set x CASE 1 END\n", "\\set: expected WHEN after CASE"},
      {"\\set x 1 < 2 < 3\n", "mine.sql:1:14: \\set: \"<\" cannot follow the comparison"},
      {"\\set x 99999999999999999999\n", "mine.sql:1:8: \\set: bigint constant overflow"},
      {"\\set x 1 @ 2\n", "mine.sql:1:10: \\set: unexpected character \"@\""},
      {"\\set 1x 2\n", "mine.sql:1:6: \\set: invalid variable name \"1x\""},
      {"\\set x\n", "mine.sql:1:7: \\set: expected an expression"},
      {"\\set x 1 2\n", "mine.sql:1:10: \\set: expected an operator or the end of the line"},
      {"SELECT 'abc;\n", "mine.sql:1:8: unterminated quoted string that starts here"},
      {"\\else extra\n", "mine.sql:1:7: \\else: unexpected argument \"extra\""},
      {"\\set x 1 IS 5\n", "mine.sql:1:13: \\set: expected NULL, TRUE or FALSE after \"IS\""},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    const pg::ScriptParse parsed = pg::parse_custom_script("mine.sql", c.text);
    CHECK_FALSE(parsed.script);
    CHECK_THAT(parsed.error, Catch::StartsWith(c.error) || Catch::Contains(c.error));
  }
  const pg::ScriptParse missing = pg::load_custom_script("/nonexistent/mine.sql");
  CHECK_FALSE(missing.script);
  CHECK_THAT(missing.error, Catch::StartsWith("/nonexistent/mine.sql: cannot read the script:"));
}

TEST_CASE("script: SQL commands end where pgbench ends them", "[script]") {
  const pg::CustomScript script = parse_ok(
      "-- a comment\n"
      "SELECT ';' AS a,\n  $$ ; $$ AS b, $x$;$x$ AS c;\n"
      "SELECT (1;\n2);\n"
      "SELECT 1 \\; SELECT 2;\n"
      "SELECT E'\\';' /* ; /* nested ; */ */;\n"
      "SELECT 3 \\gset\n"
      "SELECT 4");
  REQUIRE(script.commands.size() == 6);
  CHECK(script.commands[0].sql == "SELECT ';' AS a,\n  $$ ; $$ AS b, $x$;$x$ AS c;");
  CHECK(script.commands[0].line == 2);
  CHECK(script.commands[1].sql == "SELECT (1;\n2);");
  CHECK(script.commands[2].sql == "SELECT 1 ; SELECT 2;");
  CHECK(script.commands[3].sql == "SELECT E'\\';' /* ; /* nested ; */ */;");
  CHECK(script.commands[4].result_variables == pg::ResultVariables::gset);
  CHECK(script.commands[5].sql == "SELECT 4");
}
