// Per-command latencies of a load cell (result::StatementLatency, pgbench -r): summed
// over the repeats, carried through the worker's outcome JSON, refused when malformed,
// and printed as pgbench prints them.
#include <catch2/catch.hpp>

#include "load/outcome.h"
#include "load/summary.h"
#include "report/statements_section.h"
#include "result/json.h"

namespace {

using storh::result::StatementLatency;

std::vector<StatementLatency> repeat_rows(std::uint64_t count, double seconds) {
  return {{"transfer", 5, "\\set from random(1, :accounts)", count, seconds / 100, 0, 0},
          {"transfer", 9, "UPDATE pgbench_accounts SET abalance = abalance - :amount", count,
           seconds, 1, 4}};
}

}  // namespace

TEST_CASE("statements: a cell sums each command's runs over its repeats", "[statements]") {
  storh::load::LoadOutcome first, second;
  first.statements = repeat_rows(10, 0.02);
  second.statements = repeat_rows(30, 0.04);
  const storh::result::LoadResult cell = storh::load::summarize_load({}, {first, second});
  REQUIRE(cell.statements.size() == 2);
  CHECK(cell.statements[1].count == 40);
  CHECK(cell.statements[1].seconds == Approx(0.06));
  CHECK(cell.statements[1].failures == 2);
  CHECK(cell.statements[1].retries == 8);
  CHECK(cell.statements[0].line == 5);
}

TEST_CASE("statements: the outcome JSON carries the rows, and a bad row names itself",
          "[statements]") {
  storh::load::LoadOutcome outcome;
  outcome.statements = repeat_rows(3, 0.5);
  const storh::Expected<storh::load::LoadOutcome> back =
      storh::load::load_outcome_from_json(storh::load::to_json(outcome));
  REQUIRE(back);
  CHECK(back->statements == outcome.statements);
  // An outcome without rows has no key, and reads back without rows.
  CHECK_FALSE(storh::load::to_json(storh::load::LoadOutcome{}).contains("statements"));

  nlohmann::json json = storh::load::to_json(outcome);
  CHECK(json["statements"][1]["mean"] == Approx(0.5 / 3));
  json["statements"][1].erase("count");
  const auto bad = storh::load::load_outcome_from_json(json);
  REQUIRE_FALSE(bad);
  CHECK(bad.error() == "load outcome: /statements/1: missing key \"count\"");
}

TEST_CASE("statements: the text report prints pgbench -r's columns per script", "[statements]") {
  storh::result::Metric metric;
  metric.engine = "pg";
  metric.key = "pg.custom[clients=2,transactions=20]";
  metric.load.emplace();
  metric.load->statements = repeat_rows(4, 0.01);
  metric.load->statements.push_back({"audit", 4, "END;", 0, 0, 0, 0});
  const std::string text =
      storh::report::statements_section({&metric}, storh::report::ReportFormat::text);
  CHECK(text ==
        "  statement latencies in milliseconds, failures and retries: "
        "custom[clients=2,transactions=20]\n"
        "    script transfer:\n"
        "          0.025           0           0  \\set from random(1, :accounts)\n"
        "          2.500           1           4  UPDATE pgbench_accounts SET abalance = "
        "abalance - :amount\n"
        "    script audit:\n"
        "          0.000           0           0  END;\n");
  storh::result::Metric other;
  other.load.emplace();
  CHECK(storh::report::statements_section({&other}, storh::report::ReportFormat::text).empty());
}
